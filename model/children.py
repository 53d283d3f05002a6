"""Where a parent's children are found from the parent's key, for the parent's removal
(`Delete(children=…)`): a key whose partition is the parent's.

The table's key is read strongly consistent, so it finds every child; an index (a
secondary index or the copies' index, on the copy every item has) lags behind writes by
moments, which the removal waits out (docs/model.md#removing-a-parent).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from keys.table import Index
from keys.template import KeyTemplate
from model.entities import Entity
from model.errors import ModelError
from model.kinds import domain
from model.patterns import Delete


@dataclass(frozen=True)
class ChildrenPlace:
    """The key of `child` on `index` whose partition holds the children of one parent:
    `partition` from the parent's key, the sort key's leading segments too (`leading`)."""

    child: Entity
    index: Index
    partition: KeyTemplate
    sort: KeyTemplate
    leading: tuple[str, ...]
    # On the copies' index: the item read is a copy, under the filters that match anything.
    copies: bool

    @property
    def exact(self) -> bool:
        """Read from the table, strongly consistent: every child, none lagging."""
        return self.index is self.child.table

    def values(self, parent: Mapping[str, Any]) -> dict[str, Any]:
        """The child's key values the parent's `parent` values give (filters: any)."""
        assert self.child.parent is not None
        given = {mine: parent[theirs] for mine, theirs in self.child.parent.attributes.items()}
        copies = self.child.copies
        if self.copies and copies is not None:
            given.update({name: None for name in copies.either})
            for name in copies.sets:
                given[name] = frozenset(domain(self.child.attributes[name]))
        return given


def children_place(child: Entity) -> ChildrenPlace | None:
    """Where the children `child` are found from their parent's key, the table first; None
    when no key's partition is the parent's (then a parent is never removed from under
    them)."""
    assert child.parent is not None
    holding = set(child.parent.attributes)
    for index in child.all_keys:
        if index in child.sparse:
            continue  # holds only some of them
        templates = child.templates
        found = _place(
            child,
            index,
            templates[index.partition_key],
            templates[index.sort_key],
            holding,
            copies=False,
        )
        if found is not None:
            return found
    copies = child.copies
    if copies is None:
        return None
    templates = child.copy_templates
    return _place(
        child,
        copies.index,
        templates[copies.index.partition_key],
        templates[copies.index.sort_key],
        holding | set(copies.filters),
        copies=True,
    )


def _place(
    child: Entity,
    index: Index,
    partition: KeyTemplate,
    sort: KeyTemplate,
    holding: set[str],
    *,
    copies: bool,
) -> ChildrenPlace | None:
    """The place when `partition` is made of the parent's key (with `holding`'s other
    names, a copy's filters) and the rest of the parent's key leads the sort key."""
    assert child.parent is not None
    parent_key = list(child.parent.attributes)
    named = {s.name for s in partition.segments}
    if not named <= holding or not named & set(parent_key):
        return None
    rest = [name for name in parent_key if name not in named]
    leading = tuple(s.name for s in sort.segments[: len(rest)])
    if set(leading) != set(rest):
        return None
    return ChildrenPlace(child, index, partition, sort, leading, copies)


def check_parent_delete(pattern: Delete, children_of: Callable[[Entity], list[Entity]]) -> None:
    """A parent's delete says what becomes of its `children` (`refuse` or `remove`), each
    found from the parent's key; what it removes has no children of its own; its rule is
    decided before the write (an owner's is not: the items below are another's)."""
    entity = pattern.entity
    where = f"{entity.name} {pattern.field!r}"
    if pattern.children not in ("refuse", "remove"):
        raise ModelError(f"{where}: children={pattern.children!r}, not 'refuse' or 'remove'")
    children = children_of(entity)
    if not children:
        return
    if pattern.access in ("owner", "parent_owner"):
        raise ModelError(
            f"{where}: a parent's delete is for admins, groups, signed-in callers or its"
            f" writer, not access {pattern.access!r}"
        )
    for child in children:
        if children_place(child) is None:
            raise ModelError(
                f"{where}: {child.name}'s items are not found from a {entity.noun}'s key (no"
                f" key or index of theirs has its partition), so a {entity.noun} with them"
                " is never removed"
            )
        below = sorted(e.name for e in children_of(child))
        if pattern.children == "remove" and below:
            raise ModelError(
                f"{where}: children='remove' removes children with none of their own;"
                f" {child.name} is the parent of {below}"
            )
