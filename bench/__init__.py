"""Benchmarks of the dynagate gateway: `python -m bench --help` lists them.

Each benchmark is a module with a `BENCHMARK` (its arguments and its run) on a shared
harness: `bench.harness` (DynamoDB Local, the gateway's settings, the gateway in process),
`bench.servers` (a server in its own uvicorn process), `bench.wrk` (the load generator) and
`bench.report` (results in `bench/results/`, their tables). The product never imports this
package.
"""
