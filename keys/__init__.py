"""The whole key design of the dynagate table, as data and pure functions.

Nothing here performs I/O, reads a clock or draws random numbers: callers pass
times and random bytes in, so every key can be rendered, parsed and tested offline.
"""
