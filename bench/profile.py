"""Where the gateway's time goes under load: py-spy samples it while wrk loads one
operation, and the frames that hold the most samples are printed.

    python -m bench.profile [--only markers] [--seconds 10] [--top 25]

Needs py-spy (`.venv/bin/pip install py-spy`; it reads the server's memory, so it may
need root or ptrace permission). Writes each operation's collapsed stacks to
bench/results/profile-<operation>.txt (flame-graph tools read them).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from bench import wrk
from bench.operations import OPERATIONS
from bench.progress import Progress
from bench.servers import GATEWAY, serving
from bench.speed import RESULTS, SECRET, TABLE, prepare
from gateway.dynamodb_local import DynamoDBLocal
from gateway.settings import Settings


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("--only", default="markers", help="operations, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--asyncio-h11", action="store_true", help="no uvloop, httptools")
    args = parser.parse_args(argv)
    spy = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if spy is None:
        print("py-spy was not found: .venv/bin/pip install py-spy", file=sys.stderr)
        return 1
    operations = [o for o in OPERATIONS if o.name in args.only.split(",")]
    say = Progress()
    env = {"DYNAGATE_TABLE": TABLE, "DYNAGATE_CURSOR_SECRET": SECRET}
    with ExitStack() as stack:
        local = stack.enter_context(DynamoDBLocal())
        env["DYNAGATE_DYNAMODB_ENDPOINT"] = local.endpoint
        settings = Settings(table=TABLE, endpoint=local.endpoint, cursor_secret=SECRET.encode())
        plain = ("--loop", "asyncio", "--http", "h11") if args.asyncio_h11 else ()
        gateway = stack.enter_context(serving(GATEWAY, env, options=plain))
        asyncio.run(prepare(gateway, settings, operations, say))
        for operation in operations:
            url = f"{gateway.url}/graphql"
            wrk.run("gateway", url, operation.body, args.connections, 3)  # warm up
            output = RESULTS / f"profile-{operation.name}.txt"
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
            record.wait()
            say(f"{operation.name}: {done.rps:.1f} req/s, p50 {done.p50_ms:.1f} ms; {output}")
            leaf, inclusive = top_frames(output, args.top)
            print("  on CPU (own samples):")
            for frame, share in leaf:
                print(f"    {share:5.1f}%  {frame}")
            print("  on the stack (inclusive):")
            for frame, share in inclusive:
                print(f"    {share:5.1f}%  {frame}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
