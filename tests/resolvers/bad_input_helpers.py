"""The small world the bad-input tests refuse calls in, and how they check nothing changed.

Two repositories, two organizations and two queues; a snapshot of the table is taken once
they exist, and every refused call is followed by a scan compared with that snapshot.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from tests.client import Api, Result, assert_well_formed
from tests.table import scan_all

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


async def make_world(api: Api, client: Any, table: str) -> World:
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
