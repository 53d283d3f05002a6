"""Strawberry types of a declared model and their resolvers: thin by design, each field
asking the access patterns (`data/`) and answering a type."""
