"""Every example of the README runs: `make run` as a new user starts it (its own DynamoDB
Local, table, demo data and gateway, under the shipped settings), then each query, link and
shell command the README shows is sent to it and must answer with data.

`make test` itself is what CI runs; the macOS block only installs tools and sets the PATH.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

from gateway.cli.dynamodb_local import free_port
from tests.live import connected

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SERVED = "http://127.0.0.1:8000"
# The first `make run` on a machine may still install the package and DynamoDB Local.
START_SECONDS = 600


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.DOTALL)


def shell_commands(language: str = "sh") -> list[str]:
    """The README's shell commands, continuation lines joined, comments dropped."""
    commands = []
    for block in blocks(language):
        for command in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#.*$", "", command).strip()
            if command:
                commands.append(command)
    return commands


def test_the_readme_shows_what_this_test_runs() -> None:
    """If an example is added in a form this module does not run, it fails here."""
    assert len(blocks("graphql")) >= 7
    runs = {"make", "curl", "brew", "export"}
    assert {c.split()[0] for c in shell_commands()} <= runs, shell_commands()
    assert any(c.startswith("curl ") for c in shell_commands())
    # The trusted documents workflow, run by its own test.
    assert [c.split()[:2] for c in shell_commands("shell")] == [["make", "run"], ["curl", "-s"]]
    # Serving a model of one's own, run by tests/examples/test_booking_make_run.py.
    assert [c for c in shell_commands() if "MODEL=" in c] == [
        "make run MODEL=examples/booking/model.py"
    ]
    assert re.search(r"http://127\.0\.0\.1:8000/graphql\?query=\S+", README.read_text())
    assert len(README.read_text().splitlines()) <= 245


def test_every_doc_the_readme_links_exists() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)", README.read_text())
    assert links and all((ROOT / link).is_file() for link in links), links
    assert {p.name for p in DOCS.glob("*.md")} == {Path(link).name for link in links}


@dataclass(frozen=True)
class Running:
    url: str
    first_output: str
    output: Path


@contextmanager
def running_make_run(data: Path, output: Path, *assignments: str) -> Iterator[str]:
    """`make run` on free ports with its data in `data` (and the README's `assignments`),
    until the gateway answers."""
    port, local_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DYNAGATE_")}
    with output.open("wb") as log:
        process = subprocess.Popen(
            [
                "make",
                "run",
                *assignments,
                f"PORT={port}",
                f"LOCAL_PORT={local_port}",
                f"DATA={data}",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _healthy(url):
            assert process.poll() is None, output.read_text()[-3000:]
            assert time.monotonic() < deadline, output.read_text()[-3000:]
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """`make run` twice on the same data, as a user stops and starts it: the examples are
    answered by the second run, from what the first one seeded."""
    data = tmp_path_factory.mktemp("dynamodb")
    first, second = data.parent / "first.log", data.parent / "second.log"
    with running_make_run(data, first):
        pass
    with running_make_run(data, second) as url:
        yield Running(url, first.read_text(), second)


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def answered(body: dict[str, Any], *, reads: bool = True) -> None:
    """No error, every root field answered, and (a read) every list of it holds data."""
    assert "errors" not in body, body["errors"]
    data = body["data"]
    assert data and all(value is not None for value in data.values()), data
    if not reads:
        return
    lists = re.findall(r'"(?:edges|markers|cells|teams)": \[(.)', json.dumps(data))
    assert lists and all(first != "]" for first in lists), data


@pytest.mark.parametrize("example", range(len(blocks("graphql"))))
def test_each_graphql_example_answers_with_data(make_run: Running, example: int) -> None:
    url = make_run.url
    document = blocks("graphql")[example]
    if document.startswith("subscription"):
        asyncio.run(_subscription_sees_the_next_example(url, example))
        return
    response = httpx.post(f"{url}/graphql", json={"query": document})
    assert response.status_code == 200
    read = not document.startswith("mutation")
    answered(response.json(), reads=read)
    if read:  # `make run` keeps reads in its cache: asked again, the same answer
        again = httpx.post(f"{url}/graphql", json={"query": document}).json()
        assert again["data"] == response.json()["data"]
        assert "cachedRequests" in again["extensions"]["cost"]


async def _subscription_sees_the_next_example(url: str, example: int) -> None:
    """The subscription runs over a WebSocket, as GraphiQL runs it, and shows the change
    the README's next example makes."""
    subscription, write = blocks("graphql")[example : example + 2]
    async with connected(url.replace("http://", "ws://") + "/graphql") as client:
        ident = await client.subscribe(subscription)
        await asyncio.sleep(1.0)  # the subscription is in place before the write
        async with httpx.AsyncClient() as http:
            written = (await http.post(f"{url}/graphql", json={"query": write})).json()
        answered(written, reads=False)
        event = await client.next_for(ident, within=15)
    assert event["type"] == "next", event
    change = next(iter(event["payload"]["data"].values()))
    number = next(iter(written["data"].values()))["number"]
    assert change["kind"] == "ADDED" and change["number"] == number, change


def test_each_curl_example_answers_with_data(make_run: Running) -> None:
    url = make_run.url
    for command in (c for c in shell_commands() if c.startswith("curl ")):
        argv = [arg.replace(SERVED, url) for arg in shlex.split(command)]
        done = subprocess.run(argv, capture_output=True, check=True, timeout=30)
        answered(json.loads(done.stdout))


def test_the_trusted_documents_workflow_serves_only_the_manifest(tmp_path: Path) -> None:
    """The README's `shell` block: `make run` with a client's manifest, then the client's
    request by hash; a document outside the manifest is refused."""
    make, *requests = shell_commands("shell")
    output = tmp_path / "run.log"
    with running_make_run(tmp_path / "data", output, *shlex.split(make)[2:]) as url:
        for command in requests:
            argv = [arg.replace(SERVED, url) for arg in shlex.split(command)]
            done = subprocess.run(argv, capture_output=True, check=True, timeout=30)
            answered(json.loads(done.stdout))
        other = httpx.post(
            f"{url}/graphql", json={"query": '{ product(id: "product-00") { name } }'}
        )
        assert other.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    assert "2 documents registered as trusted" in output.read_text()


def test_the_shared_link_opens_the_playground_on_the_query_it_names(make_run: Running) -> None:
    """The page a browser gets for the link, and the query the link carries: the one the
    README says it opens, answering with data (the browser test checks that the page puts
    a link's query in the editor)."""
    url = make_run.url
    text = README.read_text()
    link = re.search(r"http://127\.0\.0\.1:8000(/graphql\?query=(\S+))", text)
    assert link is not None
    page = httpx.get(url + link.group(1), headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    query = unquote(link.group(2))
    assert f"opens GraphiQL with `{query}` in the editor" in " ".join(text.split())
    answered(httpx.post(f"{url}/graphql", json={"query": query}).json(), reads=False)


def test_the_demo_ids_the_readme_names_are_seeded(make_run: Running) -> None:
    url = make_run.url
    demo = README.read_text().split("**Demo data**")[1].split("##")[0]
    ids = {
        "customer": re.findall(r"`(customer-\d+)`", demo),
        "product": re.findall(r"`(product-\d+)`", demo),
        "queue": re.findall(r"`(queue-\d+)`", demo),
        "organization": re.findall(r"`(org-\d+)`", demo),
    }
    assert all(len(found) == 2 for found in ids.values()), ids
    for field, values in ids.items():
        argument = "name" if field == "organization" else "id"
        for value in values:
            query = f'{{ {field}({argument}: "{value}") {{ __typename }} }}'
            body = httpx.post(f"{url}/graphql", json={"query": query}).json()
            assert body["data"][field] is not None, (field, value)
    repos = re.findall(r"`(\w+)/([\w-]+)`", demo)
    assert len(repos) == 4
    for owner, name in repos:
        query = f'{{ repo(owner: "{owner}", name: "{name}") {{ name }} }}'
        assert httpx.post(f"{url}/graphql", json={"query": query}).json()["data"]["repo"]


def test_a_second_make_run_says_the_demo_data_exists(make_run: Running) -> None:
    assert re.search(r"^seeded 40 customers and \d+ orders", make_run.first_output, re.M)
    second = make_run.output.read_text()
    assert "the demo data already exists in 'dynagate', nothing was added" in second
    assert "seeded 0" not in second


def test_the_dynamodb_local_versions_the_docs_state_are_the_ones_used() -> None:
    """Compose runs Amazon's image, the tests and `make run` the npm package: the docs
    name both versions, and they are the ones the files pin."""
    from gateway.cli import dynamodb_local

    compose = (ROOT / "docker-compose.yml").read_text()
    image = re.search(r"amazon/dynamodb-local:([\d.]+)", compose)
    bundled = re.search(
        r"bundles DynamoDB Local ([\d.]+)", Path(dynamodb_local.__file__).read_text()
    )
    assert image is not None and bundled is not None
    containers = (DOCS / "containers.md").read_text()
    assert f"amazon/dynamodb-local:{image.group(1)}" in containers
    assert f"DynamoDB Local {bundled.group(1)}" in containers
