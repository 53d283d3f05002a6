"""The benchmarks' pure parts: wrk's result line, the results and their tables, the speed
and scale summaries and the profile's frame counts (no servers, no wrk)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import live, report, scale_report, wrk
from bench.profile import top_frames
from bench.speed_report import cpu_split, figures, markdown, ratios, render, summary


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


def test_the_ratios_are_gateway_over_each_floor_throughput() -> None:
    measured = {
        "label": "orders page (20)",
        "calls": ["batch_get_item", "query"],
        "servers": {
            "gateway": summary(rounds((90, 40, 60)), [5.0]),
            "aioboto3": summary(rounds((100, 30, 50)), [4.0]),
            "lean": summary(rounds((120, 25, 75)), [None]),
        },
    }
    assert ratios(measured) == pytest.approx({"aioboto3": 0.9, "lean": 0.75})
    got = figures(measured, "lean")
    assert (got["ratio"], got["gateway_tail"], got["floor_tail"]) == pytest.approx((0.75, 1.5, 3.0))
    assert (got["floor_rps"], got["floor_p99"], got["floor_cpu"]) == (120.0, 75.0, 0.0)

    tables = markdown({"operations": {"orders_page": measured}}).split("\n\n")
    assert tables[0] == "Gateway against the aioboto3 floor (ratio target ≥ 1.0):"
    assert tables[1].splitlines()[0] == (
        "| operation | calls | ratio | gateway p50 | aioboto3 p50 | gateway p99 | aioboto3 p99"
        " | gateway p99 / p50 | aioboto3 p99 / p50 | gateway CPU | aioboto3 CPU |"
    )
    assert tables[1].splitlines()[2] == (
        "| orders page (20) | 2 | 0.90 | 40 ms | 30 ms | 60 ms | 50 ms | 1.50 | 1.67"
        " | 5.00 ms | 4.00 ms |"
    )
    assert tables[2] == "Gateway against the lean floor (ratio target ≥ 0.85):"
    assert tables[3].splitlines()[0].endswith("| gateway CPU | lean CPU |")
    assert tables[3].splitlines()[2] == (
        "| orders page (20) | 2 | 0.75 | 40 ms | 25 ms | 60 ms | 75 ms | 1.50 | 3.00"
        " | 5.00 ms | 0.00 ms |"
    )

    assert len(tables) == 4  # no split without the lean floor's CPU

    printed = render({"operations": {"orders_page": measured}}).splitlines()
    first = printed.index("gateway (gw) against the aioboto3 floor (fl)")
    assert printed[first + 2].split() == [
        *("orders", "page", "(20)", "2", "0.90", "90.0", "100.0", "40.0", "30.0"),
        *("60.0", "50.0", "1.50", "1.67", "5.00", "4.00"),
    ]
    assert printed[first + 3] == (
        "ratio: gateway req/s ÷ aioboto3 floor req/s (target ≥ 1.0); median 0.90, worst 0.90."
    )
    second = printed.index("gateway (gw) against the lean floor (fl)")
    assert printed[second + 2].split()[4:7] == ["0.75", "90.0", "120.0"]
    assert "(target ≥ 0.85); median 0.75, worst 0.75." in printed[second + 3]


def test_the_gateways_cpu_splits_into_the_data_path_and_its_own_work() -> None:
    measured = {
        "label": "repo issues (20)",
        "calls": ["query"],
        "servers": {
            "gateway": summary(rounds((90, 40, 60)), [2.0]),
            "aioboto3": summary(rounds((100, 30, 50)), [1.5]),
            "lean": summary(rounds((120, 25, 75)), [0.5]),
        },
    }
    assert cpu_split(measured) == {"gateway": 2.0, "data_path": 0.5, "own": 1.5, "share": 0.75}
    tables = markdown({"operations": {"repo_issues": measured}}).split("\n\n")
    assert tables[4].startswith("The gateway's CPU per request: the data path")
    assert tables[5].splitlines()[2] == (
        "| repo issues (20) | 1 | 2.00 ms | 0.50 ms | 1.50 ms | 75% |"
    )
    printed = render({"operations": {"repo_issues": measured}}).splitlines()
    row = printed[
        printed.index("the gateway's CPU per request: the data path (the lean floor's) and its own")
        + 2
    ]
    assert row.split() == [
        "repo",
        "issues",
        "(20)",
        "1",
        "2.00",
        "ms",
        "0.50",
        "ms",
        "1.50",
        "ms",
        "75%",
    ]


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


# ---- results and tables ------------------------------------------------------------------


def test_one_writer_puts_the_data_and_the_tables_side_by_side(tmp_path: Path) -> None:
    written = report.write(tmp_path / "results", "speed", {"ratio": 0.9}, "| a |\n\n")
    assert [p.name for p in written] == ["speed.json", "speed.md"]
    assert json.loads(written[0].read_text()) == {"ratio": 0.9}
    assert written[1].read_text() == "| a |\n"


def test_markdown_tables_align_the_columns_asked() -> None:
    table = report.markdown_table(["name", "a", "b"], [["x", "1", "2"]], right=[1, 2])
    assert table.splitlines() == ["| name | a | b |", "| --- | ---: | ---: |", "| x | 1 | 2 |"]


def test_console_tables_pad_each_column_to_its_widest_cell() -> None:
    table = report.console_table(["q", "", "10^4"], [["Orders", "p50", "9.1 ms"]], left=2)
    assert table.splitlines() == [
        "q     " + "  " + "   " + "  " + "  10^4",
        "Orders" + "  " + "p50" + "  " + "9.1 ms",
    ]


@pytest.mark.parametrize(("q", "expected"), [(0, 1.0), (50, 2.0), (99, 4.0), (100, 4.0)], ids=str)
def test_percentiles_are_nearest_rank(q: float, expected: float) -> None:
    assert report.percentile([4.0, 1.0, 3.0, 2.0], q) == expected
    assert report.percentile([], q) is None


def test_scale_sizes_read_as_powers_of_ten() -> None:
    assert [scale_report.size_label(n) for n in (10_000, 10**6, 2_000, 1)] == [
        "10^4",
        "10^6",
        "2,000",
        "1",
    ]


def test_the_live_benchmark_reads_its_metrics_and_percentiles() -> None:
    text = "\n".join(
        [
            "# HELP dynagate_dynamodb_requests_total DynamoDB calls",
            'dynagate_dynamodb_requests_total{operation="GetRecords",outcome="ok"} 40.0',
            'dynagate_dynamodb_requests_total{operation="Query",outcome="ok"} 7.0',
            'dynagate_dynamodb_requests_total{operation="GetShardIterator",outcome="ok"} 2.0',
            "dynagate_subscriptions_active 3.0",
        ]
    )
    requests = live.scraped(text, "dynagate_dynamodb_requests_total")
    assert requests['{operation="Query",outcome="ok"}'] == 7.0
    assert live.scraped(text, "dynagate_subscriptions_active") == {"": 3.0}
    assert live.percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert live.percentile([float(n) for n in range(1, 101)], 0.99) == 99.0
    table = live.markdown(
        {
            "fan_out": [
                {
                    "subscribers": 100,
                    "writes": 2,
                    "deliveries": 200,
                    "p50_ms": 9.5,
                    "p99_ms": 20.0,
                    "max_ms": 30.0,
                },
            ],
            "read_cost": {
                "stream_calls_per_hour": 7200,
                "poll_queries_per_hour": 720,
                "poll_read_units_per_hour": 360.0,
            },
        }
    )
    assert "| 100 | 200 of 200 | 9.5 ms | 20.0 ms | 30.0 ms |" in table
    assert "7,200" in table and "360.0" in table
