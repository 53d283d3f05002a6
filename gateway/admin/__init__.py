"""Offline administration tools: they may Scan, so they never run on the request path."""
