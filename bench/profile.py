"""Where the gateway's time goes under load: py-spy samples it while wrk loads one
operation, and the frames that hold the most samples are printed.

Needs py-spy (`.venv/bin/pip install py-spy`; it reads the server's memory, so it may
need root or ptrace permission). Writes each operation's collapsed stacks to
profile-<operation>.txt among the results (flame-graph tools read them).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from bench import wrk
from bench.arguments import Option, arguments, names, positive_float, positive_int, switch
from bench.harness import Benchmark, Context, Table, dynamodb_local
from bench.operations import OPERATIONS
from bench.servers import GATEWAY, PLAIN, serving
from bench.speed import NAMES, TABLE, prepare


def _frame(entry: str) -> str:
    """`function (path/to/module.py:line)` as `function (module.py)`."""
    name, _, where = entry.partition(" (")
    return f"{name} ({Path(where.split(':')[0]).name})" if where else name


def top_frames(stacks: Path, top: int) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """Share of samples per frame: where the CPU was (leaf), and what was on the stack."""
    leaf: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in stacks.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [_frame(f) for f in stack.split(";") if f]
        samples = int(count)
        total += samples
        if frames:
            leaf[frames[-1]] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    share = 100 / total if total else 0.0
    return (
        [(f, n * share) for f, n in leaf.most_common(top)],
        [(f, n * share) for f, n in inclusive.most_common(top)],
    )


add_arguments = arguments(
    Option("--only", names(NAMES), ("markers",), f"of {', '.join(NAMES)}"),
    Option("--seconds", positive_float, 10.0, "sampled"),
    Option("--connections", positive_int, 8, "wrk's"),
    Option("--top", positive_int, 25, "frames shown"),
    switch("--asyncio-h11", "no uvloop, httptools"),
)


def run(args: argparse.Namespace, context: Context) -> int:
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy is None:
        print("py-spy was not found: .venv/bin/pip install py-spy", file=sys.stderr)
        return 2
    wrk.command()  # before anything starts
    operations = [o for o in OPERATIONS if o.name in args.only]
    say = context.say
    context.results.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        local = stack.enter_context(dynamodb_local(say))
        table = Table(local.endpoint, TABLE)
        plain = PLAIN if args.asyncio_h11 else ()
        gateway = stack.enter_context(serving(GATEWAY, table.env, options=plain))
        asyncio.run(prepare(gateway, table, operations, say))
        for operation in operations:
            url = f"{gateway.url}/graphql"
            wrk.run("gateway", url, operation.body, args.connections, 3)  # warm up
            output = context.results / f"profile-{operation.name}.txt"
            record = subprocess.Popen(
                [
                    spy,
                    "record",
                    "--pid",
                    str(gateway.pid),
                    "--duration",
                    f"{args.seconds:g}",
                    "--rate",
                    "250",
                    "--format",
                    "raw",
                    "--output",
                    str(output),
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            done = wrk.run("gateway", url, operation.body, args.connections, args.seconds)
            if record.wait() != 0 or not output.exists():
                print(
                    f"py-spy could not sample the gateway (pid {gateway.pid}): it needs"
                    " ptrace permission (root, or CAP_SYS_PTRACE)",
                    file=sys.stderr,
                )
                return 1
            say(f"{operation.name}: {done.rps:.1f} req/s, p50 {done.p50_ms:.1f} ms; {output}")
            leaf, inclusive = top_frames(output, args.top)
            print("  on CPU (own samples):")
            for frame, share in leaf:
                print(f"    {share:5.1f}%  {frame}")
            print("  on the stack (inclusive):")
            for frame, share in inclusive:
                print(f"    {share:5.1f}%  {frame}")
    return 0


BENCHMARK = Benchmark(
    "profile",
    "where the gateway's time goes under wrk's load, sampled by py-spy (not in `all`)",
    __doc__ or "",
    add_arguments,
    run,
    quick={"seconds": 2.0, "only": ("repo_issues",)},
)
