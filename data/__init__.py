"""Reads and writes of each area, built on the store; no GraphQL here."""
