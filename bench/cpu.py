"""CPU time used per process during a round, from /proc (Linux; None elsewhere).

On a shared machine throughput moves with whatever else runs; CPU time per request
moves much less, so it says where the work goes even when the clock is noisy.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

LOAD_GENERATOR = "load generator"
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process `pid` so far, or None if unreadable."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state is field 3
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime: fields 14 and 15


def child_matching(fragment: str) -> int | None:
    """The pid of a child of this process whose command line holds `fragment`."""
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if fragment.encode() in command:
                return int(pid)
    return None


def snapshot(pids: Mapping[str, int | None]) -> dict[str, float | None]:
    """CPU seconds of each labelled process, plus this one's as the load generator."""
    taken = {label: None if pid is None else cpu_seconds(pid) for label, pid in pids.items()}
    return {**taken, LOAD_GENERATOR: time.process_time()}


def per_request_ms(
    before: Mapping[str, float | None], after: Mapping[str, float | None], requests: int
) -> dict[str, float | None]:
    """CPU milliseconds per request of each process between two snapshots."""
    result: dict[str, float | None] = {}
    for label, start in before.items():
        end = after.get(label)
        if start is None or end is None or requests == 0:
            result[label] = None
        else:
            result[label] = (end - start) * 1000 / requests
    return result
