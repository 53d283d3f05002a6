"""What each access pattern of a model asks of DynamoDB, in words: its GraphQL field, the
requests it leads to (its key condition) and its worst case, as `dynagate model check`
prints them and the schema's descriptions say them (docs/model.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from data.entities import most_bytes
from data.places import items as entity_places
from data.places import nearest as entity_nearest
from data.writes import entities as entity_writes
from data.writes import parents as parent_removals
from data.writes.kinds import keeping_of
from keys.table import Index
from keys.template import KeyTemplate
from model import (
    Create,
    Delete,
    Entity,
    Heatmap,
    ListOf,
    Lookup,
    Model,
    Near,
    Nearest,
    Pattern,
    Update,
)
from model.entities import plural
from store.pagination import query_calls

# The page a connection reads when its client gives no size.
DEFAULT_PAGE = 20


def pattern_field(model: Model, pattern: Pattern) -> str:
    """The GraphQL field of an access pattern, on its type (`Customer.orders`)."""
    if isinstance(pattern, ListOf) and not pattern.root:
        parent = model.parent_of(pattern.entity)
        return f"{parent.name if parent else '?'}.{pattern.field}"
    root = "Mutation" if isinstance(pattern, Create | Update | Delete) else "Query"
    return f"{root}.{pattern.field}"


@dataclass(frozen=True)
class Said:
    """An access pattern in words: what its field `does` (what it answers, or changes), the
    DynamoDB `requests` it leads to with its worst case (as `dynagate model check` prints
    them), and the `brief` of them that the schema's description ends with."""

    does: str
    requests: str
    brief: str

    @property
    def sentence(self) -> str:
        """The field's description, when its declaration gives none."""
        return f"{self.does}: {self.brief}."


def pattern_requests(model: Model, pattern: Pattern) -> str:
    """The DynamoDB requests an access pattern leads to (its key condition), and its worst
    case."""
    return said_of(model, pattern).requests


def said_of(model: Model, pattern: Pattern) -> Said:
    """What an access pattern does and asks of DynamoDB, in words."""
    entity = pattern.entity
    one_of, many = one(entity.noun), plural(entity.noun)
    if isinstance(pattern, Lookup):
        key = _key(entity, entity.table)
        if entity.readers is not None and entity.readers.parent_owner:
            asked = (
                f"GetItem {key} (batched per request), then its parent's for its readers;"
                " worst 2 calls, 2 items"
            )
        else:
            asked = f"GetItem {key} (batched per request); worst 1 call, 1 item"
        return Said(
            f"{one(entity.noun, capital=True)} by its key, null when there is none", asked, asked
        )
    if isinstance(pattern, ListOf):
        if pattern.whole is not None:
            does = f"Every one of its {many} (at most {pattern.whole}), in key order"
        else:
            order = "descending" if pattern.descending else "ascending"
            does = f"The {many} of one partition, {order} by {sort_of(pattern)}"
        return Said(does, _list(pattern), list_read(pattern))
    if isinstance(pattern, Create):
        calls = entity_writes.create_calls(model, entity)
        asked = f"PutItem or TransactWriteItems; worst {_n(calls, 'call')}"
        return Said(f"Creates {one_of}", asked, asked)
    if isinstance(pattern, Update):
        asked = _update(entity, pattern)
        return Said(f"Changes {one_of} named by its key", asked, asked)
    if isinstance(pattern, Delete) and model.children_of(entity):
        return _parent_delete(model, pattern)
    if isinstance(pattern, Delete):
        asked = _delete(entity, pattern)
        return Said(f"Removes the {entity.noun} its key names, true once removed", asked, asked)
    if isinstance(pattern, Near):
        calls, items = entity_places.search_bound(entity, 100)
        asked = (
            f"Query per geohash range of the view; worst {_n(calls, 'call')}, {items} items"
            " (limit 100)"
        )
        return Said(f"The {many} inside a viewport", asked, asked)
    if isinstance(pattern, Nearest):
        asked = entity_nearest.described(pattern, DEFAULT_PAGE)
        return Said(f"The {many}", asked, _within(f"The {many}", asked))
    assert isinstance(pattern, Heatmap)
    asked = "Query per cell partition of the view; worst within the request's limits"
    does = f"Exact counts of {many} in the geohash cells meeting a viewport"
    return Said(does, asked, asked)


def _update(entity: Entity, pattern: Update) -> str:
    calls, items = entity_writes.update_calls(entity, (*pattern.changes, *pattern.sets))
    asked, read = keeping_of(entity).update_said(_key(entity, entity.table), pattern.access)
    return f"{asked}; worst {_n(calls + read, 'call')}, {items + read} read"


def _delete(entity: Entity, pattern: Delete) -> str:
    calls, items = entity_writes.delete_calls(entity)
    asked, read = keeping_of(entity).delete_said(pattern.access)
    return f"{asked}; worst {_n(calls + read, 'call')}, {items + read} read"


def _parent_delete(model: Model, pattern: Delete) -> Said:
    """A parent's delete: its mark, its children's reads, then one transaction; what
    becomes of what is below it."""
    entity = pattern.entity
    below = " and ".join(plural(child.noun) for child in model.children_of(entity))
    calls, items = parent_removals.removal_calls(model, entity)
    reads = []
    for place in parent_removals.places_below(model, pattern.entity):
        how = "consistent" if place.exact else f"after {parent_removals.INDEX_SETTLE:g} s"
        index = place.index
        reads.append(
            f"Query {index.name or 'the table'} {index.partition_key}={_shape(place.partition)}"
            f" of its {plural(place.child.noun)} ({how})"
        )
    then = (
        "CONFLICT naming any found, else TransactWriteItems (Delete held to the mark)"
        if pattern.children == "refuse"
        else f"TransactWriteItems removing it and them (at most {parent_removals.MOST_ACTIONS})"
    )
    asked = (
        f"UpdateItem (its removal's mark), {', '.join(reads)}, then {then}; worst"
        f" {_n(calls, 'call')}, {items} read"
    )
    if pattern.children == "refuse":
        does = f"Removes the {entity.noun} its key names"
        brief = f"CONFLICT naming its {below} while any exist; worst {calls} calls"
    else:
        does = f"Removes the {entity.noun} its key names with its {below}"
        brief = (
            f"one transaction of at most {parent_removals.MOST_ACTIONS} writes (beyond,"
            f" `dynagate remove`); worst {calls} calls"
        )
    return Said(does, asked, brief)


def _list(pattern: ListOf) -> str:
    entity = pattern.entity
    reads = [_on(entity, pattern.index, pattern)]
    if pattern.unnarrowed is not None:
        reads.append(
            f"without {', '.join(pattern.equal)}: {_on(entity, pattern.unnarrowed, pattern)}"
        )
    size = pattern.whole or DEFAULT_PAGE
    page = f"every item, at most {size}" if pattern.whole else f"a page of {size} by default"
    return (
        f"{'; '.join(reads)}{_filtered(pattern)}; {page}: {_worst(pattern)}"
        " (with the parent and the item past the page)"
    )


def list_read(pattern: ListOf) -> str:
    """A list's own read (on its index, all its narrowing arguments given), its filter, and
    its worst case (for a page of the default size)."""
    read = _on(pattern.entity, pattern.index, pattern)
    page = "" if pattern.whole else f" for a page of {DEFAULT_PAGE}"
    return f"{read}{_filtered(pattern)}; {_worst(pattern)}{page}"


def sort_of(pattern: ListOf) -> str:
    """The attributes a list is sorted by: its sort key's, in order."""
    entity, index = pattern.entity, pattern.index
    templates = entity.templates_on(index)
    return ", ".join(s.name for s in templates[index.sort_key].segments) or "its key"


def item_key(entity: Entity) -> str:
    """An entity's primary key, each segment named (`CUSTOMER#<id> / CUSTOMER#<id>`)."""
    return _key(entity, entity.table)


def _filtered(pattern: ListOf) -> str:
    entity = pattern.entity
    filters = [*pattern.filtered, *([entity.discriminator.attribute] if pattern.mixed else [])]
    return f"; FilterExpression on {', '.join(filters)}" if filters else ""


def _worst(pattern: ListOf) -> str:
    size = pattern.whole or DEFAULT_PAGE
    calls = query_calls(size + 2, most_bytes(pattern.entity))
    return f"worst {_n(calls, 'call')}, {size + 2} items"


def _on(entity: Entity, index: Index, pattern: ListOf) -> str:
    where = index.name or "the table"
    templates = entity.templates_on(index)
    partition, sort = templates[index.partition_key], templates[index.sort_key]
    narrowed = [s.name for s in sort.segments if s.name in pattern.narrowing]
    condition = f"begins_with {sort.prefix()}" if not narrowed else f"on {', '.join(narrowed)}"
    shape = _shape(partition, pattern.at)
    return f"Query {where} {index.partition_key}={shape}, {index.sort_key} {condition}"


def _key(entity: Entity, index: Index) -> str:
    templates = entity.templates
    return f"{_shape(templates[index.partition_key])} / {_shape(templates[index.sort_key])}"


def _shape(template: KeyTemplate, fixed: Mapping[str, Any] | None = None) -> str:
    """The key with each segment named (`CUSTOMER#<id>`), or its value where fixed."""
    return template.described(fixed)


def one(noun: str, *, capital: bool = False) -> str:
    """`an order`, `a customer`; `An order` with `capital`."""
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return f"{article.capitalize() if capital else article} {noun}"


# The longest description: one sentence beside a name in GraphiQL.
LONGEST = 200


def _within(does: str, asked: str) -> str:
    """`asked`, cut after its last clause with which `does: asked.` stays within `LONGEST`
    characters."""
    sentence = f"{does}: {asked}."
    if len(sentence) <= LONGEST:
        return asked
    cut = sentence.rfind("; ", 0, LONGEST)
    return sentence[len(does) + 2 : cut] if cut > len(does) else asked[: LONGEST - len(does) - 4]


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
