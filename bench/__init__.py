"""Benchmarks: the dynagate gateway against hand-written code and against table growth.

`make bench` runs them from the repository root: `python -m bench.speed` (the six access
patterns against their floor), `python -m bench.scale` (the scale curve), then the design
benchmarks `bench.comments`, `bench.map` and `bench.demand`.
"""
