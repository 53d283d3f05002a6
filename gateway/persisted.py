"""Persisted documents over HTTP (API.md section 10): a request may name its document by
hash instead of sending it, as GraphQL over HTTP's `documentId: "sha256:<hex>"` or Apollo's
automatic persisted queries (`extensions.persistedQuery.sha256Hash`).

A request that sends its document with an Apollo hash registers it (the hash checked
first); one that names an unknown hash is PERSISTED_QUERY_NOT_FOUND, which an Apollo client
answers by sending the document with its hash. Documents are kept in the table, so every
replica knows them, and by each process once read.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from data.documents import load_document, register_document
from keys.documents import checked_hash, digest
from keys.errors import BadUserInput, DynagateError, UnknownDocument
from resolvers.context import Context
from store.client import Store

logger = logging.getLogger("dynagate")
DOCUMENT_ID = "documentId"
_SHA256 = "sha256:"
# Apollo clients know the answer by this message (and the code).
_NOT_FOUND = "PersistedQueryNotFound: send the document with its hash to register it"


def requested_hash(document_id: object, extensions: Mapping[str, Any] | None) -> str | None:
    """The hash a request names its document by, if any; BAD_USER_INPUT if malformed."""
    if document_id is not None:
        if not isinstance(document_id, str) or not document_id.startswith(_SHA256):
            raise BadUserInput('name a document as "sha256:<hex>"', field=DOCUMENT_ID)
        return checked_hash(document_id.removeprefix(_SHA256), DOCUMENT_ID)
    persisted = (extensions or {}).get("persistedQuery")
    if persisted is None:
        return None
    if not isinstance(persisted, Mapping) or persisted.get("version") != 1:
        raise BadUserInput("persistedQuery: only version 1 is known", field="extensions")
    return checked_hash(persisted.get("sha256Hash"), "extensions.persistedQuery.sha256Hash")


class PersistedDocuments:
    """The documents this process has read or registered, by hash (least recent dropped)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self.known: OrderedDict[str, str] = OrderedDict()

    async def document(self, store: Store, sha256: str, sent: str | None) -> str:
        """The text of the document `sha256` names: `sent` (its hash checked), else the one
        registered, else PERSISTED_QUERY_NOT_FOUND."""
        if sent is not None:
            if digest(sent) != sha256:
                raise BadUserInput(
                    "the document's SHA-256 is not the hash sent with it", field="extensions"
                )
            return sent
        text = self.known.get(sha256)
        if text is None:
            found = await load_document(store, sha256)
            if found is None:
                raise UnknownDocument(_NOT_FOUND)
            text = found.text
        self._keep(sha256, text)
        return text

    async def register(
        self, store: Store, text: str, bound: Mapping[str, int] | None = None
    ) -> None:
        """Keep a document sent with its hash, once it ran (one that does not parse or
        validate is never kept); a document DynamoDB cannot hold is only not kept."""
        sha256 = digest(text)
        if sha256 in self.known:
            return
        try:
            await register_document(store, text, bound)
        except DynagateError as exc:
            logger.warning("document %s was not registered: %s", sha256, exc)
            return
        self._keep(sha256, text)

    def _keep(self, sha256: str, text: str) -> None:
        self.known[sha256] = text
        self.known.move_to_end(sha256)
        if len(self.known) > self.size:
            self.known.popitem(last=False)


@dataclass
class Persisting:
    """The request being answered, for `parse_http_body`, which Strawberry calls without
    it, and a document sent with its hash, to register once it has run."""

    context: Context
    sent: str | None = None


PERSISTING: ContextVar[Persisting] = ContextVar("dynagate_persisting")
