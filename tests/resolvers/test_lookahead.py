"""The look-ahead of a parent field reads one level of its selection, in linear time:
fragments doubling below a list that is refused or skipped (which the bound does not
count, since nothing there is read) answer at once and keep the server answering."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.client import Api, Result


def doubling_issues(levels: int, page: str) -> str:
    """`repo { <page> }`, its PAGE standing for `{ edges { node { ...L<levels> } } }`, where
    fragment L<n> spreads L<n-1> twice: 2^levels copies of an issue's fields."""
    fragments = ["fragment L0 on Issue { number title }"]
    fragments += [
        f"fragment L{n} on Issue {{ ...L{n - 1} ...L{n - 1} }}" for n in range(1, levels + 1)
    ]
    body = page.replace("PAGE", f"{{ edges {{ node {{ ...L{levels} }} }} }}")
    return "\n".join([f'{{ repo(owner: "nobody", name: "nothing") {{ {body} }} }}', *fragments])


@pytest.mark.parametrize(
    "page",
    [
        "issues(first: -1) PAGE",  # refused by the field: its edges are not counted
        "issues(first: 10) @skip(if: true) PAGE",  # not executed, not counted
        "... @include(if: false) { issues PAGE }",
    ],
)
async def test_a_doubling_selection_below_the_parent_answers_at_once(app: Api, page: str) -> None:
    async def health() -> int:
        return (await app.http.get("/healthz")).status_code

    started = time.perf_counter()
    result: Result
    result, *healthy = await asyncio.gather(
        app(doubling_issues(40, page)), *(health() for _ in range(5))
    )
    assert time.perf_counter() - started < 5
    assert healthy == [200] * 5
    assert result.data == {"repo": None}
    assert result.cost["estimated"]["fields"] < 10
