"""`python -m bench <benchmark> [options]`: one command for every benchmark."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import (
    cache,
    demand,
    live,
    migrate,
    peers_run,
    profile,
    scale,
    scaleout,
    speed,
    tracing,
)
from bench.harness import Benchmark, Context
from bench.report import RESULTS
from bench.wrk import WrkMissing

BENCHMARKS = {
    b.name: b
    for b in (
        speed.BENCHMARK,
        scale.BENCHMARK,
        demand.BENCHMARK,
        live.BENCHMARK,
        scaleout.BENCHMARK,
        cache.BENCHMARK,
        tracing.BENCHMARK,
        migrate.BENCHMARK,
        profile.BENCHMARK,
        peers_run.BENCHMARK,
    )
}
# What `make bench` runs, in this order; profile needs py-spy and ptrace, so only on request,
# and peers needs Node.js (`make bench peers`).
ALL = ("speed", "scale", "demand", "live", "scaleout", "cache", "tracing", "migrate")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a run of seconds that checks the harness, not a measurement"
        " (its results go to bench/results/quick/)",
    )
    parser.add_argument(
        "--results", type=Path, help="the directory results go to (default bench/results/)"
    )


def build() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser, and each benchmark's."""
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="The gateway's benchmarks. Each writes <benchmark>.json (everything it"
        " measured) and <benchmark>.md (the tables of docs/performance.md).",
        epilog="`python -m bench <benchmark> --help` says what one measures and how;"
        " `--quick` on any of them (and on `all`) is a run of seconds that checks the harness.",
    )
    commands = parser.add_subparsers(dest="benchmark", required=True, metavar="benchmark")
    parsers: dict[str, argparse.ArgumentParser] = {}
    for benchmark in BENCHMARKS.values():
        parsers[benchmark.name] = sub = commands.add_parser(
            benchmark.name,
            help=benchmark.about,
            description=benchmark.description,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        benchmark.add_arguments(sub)
        _common(sub)
    everything = commands.add_parser(
        "all",
        help=f"{', '.join(ALL)} in turn, as `make bench` runs them (about 26 minutes)",
        description=f"{', '.join(ALL)} in turn with their defaults; stops at the first failure.",
    )
    _common(everything)
    return parser, parsers


def plan(argv: Sequence[str] | None) -> tuple[list[tuple[Benchmark, argparse.Namespace]], Path]:
    """What to run, each benchmark with its arguments, and where the results go."""
    parser, parsers = build()
    args = parser.parse_args(argv)
    if args.quick:  # each benchmark's quick defaults; the options given still win
        for name, sub in parsers.items():
            sub.set_defaults(**BENCHMARKS[name].quick)
        args = parser.parse_args(argv)
    results: Path = args.results or (RESULTS / "quick" if args.quick else RESULTS)
    if args.benchmark == "all":
        return [(BENCHMARKS[name], parsers[name].parse_args([])) for name in ALL], results
    return [(BENCHMARKS[args.benchmark], args)], results


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the benchmarks asked for in turn; the first one to fail stops the rest."""
    runs, results = plan(argv)
    for benchmark, args in runs:
        print(f"== python -m bench {benchmark.name}", flush=True)
        try:
            code = benchmark.run(args, Context(results))
        except WrkMissing as error:
            print(error, file=sys.stderr)
            return 2
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
