"""Persisted documents (API.md section 10): read by hash, registered once."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

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


async def load_document(store: Store, sha256: str) -> Document | None:
    item = await store.get(keys.document_key(sha256))
    return None if item is None else Document(item["sha256"], item["document"])


async def register_document(
    store: Store, text: str, bound: Mapping[str, int] | None = None
) -> Document:
    """Keep `text` under its hash, with the `bound` it was computed to have (`requests`,
    `itemsScanned`, `fields`); one already kept (by another request) stays as it is.
    One PutItem, made after the operation and outside its bound (no field calls this)."""
    sha256 = keys.digest(text)
    item: dict[str, Any] = {
        **keys.document_key(sha256),
        "type": "DOCUMENT",
        "sha256": sha256,
        "document": text,
        "registeredAt": format_timestamp(now()),
    }
    if bound is not None:
        item["bound"] = dict(bound)
    # Already kept: the same text under the same hash, nothing to change.
    with suppress(ConditionFailed):
        await store.put(put_request(store.table, item, must_be_new=True))
    return Document(sha256, text)
