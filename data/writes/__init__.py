"""Creates, updates and deletes of a declared entity, by how its items are kept; a parent's
removal."""
