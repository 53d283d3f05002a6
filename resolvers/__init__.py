"""Strawberry types and resolvers, one module per area; thin by design."""
