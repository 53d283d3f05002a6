"""`python -m bench`: one command, its subcommands and what `--quick` changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.__main__ import ALL, BENCHMARKS, plan
from bench.report import RESULTS


def test_help_lists_every_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        plan(["--help"])
    assert exit_.value.code == 0
    shown = capsys.readouterr().out
    assert all(f"    {name} " in shown for name in [*BENCHMARKS, "all"]), shown


def test_a_benchmark_runs_with_its_own_defaults() -> None:
    [(benchmark, args)], results = plan(["speed", "--only", "markers"])
    assert benchmark.name == "speed"
    assert (args.rounds, args.seconds, args.only) == (3, 10.0, ("markers",))
    assert results == RESULTS


def test_quick_changes_the_defaults_not_the_options_given() -> None:
    [(_, args)], results = plan(["speed", "--quick", "--rounds", "2"])
    assert (args.rounds, args.seconds, args.warmup) == (2, 1.0, 0.0)
    assert results == RESULTS / "quick"


def test_all_is_what_make_bench_runs(tmp_path: Path) -> None:
    runs, results = plan(["all", "--quick", "--results", str(tmp_path)])
    assert (
        [b.name for b, _ in runs]
        == list(ALL)
        == ["speed", "scale", "demand", "live", "scaleout", "cache", "tracing", "migrate"]
    )
    for benchmark, args in runs:
        assert {k: getattr(args, k) for k in benchmark.quick} == dict(benchmark.quick)
    assert results == tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["speed", "--only", "orders,nope"],
        ["speed", "--rounds", "0"],
        ["scale", "--sizes", "100000,10000"],
        ["demand", "--requests", "-1"],
    ],
    ids=" ".join,
)
def test_bad_arguments_are_refused_before_anything_starts(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        plan(argv)
    assert exit_.value.code == 2
    assert "error: argument" in capsys.readouterr().err
