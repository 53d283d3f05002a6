"""Every shipped model's rules, walked as its callers would: the demo, the booking example
and the tests' library, each with its data, every root field that reaches an entity — a
lookup, a root list, a map's search, heatmap and nearest first — with the lists below it,
and every subscription, asked for items that exist as anonymous, the item's owner, another
user, a member of the model's groups and an admin; each answers exactly what its access allows
(the whole answer, or FORBIDDEN / UNAUTHENTICATED at that field and nothing of the items).
The same walk is then answered again, from the read cache where it holds the reads, and
answers alike. The paths are made from the models' own patterns and schema, so a pattern
added to a model is walked too. (`tests/model/test_ticketing_rules.py` walks a model with
readers, an owned entity under a public parent, and its payloads the same way.)"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import graphql
import httpx
import pytest

from data.entities import record
from gateway.schema.build import schema_sdl
from gateway.served_model import declared
from keys.codecs import format_timestamp
from model import Coordinate, Entity, Group, Heatmap, ListOf, Lookup, Model, Near, Nearest
from tests.caching import caching
from tests.client import settings_for
from tests.docs.test_model_guide import cli_env, dynagate
from tests.identity import SECURED, token
from tests.live import Served, connected
from tests.table import scan_all

ROOT = Path(__file__).parents[2]
SHIPPED = {
    "demo": "demo.model",
    "booking": "examples/booking/model.py",
    "library": "tests/model/library.py",
}
# A few of each: every entity is there, without the demo's thousands of writes.
SMALL = {
    "demo.model": "--customers 3 --max-orders 3 --max-comments 3 --markers-per-place 3"
    " --repos 1 --organizations 1 --queues 1",
}
ADMIN = "root"
STRANGER = "mallory"
MEMBER = "gina"  # in every group the model names, not an admin

pytestmark = pytest.mark.streamed


@dataclass(frozen=True)
class Walk:
    """One root field asked for one existing item (or partition), and who may ask."""

    field: str
    document: str
    allowed: frozenset[str | None]  # usernames; None: anonymous

    def lets(self, user: str | None) -> bool:
        """Whether `user` may ask: another item's owner is a stranger to this one."""
        if user in self.allowed:
            return True
        return user not in (None, MEMBER, ADMIN) and STRANGER in self.allowed


def literal(value: Any) -> str:
    if isinstance(value, StrEnum):
        return value.name
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    if isinstance(value, datetime):
        return json.dumps(format_timestamp(value))
    return json.dumps(str(value))


def arguments(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}: {literal(value)}" for name, value in values.items())


def who_may(access: Any, owner: str | None) -> frozenset[str | None]:
    """The callers a field's access lets in, of anonymous, the owner, a stranger, a group
    member and an admin."""
    signed_in = {owner, STRANGER, MEMBER, ADMIN} - {None}
    if access == "anyone":
        return frozenset(signed_in | {None})
    if access in ("signed_in", "author"):
        return frozenset(signed_in)
    if access == "owner":
        return frozenset({owner, ADMIN} - {None})
    if access == "admins":
        return frozenset({ADMIN})
    if isinstance(access, Group):
        return frozenset({ADMIN, MEMBER})
    raise AssertionError(f"a read with access {access!r}")


def groups_of(model: Model) -> list[str]:
    names = {
        name
        for p in model.patterns
        for access in (getattr(p, "access", None), getattr(p, "subscription_access", None))
        if isinstance(access, Group)
        for name in access.names
    }
    return sorted(names)


def records_of(entity: Entity, items: list[dict[str, Any]], model: Model) -> Iterator[Any]:
    table = model.table_layout.table
    for item in items:
        partition, sort = item.get(table.partition_key), item.get(table.sort_key)
        if not isinstance(partition, str) or not isinstance(sort, str):
            continue
        if not entity.owns(partition, sort):
            continue
        # An entity kept by place: its main item carries no discriminator (its place does).
        if entity.places is None and not entity.is_kind_of(item):
            continue
        try:
            yield record(entity, item)
        except (KeyError, ValueError):
            continue  # a derived item (a copy) keyed alike


def below(model: Model, entity: Entity) -> str:
    """The lists below an entity, each asked for its first item."""
    parts = []
    for pattern in model.lists_under(entity):
        if pattern.whole is not None:
            parts.append(f"{pattern.field} {{ __typename }}")
        else:
            parts.append(f"{pattern.field}(first: 1) {{ edges {{ node {{ __typename }} }} }}")
    return " ".join(parts)


def viewport(entity: Entity, found: Mapping[str, Any]) -> str:
    """A small map view around the item's position."""
    at = {
        a.axis: float(found[n]) for n, a in entity.attributes.items() if isinstance(a, Coordinate)
    }
    north, south = min(at["lat"] + 0.01, 90), max(at["lat"] - 0.01, -90)
    east, west = min(at["lon"] + 0.01, 180), max(at["lon"] - 0.01, -180)
    return f"{{north: {north}, south: {south}, east: {east}, west: {west}}}"


def owner_of(entity: Entity, found: Mapping[str, Any], given: Mapping[str, Any]) -> str | None:
    """The owner of the partition `given` names: none when it does not name the owner."""
    if entity.owner is None or entity.owner.attribute not in given:
        return None
    return str(found[entity.owner.attribute])


def walks(model: Model, items: list[dict[str, Any]]) -> Iterator[Walk]:
    for pattern in model.patterns:
        entity = pattern.entity
        found = next(records_of(entity, items, model), None)
        if isinstance(pattern, Lookup):
            assert found is not None, f"no {entity.name} seeded for {pattern.field}"
            owner = None if entity.owner is None else str(found[entity.owner.attribute])
            named = arguments({n: found[n] for n in entity.key_attributes})
            document = f"{{ {pattern.field}({named}) {{ __typename {below(model, entity)} }} }}"
            yield Walk(pattern.field, document, who_may(pattern.access, owner))
        elif isinstance(pattern, ListOf) and pattern.root:
            if found is None:
                continue  # a sparse list none of whose items is seeded
            given = {n: found[n] for n in partition(pattern) if n not in pattern.at}
            named = f"({arguments(given)}, first: 1)" if given else "(first: 1)"
            document = f"{{ {pattern.field}{named} {{ edges {{ node {{ __typename }} }} }} }}"
            owner = owner_of(entity, found, given)
            yield Walk(pattern.field, document, who_may(pattern.access or "signed_in", owner))
        elif isinstance(pattern, Near | Heatmap):
            assert found is not None, f"no {entity.name} seeded for {pattern.field}"
            document = (
                f"{{ {pattern.field}(viewport: {viewport(entity, found)}) {{ __typename }} }}"
            )
            yield Walk(pattern.field, document, who_may(pattern.access, None))
        elif isinstance(pattern, Nearest):
            assert found is not None, f"no {entity.name} seeded for {pattern.field}"
            document = (
                f"{{ {pattern.field}({point(entity, found)}, radiusMeters: 100, first: 1)"
                " { edges { node { __typename } } } }"
            )
            yield Walk(pattern.field, document, who_may(pattern.access, None))


def point(entity: Entity, found: Mapping[str, Any]) -> str:
    """The item's own position, as a nearest-first field takes it."""
    at = {
        a.axis: float(found[n]) for n, a in entity.attributes.items() if isinstance(a, Coordinate)
    }
    return f"latitude: {at['lat']}, longitude: {at['lon']}"


def partition(pattern: ListOf) -> tuple[str, ...]:
    keys = pattern.entity.keys_on(pattern.index)
    assert keys is not None
    return keys.partition.attributes


def subscription_walks(model: Model, items: list[dict[str, Any]], sdl: str) -> Iterator[Walk]:
    """Each subscription asked with its required arguments, from an item it would follow."""
    fields = graphql.build_schema(sdl).subscription_type
    assert fields is not None
    for pattern in model.patterns:
        if not isinstance(pattern, ListOf | Near) or pattern.subscription is None:
            continue
        entity = pattern.entity
        found = next(records_of(entity, items, model), None)
        if found is None:
            continue
        required = [
            name
            for name, argument in fields.fields[pattern.subscription].args.items()
            if graphql.is_non_null_type(argument.type)
        ]
        if isinstance(pattern, Near):
            named, owner = f"viewport: {viewport(entity, found)}", None
        else:
            given = {n: found[n] for n in required}
            named, owner = arguments(given), owner_of(entity, found, given)
        call = f"{pattern.subscription}({named})" if named else pattern.subscription
        document = f"subscription {{ {call} {{ __typename }} }}"
        yield Walk(pattern.subscription, document, who_may(pattern.subscription_access, owner))


async def seed_library(ask: Callable[[str], Awaitable[dict[str, Any]]]) -> None:
    """The library has no demo data: one of each of its entities, a book on loan."""
    await ask('mutation { createShelf(input: {id: "s1", label: "One"}) { id } }')
    added = await ask(
        'mutation { addBook(input: {shelfId: "s1", title: "T", genre: NOVEL, year: 1990}) { id } }'
    )
    book = added["data"]["addBook"]["id"]
    await ask(f'mutation {{ updateBook(input: {{id: "{book}", loan: ON_LOAN}}) {{ id }} }}')
    await ask(
        'mutation { postReview(input: {shelfId: "s1", stars: 3, form: PRINT, text: "Good"})'
        " { id } }"
    )
    await ask('mutation { openBranch(input: {id: "b1", lat: 48.85, lon: 2.35, name: "P"}) { id } }')


@pytest.fixture(params=sorted(SHIPPED))
async def shipped(request: pytest.FixtureRequest, endpoint: str, client: Any) -> AsyncIterator[Any]:
    name = SHIPPED[request.param]
    table = await seeded_table(endpoint, client, name)
    try:
        yield name, table
    finally:
        await client.delete_table(TableName=table)


async def seeded_table(endpoint: str, client: Any, name: str) -> str:
    """A table of the model's demo data, made as `make run` makes it, with its stream on
    for the read cache. The session's one DynamoDB Local, busy with the demo's thousands of
    writes, may drop a connection: a seed it cut short is made again in a new table, once."""
    said = ""
    for _ in range(2):
        table = f"matrix-{uuid.uuid4().hex[:12]}"
        env = cli_env(endpoint, table)
        made = f"dynagate create-table --enable-stream --model {name}"
        code, out, err = await dynagate(made, ROOT, env)
        assert code == 0, (out, err)
        if declared(name) is declared(SHIPPED["library"]):
            return table  # seeded through its own mutations, once served
        seed = f"dynagate seed --model {name} {SMALL.get(name, '')}".strip()
        code, out, err = await dynagate(seed, ROOT, env)
        if code == 0:
            return table
        said = err
        await client.delete_table(TableName=table)
        assert "unreachable" in err, err
    raise AssertionError(f"seeding {name} failed twice: {said}")


def bearer(user: str | None, groups: list[str]) -> dict[str, str]:
    if user is None:
        return {}
    claims: dict[str, Any] = {"groups": ["admin"]} if user == ADMIN else {}
    if user == MEMBER:
        claims = {"groups": groups}
    return {"Authorization": f"Bearer {token(user, **claims)}"}


async def answer_of(
    http: httpx.AsyncClient, gateway: Served, document: str, headers: dict[str, str]
) -> dict[str, Any]:
    response = await http.post(f"{gateway.url}/graphql", json={"query": document}, headers=headers)
    body: dict[str, Any] = response.json()
    return body


def judged(walk: Walk, user: str | None, body: Mapping[str, Any]) -> None:
    data = (body.get("data") or {}).get(walk.field)
    errors = body.get("errors") or []
    codes = {e["extensions"]["code"] for e in errors}
    if walk.lets(user):
        assert not errors and data is not None, (walk, user, body)
    else:
        assert codes and codes <= {"FORBIDDEN", "UNAUTHENTICATED"}, (walk, user, codes)
        assert data is None, (walk, user, body)


async def test_each_shipped_path_answers_exactly_whom_its_access_lets_in(
    endpoint: str, shipped: Any, client: Any
) -> None:
    name, table = shipped
    model = declared(name)
    groups = groups_of(model)
    settings = replace(settings_for(endpoint, table, model=name, **SECURED))
    async with caching(settings) as gateway, httpx.AsyncClient(timeout=30) as http:
        if model is declared(SHIPPED["library"]):

            async def as_admin(document: str) -> dict[str, Any]:
                body = await answer_of(http, gateway, document, bearer(ADMIN, groups))
                assert not body.get("errors"), body
                return body

            await seed_library(as_admin)
        items = await scan_all(client, table)
        walked = list(walks(model, items))
        roots = Lookup | Near | Heatmap | Nearest
        asked = {p.field for p in model.patterns if isinstance(p, roots)}
        assert asked <= {w.field for w in walked}
        users: list[str | None] = [None, STRANGER, MEMBER, ADMIN]
        cached = 0
        for round_ in ("read", "again"):  # the second answered from the cache where it can
            for walk in walked:
                for user in sorted({*users, *walk.allowed}, key=str):
                    body = await answer_of(http, gateway, walk.document, bearer(user, groups))
                    judged(walk, user, body)
                    if round_ == "again":
                        cached += body["extensions"]["cost"].get("cachedRequests", 0)
        assert cached > 0  # the cache answered some of them, and held the rules
        await subscriptions_walked(model, items, name, gateway, groups)


async def subscriptions_walked(
    model: Model, items: list[dict[str, Any]], name: str, gateway: Served, groups: list[str]
) -> None:
    """Each subscription as each caller, on one socket per caller: refused at once, or
    followed (no refusal)."""
    walked = list(subscription_walks(model, items, schema_sdl(name)))
    expected = {p.subscription for p in model.patterns if getattr(p, "subscription", None)}
    assert {w.field for w in walked} <= expected
    everyone = sorted(
        {None, STRANGER, MEMBER, ADMIN, *(u for w in walked for u in w.allowed)}, key=str
    )
    for user in everyone:
        headers = bearer(user, groups).get("Authorization", "").removeprefix("Bearer ")
        async with connected(gateway, headers or None) as live:
            followed = []
            for walk in walked:
                ident = await live.subscribe(walk.document)
                if walk.lets(user):
                    followed.append((walk, ident))
                    continue
                try:
                    message = await live.next_for(ident, within=5)
                except TimeoutError:
                    raise AssertionError(("no refusal", walk, user)) from None
                payload = message["payload"]
                errors = payload if message["type"] == "error" else payload["errors"]
                codes = {e["extensions"]["code"] for e in errors}
                assert codes <= {"FORBIDDEN", "UNAUTHENTICATED"}, (walk, user, message)
            for _, ident in followed:
                with pytest.raises(TimeoutError):  # following: no refusal
                    await live.next_for(ident, within=0.3)
