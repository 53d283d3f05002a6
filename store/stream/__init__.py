"""The table's stream: its reader, its shards, and their leases across replicas."""
