"""Bad enum values, page arguments and cursors on repos, organizations and queues: each
refusal has its code, writes nothing and shows no key of the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.resolvers.bad_input_helpers import (
    ADD_MEMBER,
    PAGE,
    REPO,
    SET_ROLE,
    UPDATE_TICKET,
    W,
    World,
    signature,
)

# ---- enums and page arguments ------------------------------------------------------------


async def test_values_outside_an_enum_fail_validation(world: World) -> None:
    ticket = world.tickets["q1"][0]
    literals = [
        'mutation { addMember(input: {organization: "acme", username: "erin", name: "E",'
        " role: OWNER}) { username } }",
        'mutation { setMemberRole(organization: "acme", username: "dave", role: OWNER) { role } }',
        f'mutation {{ updateTicket(input: {{id: "{ticket}", status: DONE}}) {{ id }} }}',
        '{ repo(owner: "alice", name: "widgets") { issues(state: MERGED) { edges { cursor } } } }',
        '{ repo(owner: "alice", name: "widgets") { issues(state: "OPEN") { edges { cursor } } } }',
    ]
    for document in literals:
        assert (await world.refused("BAD_USER_INPUT", document)).data is None
    for op, changes in [
        (ADD_MEMBER, {"role": "OWNER"}),
        (ADD_MEMBER, {"role": "admin"}),
        (SET_ROLE, {"role": "OWNER"}),
        (UPDATE_TICKET, {"status": "DONE"}),
    ]:
        await world.refuses("BAD_USER_INPUT", op, **changes)
    state = (
        'query ($s: IssueState) { repo(owner: "alice", name: "widgets") '
        "{ issues(state: $s) { edges { cursor } } } }"
    )
    assert (await world.refused("BAD_USER_INPUT", state, s="MERGED")).data is None


PAGE_ARGS = "first: $first, after: $after, last: $last, before: $before"


@dataclass(frozen=True)
class Conn:
    """One connection field below two parents (A and B) of its root query field."""

    field: str
    root: str
    params: str
    parents: tuple[dict[str, str], dict[str, str]]

    def __str__(self) -> str:
        return self.field

    def document(self, args: str = PAGE_ARGS) -> str:
        """Page arguments from variables, or as literals given in `args`."""
        declared, call = signature(self.params)
        if args == PAGE_ARGS:
            declared += ", $first: Int, $after: String, $last: Int, $before: String"
        conn = f"conn: {self.field}({args}) {{ {PAGE} }}"
        return f"query ({declared}) {{ {self.root}({call}) {{ {conn} }} }}"


BOB = {"owner": "bob", "name": "gadgets"}
ACME, GLOBEX = {"name": "acme"}, {"name": "globex"}
CONNS = [
    Conn("issues", "repo", REPO, (W, BOB)),
    Conn("stars", "repo", REPO, (W, BOB)),
    Conn("members", "organization", "name: String!", (ACME, GLOBEX)),
    Conn("admins", "organization", "name: String!", (ACME, GLOBEX)),
    Conn("tickets", "queue", "id: ID!", ({"id": "q1"}, {"id": "q2"})),
]
BAD_PAGES: list[dict[str, Any]] = [
    {"first": 0}, {"first": 101}, {"first": -1}, {"first": 1, "last": 1},
    {"first": 100, "last": 100}, {"last": 0}, {"last": 101},
]  # fmt: skip


@pytest.mark.parametrize("conn", CONNS, ids=str)
async def test_page_arguments_out_of_range_are_bad_user_input(world: World, conn: Conn) -> None:
    parent = conn.parents[0]
    for page in BAD_PAGES:
        result = await world.refused("BAD_USER_INPUT", conn.document(), **parent, **page)
        assert result.data == {conn.root: None}
    for literal in ("first: 0", "first: 101", "first: 2, last: 2", "last: 0"):
        result = await world.refused("BAD_USER_INPUT", conn.document(literal), **parent)
        assert result.data == {conn.root: None}
    for size in (1, 100):  # the bounds themselves are fine
        assert (await world.ok(conn.document(), **parent, first=size))[conn.root]["conn"]["edges"]
        assert (await world.ok(conn.document(), **parent, last=size))[conn.root]["conn"]["edges"]


# ---- cursors -----------------------------------------------------------------------------


def altered(cursor: str, position: int) -> str:
    replacement = "A" if cursor[position] != "A" else "B"
    return cursor[:position] + replacement + cursor[position + 1 :]


@pytest.mark.parametrize("conn", CONNS, ids=str)
async def test_cursors_from_elsewhere_are_bad_cursor(world: World, conn: Conn) -> None:
    async def first_cursor(c: Conn, parent: dict[str, str]) -> str:
        data = await world.ok(c.document(), **parent, first=1)
        cursor: str = data[c.root]["conn"]["edges"][0]["cursor"]
        return cursor

    a, b = conn.parents
    own = await first_cursor(conn, a)
    foreign = [await first_cursor(other, other.parents[0]) for other in CONNS if other != conn]
    from_b = await first_cursor(conn, b)
    bad = [*foreign, from_b, *(altered(own, p) for p in (0, 5, len(own) // 2, len(own) - 1))]
    bad += [own + "A", own[:-1], "", "not a cursor"]
    for cursor in bad:
        for page in ({"first": 1, "after": cursor}, {"last": 1, "before": cursor}):
            result = await world.refused("BAD_CURSOR", conn.document(), **a, **page)
            assert result.data == {conn.root: None}
    # The cursor itself is good here: it is where it came from that matters.
    following = await world.ok(conn.document(), **a, first=1, after=own)
    assert following[conn.root]["conn"]["edges"]


async def test_an_issue_cursor_is_bound_to_its_state_filter(world: World) -> None:
    document = (
        'query ($s: IssueState, $after: String) { repo(owner: "alice", name: "widgets") '
        "{ issues(state: $s, first: 1, after: $after) { edges { cursor } } } }"
    )
    open_page = await world.ok(document, s="OPEN")
    cursor = open_page["repo"]["issues"]["edges"][0]["cursor"]
    for state in ("CLOSED", None):
        result = await world.refused("BAD_CURSOR", document, s=state, after=cursor)
        assert result.data == {"repo": None}
    assert (await world.ok(document, s="OPEN", after=cursor))["repo"]["issues"]["edges"]
