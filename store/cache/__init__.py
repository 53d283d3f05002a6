"""The read cache of one process: what reads returned, kept exact by the table's stream."""
