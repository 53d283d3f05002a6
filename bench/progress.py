"""Timestamped progress lines for the benchmarks' long runs."""

from __future__ import annotations

import time


class Progress:
    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        print(f"[{time.monotonic() - self.start:6.1f} s] {message}", flush=True)
