"""Bad input to repos, organizations and queues: each refusal has its code and writes nothing.

Every test builds the same small world (two repositories, two organizations, two queues),
snapshots the table, and compares a scan after each refused call with that snapshot. Every
response must be well formed and must not show a key of the table.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.api import Api, Result, assert_well_formed, scan_all

# Table keys look like `REPO#alice#widgets`; no response may hold one (cursors are base64url,
# which has no `#`).
LEAKS = ("REPO#", "ISSUE#", "STAR#", "ORG#", "TEAM#", "USER#", "QUEUE#", "TICKET#")
BAD_IDENTIFIERS = [
    "a#b", "a/b", "a~b", "a b", "a\tb", "", " ", ".hidden", "-a", "a" * 65, "a\n",
    "é", "名前", "\u212aelvin", "İstanbul", "café",
]  # fmt: skip
BAD_TEXTS = ["", " ", "\t\n ", "\u3000", "x" * 201]
TICKET = "<ticket of q1>"  # replaced by a real ticket id of the world


@dataclass(frozen=True)
class Op:
    """A call with variables that would succeed, and which of them are identifiers or text."""

    name: str
    document: str
    good: dict[str, Any]
    identifiers: tuple[str, ...]
    texts: tuple[str, ...] = ()
    root: str | None = None  # a query's root field, null when refused

    def __str__(self) -> str:
        return self.name


def signature(params: str) -> tuple[str, str]:
    """`owner: String!, n: Int` -> the variables declared and the arguments passing them."""
    declared = [p.strip() for p in params.split(",")]
    names = [p.split(":")[0] for p in declared]
    return ", ".join("$" + p for p in declared), ", ".join(f"{n}: ${n}" for n in names)


def spec(
    kind: str, field_: str, params: str, good: dict[str, Any], idents: str, texts: str = ""
) -> Op:
    """`kind` is `query`, `mutation` or `input` (a mutation taking one `input` object)."""
    declared, args = signature(params)
    call = f"input: {{{args}}}" if kind == "input" else args
    select = SELECTIONS.get(field_, "__typename")
    operation = "query" if kind == "query" else "mutation"
    document = f"{operation} ({declared}) {{ {field_}({call}) {{ {select} }} }}"
    root = field_ if kind == "query" else None
    return Op(field_, document, good, tuple(idents.split()), tuple(texts.split()), root)


PAGE = "edges { cursor } pageInfo { hasNextPage }"
SELECTIONS = {
    "openTicket": "id",
    "repo": f"owner issues(first: 2) {{ {PAGE} }} stars {{ {PAGE} }}",
    "organization": f"name members {{ {PAGE} }} admins {{ {PAGE} }} teams {{ name }}",
    "queue": f"id tickets(last: 1) {{ {PAGE} }}",
    "ticket": "id",
}
REPO = "owner: String!, name: String!"
MEMBER = "organization: String!, username: String!"
W = {"owner": "alice", "name": "widgets"}
# fmt: off
CREATE_REPO = spec("input", "createRepo", f"{REPO}, description: String",
                   {**W, "name": "fresh", "description": "new"}, "owner name", "description")
OPEN_ISSUE = spec("input", "openIssue", f"{REPO}, title: String!", {**W, "title": "t"},
                  "owner name", "title")
CLOSE_ISSUE = spec("mutation", "closeIssue", f"{REPO}, number: Int!", {**W, "number": 1},
                   "owner name")
STAR = spec("mutation", "starRepo", f"{REPO}, username: String!", {**W, "username": "zed"},
            "owner name username")
UNSTAR = spec("mutation", "unstarRepo", f"{REPO}, username: String!", {**W, "username": "dave"},
              "owner name username")
CREATE_ORG = spec("input", "createOrganization", "name: String!", {"name": "initech"}, "name")
ADD_MEMBER = spec("input", "addMember", f"{MEMBER}, name: String!, role: Role!",
                  {"organization": "acme", "username": "erin", "name": "Erin", "role": "MEMBER"},
                  "organization username", "name")
SET_ROLE = spec("mutation", "setMemberRole", f"{MEMBER}, role: Role!",
                {"organization": "acme", "username": "dave", "role": "ADMIN"},
                "organization username")
CREATE_TEAM = spec("mutation", "createTeam", "organization: String!, name: String!",
                   {"organization": "acme", "name": "ops"}, "organization name")
CREATE_QUEUE = spec("input", "createQueue", "id: ID!, name: String!", {"id": "q3", "name": "Q"},
                    "id", "name")
OPEN_TICKET = spec("input", "openTicket", "queueId: ID!, title: String!",
                   {"queueId": "q1", "title": "t"}, "queueId", "title")
UPDATE_TICKET = spec("input", "updateTicket", "id: ID!, title: String, status: TicketStatus",
                     {"id": TICKET, "title": "renamed", "status": "CLOSED"}, "id", "title")
MUTATIONS = [
    CREATE_REPO, OPEN_ISSUE, CLOSE_ISSUE, STAR, UNSTAR, CREATE_ORG, ADD_MEMBER, SET_ROLE,
    CREATE_TEAM, CREATE_QUEUE, OPEN_TICKET, UPDATE_TICKET,
]
QUERIES = [
    spec("query", "repo", REPO, W, "owner name"),
    spec("query", "organization", "name: String!", {"name": "acme"}, "name"),
    spec("query", "queue", "id: ID!", {"id": "q1"}, "id"),
    spec("query", "ticket", "id: ID!", {"id": TICKET}, "id"),
]
# fmt: on


async def call(api: Api, document: str, **variables: Any) -> Result:
    """A request whose response is well formed and shows no table key."""
    response = await api.http.post("/graphql", json={"query": document, "variables": variables})
    result = Result(response.status_code, response.json())
    assert_well_formed(result)
    for leak in LEAKS:
        assert leak not in response.text, (leak, response.text)
    return result


async def snapshot(client: Any, table: str) -> list[dict[str, Any]]:
    return sorted(await scan_all(client, table), key=lambda i: (i["PK"], i["SK"]))


@dataclass
class World:
    api: Api
    client: Any
    table: str
    tickets: dict[str, list[str]] = field(default_factory=dict)
    before: list[dict[str, Any]] = field(default_factory=list)

    def good(self, op: Op, **changes: Any) -> dict[str, Any]:
        variables = {**op.good, **changes}
        return {k: self.tickets["q1"][0] if v == TICKET else v for k, v in variables.items()}

    async def ok(self, document: str, **variables: Any) -> Any:
        return (await call(self.api, document, **variables)).ok()

    async def refused(self, code: str, document: str, **variables: Any) -> Result:
        result = await call(self.api, document, **variables)
        assert result.codes == [code], (document, variables, result.body)
        assert await snapshot(self.client, self.table) == self.before, (document, variables)
        return result

    async def refuses(self, code: str, op: Op, **changes: Any) -> Result:
        """`op` with its good variables but `changes` is refused with `code`."""
        result = await self.refused(code, op.document, **self.good(op, **changes))
        assert result.data == (None if op.root is None else {op.root: None})
        return result


@pytest.fixture
async def world(api: Api, client: Any, table: str) -> World:
    """alice/widgets and bob/gadgets with 2 issues and 2 stars each; acme and globex with
    two admins, one member and a team each; queues q1 and q2 with 2 tickets each."""
    w = World(api, client, table)

    async def repo(owner: str, name: str) -> None:
        await w.ok(CREATE_REPO.document, owner=owner, name=name, description=None)
        for title in ("first", "second"):
            await w.ok(OPEN_ISSUE.document, owner=owner, name=name, title=title)
        for user in ("dave", "erin"):
            await w.ok(STAR.document, owner=owner, name=name, username=user)

    async def organization(org: str) -> None:
        await w.ok(CREATE_ORG.document, name=org)
        await w.ok(CREATE_TEAM.document, organization=org, name="core")
        for user, role in (("bob", "ADMIN"), ("carol", "ADMIN"), ("dave", "MEMBER")):
            await w.ok(ADD_MEMBER.document, organization=org, username=user, name=user, role=role)

    async def queue(queue_id: str) -> None:
        await w.ok(CREATE_QUEUE.document, id=queue_id, name=queue_id.upper())
        opened = [await w.ok(OPEN_TICKET.document, queueId=queue_id, title=t) for t in "ab"]
        w.tickets[queue_id] = [t["openTicket"]["id"] for t in opened]

    await asyncio.gather(
        repo("alice", "widgets"), repo("bob", "gadgets"), organization("acme"),
        organization("globex"), queue("q1"), queue("q2"),
    )  # fmt: skip
    w.before = await snapshot(client, table)
    return w


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
