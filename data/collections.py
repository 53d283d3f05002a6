"""A parent item read in the same Query as the first page of its item collection.

A model may keep a parent's children just before the parent's item in its partition (their
label sorts first), so "the parent and its first children" is one Query that starts at the
parent and reads on. A root resolver that sees such pages selected below it asks for
them here, together with the parent; the child fields then take their page from what was
read instead of querying again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from data.validation import TEXT_MAX, stored_bytes
from keys.conditions import KeyCondition
from store.cursors import Binding
from store.loaders import ItemLoader
from store.pagination import Page, PageArgs, Paginator, reads_parent
from store.requests import Filter, Item, Key

# The largest entry of a collection (a repository, issue, star, member, team, queue or
# ticket): at most two 200-character texts beside its identifiers.
ENTRY_BYTES = stored_bytes(TEXT_MAX, TEXT_MAX)

T = TypeVar("T")


@dataclass(frozen=True)
class PageRead(Generic[T]):
    """Everything that decides one page: two equal reads return the same page.

    `record` makes each item of the page a record; `parent` is the sort key, on the
    condition's index, of the item the collection hangs off, when that item is stored
    right next to it.
    """

    condition: KeyCondition
    binding: Binding
    args: PageArgs
    forward: bool
    record: Callable[[Item], T]
    filter: Filter | None = None
    parent: str | None = None

    @property
    def joins_parent(self) -> bool:
        """Whether this page is read in the same Query as its parent."""
        return self.parent is not None and reads_parent(
            self.condition, self.parent, self.args, self.forward, self.filter
        )

    async def page(self, pages: Paginator, *, with_parent: bool = False) -> Page[Item]:
        return await pages.page(
            self.condition,
            self.binding,
            self.args,
            forward=self.forward,
            filter=self.filter,
            parent=self.parent if with_parent else None,
        )


# Pages read with their parent, by the response key (alias or name) of the field they answer.
Prefetched = Mapping[str, tuple[PageRead[Any], Page[Item]]]


async def load_with_pages(
    items: ItemLoader, key: Key, pages: Paginator, reads: Mapping[str, PageRead[Any]]
) -> tuple[Item | None, Prefetched]:
    """The parent item at `key`, and each page of `reads` that begins at it.

    Each page that begins at the parent is one Query that also returns the parent; the
    others are left to their fields. When no page begins there, the parent comes from the
    loader.
    """
    joined = {name: read for name, read in reads.items() if read.joins_parent}
    if not joined:
        return await items.load_item(key), {}
    results = await asyncio.gather(*(r.page(pages, with_parent=True) for r in joined.values()))
    read_pages = list(zip(joined.values(), results, strict=True))
    prefetched = {name: pair for name, pair in zip(joined, read_pages, strict=True)}
    from_table = [page for read, page in read_pages if read.condition.index.is_table]
    if from_table:
        item = from_table[0].parent
        if item is not None:
            items.remember(item)
        return item, prefetched
    # Only secondary indexes were read. They are eventually consistent: an item created a
    # moment ago may not be there yet, so a miss is confirmed on the table.
    found = next((page.parent for _, page in read_pages if page.parent is not None), None)
    return (found if found is not None else await items.load_item(key)), prefetched


async def page_for(
    prefetched: Prefetched, response_key: str, read: PageRead[T], pages: Paginator
) -> Page[T]:
    """The page read for `response_key` with the parent if it answers exactly `read`,
    else a page read now; its items made records."""
    hit = prefetched.get(response_key)
    page = hit[1] if hit is not None and hit[0] == read else await read.page(pages)
    return page.map(read.record)
