"""A model of the tests' own (`tests/model/library.py`) through the whole engine, against
DynamoDB Local: every response's cost within its bound (`tests/client.py`), a collection
read with its parent in one Query, lists narrowed by key conditions alone and paged both
ways by signed cursors, a sparse index entered and left, a changing sort key, rules,
idempotent retries and subscriptions of each list."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from tests.client import Api, settings_for
from tests.identity import SECURED, as_user
from tests.live import Served, events, listening, mutate, served
from tests.table import scan_all

LIBRARY = "tests.model.library"
pytestmark = pytest.mark.overrides(model=LIBRARY)

BOOK = "id title genre year loan updatedAt addedBy"
ADD = f"""mutation ($input: AddBookInput!) {{ addBook(input: $input) {{ {BOOK} }} }}"""
UPDATE = f"""mutation ($input: UpdateBookInput!) {{ updateBook(input: $input) {{ {BOOK} }} }}"""
PAGE = "edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage endCursor }"
BY_GENRE = f"""query ($g: Genre, $y: IntRange, $d: SortDirection, $first: Int, $after: String) {{
  shelf(id: "s1") {{ byGenre(genre: $g, years: $y, direction: $d, first: $first, after: $after)
  {{ {PAGE} }} }} }}"""
CATALOG = [("NOVEL", 1990), ("NOVEL", 1995), ("NOVEL", 2001), ("POETRY", 1995), ("ESSAY", 1980)]


async def stock(api: Api) -> dict[str, dict[str, Any]]:
    """Shelf s1 with the catalog's books; the books by id."""
    await api('mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    books = {}
    for n, (genre, year) in enumerate(CATALOG * 2):
        given = {"shelfId": "s1", "title": f"t{n}", "genre": genre, "year": year}
        book = (await api(ADD, input=given)).ok()["addBook"]
        books[book["id"]] = book
    return books


def ids(connection: dict[str, Any]) -> list[str]:
    return [edge["node"]["id"] for edge in connection["edges"]]


async def test_lists_are_key_conditions_paged_by_cursors(api: Api) -> None:
    books = await stock(api)
    novels = sorted((b for b in books.values() if b["genre"] == "NOVEL"), key=_place)
    wanted = [b["id"] for b in novels if 1990 <= b["year"] <= 1995]
    found = await api(BY_GENRE, g="NOVEL", y={"from": 1990, "to": 1995}, first=10)
    assert ids(found.ok()["shelf"]["byGenre"]) == wanted
    # The range is the key condition: nothing read is thrown away.
    assert found.cost["itemsScanned"] <= len(wanted) + 2, found.cost
    backwards = await api(BY_GENRE, g="NOVEL", d="DESC", first=10)
    assert ids(backwards.ok()["shelf"]["byGenre"]) == [b["id"] for b in reversed(novels)]
    # Paged three at a time, each cursor bound to its list and arguments.
    seen: list[str] = []
    after = None
    while True:
        page = (await api(BY_GENRE, g="NOVEL", first=3, after=after)).ok()["shelf"]["byGenre"]
        seen += ids(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [b["id"] for b in novels]
    moved = await api(BY_GENRE, g="POETRY", first=3, after=after)
    assert moved.codes == ["BAD_CURSOR"]
    out_of_order = await api(BY_GENRE, y={"from": 1990}, first=3)
    assert out_of_order.codes == ["BAD_USER_INPUT"]
    assert "give `genre` to narrow by `years`" in out_of_order.errors[0]["message"]


async def test_a_collection_is_read_with_its_parent_and_a_changing_sort_moves(api: Api) -> None:
    books = await stock(api)
    first = await api('{ shelf(id: "s1") { label books(first: 4) { edges { node { id } } } } }')
    assert first.cost["requests"] == 1, first.cost  # the shelf and its first page: one Query
    newest = sorted(books.values(), key=lambda b: (b["updatedAt"], b["id"]), reverse=True)
    assert ids(first.ok()["shelf"]["books"]) == [b["id"] for b in newest[:4]]
    oldest = newest[-1]["id"]
    await asyncio.sleep(0.002)
    await api(UPDATE, input={"id": oldest, "title": "again"})
    again = (await api('{ shelf(id: "s1") { books(first: 1) { edges { node { id } } } } }')).ok()
    assert ids(again["shelf"]["books"]) == [oldest]
    half = await api(UPDATE, input={"id": oldest, "genre": "ESSAY"})
    assert half.codes == ["BAD_USER_INPUT"], half.body  # its GSI2 key needs `year` too


async def test_a_sparse_index_holds_a_book_only_while_on_loan(api: Api, client: Any) -> None:
    books = await stock(api)
    lent = next(iter(books))
    await api(UPDATE, input={"id": lent, "loan": "ON_LOAN"})
    again = await api(UPDATE, input={"id": lent, "loan": "ON_LOAN"})
    assert (again.codes, again.cost["requests"]) == (["BAD_USER_INPUT"], 1), again.body
    assert "cannot move from ON_LOAN to ON_LOAN" in again.errors[0]["message"]
    on_loan = await api(f"{{ onLoan(first: 5) {{ {PAGE} }} }}")
    assert ids(on_loan.ok()["onLoan"]) == [lent]
    # The shelf's books filtered by a choice: a FilterExpression, within its budget.
    filtered = await api(
        '{ shelf(id: "s1") { books(loan: ON_LOAN, first: 5) { edges { node { id } } } } }'
    )
    assert ids(filtered.ok()["shelf"]["books"]) == [lent]
    assert filtered.cost["estimated"]["requests"] > 1, filtered.cost  # the filter's budget
    await api(UPDATE, input={"id": lent, "loan": "AVAILABLE", "title": "back"})
    assert ids((await api(f"{{ onLoan(first: 5) {{ {PAGE} }} }}")).ok()["onLoan"]) == []
    stored = [i for i in await scan_all(client, api.settings.table) if i.get("id") == lent]
    assert [("GSI3PK" in i, "GSI3SK" in i, i["title"]) for i in stored] == [(False, False, "back")]


async def test_rules_are_decided_before_reads_or_inside_the_write(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        await _rules(secured)


async def _rules(api: Api) -> None:
    ann, bob = as_user(api, "ann"), as_user(api, "bob")
    refused = await ann('mutation { createShelf(input: {id: "s1", label: "x"}) { id } }')
    assert (refused.codes, refused.cost["requests"]) == (["FORBIDDEN"], 0)
    await as_user(api, "root", admin=True)(
        'mutation { createShelf(input: {id: "s1", label: "One"}) { id } }'
    )
    given = {"shelfId": "s1", "title": "Mine", "genre": "NOVEL", "year": 2000}
    book = (await ann(ADD, input=given)).ok()["addBook"]
    assert book["addedBy"] == "ann"
    taken = await bob(UPDATE, input={"id": book["id"], "title": "Bob's"})
    assert (taken.codes, taken.cost["requests"]) == (["FORBIDDEN"], 1)
    assert (await ann(UPDATE, input={"id": book["id"], "title": "Still mine"})).ok()
    remove = "mutation ($id: ID!) { removeBook(id: $id) }"
    kept = await bob(remove, id=book["id"])
    assert (kept.codes, kept.cost["requests"]) == (["FORBIDDEN"], 1)
    assert (await ann(remove, id=book["id"])).ok() == {"removeBook": True}
    assert (await ann(remove, id=book["id"])).codes == ["NOT_FOUND"]


async def test_a_retried_create_happens_once(api: Api, client: Any) -> None:
    await api('mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    given = {"shelfId": "s1", "title": "Once", "genre": "NOVEL", "year": 2000}
    answers = []
    for _ in range(2):
        response = await api.http.post(
            "/graphql",
            json={"query": ADD, "variables": {"input": given}},
            headers={"Idempotency-Key": "add-once"},
        )
        answers.append(response.json()["data"]["addBook"]["id"])
    assert answers[0] == answers[1]
    stored = [i for i in await scan_all(client, api.settings.table) if i.get("type") == "BOOK"]
    assert len(stored) == 1


@pytest.fixture
async def gateway(endpoint: str, table: str) -> AsyncIterator[Served]:
    async with served(settings_for(endpoint, table, model=LIBRARY)) as running:
        yield running


@pytest.mark.streamed
async def test_each_list_has_its_subscription(gateway: Served) -> None:
    await mutate(gateway, 'mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    async with listening(
        gateway,
        'subscription { bookChanges(shelfId: "s1") { kind id } }',
        'subscription { genreChanges(shelfId: "s1", genre: NOVEL, years: {from: 1990,'
        " to: 1999}) { kind book { title } } }",
        "subscription { loanChanges { kind id } }",
    ) as (live, [shelf, nineties, loans]):
        old = {"shelfId": "s1", "title": "Old", "genre": "NOVEL", "year": 1950}
        await mutate(gateway, ADD, input=old)
        given = {"shelfId": "s1", "title": "New", "genre": "NOVEL", "year": 1995}
        book = (await mutate(gateway, ADD, input=given))["addBook"]["id"]
        await mutate(gateway, UPDATE, input={"id": book, "loan": "ON_LOAN"})
        await mutate(gateway, "mutation ($id: ID!) { removeBook(id: $id) }", id=book)
        kinds = [change["kind"] for change in await events(live, shelf, 4)]
        assert kinds == ["ADDED", "ADDED", "CHANGED", "REMOVED"]
        assert await events(live, nineties, 1) == [{"kind": "ADDED", "book": {"title": "New"}}]
        lent = await events(live, loans, 2)
        assert lent == [{"kind": "ADDED", "id": book}, {"kind": "REMOVED", "id": book}]


def _place(book: dict[str, Any]) -> tuple[int, str]:
    """A book's place in `byGenre` (within one genre): by year, then id."""
    return (book["year"], book["id"])
