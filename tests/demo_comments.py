"""The demo's products and comments, derived from their declarations
(`demo/model/comments.py`), called as the tests call each area's access patterns; each
declares the worst case the engine derives for it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from data import entities, entity_lists
from data.callers import OPEN, Caller
from data.collections import PageRead
from data.copies import writes as entity_copies
from data.entities import Record, record
from data.writes import entities as entity_writes
from demo.model import MODEL
from demo.model.comments import BODY_MAX, COMMENT, PRODUCT
from keys.codecs import Codec, format_timestamp
from keys.conditions import KeyCondition
from keys.table import GSI1, TABLE
from model import ListOf
from store.client import Store
from store.cost import worst_case
from store.loaders import ItemLoader
from store.pagination import Page, PageArgs, Paginator
from store.requests import Item
from tests.records import FromRecord

__all__ = ["BODY_MAX"]
COMMENT_BYTES = entities.most_bytes(COMMENT)
[COMMENTS] = [p for p in MODEL.of_kind(ListOf) if p.entity is COMMENT]


class Comment(FromRecord, entity=COMMENT):
    id: str
    product_id: str
    language: str
    rating: int
    body: str
    created_at: datetime
    author: str | None = None


class Product(FromRecord, entity=PRODUCT):
    id: str
    name: str
    created_at: datetime


@worst_case(requests=entity_writes.create_calls(MODEL, PRODUCT))
async def create_product(store: Store, product_id: str, name: str) -> Product:
    given = {"id": product_id, "name": name}
    made = await entity_writes.create(store, MODEL, PRODUCT, given, caller=OPEN)
    return Product.of(made)


async def load_product(items: ItemLoader, product_id: str) -> Product | None:
    found = await entities.load(items, PRODUCT, {"id": product_id})
    return None if found is None else Product.of(found)


@worst_case(requests=entity_writes.create_calls(MODEL, COMMENT))
async def post_comment(
    store: Store,
    product_id: str,
    language: str,
    rating: int,
    body: str,
    created_at: datetime | None,
    *,
    caller: Caller = OPEN,
) -> Comment:
    given = {
        "productId": product_id,
        "language": language,
        "rating": rating,
        "body": body,
        "createdAt": created_at,
    }
    made = await entity_writes.create(store, MODEL, COMMENT, given, done="posted", caller=caller)
    return Comment.of(made)


_CHANGE, _CHANGE_ITEMS = entity_writes.update_calls(COMMENT, ("language", "rating", "body"))


@worst_case(requests=_CHANGE, items=_CHANGE_ITEMS)
async def edit_comment(
    store: Store,
    items: ItemLoader,
    comment_id: str,
    *,
    language: str | None,
    rating: int | None,
    body: str | None,
    caller: Caller = OPEN,
) -> Comment:
    changes = {"language": language, "rating": rating, "body": body}
    edited = await entity_writes.update(
        store,
        items,
        COMMENT,
        {"id": comment_id},
        changes,
        caller=caller,
        writer_only=True,
        at_least_one=False,
    )
    return Comment.of(edited)


_DELETE, _DELETE_ITEMS = entity_writes.delete_calls(COMMENT)


@worst_case(requests=_DELETE, items=_DELETE_ITEMS)
async def delete_comment(
    store: Store, items: ItemLoader, comment_id: str, *, caller: Caller = OPEN
) -> None:
    arguments = {"id": comment_id}
    await entity_writes.delete(store, items, COMMENT, arguments, caller=caller, writer_only=True)


async def load_comment(items: ItemLoader, comment_id: str) -> Comment | None:
    found = await entities.load(items, COMMENT, {"id": comment_id})
    return None if found is None else Comment.of(found)


async def product_comments_page(
    pages: Paginator,
    product_id: str,
    args: PageArgs,
    *,
    language: str | None,
    ratings: list[int] | None,
) -> Page[Comment]:
    narrowed = entity_lists.narrowed(COMMENTS, {"language": language}, sets={"rating": ratings})
    read = entity_lists.list_read(COMMENTS, PRODUCT, {"id": product_id}, args, narrowed)
    page = await read.page(pages)
    return page.map(Comment.from_item)


# ---- items, as the verify and cost tests build them --------------------------------------


def new_comment(
    product_id: str,
    language: str,
    rating: int,
    body: str,
    created_at: datetime,
    updated_at: datetime,
) -> Item:
    """A comment's own item, with no author (as posted with identity off)."""
    given = {"productId": product_id, "language": language, "rating": rating, "body": body}
    _, item, _ = entity_writes.new_items(
        COMMENT, given, caller=OPEN, created=created_at, current=updated_at
    )
    return item


def comment_items(comment: Item) -> list[Item]:
    """The own item of `comment` (its attributes, keys rendered anew) and its copies."""
    own = {**comment, **COMMENT.item_keys(record(COMMENT, comment))}
    return [own, *entity_copies.copies(COMMENT, own)]


def product_item(product_id: str, name: str, created_at: datetime) -> Item:
    return {
        **PRODUCT.primary_key({"id": product_id}),
        "type": PRODUCT.label,
        "id": product_id,
        "name": name,
        "createdAt": format_timestamp(created_at),
    }


def comment_key(comment_id: str) -> dict[str, str]:
    return COMMENT.primary_key({"id": comment_id})


def comments_read(
    product_id: str, language: str | None, ratings: Iterable[int] | None
) -> PageRead[Record]:
    """The first page's read of a product's comments these filters ask for."""
    narrowed = entity_lists.narrowed(COMMENTS, {"language": language}, sets={"rating": ratings})
    page = PageArgs(1, False, None)
    return entity_lists.list_read(COMMENTS, PRODUCT, {"id": product_id}, page, narrowed)


def product_comments(
    product_id: str, language: str | None = None, ratings: frozenset[int] | None = None
) -> KeyCondition:
    """The key condition of the list of a product's comments these filters ask for."""
    return comments_read(product_id, language, ratings).condition


def comment_changes(
    product_id: str, language: str | None, ratings: list[int] | None
) -> tuple[tuple[str, str], Callable[[Any], bool]]:
    """The topic `commentChanges` follows for these arguments, and which states match."""
    narrowed = entity_lists.narrowed(COMMENTS, {"language": language}, sets={"rating": ratings})
    return ("commentChanges", product_id), lambda state: narrowed.contains(COMMENTS, state)


# ---- the copies' keys, as the key tests look at them ------------------------------------

RATINGS = frozenset(range(1, 6))
WHEN = datetime(2024, 5, 1, 12, tzinfo=UTC)


@dataclass(frozen=True)
class CopyFilter:
    """One list a comment appears in: a language (None = any) and a rating set."""

    language: str | None
    ratings: frozenset[int]


def language_codec() -> Codec[Any]:
    return COMMENT.filter_codec("language")


def rating_set_codec() -> Codec[Any]:
    return COMMENT.filter_codec("rating")


def language(value: str) -> str:
    code = language_codec().encode(value)
    assert isinstance(code, str)
    return code


def rating_set(values: list[int]) -> frozenset[int]:
    sets = {"rating": values}
    found: frozenset[int] = entity_lists.narrowed(COMMENTS, {}, sets=sets).sets["rating"]
    return found


def copy_filters(comment_language: str, comment_rating: int) -> list[CopyFilter]:
    """The lists a comment belongs to, as its copies' sort keys say (checked as a post is)."""
    made = new_comment("p", comment_language, comment_rating, "b", WHEN, WHEN)
    return [parse_copy_sort_key(c[TABLE.sort_key]) for c in entity_copies.copies(COMMENT, made)]  # type: ignore[misc]


def copy_attributes(
    product_id: str, comment_id: str, created_at: datetime, copy: CopyFilter
) -> dict[str, str]:
    """Keys of one copy: its place in the comment's partition and in its list on GSI1."""
    values = {
        "productId": product_id,
        "id": comment_id,
        "createdAt": created_at,
        "language": copy.language,
        "rating": copy.ratings,
    }
    return {
        name: template.render(**{s.name: values[s.name] for s in template.segments})
        for name, template in COMMENT.copy_templates.items()
    }


def parse_copy_sort_key(sort_key: str) -> CopyFilter | None:
    try:
        values = COMMENT.copy_templates[TABLE.sort_key].parse(sort_key)
    except ValueError:
        return None
    return CopyFilter(values["language"], values["rating"])


def parse_listing(partition: str) -> dict[str, Any]:
    return COMMENT.copy_templates[GSI1.partition_key].parse(partition)
