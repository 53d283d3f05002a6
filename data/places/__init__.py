"""Entities kept by place: their writes and moves, the searches of a view, nearest first,
the counts."""
