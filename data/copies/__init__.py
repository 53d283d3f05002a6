"""Entities kept with a copy in every list a filter can ask for: their writes and their check."""
