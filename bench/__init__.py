"""Benchmarks: the dynagate gateway against a hand-written baseline, side by side.

Run `python -m bench.orders_page` from the repository root (what `make bench` runs).
"""
