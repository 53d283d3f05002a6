"""Bad identifiers, text and references to repos, organizations and queues: each refusal
has its code and writes nothing (the table is scanned after every refused call)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.resolvers.bad_input_helpers import (
    ADD_MEMBER,
    BAD_IDENTIFIERS,
    BAD_TEXTS,
    CLOSE_ISSUE,
    CREATE_ORG,
    CREATE_QUEUE,
    CREATE_REPO,
    CREATE_TEAM,
    MUTATIONS,
    OPEN_ISSUE,
    OPEN_TICKET,
    QUERIES,
    SET_ROLE,
    STAR,
    UNSTAR,
    UPDATE_TICKET,
    Op,
    World,
    snapshot,
)

# ---- identifiers and text ----------------------------------------------------------------


@pytest.mark.parametrize("op", MUTATIONS + QUERIES, ids=str)
async def test_invalid_identifiers_are_bad_user_input(world: World, op: Op) -> None:
    for name in op.identifiers:
        for bad in BAD_IDENTIFIERS:
            result = await world.refuses("BAD_USER_INPUT", op, **{name: bad})
            # The message names the argument (or, for a query, the entity).
            assert result.errors[0]["message"].startswith((f"{name}:", f"{op.root}:"))
    # The same call with every value good goes through: only the bad value was refused.
    data = await world.ok(op.document, **world.good(op))
    assert data[op.root or op.name] is not None


async def test_invalid_identifiers_in_query_literals(world: World) -> None:
    for document, root in [
        ('{ repo(owner: "a#b", name: "widgets") { owner } }', "repo"),
        ('{ repo(owner: "alice", name: "w/x") { issues { edges { cursor } } } }', "repo"),
        ('{ organization(name: "x/y") { name teams { name } } }', "organization"),
        ('{ queue(id: "~") { id tickets { edges { cursor } } } }', "queue"),
        ('{ ticket(id: "a b") { id } }', "ticket"),
    ]:
        assert (await world.refused("BAD_USER_INPUT", document)).data == {root: None}


@pytest.mark.parametrize("op", [op for op in MUTATIONS if op.texts], ids=str)
async def test_empty_blank_and_long_text_is_bad_user_input(world: World, op: Op) -> None:
    for name in op.texts:
        for bad in BAD_TEXTS:
            await world.refuses("BAD_USER_INPUT", op, **{name: bad})
        # 200 characters is the limit, not over it.
        data = await world.ok(op.document, **world.good(op, **{name: "y" * 200}))
        assert data[op.name] is not None
        world.before = await snapshot(world.client, world.table)


async def test_issue_numbers_outside_the_key_are_bad_user_input(world: World) -> None:
    for number in (0, -1, 100_000_000, 2**31 - 1, 2**31):
        await world.refuses("BAD_USER_INPUT", CLOSE_ISSUE, number=number)
    # The largest number a key holds is valid input; there is just no such issue.
    await world.refuses("NOT_FOUND", CLOSE_ISSUE, number=99_999_999)


# ---- existing and missing entities -------------------------------------------------------


CONFLICT_CASES: list[tuple[Op, dict[str, Any]]] = [
    (CREATE_REPO, {"owner": "alice", "name": "widgets"}),
    (CREATE_REPO, {"owner": "ALICE", "name": "Widgets", "description": None}),
    (CREATE_ORG, {"name": "acme"}),
    (CREATE_ORG, {"name": "AcMe"}),
    (ADD_MEMBER, {"username": "bob"}),
    (ADD_MEMBER, {"username": "BOB", "role": "ADMIN", "name": "Other Bob"}),
    (ADD_MEMBER, {"organization": "GLOBEX", "username": "Dave"}),
    (CREATE_TEAM, {"name": "core"}),
    (CREATE_TEAM, {"organization": "Globex", "name": "CORE"}),
    (CREATE_QUEUE, {"id": "q1"}),
    (CREATE_QUEUE, {"id": "q2", "name": "Other"}),
]


async def test_creating_what_exists_is_conflict(world: World) -> None:
    for op, changes in CONFLICT_CASES:
        await world.refuses("CONFLICT", op, **changes)


MISSING_KSUID = "0ujtsYcgvSTl8PAuAdqWYSMnLOv"
NOT_FOUND_CASES: list[tuple[Op, dict[str, Any]]] = [
    (OPEN_ISSUE, {"name": "nothing"}),
    (OPEN_ISSUE, {"owner": "bob", "name": "widgets"}),
    (CLOSE_ISSUE, {"owner": "carol"}),
    (CLOSE_ISSUE, {"number": 3}),
    (CLOSE_ISSUE, {"owner": "bob", "name": "widgets"}),
    (STAR, {"name": "nothing"}),
    (STAR, {"owner": "carol", "username": "dave"}),
    (UNSTAR, {"name": "nothing"}),
    (UNSTAR, {"owner": "alice", "name": "gadgets", "username": "erin"}),
    (ADD_MEMBER, {"organization": "initech"}),
    (ADD_MEMBER, {"organization": "initech", "username": "bob", "role": "ADMIN"}),
    (SET_ROLE, {"organization": "initech", "username": "bob"}),
    (SET_ROLE, {"username": "zed"}),
    (SET_ROLE, {"username": "zed", "role": "MEMBER"}),
    (CREATE_TEAM, {"organization": "initech"}),
    (CREATE_TEAM, {"organization": "initech", "name": "core"}),
    (OPEN_TICKET, {"queueId": "q3"}),
    (OPEN_TICKET, {"queueId": "Q1"}),
    (UPDATE_TICKET, {"id": MISSING_KSUID}),
    (UPDATE_TICKET, {"id": "nope", "title": None}),
]


async def test_a_mutation_on_a_missing_parent_is_not_found(world: World) -> None:
    for op, changes in NOT_FOUND_CASES:
        await world.refuses("NOT_FOUND", op, **changes)
