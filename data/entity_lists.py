"""A declared list's reads (`model.ListOf`): its arguments checked and turned into a key
condition, the page read (with its parent in one Query when it begins there), and how the
change feed files its entities' changes and matches them against the same arguments."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from data.changes import Followed
from data.collections import PageRead
from data.entities import Record, RecordOf, checked, values_of
from errors.vocabulary import BadUserInput
from keys.conditions import KeyCondition, narrowed_to, within
from keys.table import Index
from model import Entity, ListOf
from model.kinds import domain
from store.cursors import Binding
from store.pagination import PageArgs
from store.requests import Filter, Item


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
    # A copied list's set filters: the values each keeps (absent: all).
    sets: Mapping[str, frozenset[Any]] = field(default_factory=dict)

    def filter(
        self, entity: Entity, *, own_only: bool = False, parent: Entity | None = None
    ) -> Filter | None:
        """The FilterExpression of `only`, which the entity's parent item passes too; with
        `own_only` (other entities' items may lie in the range), of the entity's own items
        only, by their discriminator, and of `parent`'s item when the page may be read
        with it."""
        told = entity.discriminator
        kind = ({":type": told.value or entity.label}, {"#type": told.attribute})
        names = {f"#f{n}": entity.stored_name(name) for n, name in enumerate(self.only)}
        values = {f":f{n}": str(value) for n, value in enumerate(self.only.values())}
        kept = " AND ".join(f"#f{n} = :f{n}" for n in range(len(self.only)))
        if not own_only:
            if not self.only:
                return None
            return Filter(
                f"({kept}) OR #type <> :type",
                {**values, **kind[0]},
                {**names, **kind[1]},
                passes_parent=True,
            )
        mine = f"({kept}) AND #type = :type" if self.only else "#type = :type"
        values.update(kind[0])
        names.update(kind[1])
        if parent is None:
            return Filter(mine, values, names)
        theirs = parent.discriminator
        own = Filter(mine, dict(values), dict(names))
        values[":parent"] = theirs.value or parent.label
        names["#parentType"] = theirs.attribute
        expression = f"({mine}) OR #parentType = :parent"
        return Filter(expression, values, names, passes_parent=True, apart=own)

    def contains(self, pattern: ListOf, record: Record) -> bool:
        """Whether an entity in the list's partition is in the list these arguments ask for
        (on a sparse index, only while its predicate holds)."""
        predicate = pattern.entity.sparse.get(pattern.index)
        if predicate is not None and not predicate.holds(record):
            return False
        wanted = {**self.equal, **self.only}
        entity = pattern.entity
        if any(
            _keyed(entity, name, record[name]) != _keyed(entity, name, value)
            for name, value in wanted.items()
        ):
            return False
        if any(record[name] not in values for name, values in self.sets.items()):
            return False
        if pattern.range is None:
            return True
        value = record[pattern.range.attribute]
        return (self.start is None or self.start <= value) and (
            self.end is None or value <= self.end
        )

    def bound(self, pattern: ListOf) -> dict[str, Any]:
        """What a cursor is bound to besides the list and its partition."""
        entity = pattern.entity
        wanted = {**self.equal, **self.only}
        bound: dict[str, Any] = {name: _keyed(entity, name, v) for name, v in wanted.items()}
        # A filter not given is bound as such (none: every item).
        bound.update({name: None for name in pattern.filtered if name not in self.only})
        bound.update({name: sorted(map(str, values)) for name, values in self.sets.items()})
        if pattern.range is not None and (self.start, self.end) != (None, None):
            bound[pattern.range.argument] = [_text(self.start), _text(self.end)]
        if pattern.direction:  # the direction read, its default too
            bound["forward"] = not pattern.descending if self.forward is None else self.forward
        elif self.forward is not None:
            bound["forward"] = self.forward
        return bound


NOTHING = Narrowed()


def narrowed(
    pattern: ListOf,
    equal: Mapping[str, Any],
    span: tuple[Any, Any] | None = None,
    forward: bool | None = None,
    only: Mapping[str, Any] | None = None,
    sets: Mapping[str, Iterable[Any] | None] | None = None,
) -> Narrowed:
    """The list's arguments checked: `equal` by attribute (None: not given), given in the
    sort key's order; `span` the range's bounds, given only with every equality; a copied
    list's `sets` by attribute."""
    entity = pattern.entity
    values: dict[str, Any] = {}
    missing: str | None = None
    kept_sets: dict[str, frozenset[Any]] = {}
    for name, given in (sets or {}).items():
        if given is not None:
            kept_sets[name] = _set(pattern, name, given)
    for name in pattern.equal or pattern.either:
        value = equal.get(name)
        if value is None:
            missing = missing or name
            continue
        if missing is not None and pattern.equal:
            raise BadUserInput(f"give `{missing}` to narrow by `{name}`", field=name)
        values[name] = checked(entity.attributes[name], value, name)
    start = end = None
    if span is not None and pattern.range is not None:
        argument = pattern.range.argument
        # Without any equality, a list with another index reads that one.
        if missing is not None and (pattern.unnarrowed is None or values):
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
    return Narrowed(values, start, end, forward, kept, kept_sets)


def _set(pattern: ListOf, name: str, given: Iterable[Any]) -> frozenset[Any]:
    """A set filter's values, each checked; at least one."""
    argument = pattern.sets[name]
    values = frozenset(checked(pattern.entity.attributes[name], v, argument) for v in given)
    if not values:
        raise BadUserInput(
            f"give at least one {name}, or leave `{argument}` out for all", field=argument
        )
    allowed = domain(pattern.entity.attributes[name])
    if not values <= set(allowed):
        raise BadUserInput(f"a {name} is one of {', '.join(map(str, allowed))}", field=argument)
    return values


def list_read(
    pattern: ListOf,
    parent: Entity | None,
    of: Mapping[str, Any],
    args: PageArgs,
    narrowing: Narrowed = NOTHING,
) -> PageRead[Record]:
    """The page of `pattern` in the partition `of` names: the parent's values (its key's,
    at least), or for a root list the partition's own attributes."""
    entity = pattern.entity
    index = pattern.index_for(narrowing.equal)
    if entity.copies_on(index) is not None:
        return _copies_read(pattern, parent, of, args, narrowing)
    partition = _partition(pattern, index, parent, of)
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
        condition = narrowed_to(index, partition, sort, narrowing.equal)
    # The cursor is bound to the list by its type and field, as clients see it.
    where = "Query" if parent is None else parent.name
    binding = Binding(f"{where}.{pattern.field}", partition, narrowing.bound(pattern))
    head = None
    if parent is not None and index.sort_key in parent.templates:
        place = parent.templates[index.sort_key]
        head = place.render(**{s.name: of[s.name] for s in place.segments})
    forward = narrowing.forward
    if forward is None:
        forward = (
            not pattern.descending if pattern.whole is None else whole_forward(pattern, parent)
        )
    return PageRead(
        condition,
        binding,
        args,
        forward=forward,
        record=RecordOf(entity, lazy=True),
        filter=narrowing.filter(entity, own_only=pattern.mixed, parent=parent if head else None),
        parent=head,
    )


def whole_forward(pattern: ListOf, parent: Entity | None) -> bool:
    """The way a whole list is read: from its parent's item, when it is beside it (a child
    whose label sorts before the parent's is read backwards, then answered in key order)."""
    keys = pattern.entity.keys_on(pattern.index)
    theirs = None if parent is None else parent.all_keys.get(pattern.index)
    if keys is None or theirs is None:
        return True
    return keys.sort.label > theirs.sort.label


def whole_page(pattern: ListOf) -> PageArgs:
    """The one page a whole list reads: every item it may hold."""
    assert pattern.whole is not None
    return PageArgs(size=pattern.whole, backward=False, cursor=None)


def _partition(pattern: ListOf, index: Index, parent: Entity | None, of: Mapping[str, Any]) -> str:
    """The list's partition: the parent's own on the index when it is there, else rendered
    from the parent's values (or a root list's arguments and its fixed `at`)."""
    if parent is not None and index.partition_key in parent.templates:
        template = parent.templates[index.partition_key]
        return template.render(**{s.name: of[s.name] for s in template.segments})
    entity = pattern.entity
    mapped = {} if parent is None or entity.parent is None else entity.parent.attributes
    values = {**of, **{mine: of[theirs] for mine, theirs in mapped.items()}, **pattern.at}
    template = entity.templates[index.partition_key]
    return template.render(**{s.name: values[s.name] for s in template.segments})


def _copies_read(
    pattern: ListOf,
    parent: Entity | None,
    of: Mapping[str, Any],
    args: PageArgs,
    narrowing: Narrowed,
) -> PageRead[Record]:
    """A page of the one list of copies that holds exactly what the filters ask for."""
    index, entity, copies = pattern.index, pattern.entity, pattern.entity.copies
    assert copies is not None
    mapped = {} if entity.parent is None or parent is None else entity.parent.attributes
    values = {
        **{name: of[mapped.get(name, name)] for name in copies.partition.attributes},
        **{name: narrowing.equal.get(name) for name in copies.either},
        **{
            name: narrowing.sets.get(name, frozenset(domain(entity.attributes[name])))
            for name in copies.sets
        },
    }
    partition = entity.copy_templates[index.partition_key].render(**values)
    condition = KeyCondition.prefix(
        index, partition, entity.copy_templates[index.sort_key].prefix()
    )
    where = "Query" if parent is None else parent.name
    # Bound to the parent's key and each filter as given (None: not given).
    bound: dict[str, Any] = {name: _text(narrowing.equal.get(name)) for name in copies.either}
    for name, argument in copies.sets.items():
        kept = narrowing.sets.get(name)
        bound[argument] = None if kept is None else [_plain(v) for v in sorted(kept)]
    owner = topic(str(values[name]) for name in copies.partition.attributes)
    forward = narrowing.forward
    return PageRead(
        condition,
        Binding(f"{where}.{pattern.field}", owner, bound),
        args,
        forward=not pattern.descending if forward is None else forward,
        record=RecordOf(entity, lazy=True),
    )


def followed(pattern: ListOf) -> Followed:
    """How the change feed recognises and files changes of the entities `pattern` lists:
    under the list's subscription, by the list's partition."""
    keys = pattern.entity.keys_on(pattern.index)
    assert keys is not None  # checked when the model is built
    partition = keys.partition.attributes
    name = pattern.subscription or pattern.field
    entity = pattern.entity
    return follower(
        entity, name, lambda item: topic_of(entity, partition, values_of(entity, item, partition))
    )


def follower(entity: Entity, name: str, topic_for: Callable[[Item], str]) -> Followed:
    """Changes of `entity`'s own items (not the items derived from them), filed under the
    subscription `name` by `topic_for` its item, and named by the attributes of its key its
    type shows (all of them, when it shows none): each read from the item alone."""
    same = entity.key.partition == entity.key.sort
    shown = [n for n in entity.key_attributes if entity.attributes[n].shown]
    names = shown or entity.key_attributes

    def owns(pk: str, sk: str) -> bool:
        return (pk == sk or not same) and entity.owns(pk, sk)

    return Followed(
        name,
        owns,
        RecordOf(entity),
        lambda item, _pk: topic_for(item),
        lambda item: topic(str(v) for v in values_of(entity, item, names).values()),
        entity.table,
    )


def topic(values: Iterable[str]) -> str:
    """A topic or an id made of several values."""
    return "#".join(values)


def topic_of(entity: Entity, names: Iterable[str], values: Mapping[str, Any]) -> str:
    """The topic of these attributes' values, as a record or a subscription's checked
    arguments hold them."""
    return topic(_keyed(entity, n, values[n]) for n in names)


def _keyed(entity: Entity, name: str, value: Any) -> str:
    """A value as the keys compare it: a handle in lower case."""
    return str(value).lower() if entity.attributes[name].folds_case else str(value)


def _plain(value: Any) -> Any:
    """A value as JSON holds it: a number as it is, a choice as its text."""
    return value if isinstance(value, int) else str(value)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)
