"""What the migration tests share: the two library models, a table as the older one made
it, items written through its API, and the check of every item against the newer one."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from data.copies.verify import diff, group
from data.entities import record
from gateway.cli.seeding import Seeding
from tests.model import library
from tests.table import scan_all

V1, V2 = "tests.model.library_v1", "tests.model.library"
SHELVES = ("s1", "s2")
ADD = "mutation ($input: AddBookInput!) { addBook(input: $input) { id } }"
POST = "mutation ($input: PostReviewInput!) { postReview(input: $input) { id } }"
GENRES = ("ESSAY", "NOVEL", "POETRY")
EDGES = "edges { node { id } }"


async def written_by_v1(client: Any, table: str, books: int, reviews: int) -> None:
    """Shelves, books and reviews written through the older model's own API."""
    api = Seeding(client, table, V1)
    draw = random.Random(3)
    for shelf in SHELVES:
        await api.execute(
            'mutation ($id: ID!) { createShelf(input: {id: $id, label: "L"}) { id } }',
            {"id": shelf},
        )

    async def book(n: int) -> None:
        given = {"shelfId": SHELVES[n % 2], "title": f"b{n}", "genre": draw.choice(GENRES)}
        await api.execute(ADD, {"input": {**given, "year": 1900 + draw.randrange(120)}})

    async def review(n: int) -> None:
        given = {"shelfId": SHELVES[n % 2], "stars": draw.randint(1, 4), "text": f"r{n}"}
        await api.execute(POST, {"input": {**given, "form": draw.choice(("PRINT", "AUDIO"))}})

    for n in range(max(books, reviews)):
        if n < books:
            await book(n)
        if n < reviews:
            await review(n)


async def assert_items_are_the_models(client: Any, table: str, books: int, reviews: int) -> None:
    """Item by item: each book holds exactly the keys and default the library model
    derives from it, each review its 16 copies and no list keys of its own; nothing else."""
    items = await scan_all(client, table)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_type.setdefault(str(item.get("type")), []).append(item)
    assert {k: len(v) for k, v in by_type.items()} == {
        "SHELF": len(SHELVES),
        "BOOK": books,
        "REVIEW": reviews,
        "REVIEW_COPY": 16 * reviews,
    }
    for book in by_type["BOOK"]:
        assert book["loan"] == "AVAILABLE"
        keys = library.BOOK.item_keys(record(library.BOOK, book))
        assert {a: book.get(a) for a in keys} == keys
        assert not {"GSI3PK", "GSI3SK"} & set(book)  # the sparse index: not while AVAILABLE
    for review in by_type["REVIEW"]:
        assert not {"GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"} & set(review)
        assert review["version"] == 1
    partitions = group(library.REVIEW, items).values()
    assert all(diff(library.REVIEW, p.primary, p.copies).clean for p in partitions)


async def killed_and_resumed(
    command: list[str],
    env: dict[str, str],
    *,
    seed: int,
    shortest: float = 1.0,
    after_kill: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """`command` (a `dynagate migrate apply`) killed with SIGKILL after a random while and
    started again, until a run finishes by itself (at most 12 runs); `after_kill` looks at
    the table after each kill."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DYNAGATE_", "AWS_"))}
    draw = random.Random(seed)
    for _ in range(12):
        process = await asyncio.create_subprocess_exec(
            *command, env={**clean, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            await asyncio.wait_for(process.wait(), timeout=draw.uniform(shortest, 4.0))
        except TimeoutError:
            os.kill(process.pid, signal.SIGKILL)
            await process.wait()
            if after_kill is not None:
                await after_kill()
            continue
        assert process.returncode == 0
        return
    raise AssertionError("the migration never finished")


def cli_env(endpoint: str, table: str) -> dict[str, str]:
    """The command's environment: the table, and the tests' models importable."""
    root = str(Path(__file__).parents[2])
    return {"DYNAGATE_DYNAMODB_ENDPOINT": endpoint, "DYNAGATE_TABLE": table, "PYTHONPATH": root}
