"""Example items of a model's entities, as `dynagate model chart` shows them
(`gateway/cli/model_chart.py`): a value of each attribute's kind that its keys accept,
rendered into the item's keys by the entity's own templates. Made the same each time, so
that a chart in the docs stays the command's output."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from data.entities import stored as stored_values
from keys.codecs import ksuid
from keys.map import place_geohash
from model import Entity, Model
from model.attributes import (
    Attribute,
    Author,
    Choice,
    Code,
    Coordinate,
    Email,
    EngineNumber,
    Flag,
    GeneratedId,
    Geohash,
    Handle,
    Identifier,
    Json,
    Lines,
    Number,
    NumberSet,
    Real,
    Text,
    TextSet,
    Timestamp,
    Version,
)

# One moment for every example time, so that a chart is the same each time it is made.
EXAMPLE_TIME = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
EXAMPLE_PLACE = (48.8566, 2.3522)
# Tried in turn for a Code when its description gives no example ("… such as 'en'").
CODE_EXAMPLES = ("en", "2025-03-01", "alice@example.com", "abc", "a1", "1")
_SUCH_AS = re.compile(r"such as\s+'?([^'\s,;)]+)'?")


def example_values(model: Model, entity: Entity) -> dict[str, Any]:
    """A value of each of the entity's attributes, of its kind, that its keys accept; a
    child's attributes naming its parent hold the parent's example values, and a sparse
    index's predicate holds (the item is then on every index it can be on)."""
    return _examples(model, entity, frozenset())


def example_item(model: Model, entity: Entity) -> dict[str, Any]:
    """The example item as the table holds it: its key attributes, its discriminator, and
    each attribute under its stored name."""
    values = example_values(model, entity)
    # As the engine writes them; an author is the caller's, written beside them.
    authors = {n: values[n] for n, a in entity.attributes.items() if isinstance(a, Author)}
    stored = {n: _shown(v) for n, v in {**stored_values(entity, values), **authors}.items()}
    return {**_item_keys(entity, values), **entity.kind, **stored}


def _examples(model: Model, entity: Entity, seen: frozenset[str]) -> dict[str, Any]:
    values = {n: _example(entity, n, a) for n, a in entity.attributes.items()}
    for predicate in entity.sparse.values():
        values[predicate.attribute] = predicate.values[0]
    declared = entity.parent
    if declared is not None and declared.entity not in seen:
        theirs = _examples(model, model.entity(declared.entity), seen | {entity.name})
        values.update({mine: theirs[other] for mine, other in declared.attributes.items()})
    return values


def _example(entity: Entity, name: str, attribute: Attribute) -> Any:
    if isinstance(attribute, Identifier | Handle):
        base = re.sub(r"_?(id|Id|ID)$", "", name) or entity.field_name
        return re.sub(r"[^A-Za-z0-9._-]", "", base.lower()) + "-1"
    if isinstance(attribute, GeneratedId):
        # Each entity's own id, fixed: a KSUID made of its name.
        payload = hashlib.blake2b(entity.name.encode(), digest_size=16).digest()
        return ksuid(int(EXAMPLE_TIME.timestamp()), payload)
    if isinstance(attribute, Author):
        return "alice"
    if isinstance(attribute, Email):
        return "alice@example.com"
    if isinstance(attribute, Code):
        return _code_example(attribute)
    if isinstance(attribute, Number):
        return max(attribute.low, min(attribute.high, 1))
    if isinstance(attribute, Version):
        return 1
    if isinstance(attribute, EngineNumber):
        return 0
    if isinstance(attribute, Real):
        return max(attribute.low, min(attribute.high, 1.5))
    if isinstance(attribute, Flag):
        return True
    if isinstance(attribute, TextSet):
        return [f"{name}-a", f"{name}-b"]
    if isinstance(attribute, NumberSet):
        return sorted({attribute.low, min(attribute.high, attribute.low + 1)})
    if isinstance(attribute, Json):
        return {"example": True}
    if isinstance(attribute, Choice):
        return attribute.initial or next(iter(attribute.values))
    if isinstance(attribute, Timestamp):
        return EXAMPLE_TIME
    if isinstance(attribute, Coordinate):
        return EXAMPLE_PLACE[0] if attribute.axis == "lat" else EXAMPLE_PLACE[1]
    if isinstance(attribute, Geohash):
        return place_geohash(*EXAMPLE_PLACE)
    if isinstance(attribute, Lines):
        line = {n: _example(entity, n, f) for n, f in attribute.fields.items()}
        return [{attribute.numbered: 1, **line}]
    if isinstance(attribute, Text):
        return f"{entity.name} {name}"
    return _by_scalar(entity, name, attribute)


def _by_scalar(entity: Entity, name: str, attribute: Attribute) -> Any:
    """A kind this module does not know by name: a value of its GraphQL type."""
    try:
        scalar = str(attribute.scalar)
    except (NotImplementedError, TypeError):
        return None
    known: dict[str, Any] = {"Int": 1, "Float": 1.5, "Boolean": True, "JSON": {}}
    return known.get(scalar, f"{entity.name} {name}")


def _code_example(attribute: Code) -> str | None:
    """The example its description gives, else the first of a few its pattern takes."""
    told = _SUCH_AS.search(attribute.described)
    for candidate in ([told.group(1)] if told else []) + list(CODE_EXAMPLES):
        try:
            return attribute.codec.encode(candidate)
        except ValueError:
            continue
    return None


def _item_keys(entity: Entity, values: Mapping[str, Any]) -> dict[str, str]:
    try:
        return entity.item_keys(values)
    except (ValueError, TypeError):
        # A value no example was found for: its keys named, not rendered.
        return {a: t.described() for a, t in entity.templates.items()}


def _shown(value: Any) -> Any:
    """A stored value as a chart shows it: a set in order."""
    return sorted(value) if isinstance(value, set) else value
