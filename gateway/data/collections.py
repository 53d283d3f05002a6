"""A parent item read in the same Query as the first page of its item collection.

Seed 000 keeps a repository's issues just before the repository item and its stars just
after it, so "the repository and its first issues" is one Query that starts at the
repository and reads on. A root resolver that sees such pages selected below it asks for
them here, together with the parent; the child fields then take their page from what was
read instead of querying again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

from gateway.cursors import Binding
from gateway.loaders import ItemLoader, item_key
from gateway.pagination import Filter, Page, PageArgs, Paginator, starts_at
from gateway.requests import Item, Key
from keys.conditions import KeyCondition


@dataclass(frozen=True)
class PageRead:
    """Everything that decides one page: two equal reads return the same page."""

    condition: KeyCondition
    binding: Binding
    args: PageArgs
    forward: bool
    filter: Filter | None = None

    def starts_at(self, parent: str) -> bool:
        return starts_at(self.condition, parent, self.args, self.forward)

    async def page(self, pages: Paginator, parent: str | None = None) -> Page:
        return await pages.page(
            self.condition,
            self.binding,
            self.args,
            forward=self.forward,
            filter=self.filter,
            parent=parent,
        )


# Pages read with their parent, by the response key (alias or name) of the field they answer.
Prefetched = Mapping[str, tuple[PageRead, Page]]


async def load_with_pages(
    items: ItemLoader,
    pages: Paginator,
    key: Key,
    parent: str,
    reads: Mapping[str, PageRead],
) -> tuple[Item | None, Prefetched]:
    """The parent item at `key`, and each page of `reads` that begins at it.

    `parent` is the parent's sort key on the index the reads use. Each page that begins
    there is one Query that also returns the parent; the others are left to their fields.
    When no page begins there, the parent comes from the loader.
    """
    joined = {name: read for name, read in reads.items() if read.starts_at(parent)}
    if not joined:
        return await items.load_item(key), {}
    results = await asyncio.gather(*(read.page(pages, parent) for read in joined.values()))
    item = results[0].parent
    if item is not None:
        items.prime(item_key(key), item)
    return item, {name: (joined[name], page) for name, page in zip(joined, results, strict=True)}


async def page_for(
    prefetched: Prefetched, response_key: str, read: PageRead, pages: Paginator
) -> Page:
    """The page read for `response_key` with the parent if it answers exactly `read`,
    else a page read now."""
    hit = prefetched.get(response_key)
    if hit is not None and hit[0] == read:
        return hit[1]
    return await read.page(pages)
