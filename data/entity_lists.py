"""A declared list's reads (`model.ListOf`): its arguments checked and turned into a key
condition, the page read (with its parent in one Query when it begins there), and how the
change feed files its entities' changes and matches them against the same arguments."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from data.changes import Followed
from data.collections import PageRead
from data.entities import Record, RecordOf, checked
from keys.conditions import KeyCondition, within
from keys.errors import BadUserInput
from model import Entity, ListOf
from store.cursors import Binding
from store.pagination import PageArgs
from store.requests import Filter


@dataclass(frozen=True)
class Narrowed:
    """A list's own arguments, checked: equality on leading sort-key segments, a range on
    the next, and the direction (None: the list's own)."""

    equal: Mapping[str, Any] = field(default_factory=dict)
    start: Any = None
    end: Any = None
    forward: bool | None = None
    # The choices a FilterExpression keeps.
    only: Mapping[str, Any] = field(default_factory=dict)

    def filter(self, entity: Entity) -> Filter | None:
        """The FilterExpression of `only`; the entity's parent item passes it too."""
        if not self.only:
            return None
        names = {f"#f{n}": name for n, name in enumerate(self.only)}
        values = {f":f{n}": str(value) for n, value in enumerate(self.only.values())}
        kept = " AND ".join(f"#f{n} = :f{n}" for n in range(len(self.only)))
        return Filter(
            f"({kept}) OR #type <> :type",
            {**values, ":type": entity.label},
            {**names, "#type": "type"},
            passes_parent=True,
        )

    def contains(self, pattern: ListOf, record: Record) -> bool:
        """Whether an entity in the list's partition is in the list these arguments ask for
        (on a sparse index, only while its predicate holds)."""
        predicate = pattern.entity.sparse.get(pattern.index)
        if predicate is not None and not predicate.holds(record):
            return False
        wanted = {**self.equal, **self.only}
        if any(record[name] != value for name, value in wanted.items()):
            return False
        if pattern.range is None:
            return True
        value = record[pattern.range.attribute]
        return (self.start is None or self.start <= value) and (
            self.end is None or value <= self.end
        )

    def bound(self, pattern: ListOf) -> dict[str, Any]:
        """What a cursor is bound to besides the list and its partition."""
        wanted = {**self.equal, **self.only}
        bound: dict[str, Any] = {name: str(value) for name, value in wanted.items()}
        if pattern.range is not None and (self.start, self.end) != (None, None):
            bound[pattern.range.argument] = [_text(self.start), _text(self.end)]
        if self.forward is not None:
            bound["forward"] = self.forward
        return bound


NOTHING = Narrowed()


def narrowed(
    pattern: ListOf,
    equal: Mapping[str, Any],
    span: tuple[Any, Any] | None = None,
    forward: bool | None = None,
    only: Mapping[str, Any] | None = None,
) -> Narrowed:
    """The list's arguments checked: `equal` by attribute (None: not given), given in the
    sort key's order; `span` the range's bounds, given only with every equality."""
    entity = pattern.entity
    values: dict[str, Any] = {}
    missing: str | None = None
    for name in pattern.equal:
        value = equal.get(name)
        if value is None:
            missing = missing or name
            continue
        if missing is not None:
            raise BadUserInput(f"give `{missing}` to narrow by `{name}`", field=name)
        values[name] = checked(entity.attributes[name], value, name)
    start = end = None
    if span is not None and pattern.range is not None:
        argument = pattern.range.argument
        if missing is not None:
            raise BadUserInput(f"give `{missing}` to narrow by `{argument}`", field=argument)
        attribute = entity.attributes[pattern.range.attribute]
        start, end = (None if v is None else checked(attribute, v, argument) for v in span)
        if start is None and end is None:
            raise BadUserInput("give `from`, `to` or both", field=argument)
        if start is not None and end is not None and start > end:
            raise BadUserInput("`from` is later than `to`", field=argument)
    kept = {
        name: checked(entity.attributes[name], value, name)
        for name, value in (only or {}).items()
        if value is not None
    }
    return Narrowed(values, start, end, forward, kept)


def list_read(
    pattern: ListOf,
    parent: Entity | None,
    of: Mapping[str, Any],
    args: PageArgs,
    narrowing: Narrowed = NOTHING,
) -> PageRead[Record]:
    """The page of `pattern` in the partition `of` names: the parent's values (its key's,
    at least), or for a root list the partition's own attributes."""
    index, entity = pattern.index, pattern.entity
    owner = entity if parent is None else parent
    at = owner.templates[index.partition_key]
    partition = at.render(**{s.name: of[s.name] for s in at.segments})
    sort = entity.templates[index.sort_key]
    if pattern.range is not None and (narrowing.start, narrowing.end) != (None, None):
        condition = within(
            index,
            partition,
            sort,
            narrowing.equal,
            pattern.range.attribute,
            narrowing.start,
            narrowing.end,
        )
    else:
        condition = KeyCondition.prefix(index, partition, sort.prefix(**narrowing.equal))
    # The cursor is bound to the list by its type and field, as clients see it.
    where = "Query" if parent is None else parent.name
    binding = Binding(f"{where}.{pattern.field}", partition, narrowing.bound(pattern))
    head = None
    if parent is not None:
        place = parent.templates[index.sort_key]
        head = place.render(**{s.name: of[s.name] for s in place.segments})
    forward = narrowing.forward
    return PageRead(
        condition,
        binding,
        args,
        forward=not pattern.descending if forward is None else forward,
        record=RecordOf(entity),
        filter=narrowing.filter(entity),
        parent=head,
    )


def followed(pattern: ListOf) -> Followed:
    """How the change feed recognises and files changes of the entities `pattern` lists:
    under the list's subscription, by the list's partition."""
    entity = pattern.entity
    partition = entity.all_keys[pattern.index].partition.attributes
    same = entity.key.partition == entity.key.sort

    def owns(pk: str, sk: str) -> bool:
        return (pk == sk or not same) and entity.owns(pk, sk)

    return Followed(
        pattern.subscription or pattern.field,
        owns,
        RecordOf(entity),
        lambda item, _pk: topic(str(item[name]) for name in partition),
        lambda item: topic(str(item[name]) for name in entity.key_attributes),
    )


def topic(values: Iterable[str]) -> str:
    """A topic or an id made of several values."""
    return "#".join(values)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)
