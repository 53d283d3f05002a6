"""The benchmarks' pure parts: wrk's result line, the speed summaries and the profile's
frame counts (no servers, no wrk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import wrk
from bench.profile import top_frames
from bench.speed_report import figures, markdown, summary


def rounds(*rps_p50_p99: tuple[float, float, float]) -> list[wrk.Round]:
    return [
        wrk.Round(
            "s",
            requests=int(rps * 10),
            seconds=10.0,
            p50_ms=p50,
            p90_ms=p50,
            p99_ms=p99,
            failures=0,
        )
        for rps, p50, p99 in rps_p50_p99
    ]


def test_a_round_counts_only_successful_requests() -> None:
    done = wrk.Round("s", requests=1000, seconds=10.0, p50_ms=5, p90_ms=6, p99_ms=9, failures=50)
    assert done.rps == 95.0


def test_the_script_refuses_a_body_it_cannot_embed() -> None:
    with pytest.raises(ValueError, match="cannot be embedded"):
        wrk.run("s", "http://127.0.0.1:1/", b'{"query": "]==]"}', 1, 1.0)


def test_summaries_are_medians_of_the_rounds() -> None:
    got = summary(rounds((100, 10, 20), (300, 30, 40), (200, 20, 90)), [1.0, None, 3.0])
    assert (got["rps"], got["p50_ms"], got["p99_ms"]) == (200.0, 20.0, 40.0)
    assert got["cpu_ms_per_request"] == 2.0
    assert [r["rps"] for r in got["rounds"]] == [100.0, 300.0, 200.0]


def test_the_ratio_is_gateway_over_floor_throughput() -> None:
    measured = {
        "label": "orders page (20)",
        "calls": ["batch_get_item", "query"],
        "servers": {
            "gateway": summary(rounds((90, 40, 60)), [5.0]),
            "floor": summary(rounds((100, 30, 50)), [4.0]),
        },
    }
    got = figures(measured)
    assert got["ratio"] == pytest.approx(0.9)
    assert got["tail"] == pytest.approx(1.5)
    table = markdown({"operations": {"orders_page": measured}})
    assert table.splitlines()[2] == (
        "| orders page (20) | 2 | 0.90 | 40 ms | 30 ms | 1.50 | 5.00 ms | 4.00 ms |"
    )


def test_top_frames_share_the_samples(tmp_path: Path) -> None:
    stacks = tmp_path / "stacks.txt"
    stacks.write_text(
        "main (app.py:1);run (app.py:5);encode (json.py:9) 30\n"
        "main (app.py:1);run (app.py:5) 10\n"
        "main (app.py:1);query (client.py:3) 60\n"
    )
    leaf, inclusive = top_frames(stacks, 2)
    assert leaf == [("query (client.py)", 60.0), ("encode (json.py)", 30.0)]
    assert inclusive == [("main (app.py)", 100.0), ("query (client.py)", 60.0)]
