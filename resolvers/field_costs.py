"""The worst case of each field that reads DynamoDB, declared next to its resolver.

Before an operation runs, the gateway bounds it (`gateway/demand/bound.py`) by walking the
document with these models: a field costs `requests` DynamoDB calls and `items` items read
per parent object, and hands `fanout` objects to the fields selected below it. Figures are
numbers or functions of the field's arguments (by GraphQL name, defaults applied).

A request makes each read once however often it is asked for (the loaders), so a read
whose parent is known is counted once: `identity` names what a field answers with (a
customer by id, the orders of that customer), and a read is keyed by its field, its
parent's identity and its arguments, or, for an item loaded by key, by the item itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

import strawberry
from strawberry.extensions import FieldExtension
from strawberry.permission import PermissionExtension

from resolvers.access import RULE, Rule
from store.cost import declared
from store.pagination import (
    FILTER_CALLS,
    FILTER_SCAN,
    FLAG_ITEMS,
    FLAG_REQUESTS,
    PageArgs,
    query_calls,
)
from store.witness import CHECK_READS

Args = Mapping[str, Any]
Figure = int | Callable[[Args], int]

# The key of a field's model in Strawberry's field metadata.
COST: Final = "dynagate.cost"
# A list whose length its parent field's arguments decide: a connection's edges.
PAGE: Final = "page"


@dataclass(frozen=True)
class Tune:
    """An argument the gateway may pick so that the field fits the limits in force.

    Left out by the client, the argument takes the first of `choices` whose bound fits
    (the smallest when none does); given, and over a limit, the refusal names the first
    of `choices` that would fit. `choices(args)` lists values largest first: with the
    argument left out, those the field's own default rule allows; given, those below it.
    """

    argument: str
    choices: Callable[[Args], Sequence[Any]]
    # What to do when even the last choice is over a limit.
    advice: str


@dataclass(frozen=True)
class FieldCost:
    requests: Figure = 0
    items: Figure = 0
    fanout: Figure | Literal["page"] = 1
    # For a field whose object holds a list sized by this field's arguments (a
    # connection's edges): that size, for the list field that declares `fanout=PAGE`.
    page: Figure | None = None
    # What the field answers with, from its arguments and its parent's identity: an
    # entity (`("Customer", id)`), or the items of a list (`("Orders of", customer)`).
    identity: Callable[[Args, Hashable], Hashable] | None = None
    # The read loads the item `identity` names: anywhere in the request, it is one read.
    by_item: bool = False
    # The request's loaders make this read once however often it is asked for (a page,
    # a page flag): it is keyed by its field, parent and arguments. Off for reads that
    # run each time they are asked (`markers`, `heatmap`, mutations).
    shared: bool = False
    # For a connection: what each `pageInfo` flag may read past the page (calls, items).
    flag: Callable[[Args], tuple[int, int]] | None = None
    # A `pageInfo` flag: it costs what its connection's `flag` says.
    reads_flag: bool = False
    # An argument picked to fit the limits when the client leaves it out. For root fields:
    # the pick is kept by the field's response key, which is its path there.
    tune: Tune | None = None
    # For an operation's worst case before any request (`gateway/demand/worst_case.py`):
    # the values an argument a variable gives is at its worst among (the largest each
    # allows: `limit` at its most), and the arguments no list of values holds, said as
    # what they are (a viewport).
    worst_values: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, compare=False)
    unbounded: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def structure(self) -> bool:
        """Reads nothing and sizes nothing: what is below sees through it."""
        return (
            self.requests == 0
            and self.page is None
            and self.identity is None
            and self.flag is None
            and not self.reads_flag
        )

    def returns(self, args: Args, parent: Hashable) -> Hashable:
        """The identity of what the field answers with (None: unknown). A field that
        reads nothing is structure (edges, nodes): its parent's identity passes through."""
        if self.identity is not None:
            return self.identity(args, parent)
        return parent if self.requests == 0 else None

    def read_key(self, coordinate: str, args: Args, parent: Hashable) -> Hashable:
        """The key the request's loaders know this read by, or None when they cannot."""
        if self.by_item:
            return self.returns(args, parent)
        if parent is None or not (self.shared or self.reads_flag):
            return None
        return (coordinate, parent, frozen(args))


def frozen(args: Args) -> str:
    return json.dumps(args, sort_keys=True, default=str)


def cost(model: FieldCost) -> dict[str, FieldCost]:
    """Strawberry field metadata carrying `model`."""
    return {COST: model}


Decorator = Callable[[Callable[..., Any]], Any]


def field_with_cost(model: FieldCost, rule: Rule | None = None) -> Decorator:
    """`@strawberry.field` for a resolver that costs `model`; a root field names its `rule`
    of access."""
    return lambda resolver: strawberry.field(resolver, **field_options(model, rule))


def mutation_with_cost(model: FieldCost, rule: Rule) -> Decorator:
    """`@strawberry.mutation` for a resolver that costs `model`, open to callers `rule` allows."""
    return lambda resolver: strawberry.mutation(resolver, **field_options(model, rule))


def field_options(
    model: FieldCost, rule: Rule | None, extensions: Sequence[FieldExtension] = ()
) -> dict[str, Any]:
    """The metadata and extensions of a field that costs `model` and is guarded by `rule`."""
    if rule is None:
        return {"metadata": cost(model), "extensions": list(extensions)}
    # The rule is enforced by Strawberry's permission extension and recorded in the metadata.
    return {
        "metadata": {**cost(model), RULE: rule},
        "extensions": [PermissionExtension([rule], use_directives=False), *extensions],
    }


def figure(value: Figure, args: Args) -> int:
    return value if isinstance(value, int) else value(args)


def page_size(args: Args) -> int:
    """The edges a connection can hold: the size its read uses (`PageArgs`)."""
    return PageArgs.most_edges(args)


def writes(access_pattern: Callable[..., Any]) -> FieldCost:
    """A mutation: what the access pattern it calls declares as its worst case (the most
    calls, retries of its own included, and the most items its reads take)."""
    worst = declared(access_pattern)
    return write_calls(worst.requests, worst.items)


def write_calls(requests: int, items: int = 0) -> FieldCost:
    """A mutation whose access pattern makes at most `requests` calls (its own retries
    included) and whose reads take at most `items` items."""
    # With the reads that learn what a write did when its answers were lost (`store.witness`).
    return FieldCost(requests=requests + CHECK_READS, items=items + CHECK_READS)


def item_read(identity: Callable[[Args, Hashable], Hashable] | None = None) -> FieldCost:
    """One item by key, through the request's loader: with an `identity`, one read for the
    whole request."""
    return FieldCost(requests=1, items=1, identity=identity, by_item=identity is not None)


def with_item_read(cost: FieldCost) -> FieldCost:
    """`cost`, and one item by key more: the parent's item a rule of readers decides on,
    or the item an owner's write holds to its owner."""
    return replace(cost, requests=_plus_one(cost.requests), items=_plus_one(cost.items))


def _plus_one(figure: Figure) -> Figure:
    if isinstance(figure, int):
        return figure + 1
    return lambda args: figure(args) + 1


def entity(kind: str, *names: str, fold_case: bool = False) -> Callable[[Args, Hashable], Hashable]:
    """The identity of the `kind` item named by the field's arguments `names` (compared
    in lower case with `fold_case`, for names whose keys are lower case)."""

    def identity(args: Args, parent: Hashable) -> Hashable:
        values = (str(args[name]) for name in names)
        return (kind, *(v.lower() if fold_case else v for v in values))

    return identity


def items_of(kind: str) -> Callable[[Args, Hashable], Hashable]:
    """The identity of one page of a list hanging off its parent (None: unknown parent)."""
    return lambda args, parent: None if parent is None else (kind, parent, frozen(args))


def owner_of(*kinds: str) -> Callable[[Args, Hashable], Hashable]:
    """For an item listed by `items_of(kind)` (one of `kinds`): the parent that listed it."""

    def owner(args: Args, parent: Hashable) -> Hashable:
        if isinstance(parent, tuple) and len(parent) == 3 and parent[0] in kinds:
            listed_by: Hashable = parent[1]
            return listed_by
        return None

    return owner


def page_read(
    item_bytes: int,
    identity: Callable[[Args, Hashable], Hashable] | None = None,
    *,
    filtered: Callable[[Args], bool] = lambda args: False,
) -> FieldCost:
    """A connection page: `size + 2` items at most (the one past the page, and the parent
    read in the same Query), in as many calls as their size needs; `filtered` arguments
    read as far as the filter budget allows (`FILTER_SCAN` items in `FILTER_CALLS` calls).
    """

    def requests(args: Args) -> int:
        return FILTER_CALLS if filtered(args) else query_calls(page_size(args) + 2, item_bytes)

    def items(args: Args) -> int:
        return FILTER_SCAN if filtered(args) else page_size(args) + 2

    def flag(args: Args) -> tuple[int, int]:
        return (FILTER_CALLS, FILTER_SCAN) if filtered(args) else (FLAG_REQUESTS, FLAG_ITEMS)

    return FieldCost(
        requests=requests, items=items, page=page_size, identity=identity, flag=flag, shared=True
    )
