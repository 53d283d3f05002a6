"""Power-set copies (`model.Copies`, seed 003) on a model of the tests' own: a shelf's
reviews filtered by any set of stars and by form, each filter one Query on one list, the
copies moved in the same transaction as the review, under rules, races, lost answers and
subscriptions."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from itertools import combinations
from typing import Any

import pytest

from data.callers import Caller
from data.copies.verify import diff, group
from data.writes import entities as entity_writes
from store.client import Store
from store.loaders import ItemLoader
from tests.client import Api
from tests.data.test_faults import lost_once, of_type
from tests.faults import FaultProxy
from tests.identity import SECURED, as_user
from tests.live import events, listening, mutate
from tests.model.library import MODEL, REVIEW, SHELF
from tests.model.test_library import LIBRARY, gateway  # noqa: F401
from tests.table import scan_all

pytestmark = pytest.mark.overrides(model=LIBRARY)
REVIEW_FIELDS = "id stars form text postedAt by"
POST = f"mutation ($input: PostReviewInput!) {{ postReview(input: $input) {{ {REVIEW_FIELDS} }} }}"
EDIT = f"mutation ($input: EditReviewInput!) {{ editReview(input: $input) {{ {REVIEW_FIELDS} }} }}"
REMOVE = "mutation ($id: ID!) { removeReview(id: $id) }"
LISTED = """query ($form: Form, $stars: [Int!], $first: Int, $after: String) {
  shelf(id: "s1") { reviews(form: $form, stars: $stars, first: $first, after: $after) {
    edges { node { id stars form shelf { label } } } pageInfo { hasNextPage endCursor } } } }"""
STAR_SETS = [list(c) for size in range(1, 5) for c in combinations(range(1, 5), size)]
ANN = Caller("Ann")


async def reviewed(api: Api) -> list[dict[str, Any]]:
    """Shelf s1 with eight reviews, every star and form; newest first."""
    await api('mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    posted = []
    for n in range(8):
        given = {"shelfId": "s1", "stars": n % 4 + 1, "form": ("PRINT", "AUDIO")[n % 2]}
        posted.append((await api(POST, input={**given, "text": f"r{n}"})).ok()["postReview"])
    return posted[::-1]


async def assert_copies_exact(client: Any, table: str) -> None:
    """Every review's copies are exactly those its item implies; no stray copy."""
    items = await scan_all(client, table)
    partitions = group(REVIEW, items).values()
    assert all(diff(REVIEW, p.primary, p.copies).clean for p in partitions)
    reviews = [i for i in items if i.get("type") == "REVIEW"]
    assert sum(i.get("type") == "REVIEW_COPY" for i in items) == 16 * len(reviews)


async def test_every_filter_is_one_query_on_exactly_its_reviews(api: Api, client: Any) -> None:
    reviews = await reviewed(api)
    for form in (None, "PRINT", "AUDIO"):
        for stars in (None, *STAR_SETS):
            found = await api(LISTED, form=form, stars=stars, first=20)
            page = found.ok()["shelf"]["reviews"]
            wanted = [
                r["id"]
                for r in reviews
                if form in (None, r["form"]) and (stars is None or r["stars"] in stars)
            ]
            assert [e["node"]["id"] for e in page["edges"]] == wanted
            # The shelf, then one Query on the one list: nothing read is thrown away, and
            # every review's shelf is the one already read.
            assert found.cost["requests"] == 2, found.cost
            # Bounded alike: the shelves are the one read (3: `hasNextPage` may read one more).
            assert found.cost["estimated"]["requests"] == 3, found.cost
            assert found.cost["itemsScanned"] <= len(wanted) + 1, found.cost
            assert {e["node"]["shelf"]["label"] for e in page["edges"]} <= {"One"}
    await assert_copies_exact(client, api.settings.table)


async def test_pages_follow_cursors_bound_to_their_filter(api: Api) -> None:
    reviews = await reviewed(api)
    seen: list[str] = []
    after = None
    while True:
        found = await api(LISTED, stars=[1, 2, 3], first=2, after=after)
        page = found.ok()["shelf"]["reviews"]
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [r["id"] for r in reviews if r["stars"] in (1, 2, 3)]
    moved = await api(LISTED, stars=[4], first=2, after=after)
    assert moved.codes == ["BAD_CURSOR"]


async def test_bad_filters_and_values_are_refused(api: Api) -> None:
    await reviewed(api)
    for stars in ([], [0], [5], [1, 9]):
        assert (await api(LISTED, stars=stars, first=2)).codes == ["BAD_USER_INPUT"], stars
    bad = {"shelfId": "s1", "stars": 5, "form": "PRINT", "text": "too many"}
    assert (await api(POST, input=bad)).codes == ["BAD_USER_INPUT"]
    missing = {**bad, "stars": 2, "shelfId": "nowhere"}
    assert (await api(POST, input=missing)).codes == ["NOT_FOUND"]


async def test_edits_move_copies_between_lists_and_deletes_take_them_all(
    api: Api, client: Any
) -> None:
    reviews = await reviewed(api)
    target = reviews[0]
    edited = (await api(EDIT, input={"id": target["id"], "stars": 1, "form": "PRINT"})).ok()
    assert (edited["editReview"]["stars"], edited["editReview"]["form"]) == (1, "PRINT")
    ones = (await api(LISTED, form="PRINT", stars=[1], first=20)).ok()["shelf"]["reviews"]
    assert target["id"] in [e["node"]["id"] for e in ones["edges"]]
    fours = (await api(LISTED, stars=[4], first=20)).ok()["shelf"]["reviews"]
    assert target["id"] not in [e["node"]["id"] for e in fours["edges"]]
    await assert_copies_exact(client, api.settings.table)
    nothing = await api(EDIT, input={"id": target["id"]})
    assert nothing.codes == ["BAD_USER_INPUT"]
    assert (await api(REMOVE, id=target["id"])).ok() == {"removeReview": True}
    assert (await api(REMOVE, id=target["id"])).codes == ["NOT_FOUND"]
    left = [i for i in await scan_all(client, api.settings.table) if target["id"] in i["PK"]]
    assert left == []
    await assert_copies_exact(client, api.settings.table)


async def test_rules_hold_the_reviewer_and_admins_alone_import_times(api: Api) -> None:
    async with Api.serving(replace(api.settings, **SECURED)) as secured:
        await _rules(secured)


async def _rules(api: Api) -> None:
    admin, ann, bob = as_user(api, "root", admin=True), as_user(api, "ann"), as_user(api, "bob")
    await admin('mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    given = {"shelfId": "s1", "stars": 3, "form": "AUDIO", "text": "mine"}
    review = (await ann(POST, input=given)).ok()["postReview"]
    assert review["by"] == "ann"
    refused = await bob(EDIT, input={"id": review["id"], "text": "yours"})
    assert refused.codes == ["FORBIDDEN"]
    assert (await bob(REMOVE, id=review["id"])).codes == ["FORBIDDEN"]
    older = {**given, "postedAt": "2020-01-01T00:00:00Z"}
    assert (await ann(POST, input=older)).codes == ["FORBIDDEN"]
    imported = (await admin(POST, input=older)).ok()["postReview"]
    assert imported["postedAt"] == "2020-01-01T00:00:00.000Z"
    future = {**given, "postedAt": "2999-01-01T00:00:00Z"}
    assert (await admin(POST, input=future)).codes == ["BAD_USER_INPUT"]
    listed = (await ann(LISTED, first=5)).ok()["shelf"]["reviews"]["edges"]
    assert [e["node"]["id"] for e in listed] == [review["id"], imported["id"]]


async def test_racing_edits_leave_one_review_and_its_exact_copies(api: Api, client: Any) -> None:
    reviews = await reviewed(api)
    target = reviews[0]["id"]
    changes = [{"stars": s, "form": f} for s in (1, 2, 3, 4) for f in ("PRINT", "AUDIO")]
    results = await asyncio.gather(*(api(EDIT, input={"id": target, **c}) for c in changes))
    assert all(r.codes in ([], ["CONFLICT"]) for r in results)
    assert any(r.codes == [] for r in results)
    await assert_copies_exact(client, api.settings.table)


@pytest.mark.usefixtures("no_pauses")
async def test_writes_whose_answers_were_lost_happen_once(
    proxy: FaultProxy, faulty: Store, client: Any, table: str
) -> None:
    direct = Store(client, table)
    await entity_writes.create(direct, MODEL, SHELF, {"id": "s1", "label": "One"}, caller=ANN)
    given = {"shelfId": "s1", "stars": 2, "form": "PRINT", "text": "once"}
    posting = entity_writes.create(faulty, MODEL, REVIEW, given, caller=ANN)
    review = await lost_once(proxy, "TransactWriteItems", posting)
    assert [i["id"] for i in await of_type(direct, "REVIEW")] == [review["id"]]
    editing = entity_writes.update(
        faulty,
        ItemLoader(faulty),
        REVIEW,
        {"id": review["id"]},
        {"stars": 4, "form": "AUDIO"},
        caller=ANN,
        writer_only=True,
    )
    proxy.calls.clear()
    edited = await lost_once(proxy, "TransactWriteItems", editing)
    [stored] = await of_type(direct, "REVIEW")
    assert (stored["stars"], stored["version"], edited["form"]) == (4, 2, "AUDIO")
    await assert_copies_exact(client, table)
    removing = entity_writes.delete(
        faulty, ItemLoader(faulty), REVIEW, {"id": review["id"]}, caller=ANN, writer_only=True
    )
    proxy.calls.clear()
    assert await lost_once(proxy, "TransactWriteItems", removing) is True
    assert [i for i in await scan_all(client, table) if i["PK"].startswith("REVIEW#")] == []


@pytest.mark.streamed
async def test_a_filtered_subscription_sees_reviews_enter_and_leave(
    gateway: Any,  # noqa: F811
) -> None:
    await mutate(gateway, 'mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    async with listening(
        gateway,
        'subscription { reviewChanges(shelfId: "s1", stars: [4]) { kind id review { form } } }',
    ) as (live, [tops]):
        low = {"shelfId": "s1", "stars": 1, "form": "PRINT", "text": "meh"}
        await mutate(gateway, POST, input=low)
        posted = await mutate(gateway, POST, input={**low, "stars": 4, "text": "great"})
        top = posted["postReview"]
        await mutate(gateway, EDIT, input={"id": top["id"], "form": "AUDIO"})
        await mutate(gateway, EDIT, input={"id": top["id"], "stars": 2})
        assert await events(live, tops, 3) == [
            {"kind": "ADDED", "id": top["id"], "review": {"form": "PRINT"}},
            {"kind": "CHANGED", "id": top["id"], "review": {"form": "AUDIO"}},
            {"kind": "REMOVED", "id": top["id"], "review": {"form": "AUDIO"}},
        ]


async def test_a_shelf_is_not_removed_from_under_its_books_and_reviews(
    api: Api, client: Any
) -> None:
    """`removeShelf` refuses (the default `children="refuse"`): CONFLICT naming what is
    still on it, read from the indexes once they have caught up; the shelf stays open to
    new books. Emptied, it goes."""
    posted = await reviewed(api)
    add = "mutation ($input: AddBookInput!) { addBook(input: $input) { id } }"
    given = {"shelfId": "s1", "title": "Kept", "genre": "NOVEL", "year": 2000}
    book = (await api(add, input=given)).ok()["addBook"]["id"]
    remove = 'mutation { removeShelf(id: "s1") }'
    refused = await api(remove)
    assert refused.codes == ["CONFLICT"]
    message = refused.errors[0]["message"]
    assert message.startswith(f"shelf 's1' still has 1 book (book '{book}') and 3 or more reviews")
    assert message.endswith("; remove them first")
    assert refused.cost["operations"] == {"UpdateItem": 2, "Query": 2}  # the mark, then back
    # Refused, it is open to new books at once.
    (await api(add, input={**given, "title": "Another"})).ok()
    books = [i["id"] for i in await scan_all(client, api.settings.table) if i.get("type") == "BOOK"]
    for one in books:
        (await api("mutation ($id: ID!) { removeBook(id: $id) }", id=one)).ok()
    for review in posted:
        (await api(REMOVE, id=review["id"])).ok()
    assert (await api(remove)).ok() == {"removeShelf": True}
    assert (await api('{ shelf(id: "s1") { id } }')).ok() == {"shelf": None}
