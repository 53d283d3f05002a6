"""Relay connections as the tests read them: shape, flags, walks, and the pages a model implies.

The expected pages come from a model (a list in display order), never from the code under
test; `walk` follows the cursors a connection hands out until its flag says the end.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

Connection = dict[str, Any]
# `fetch(first=, after=)` or `fetch(last=, before=)`: one page of the connection walked.
Fetch = Callable[..., Awaitable[Connection]]

EMPTY: Connection = {
    "edges": [],
    "pageInfo": {
        "hasNextPage": False,
        "hasPreviousPage": False,
        "startCursor": None,
        "endCursor": None,
    },
}


def given(variables: dict[str, Any]) -> dict[str, Any]:
    """The page arguments a call names (an unnamed argument is not sent as null)."""
    return {k: v for k, v in variables.items() if v is not None}


def flags(connection: Connection) -> tuple[bool, bool]:
    """(hasPreviousPage, hasNextPage)."""
    info = connection["pageInfo"]
    return info["hasPreviousPage"], info["hasNextPage"]


def check_shape(connection: Connection) -> None:
    """Every edge has its own cursor; start and end cursors are the first and last edge's."""
    cursors = [e["cursor"] for e in connection["edges"]]
    assert len(set(cursors)) == len(cursors)
    info = connection["pageInfo"]
    assert info["startCursor"] == (cursors[0] if cursors else None)
    assert info["endCursor"] == (cursors[-1] if cursors else None)


async def walk(fetch: Fetch, size: int, backward: bool = False, most: int = 50) -> list[Connection]:
    """Every page of a connection: `first: size` with `after`, or `last: size` with `before`,
    in the order read (a backward walk starts at the end)."""
    pages: list[Connection] = []
    cursor = None
    while True:
        if backward:
            page = await fetch(last=size, before=cursor)
            more, cursor = page["pageInfo"]["hasPreviousPage"], page["pageInfo"]["startCursor"]
        else:
            page = await fetch(first=size, after=cursor)
            more, cursor = page["pageInfo"]["hasNextPage"], page["pageInfo"]["endCursor"]
        pages.append(page)
        if not more:
            return pages
        assert len(pages) < most, "the walk does not end"


def expected_pages(
    model: Sequence[str], size: int, backward: bool = False
) -> list[tuple[list[str], tuple[bool, bool]]]:
    """What a walk of `model` (in display order) must return: each page's items and its
    exact (hasPreviousPage, hasNextPage)."""
    pages = []
    if not backward:
        for start in range(0, max(len(model), 1), size):
            end = min(start + size, len(model))
            pages.append((list(model[start:end]), (start > 0, end < len(model))))
    else:
        end = len(model)
        while True:
            start = max(end - size, 0)
            pages.append((list(model[start:end]), (start > 0, end < len(model))))
            if start == 0:
                break
            end = start
    return pages


async def assert_walks(
    fetch: Fetch, model: Sequence[str], size: int, keys: Callable[[Connection], list[str]]
) -> None:
    """Both walks of `size` list `model` page by page, with exact flags on every page;
    `keys` names the items of a page."""
    for backward in (False, True):
        pages = await walk(fetch, size, backward=backward)
        expected = expected_pages(model, size, backward=backward)
        assert [(keys(p), flags(p)) for p in pages] == expected, backward
