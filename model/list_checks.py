"""The checks of a declared list (`model.ListOf`): what its arguments narrow, which index
it reads, and whose partition it is."""

from __future__ import annotations

from keys.table import Index
from model.attributes import Choice
from model.entities import Entity, Keys
from model.errors import ModelError
from model.patterns import ListOf

# A whole list is one Query's worth of items.
MOST_WHOLE = 1_000


def check_list(pattern: ListOf, parent: Entity | None, entities: tuple[Entity, ...]) -> None:
    """A list the engine can read: its narrowing, its index, its partition (its parent's),
    and nothing of another entity between its items and its parent's."""
    entity = pattern.entity
    where = f"{entity.name} list {pattern.field!r}"
    keys = entity.keys_on(pattern.index)
    if keys is None:
        raise ModelError(f"{where}: {entity.name} has no keys on {on(pattern.index)}")
    copied = pattern.copies is not None
    if copied and (pattern.narrowing or pattern.filtered):
        raise ModelError(f"{where}: a list of copies is narrowed by the copies' filters only")
    narrowing = pattern.narrowing
    if keys.sort.attributes[: len(narrowing)] != narrowing:
        raise ModelError(
            f"{where}: its arguments narrow {list(narrowing)}, which are not the leading"
            f" segments of its sort key {list(keys.sort.attributes)}"
        )
    numbered = pattern.index.type_of(pattern.index.sort_key) == "N"
    # A number key holds its number alone; pages go on from the item's table key too.
    if len(keys.sort.attributes) <= len(narrowing) and not numbered:
        raise ModelError(
            f"{where}: its sort key must end with a segment its arguments leave free (an id),"
            " so that each item's key is its own"
        )
    if pattern.range is not None:
        ranged = entity.attributes[pattern.range.attribute]
        if not isinstance(ranged.scalar, str) or ranged.scalar == "String":
            raise ModelError(f"{where}: a range over {pattern.range.attribute!r} orders nothing")
    for name in pattern.filtered:
        if name not in entity.attributes_of(Choice):
            raise ModelError(f"{where}: it may filter by choices only, not {name!r}")
    names = [
        *pattern.equal,
        *(() if pattern.range is None else (pattern.range.argument,)),
        *pattern.filtered,
    ]
    if len(set(names)) < len(names) or {"direction", "forward"} & set(names):
        raise ModelError(f"{where}: its arguments {names} must be distinct, none 'direction'")
    if pattern.unnarrowed is not None:
        _check_unnarrowed(pattern, keys)
    if pattern.whole is not None and (
        not 1 <= pattern.whole <= MOST_WHOLE
        or names
        or pattern.direction
        or pattern.descending
        or pattern.root
        or pattern.subscription
        or copied
    ):
        raise ModelError(
            f"{where}: a whole list holds 1 to {MOST_WHOLE:,} items of one parent, in key"
            " order, with no arguments, direction or subscription"
        )
    if pattern.root:
        _check_at(pattern, keys)
        return
    if pattern.at:
        raise ModelError(f"{where}: `at` is for root lists; below a parent, it gives the partition")
    if pattern.access is not None:
        raise ModelError(
            f"{where}: a list below its parent is reached through the parent's field, whose"
            " rule applies: give `access` to root lists only"
        )
    if parent is None or entity.parent is None:
        raise ModelError(f"{where}: {entity.name} declares no parent")
    mine, theirs = entity.all_keys.get(pattern.index), parent.all_keys.get(pattern.index)
    if copied or theirs is None or pattern.unnarrowed is not None:
        # The parent is not in the list's partition: the list is read on its own, from
        # the parent's key.
        for index in {pattern.index, pattern.unnarrowed or pattern.index}:
            there = entity.keys_on(index)
            assert there is not None  # checked above
            theirs_of = [entity.parent.attributes.get(a) for a in there.partition.attributes]
            if sorted(map(str, theirs_of)) != sorted(parent.key_attributes):
                raise ModelError(
                    f"{where}: its partition on {on(index)} is not made of {parent.name}'s key"
                )
        return
    if mine is None:
        raise ModelError(f"{where}: {entity.name} needs keys on {on(pattern.index)}")
    mapped = tuple(entity.parent.attributes.get(a) for a in mine.partition.attributes)
    if mine.partition.label != theirs.partition.label or mapped != theirs.partition.attributes:
        raise ModelError(
            f"{where}: its partition on {on(pattern.index)} is not {parent.name}'s"
            f" ({theirs.partition.label} of {list(theirs.partition.attributes)})"
        )
    if mine.sort.label == theirs.sort.label:
        raise ModelError(f"{where}: its sort key's label is {parent.name}'s own")
    # Read with its parent, the page reaches from its own keys to the parent's: nothing
    # else of that partition may sort in between.
    low, high = sorted((mine.sort.label, theirs.sort.label))
    for other in entities:
        keys = other.all_keys.get(pattern.index)
        if other in (entity, parent) or keys is None:
            continue
        if keys.partition.label == mine.partition.label and low < keys.sort.label < high:
            raise ModelError(
                f"{where}: {other.name}'s items ({keys.sort.label}) sort between its own and"
                f" {parent.name}'s on {on(pattern.index)}"
            )


def _check_at(pattern: ListOf, keys: Keys) -> None:
    """A root list's fixed partition values: its partition's, each one its attribute holds,
    and on a sparse index one the predicate keeps."""
    entity = pattern.entity
    where = f"{entity.name} list {pattern.field!r}"
    if not set(pattern.at) <= set(keys.partition.attributes):
        raise ModelError(f"{where}: `at` names {sorted(pattern.at)}, not all of its partition")
    for name, value in pattern.at.items():
        codec = entity.attributes[name].codec
        try:
            assert codec is not None  # a key's attribute has one
            codec.encode(value)
        except Exception:
            raise ModelError(
                f"{where}: `at` gives {name!r} {value!r}, which it cannot hold"
            ) from None
    predicate = entity.sparse.get(pattern.index)
    if (
        predicate is not None
        and predicate.attribute in pattern.at
        and not predicate.holds(pattern.at)
    ):
        raise ModelError(f"{where}: `at` gives what the sparse {on(pattern.index)} never holds")


def _check_unnarrowed(pattern: ListOf, keys: Keys) -> None:
    """The other index reads the same partition, in the order of the range's attribute."""
    entity, other = pattern.entity, pattern.unnarrowed
    assert other is not None
    where = f"{entity.name} list {pattern.field!r}"
    there = entity.keys_on(other)
    leading = () if pattern.range is None else (pattern.range.attribute,)
    if (
        there is None
        or not pattern.equal
        or other == pattern.index
        or there.partition != keys.partition
        or there.sort.attributes[: len(leading)] != leading
        or len(there.sort.attributes) <= len(leading)
        or other in entity.sparse
    ):
        raise ModelError(
            f"{where}: read without {list(pattern.equal)} on {on(other)}, it needs keys there"
            " with the same partition, not sparse, and a sort key that begins with the range's"
            " attribute and ends with a segment left free"
        )


def on(index: Index) -> str:
    return index.name or "the table"
