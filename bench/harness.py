"""What every benchmark stands on: a run's context, DynamoDB Local with a table, the
gateway's settings for it, and the gateway in this process.

The other shared parts: `bench.servers` serves an application in its own uvicorn process,
`bench.wrk` loads it, and `bench.report` writes results and draws their tables.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from bench import report
from gateway.cli.dynamodb_local import DynamoDBLocal
from gateway.http.app import create_app
from gateway.settings import Settings
from store.tables import create_table

SECRET = "bench-cursor-secret"
T = TypeVar("T")


class Progress:
    """Timestamped progress lines for the long runs."""

    def __init__(self) -> None:
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        print(f"[{time.monotonic() - self.start:6.1f} s] {message}", flush=True)


@dataclass(frozen=True)
class Context:
    """One benchmark run: where it says how far it is and where its results go."""

    results: Path
    say: Progress = field(default_factory=Progress)

    def write(self, name: str, results: Mapping[str, Any], markdown: str) -> None:
        for path in report.write(self.results, name, results, markdown):
            self.say(f"results: {path}")

    def publish(
        self,
        name: str,
        results: dict[str, Any],
        config: Mapping[str, Any],
        markdown: Callable[[dict[str, Any]], str],
    ) -> None:
        """A run's end: its `results`, with the `config` it ran with and the machine it ran
        on; the tables `markdown` draws of them printed, and both written."""
        results["config"] = dict(config)
        results["machine"] = report.machine()
        tables = markdown(results)
        print(tables)
        self.write(name, results, tables)

    def on_table(self, name: str, measure: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        """What `measure(table, *args, say)` finds on the table `name` of a DynamoDB Local of
        its own, in memory (the benchmarks that need nothing else around the table)."""
        with dynamodb_local(self.say) as local:
            return asyncio.run(measure(Table(local.endpoint, name), *args, self.say))


@dataclass(frozen=True)
class Benchmark:
    """A subcommand of `python -m bench`: its arguments, the defaults `--quick` gives
    them (a run of seconds that checks the harness, not a measurement), and its run."""

    name: str
    about: str  # one line for `python -m bench --help`
    description: str  # for `python -m bench <name> --help`
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Context], int]
    quick: Mapping[str, Any]


@contextmanager
def dynamodb_local(say: Progress, db_path: Path | None = None) -> Iterator[DynamoDBLocal]:
    """DynamoDB Local for a `with` block, in memory unless `db_path`."""
    with DynamoDBLocal(db_path=db_path) as local:
        storage = "in memory" if db_path is None else f"in {db_path}"
        say(f"DynamoDB Local at {local.endpoint}, {storage}")
        yield local


@dataclass(frozen=True)
class Table:
    """A benchmark's table on DynamoDB Local, and the gateway's settings for it."""

    endpoint: str
    name: str

    @property
    def settings(self) -> Settings:
        """For the gateway in this process."""
        return Settings(table=self.name, endpoint=self.endpoint, cursor_secret=SECRET.encode())

    @property
    def env(self) -> dict[str, str]:
        """The same settings as `dynagate serve` reads them, for a server of its own."""
        return {
            "DYNAGATE_TABLE": self.name,
            "DYNAGATE_DYNAMODB_ENDPOINT": self.endpoint,
            "DYNAGATE_CURSOR_SECRET": SECRET,
        }

    async def create(self) -> str:
        """Create the table with its indexes (what `dynagate create-table` does)."""
        async with self.settings.open_client() as client:
            return await create_table(client, self.name)


@asynccontextmanager
async def in_process(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The real application in this process, lifespan included, behind a client that
    posts to it through httpx's ASGI transport (`await http.post("/graphql", …)`)."""
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://gateway") as http,
    ):
        yield http


def http_client(connections: int = 1) -> httpx.AsyncClient:
    """A keep-alive client for servers on loopback, ignoring any proxy settings."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(limits=limits, timeout=30.0, trust_env=False)


async def graphql(http: httpx.AsyncClient, url: str, query: str, **variables: Any) -> Any:
    """The response body; RuntimeError on an HTTP or GraphQL error."""
    response = await http.post(url, json={"query": query, "variables": variables})
    body: Any = response.json()
    if response.status_code != 200 or body.get("errors"):
        raise RuntimeError(f"{url} answered {response.status_code}: {body}")
    return body
