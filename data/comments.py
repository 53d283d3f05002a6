"""Comments of products: every comment with its 32 copies, written atomically.

A comment's primary item and its copies change together in one TransactWriteItems, and
the primary item's `version` guards every change, so a failed or concurrent write never
leaves copies that disagree with the comment. The copies carry the author too, since lists
read the comment from them; the primary item's condition also holds a caller to the rule
that only the author (or an admin) changes a comment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from data import validation
from data.callers import AUTHOR, AUTHOR_KEY, OPEN, Caller, author_of, wrote
from data.clock import new_ksuid, now
from data.creates import put_under
from keys import comments as comment_keys
from keys import products as product_keys
from keys.codecs import format_timestamp, parse_timestamp
from keys.errors import Conflict, DynagateError, Forbidden, NotFound
from store.client import TRANSACT_CALLS, Store
from store.cost import worst_case
from store.cursors import Binding
from store.errors import TransactionCanceled
from store.loaders import ItemLoader, item_key
from store.pagination import Page, PageArgs, Paginator
from store.requests import (
    Item,
    Key,
    expecting,
    primary_key,
    transaction_delete,
    transaction_put,
)

BODY_MAX = 10_000
COMMENT_BYTES = validation.stored_bytes(BODY_MAX)
COPY_TYPE = "COMMENT_COPY"


@dataclass(frozen=True)
class Comment:
    id: str
    product_id: str
    language: str
    rating: int
    body: str
    created_at: datetime
    # None for a comment posted in open mode.
    author: str | None = None

    @classmethod
    def from_item(cls, item: Item) -> Comment:
        """From the primary item or any of its copies (they hold the same fields)."""
        return cls(
            id=item["id"],
            product_id=item["productId"],
            language=item["language"],
            rating=item["rating"],
            body=item["body"],
            created_at=parse_timestamp(item["createdAt"]),
            author=author_of(item),
        )


def comment_items(comment: Item) -> list[Item]:
    """The primary item of `comment` (its fields) followed by its 32 copies."""
    fields = {k: comment[k] for k in _FIELDS}
    fields.update({k: comment[k] for k in _AUTHOR_FIELDS if k in comment})
    created_at = parse_timestamp(fields["createdAt"])
    primary = {**comment_keys.comment_key(fields["id"]), **fields, "type": "COMMENT"}
    copies = [
        {
            **comment_keys.copy_attributes(fields["productId"], fields["id"], created_at, copy),
            **fields,
            "type": COPY_TYPE,
        }
        for copy in comment_keys.copy_filters(fields["language"], fields["rating"])
    ]
    return [primary, *copies]


_FIELDS = ("id", "productId", "language", "rating", "body", "createdAt", "updatedAt", "version")
# Absent from comments posted in open mode.
_AUTHOR_FIELDS = (AUTHOR, AUTHOR_KEY)


def new_comment(
    product_id: str,
    language: str,
    rating: int,
    body: str,
    created_at: datetime,
    updated_at: datetime,
) -> Item:
    return {
        "id": new_ksuid(created_at),
        "productId": product_id,
        "language": comment_keys.language(language),
        "rating": comment_keys.rating(rating),
        "body": validation.text(body, "body", BODY_MAX, multiline=True),
        "createdAt": format_timestamp(created_at),
        "updatedAt": format_timestamp(updated_at),
        "version": 1,
    }


@worst_case(requests=TRANSACT_CALLS)
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
    validation.ident(product_id, "productId")
    current = now()
    created = (
        current if created_at is None else validation.past_time(created_at, "createdAt", current)
    )
    fresh = new_comment(product_id, language, rating, body, created, current)
    primary, *copies = comment_items({**fresh, **caller.authored()})
    await put_under(
        store,
        product_keys.product_key(product_id),
        f"product {product_id!r} does not exist",
        primary,
        *copies,
        retry="the comment could not be posted; try again",
    )
    return Comment.from_item(primary)


@worst_case(requests=1 + TRANSACT_CALLS, items=1)
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
    """Change a comment; copies move between lists in the same transaction."""
    edits = {
        "language": None if language is None else comment_keys.language(language),
        "rating": None if rating is None else comment_keys.rating(rating),
        "body": None if body is None else validation.text(body, "body", BODY_MAX, multiline=True),
    }
    key, current = await _read(store, comment_id, caller)
    changed = {**current, **{k: v for k, v in edits.items() if v is not None}}
    if all(changed[f] == current[f] for f in ("language", "rating", "body")):
        return Comment.from_item(current)
    changed.update(updatedAt=format_timestamp(now()), version=current["version"] + 1)
    old_copies = comment_items(current)[1:]
    new_primary, *new_copies = comment_items(changed)
    kept = {item_key(primary_key(c)) for c in new_copies}
    actions = [
        _guarded(transaction_put(store.table, new_primary), current, caller),
        *(transaction_put(store.table, copy) for copy in new_copies),
        *(
            transaction_delete(store.table, primary_key(c))
            for c in old_copies
            if item_key(primary_key(c)) not in kept
        ),
    ]
    await _commit(store, actions, comment_id, caller)
    items.refresh(key, new_primary)
    return Comment.from_item(new_primary)


@worst_case(requests=1 + TRANSACT_CALLS, items=1)
async def delete_comment(
    store: Store, items: ItemLoader, comment_id: str, *, caller: Caller = OPEN
) -> None:
    """Remove a comment and every copy, from every list, at once."""
    key, current = await _read(store, comment_id, caller)
    copies = comment_items(current)[1:]
    actions = [
        _guarded(transaction_delete(store.table, key), current, caller),
        *(transaction_delete(store.table, primary_key(c)) for c in copies),
    ]
    await _commit(store, actions, comment_id, caller)
    items.clear(item_key(key))


async def load_comment(items: ItemLoader, comment_id: str) -> Comment | None:
    key = validation.key_or_none(comment_keys.comment_key, validation.ident(comment_id))
    item = None if key is None else await items.load_item(key)
    return None if item is None else Comment.from_item(item)


async def product_comments_page(
    pages: Paginator,
    product_id: str,
    args: PageArgs,
    *,
    language: str | None,
    ratings: list[int] | None,
) -> Page[Comment]:
    """Newest first, from the one list that holds exactly the matching comments."""
    code = None if language is None else comment_keys.language(language)
    rating_set = None if ratings is None else comment_keys.rating_set(ratings)
    condition = comment_keys.product_comments(product_id, code, rating_set)
    binding = Binding(
        "Product.comments",
        product_id,
        {"language": code, "ratings": None if rating_set is None else sorted(rating_set)},
    )
    page = await pages.page(condition, binding, args, forward=False)
    return page.map(Comment.from_item)


async def _read(store: Store, comment_id: str, caller: Caller) -> tuple[Key, Item]:
    """The comment as stored; a caller who did not write it is refused here already, which
    saves a write its condition would refuse anyway."""
    validation.ident(comment_id)
    key = validation.key_or_none(comment_keys.comment_key, comment_id)
    current = None if key is None else await store.get(key, consistent=True)
    if key is None or current is None:
        raise NotFound(f"comment {comment_id!r} does not exist")
    if not wrote(current, caller):
        raise _forbidden(comment_id)
    return key, current


def _guarded(action: dict[str, Any], current: Item, caller: Caller) -> dict[str, Any]:
    """The primary item's action: only at the version read and, unless the caller is
    unrestricted, while the caller is its author. The stored item comes back with a
    refusal, to tell which of the two failed."""
    expected: dict[str, Any] = {"version": current["version"]}
    restriction = caller.restriction()
    if restriction is not None:
        expected[AUTHOR_KEY] = restriction
    return expecting(action, expected, old_on_failure=True)


async def _commit(
    store: Store, actions: list[dict[str, Any]], comment_id: str, caller: Caller
) -> None:
    try:
        await store.transact(actions)
    except TransactionCanceled as exc:
        refusals = {0: _refusal(exc.items[0], comment_id, caller)}
        raise exc.explained(refusals, "the comment could not be changed; try again") from exc


def _refusal(stored: Item | None, comment_id: str, caller: Caller) -> DynagateError:
    """Why the primary item's condition failed: not the caller's, else changed (or deleted)
    since it was read."""
    if stored is not None and not wrote(stored, caller):
        return _forbidden(comment_id)
    return Conflict(f"comment {comment_id!r} was changed by another request; reload it")


def _forbidden(comment_id: str) -> Forbidden:
    return Forbidden(f"only its author may change comment {comment_id!r}")
