"""Relay pages over one key condition, with exact `hasNextPage` / `hasPreviousPage`.

A page reads `size + 1` items: the extra one tells whether more follow. Whether anything
lies on the other side of a page that started from a cursor (the cursor's own item
included) is one more `Limit: 1` Query, made only when a client asks for that flag.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, TypeVar

from errors.vocabulary import BadCursor, BadUserInput
from keys.conditions import KeyCondition
from store.client import QueryResult, Store
from store.cursors import Binding, CursorCodec
from store.requests import Filter, Item, Key, page_key

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
# DynamoDB ends a Query page at 1 MiB: a longer read takes one more call per MiB.
_MIB = 1 << 20


def query_calls(items: int, item_bytes: int) -> int:
    """The most Query calls that read `items` items of at most `item_bytes` each: a page
    holds at least as many whole items as fit in 1 MiB."""
    per_page = max(1, _MIB // item_bytes)
    return max(1, -(-items // per_page))


# A filtered page reads at most this many items, in at most this many calls (a refill
# doubles its read while nothing matches: 2, 4, … 1,000 takes ten); a page that stops
# there is short, with `hasNextPage` and a cursor that resumes the read.
FILTER_SCAN = 1_000
FILTER_CALLS = 10
# The most a `hasNextPage` / `hasPreviousPage` check past an unfiltered page reads.
FLAG_REQUESTS = 1
FLAG_ITEMS = 1


@dataclass(frozen=True)
class PageArgs:
    """Validated Relay arguments (docs/design.md#validation): `size` items after (or, `backward`,
    before) `cursor`. The one reading of `first`, `after`, `last` and `before`: for the
    connection field itself, for its parent reading the page ahead, and for the bound."""

    size: int
    backward: bool
    cursor: str | None

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> PageArgs:
        """From a field's arguments by GraphQL name (absent or None: not given)."""
        return cls.parse(
            arguments.get("first"),
            arguments.get("after"),
            arguments.get("last"),
            arguments.get("before"),
        )

    @classmethod
    def parse(
        cls, first: int | None, after: str | None, last: int | None, before: str | None
    ) -> PageArgs:
        if first is not None and last is not None:
            raise BadUserInput("give `first` or `last`, not both")
        if (first is not None and before is not None) or (last is not None and after is not None):
            raise BadUserInput("`after` goes with `first`, `before` with `last`")
        if after is not None and before is not None:
            raise BadUserInput("give `after` or `before`, not both")
        backward = last is not None or before is not None
        requested = last if backward else first
        if requested is not None and not 1 <= requested <= MAX_PAGE_SIZE:
            name = "last" if backward else "first"
            raise BadUserInput(f"`{name}` must be 1 to {MAX_PAGE_SIZE}, not {requested}")
        return cls(
            size=requested or DEFAULT_PAGE_SIZE,
            backward=backward,
            cursor=before if backward else after,
        )

    @classmethod
    def most_edges(cls, arguments: Mapping[str, Any]) -> int:
        """The most edges a page of `arguments` holds, as the bound counts it: its size.
        Arguments the field refuses read nothing, so any figure bounds them: the size
        asked for, kept within 0 to the largest allowed."""
        try:
            return cls.from_arguments(arguments).size
        except BadUserInput:
            first, last = arguments.get("first"), arguments.get("last")
            asked = first if first is not None else last
            return max(0, min(DEFAULT_PAGE_SIZE if asked is None else asked, MAX_PAGE_SIZE))


# What an edge holds: the stored item, or the record the access patterns made of it.
T = TypeVar("T")
U = TypeVar("U")


class Edge(Generic[T]):
    """An item of a page and its cursor, sealed only when asked for: a page whose cursors
    no field selects seals none."""

    __slots__ = ("_cursor", "_seal", "item")

    def __init__(self, cursor: str | Callable[[], str], item: T) -> None:
        self._cursor: str | None = None
        self._seal: Callable[[], str] | None = None
        if callable(cursor):
            self._seal = cursor
        else:
            self._cursor = cursor
        self.item = item

    @property
    def cursor(self) -> str:
        if self._cursor is None:
            assert self._seal is not None
            self._cursor, self._seal = self._seal(), None
        return self._cursor

    def holding(self, item: U) -> Edge[U]:
        """The same edge (its cursor still unsealed) holding `item`."""
        return Edge(self._seal or self.cursor, item)

    def __repr__(self) -> str:
        return f"Edge({self.cursor!r}, {self.item!r})"


Check = Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class Page(Generic[T]):
    edges: list[Edge[T]]
    has_next_page: Check
    has_previous_page: Check
    # The item the collection hangs off, when the page was read together with it.
    parent: Item | None = None
    # A filtered read that stopped at its budget: the cursor that goes on from where it
    # stopped (the page's end cursor; its start cursor when read backwards).
    resume: str | None = None
    backward: bool = False

    def map(self, convert: Callable[[T], U]) -> Page[U]:
        """The same page with each edge's item converted (a stored item to a record)."""
        edges = [edge.holding(convert(edge.item)) for edge in self.edges]
        return Page(
            edges,
            self.has_next_page,
            self.has_previous_page,
            self.parent,
            self.resume,
            self.backward,
        )

    @property
    def start_cursor(self) -> str | None:
        if self.backward and self.resume is not None:
            return self.resume
        return self.edges[0].cursor if self.edges else None

    @property
    def end_cursor(self) -> str | None:
        if not self.backward and self.resume is not None:
            return self.resume
        return self.edges[-1].cursor if self.edges else None


def _known(value: bool) -> Check:
    async def check() -> bool:
        return value

    return check


@dataclass
class Paginator:
    """Reads pages for one request: the same page asked for twice is read once."""

    store: Store
    cursors: CursorCodec
    pages: dict[tuple[Any, ...], asyncio.Task[Page[Item]]] = field(default_factory=dict)

    async def page(
        self,
        condition: KeyCondition,
        binding: Binding,
        args: PageArgs,
        *,
        forward: bool = True,
        filter: Filter | None = None,
        parent: str | None = None,
    ) -> Page[Item]:
        """The page of `condition` read in direction `forward` that `args` asks for.

        `parent` is the sort key (on the condition's index) of the item the collection
        hangs off, stored right next to it (a parent and its children in one partition). When
        the page starts there, that item is read by the same Query: see `reads_parent`.
        """
        filtered = None if filter is None else json.dumps(asdict(filter), default=str)
        key = (condition, binding.canonical(), args, forward, filtered, parent)
        if key not in self.pages:
            read = self._page(condition, binding, args, forward, filter, parent)
            self.pages[key] = asyncio.ensure_future(read)
        return await self.pages[key]

    async def _page(
        self,
        condition: KeyCondition,
        binding: Binding,
        args: PageArgs,
        forward: bool,
        filter: Filter | None,
        parent: str | None,
    ) -> Page[Item]:
        index = condition.index
        attributes = self.store.layout.page_key_attributes(index)
        start = None
        if args.cursor is not None:
            values = self.cursors.decode(binding, args.cursor)
            if len(values) != len(attributes):
                raise BadCursor("the cursor is malformed; use a cursor returned by this field")
            start = dict(zip(attributes, values, strict=True))
        reading_forward = forward != args.backward
        if parent is not None and reads_parent(condition, parent, args, forward, filter):
            widened = _widened(condition, parent)
            read = await self._read(widened, reading_forward, args.size + 2, None, filter)
            result = read.items
            head = result[0] if result and result[0][condition.index.sort_key] == parent else None
            result = result[1:] if head is not None else result
        else:
            filter = filter if filter is None or filter.apart is None else filter.apart
            read = await self._read(condition, reading_forward, args.size + 1, start, filter)
            result, head = read.items, None
        items = result[: args.size]
        more = len(result) > args.size
        resume = None
        if read.stopped and not more and read.last_key is not None:
            # The budget ran out first: more may follow, from where the read stopped.
            more = True
            resume = self.cursors.encode(binding, [read.last_key[a] for a in attributes])
        if args.backward:
            items.reverse()

        # A number key's value is written as its digits, as cursors hold keys.
        def sealed(item: Item) -> Callable[[], str]:
            return lambda: self.cursors.encode(binding, [str(item[a]) for a in attributes])

        edges = [Edge(sealed(i), i) for i in items]
        # Anything on the other side of the page, the cursor's own item included: read
        # backwards from the page's first item, or over the whole range if the page is empty
        # (then everything in it lies behind the cursor).
        behind = (
            _known(False)
            if start is None
            else self._exists(
                condition,
                not reading_forward,
                page_key(result[0], attributes) if result else None,
                filter,
            )
        )
        if args.backward:
            flags = {"has_next_page": behind, "has_previous_page": _known(more)}
        else:
            flags = {"has_next_page": _known(more), "has_previous_page": behind}
        return Page(edges, **flags, parent=head, resume=resume, backward=args.backward)

    def _exists(
        self, condition: KeyCondition, forward: bool, start: Key | None, filter: Filter | None
    ) -> Check:
        answer: asyncio.Task[bool] | None = None

        async def read() -> bool:
            # A filtered check that spent its budget does not know: say there may be more.
            found = await self._read(condition, forward, 1, start, filter)
            return bool(found.items) or found.stopped

        # A page shared by several fields reads its flag once, whoever asks first.
        async def check() -> bool:
            nonlocal answer
            if answer is None:
                answer = asyncio.ensure_future(read())
            return await answer

        return check

    async def _read(
        self,
        condition: KeyCondition,
        forward: bool,
        limit: int,
        start: Key | None,
        filter: Filter | None,
    ) -> QueryResult:
        filtered = filter is not None
        return await self.store.query(
            condition,
            forward=forward,
            limit=limit,
            start_key=start,
            filter=filter,
            max_scanned=FILTER_SCAN if filtered else None,
            max_calls=FILTER_CALLS if filtered else None,
        )


def reads_parent(
    condition: KeyCondition, parent: str, args: PageArgs, forward: bool, filter: Filter | None
) -> bool:
    """Whether the page `args` asks for is read together with its parent."""
    passes = filter is None or filter.passes_parent
    return passes and starts_at(condition, parent, args, forward)


def starts_at(condition: KeyCondition, parent: str, args: PageArgs, forward: bool) -> bool:
    """Whether the page `args` asks for begins at `parent`: no cursor, and read away from it."""
    children_after = condition.low is not None and parent < condition.low
    return args.cursor is None and (forward != args.backward) == children_after


def _widened(condition: KeyCondition, parent: str) -> KeyCondition:
    """The condition stretched to take in `parent`, which lies right next to it."""
    if condition.low is not None and parent < condition.low:
        return KeyCondition(condition.index, condition.partition, parent, condition.high)
    return KeyCondition(condition.index, condition.partition, condition.low, parent)
