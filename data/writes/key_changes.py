"""What an update of a declared entity reads first, the keys it writes (those a changed
attribute renders anew, and a sparse index's entered or left) and the condition holding
its choices' moves (`data/writes/entities.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from data.entities import record, stored
from errors.vocabulary import BadUserInput
from model import Entity, Moves
from store.requests import Item


def kept_values(entity: Entity, changes: set[str], updatable: set[str] | None = None) -> set[str]:
    """The attributes an update of `changes` reads first: those a key it renders anew uses
    that it neither knows nor changes, and that no update changes (a time stamped on
    create, say) or this update cannot (outside its `updatable`); any other such attribute
    the client gives with the change. And the
    predicate of a sparse index whose sort key it renders anew without changing the
    predicate: the key is written only while the item is in the index."""
    changed = {*changes, *entity.write_stamps}
    rendered = set(entity.rerendered(changed))
    predicates = set()
    for index, predicate in entity.sparse.items():
        if predicate.attribute in changed:
            rendered.update(index.attributes)
        elif rendered & set(index.attributes):
            predicates.add(predicate.attribute)
    used = {s.name for name in rendered for s in entity.templates[name].segments}
    fixed = {
        name
        for name, attribute in entity.attributes.items()
        if not attribute.changeable or (updatable is not None and name not in updatable)
    }
    return ((used & fixed) | predicates) - {*entity.key_attributes, *changed}


def held_reads(
    entity: Entity, reads: set[str], item: Item
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The values an update reads first (only those: any other value a key needs is the
    client's to give), what the write holds the item to (the same entity, not one made
    anew since), and the attributes it holds absent: a choice declared since the item was
    written reads as its initial value, and is held to be still absent."""
    kept = {name: value for name, value in record(entity, item).items() if name in reads}
    held = stored(entity, {name: kept[name] for name in reads if entity.stored_name(name) in item})
    return (
        kept,
        held,
        [
            entity.stored_name(name)
            for name in sorted(reads)
            if entity.stored_name(name) not in item
        ],
    )


def index_changes(
    entity: Entity, values: Mapping[str, Any], changed: Mapping[str, Any]
) -> tuple[dict[str, str], list[str]]:
    """The key attributes an update sets (those using a changed attribute; every key of a
    sparse index it enters) and those it removes (of a sparse index it leaves)."""
    rendered = set(entity.rerendered(changed))
    removed: list[str] = []
    for index, predicate in entity.sparse.items():
        if predicate.attribute not in changed:
            if index.partition_key in rendered:  # whether it belongs there is unknown
                raise BadUserInput(f"give `{predicate.attribute}` with {named(changed)}")
            if not predicate.holds(values):  # read first (`kept_values`): not in the index
                rendered.difference_update(index.attributes)
            continue
        if predicate.holds(values):
            rendered.update(index.attributes)
        else:
            rendered.difference_update(index.attributes)
            removed += index.attributes
    lacking = sorted(
        {s.name for name in rendered for s in entity.templates[name].segments} - set(values)
    )
    if lacking:
        raise BadUserInput(f"give {named(lacking)} with {named(changed)}")
    return entity.key_values(values, only=sorted(rendered)), removed


def named(names: Iterable[str]) -> str:
    return ", ".join(f"`{name}`" for name in names)


def allowed_moves(
    entity: Entity, transitions: Sequence[Moves], values: Mapping[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """The condition terms that hold each moved choice to the values it may move from."""
    terms: list[str] = []
    bound: dict[str, Any] = {}
    for n, transition in enumerate(transitions):
        name = transition.attribute
        if name not in values:
            continue
        sources = transition.sources(values[name])
        if not sources:
            raise BadUserInput(f"no {entity.noun} moves to {values[name]}", field=name)
        names = [f":from{n}_{i}" for i in range(len(sources))]
        bound.update({alias: str(source) for alias, source in zip(names, sources, strict=True)})
        held = entity.stored_name(name)
        term = f"#{held} IN ({', '.join(names)})"
        attribute = entity.attributes[name]
        if attribute.starts_at in sources:
            # Declared since the item was written: absent, it is its initial value.
            term = f"{term} OR attribute_not_exists(#{held})"
        terms.append(term)
    return terms, bound


def all_of(terms: list[str]) -> str | None:
    """The terms joined by AND, those with an OR in parentheses: DynamoDB refuses
    parentheses around a whole condition, which `update_request` adds."""
    if len(terms) < 2:
        return terms[0] if terms else None
    return " AND ".join(f"({t})" if " OR " in t else t for t in terms)
