"""Load from wrk (a C load generator): POST one body over `connections` keep-alive
connections for a round, counting any answer that is not a 200 without GraphQL errors as
a failure. Being native, it leaves the two shared cores to the servers under test."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

_SCRIPT = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[%(body)s]==]
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) failures = 0 end
function response(status, headers, body)
  if status ~= 200 or string.find(body, '"errors"', 1, true) then failures = failures + 1 end
end
function done(summary, latency, requests)
  local failed = 0
  for _, t in ipairs(threads) do failed = failed + t:get("failures") end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests": %%d, "seconds": %%.6f, "p50_ms": %%.3f, "p90_ms": %%.3f,'
    .. ' "p99_ms": %%.3f, "failures": %%d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3,
    latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    failed + e.connect + e.read + e.write + e.timeout))
end
"""


class WrkMissing(RuntimeError):
    """wrk is not installed (`make bench` installs Debian's)."""


@dataclass(frozen=True)
class Round:
    server: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    failures: int

    @property
    def rps(self) -> float:
        return (self.requests - self.failures) / self.seconds if self.seconds else 0.0


def command() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise WrkMissing("wrk was not found on PATH: `make bench` installs it (Debian's wrk)")
    return found


def run(server: str, url: str, body: bytes, connections: int, seconds: float) -> Round:
    """One round of load on `url` (one wrk thread is plenty for a few thousand req/s);
    RuntimeError when wrk fails."""
    if b"]==]" in body:
        raise ValueError("the body cannot be embedded in wrk's script")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(_SCRIPT % {"body": body.decode()})
    try:
        finished = subprocess.run(
            [
                command(),
                "--threads",
                "1",
                "--connections",
                str(connections),
                "--duration",
                f"{seconds:g}s",
                "--timeout",
                "10s",
                "--script",
                script.name,
                url,
            ],
            capture_output=True,
            text=True,
        )
    finally:
        Path(script.name).unlink()
    line = next((x for x in finished.stdout.splitlines() if x.startswith("RESULT ")), None)
    if finished.returncode != 0 or line is None:
        said = (finished.stderr or finished.stdout).strip()[-500:]
        raise RuntimeError(f"wrk failed on {url} (exit {finished.returncode}): {said}")
    return Round(server=server, **json.loads(line.removeprefix("RESULT ")))
