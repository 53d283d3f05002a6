"""Persisted and trusted documents (docs/http.md): read by hash, registered once,
listed for `dynagate documents list`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from data.changes import Record
from data.clock import now
from keys import documents as keys
from keys.codecs import format_timestamp
from store.client import Store
from store.errors import ConditionFailed
from store.requests import put_request


@dataclass(frozen=True)
class Document:
    sha256: str
    text: str
    # Registered by an admin or `dynagate documents add`: it runs in trusted mode.
    trusted: bool = False
    bound: Mapping[str, int] = field(default_factory=dict)
    registered_at: str | None = None


async def load_document(store: Store, sha256: str, *, consistent: bool = False) -> Document | None:
    """The document registered under `sha256`, if any; `consistent`: as DynamoDB holds it
    once every write answered before is applied (never from the read cache)."""
    item = await store.get(keys.document_key(store.layout.table, sha256), consistent=consistent)
    return None if item is None else _document(item)


async def register_document(
    store: Store, text: str, bound: Mapping[str, int] | None = None, *, trusted: bool = False
) -> Document:
    """Keep `text` under its hash, with the `bound` it was computed to have (`requests`,
    `itemsScanned`, `fields`). A trusted registration replaces what is kept (the text under
    a hash never differs, so it only adds trust); any other leaves a kept one as it is.
    One PutItem, made after the operation and outside its bound (no field calls this)."""
    sha256 = keys.digest(text)
    item: dict[str, Any] = {
        **keys.document_key(store.layout.table, sha256),
        "type": "DOCUMENT",
        "sha256": sha256,
        "document": text,
        "registeredAt": format_timestamp(now()),
        "trusted": trusted,
    }
    if bound is not None:
        item["bound"] = dict(bound)
    with suppress(ConditionFailed):
        new_on = None if trusted else store.layout.table
        await store.put(put_request(store.table, item, new_on=new_on))
    return _document(item)


async def list_documents(store: Store) -> AsyncIterator[Document]:
    """Every registered document, by hash, a page at a time (one partition)."""
    start = None
    while True:
        page = await store.query(
            keys.all_documents(store.layout.table), forward=True, limit=100, start_key=start
        )
        for item in page.items:
            yield _document(item)
        if page.last_key is None:
            return
        start = page.last_key


def registered_by(record: Record) -> Document | None:
    """The document a change of the table's stream registers (or makes trusted); None for
    any other change, and for an item that is not a whole document."""
    item = record.new
    # The record's keys are the table's two (whatever the layout names them).
    named = [str(value) for value in record.keys.values()]
    if (
        item is None
        or keys.DOCUMENTS not in named
        or not any(value.startswith(keys.LABEL) for value in named)
    ):
        return None
    try:
        return _document(item)
    except (KeyError, TypeError, ValueError):
        return None


def _document(item: Mapping[str, Any]) -> Document:
    return Document(
        item["sha256"],
        item["document"],
        trusted=bool(item.get("trusted", False)),
        bound={name: int(value) for name, value in (item.get("bound") or {}).items()},
        registered_at=item.get("registeredAt"),
    )
