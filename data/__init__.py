"""The access patterns of a declared model: its reads and writes, built on the store; no
GraphQL here."""
