"""Persisted documents over HTTP (API.md section 10): a request may name its document by
hash instead of sending it, as GraphQL over HTTP's `documentId: "sha256:<hex>"` or Apollo's
automatic persisted queries (`extensions.persistedQuery.sha256Hash`).

A request that sends its document with an Apollo hash registers it (the hash checked
first); one that names an unknown hash is PERSISTED_QUERY_NOT_FOUND, which an Apollo client
answers by sending the document with its hash. Documents are kept in the table, so every
replica knows them, and by each process once read.

In trusted mode (`DYNAGATE_DOCUMENTS=trusted`) only documents an admin registered (through
a request, or `dynagate documents add`) run for other callers, and only admins register.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from data.callers import Caller
from data.documents import load_document, register_document
from keys.documents import checked_hash, digest
from keys.errors import BadUserInput, DynagateError, Forbidden, UnknownDocument
from resolvers.context import Context
from store.client import Store

logger = logging.getLogger("dynagate")
DOCUMENT_ID = "documentId"
_SHA256 = "sha256:"
# Apollo clients know the answer by this message (and the code).
_NOT_FOUND = "PersistedQueryNotFound: send the document with its hash to register it"
# How long a hash found missing (or untrusted) is taken as such before the table is read
# again: what an admin registers elsewhere is seen within it.
RECHECK_SECONDS = 10.0
_UNTRUSTED = "only the documents registered with this gateway run here"
_ADMINS_REGISTER = "only admins register documents here"


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


@dataclass(frozen=True)
class _Known:
    text: str
    trusted: bool
    # When the table was last read for it (this process's clock).
    read_at: float = 0.0


class PersistedDocuments:
    """The documents this process has read or registered, by hash (least recent dropped),
    and, in trusted mode (`trusted_only`), the rule that only trusted ones run for callers
    other than admins: by hash, or sent in full when its hash is registered as trusted."""

    def __init__(
        self,
        *,
        trusted_only: bool = False,
        size: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.trusted_only = trusted_only
        self.size = size
        self.clock = clock
        self.known: OrderedDict[str, _Known] = OrderedDict()
        # Hashes the table did not hold when last read, and when: each is read again only
        # after `RECHECK_SECONDS`, so unknown documents sent over and over cost one read.
        self.missing: OrderedDict[str, float] = OrderedDict()

    def restricts(self, caller: Caller) -> bool:
        """Whether only trusted documents run for `caller`."""
        return self.trusted_only and not caller.admin

    async def document(self, store: Store, sha256: str, sent: str | None, caller: Caller) -> str:
        """The text of the document `sha256` names: `sent` (its hash checked), else the one
        registered, else PERSISTED_QUERY_NOT_FOUND; FORBIDDEN where it is not trusted."""
        if sent is not None:
            if digest(sent) != sha256:
                raise BadUserInput(
                    "the document's SHA-256 is not the hash sent with it", field="extensions"
                )
            await self.admit(store, sent, caller, refusal=_ADMINS_REGISTER)
            return sent
        known = await self._known(store, sha256, caller)
        if known is None:
            raise UnknownDocument(_NOT_FOUND)
        if self.restricts(caller) and not known.trusted:
            raise Forbidden(_UNTRUSTED)
        return known.text

    async def admit(
        self, store: Store, text: str, caller: Caller, *, refusal: str = _UNTRUSTED
    ) -> None:
        """Nothing where any document runs for `caller`; else FORBIDDEN (`refusal`) unless
        `text` is registered as trusted."""
        if not self.restricts(caller):
            return
        known = await self._known(store, digest(text), caller)
        if known is None or not known.trusted:
            raise Forbidden(refusal)

    async def register(
        self,
        store: Store,
        text: str,
        bound: Mapping[str, int] | None = None,
        *,
        trusted: bool = False,
    ) -> None:
        """Keep a document sent with its hash, once it ran (one that does not parse or
        validate is never kept); a document DynamoDB cannot hold is only not kept."""
        sha256 = digest(text)
        kept = self.known.get(sha256)
        if kept is not None and (kept.trusted or not trusted):
            return
        try:
            document = await register_document(store, text, bound, trusted=trusted)
        except DynagateError as exc:
            logger.warning("document %s was not registered: %s", sha256, exc)
            return
        # Whether it is trusted is not known here when another registration came first.
        self.missing.pop(sha256, None)
        self._keep(sha256, _Known(text, document.trusted and trusted))

    async def _known(self, store: Store, sha256: str, caller: Caller) -> _Known | None:
        """What is kept of `sha256`, read from the table when this process has not kept it,
        or kept it untrusted where trust decides (an admin may have added it since): at
        most once per `RECHECK_SECONDS` for a hash found missing or untrusted."""
        now = self.clock()
        known = self.known.get(sha256)
        stale = known is not None and not known.trusted and self.restricts(caller)
        if known is None or stale:
            missed = self.missing.get(sha256)
            if known is None and missed is not None and now - missed < RECHECK_SECONDS:
                return None
            if stale and known is not None and now - known.read_at < RECHECK_SECONDS:
                return known
            found = await load_document(store, sha256)
            if found is None:
                self.missing[sha256] = now
                self.missing.move_to_end(sha256)
                if len(self.missing) > self.size:
                    self.missing.popitem(last=False)
                return None
            self.missing.pop(sha256, None)
            known = _Known(found.text, found.trusted, now)
        self._keep(sha256, known)
        return known

    def _keep(self, sha256: str, known: _Known) -> None:
        self.known[sha256] = known
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
