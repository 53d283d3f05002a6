"""Example items of a model's entities, as `dynagate model chart` shows them
(`gateway/cli/model_chart.py`): each attribute kind's own example value, which its keys
accept, rendered into the item's keys by the entity's own templates. Made the same each
time, so that a chart in the docs stays the command's output."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data.entities import stored as stored_values
from model import Entity, Model


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
    authors = {n: values[n] for n, a in entity.attributes.items() if a.engine_held}
    stored = {n: _shown(v) for n, v in {**stored_values(entity, values), **authors}.items()}
    return {**_item_keys(entity, values), **entity.kind, **stored}


def _examples(model: Model, entity: Entity, seen: frozenset[str]) -> dict[str, Any]:
    values = {n: a.example(entity, n) for n, a in entity.attributes.items()}
    for predicate in entity.sparse.values():
        values[predicate.attribute] = predicate.values[0]
    declared = entity.parent
    if declared is not None and declared.entity not in seen:
        theirs = _examples(model, model.entity(declared.entity), seen | {entity.name})
        values.update({mine: theirs[other] for mine, other in declared.attributes.items()})
    return values


def _item_keys(entity: Entity, values: Mapping[str, Any]) -> dict[str, str]:
    try:
        return entity.item_keys(values)
    except (ValueError, TypeError):
        # A value no example was found for: its keys named, not rendered.
        return {a: t.described() for a, t in entity.templates.items()}


def _shown(value: Any) -> Any:
    """A stored value as a chart shows it: a set in order."""
    return sorted(value) if isinstance(value, set) else value
