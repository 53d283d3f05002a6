"""Every shipped model's rules, walked as its callers would: the demo and the booking example,
seeded with their demo data, each root field that reads an entity — a lookup, a root list —
and the lists below it, asked for items that exist as anonymous, the item's owner, another
user and an admin; each answers exactly what its access allows (the whole answer, or
FORBIDDEN / UNAUTHENTICATED at that field and nothing of the items). The paths are made
from the models' own patterns, so a pattern added to a model is walked too.
(`tests/model/test_ticketing_rules.py` walks a model with readers the same way.)"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest

from data.entities import record
from gateway.served_model import declared
from keys.codecs import format_timestamp
from model import Entity, Group, ListOf, Lookup, Model
from tests.client import Api, settings_for
from tests.docs.test_model_guide import cli_env, dynagate
from tests.identity import SECURED, token
from tests.table import scan_all

ROOT = Path(__file__).parents[2]
SHIPPED = {"demo": "demo.model", "booking": "examples/booking/model.py"}
# A few of each: every entity is there, without the demo's thousands of writes.
SMALL = {
    "demo.model": "--customers 3 --max-orders 3 --max-comments 3 --markers-per-place 3"
    " --repos 1 --organizations 1 --queues 1",
}
ADMIN = "root"
STRANGER = "mallory"


@dataclass(frozen=True)
class Walk:
    """One root field asked for one existing item (or partition), and who may ask."""

    field: str
    document: str
    allowed: frozenset[str | None]  # usernames; None: anonymous


def literal(value: Any) -> str:
    if isinstance(value, StrEnum):
        return value.name
    if isinstance(value, bool | int):
        return json.dumps(value)
    if isinstance(value, datetime):
        return json.dumps(format_timestamp(value))
    return json.dumps(str(value))


def arguments(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}: {literal(value)}" for name, value in values.items())


def who_may(access: Any, owner: str | None) -> frozenset[str | None]:
    """The callers a field's access lets in, of anonymous, the owner, a stranger, an admin."""
    everyone = {None, owner, STRANGER, ADMIN} - ({None} if owner is None else set())
    if access == "anyone":
        return frozenset(everyone | {None})
    if access in ("signed_in", "author"):
        return frozenset(everyone - {None})
    if access == "owner":
        return frozenset({owner, ADMIN} - {None})
    if access == "admins" or isinstance(access, Group):
        return frozenset({ADMIN})
    raise AssertionError(f"a read with access {access!r}")


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


def walks(model: Model, items: list[dict[str, Any]]) -> Iterator[Walk]:
    for pattern in model.patterns:
        if isinstance(pattern, Lookup):
            entity = pattern.entity
            found = next(records_of(entity, items, model), None)
            assert found is not None, f"no {entity.name} seeded for {pattern.field}"
            owner = None if entity.owner is None else str(found[entity.owner.attribute])
            named = arguments({n: found[n] for n in entity.key_attributes})
            document = f"{{ {pattern.field}({named}) {{ __typename {below(model, entity)} }} }}"
            yield Walk(pattern.field, document, who_may(pattern.access, owner))
        elif isinstance(pattern, ListOf) and pattern.root:
            entity = pattern.entity
            keys = entity.keys_on(pattern.index)
            assert keys is not None
            found = next(records_of(entity, items, model), None)
            if found is None:
                continue  # a sparse list none of whose items is seeded
            given = {n: found[n] for n in keys.partition.attributes if n not in pattern.at}
            owner = None if entity.owner is None else str(found[entity.owner.attribute])
            if entity.owner is not None and entity.owner.attribute not in given:
                owner = None  # not the owner's partition: nobody is its owner
            named = f"({arguments(given)}, first: 1)" if given else "(first: 1)"
            document = f"{{ {pattern.field}{named} {{ edges {{ node {{ __typename }} }} }} }}"
            yield Walk(pattern.field, document, who_may(pattern.access or "signed_in", owner))


@pytest.fixture(params=sorted(SHIPPED))
async def shipped(request: pytest.FixtureRequest, endpoint: str, client: Any) -> AsyncIterator[Any]:
    name = SHIPPED[request.param]
    table = await seeded_table(endpoint, client, name)
    try:
        yield name, table, declared(name), await scan_all(client, table)
    finally:
        await client.delete_table(TableName=table)


async def seeded_table(endpoint: str, client: Any, name: str) -> str:
    """A table of the model's demo data, made as `make run` makes it. The session's one
    DynamoDB Local, busy with the demo's thousands of writes, may drop a connection: a
    seed it cut short is made again in a new table, once."""
    said = ""
    for _ in range(2):
        table = f"matrix-{uuid.uuid4().hex[:12]}"
        env = cli_env(endpoint, table)
        code, out, err = await dynagate(f"dynagate create-table --model {name}", ROOT, env)
        assert code == 0, (out, err)
        seed = f"dynagate seed --model {name} {SMALL.get(name, '')}".strip()
        code, out, err = await dynagate(seed, ROOT, env)
        if code == 0:
            return table
        said = err
        await client.delete_table(TableName=table)
        assert "unreachable" in err, err
    raise AssertionError(f"seeding {name} failed twice: {said}")


async def test_each_shipped_field_answers_exactly_whom_its_access_lets_in(
    endpoint: str, shipped: Any
) -> None:
    name, table, model, items = shipped
    settings = settings_for(endpoint, table, model=name, **SECURED)
    walked = list(walks(model, items))
    fields = {p.field for p in model.patterns if isinstance(p, Lookup)}
    assert fields <= {w.field for w in walked}
    async with Api.serving(settings) as api:
        for walk in walked:
            users: set[str | None] = {None, STRANGER, ADMIN, *walk.allowed}
            for user in sorted(users, key=str):
                asking = api if user is None else api.signed_in(token(user, admin=user == ADMIN))
                answer = await asking(walk.document)
                data = (answer.body.get("data") or {}).get(walk.field)
                codes = {e["extensions"]["code"] for e in answer.errors}
                if user in walk.allowed:
                    assert not answer.errors and data is not None, (walk, user, answer.body)
                else:
                    assert codes and codes <= {"FORBIDDEN", "UNAUTHENTICATED"}, (walk, user, codes)
                    assert data is None, (walk, user, answer.body)
