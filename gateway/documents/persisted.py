"""Persisted documents over HTTP (docs/http.md): a request may name its document by hash
instead of sending it, as GraphQL over HTTP's `documentId: "sha256:<hex>"` or Apollo's
automatic persisted queries (`extensions.persistedQuery.sha256Hash`).

A request that sends its document with an Apollo hash registers it (the hash checked
first) right after it ran, so that the write is in its cost; one that names an unknown hash
is PERSISTED_QUERY_NOT_FOUND, which a client answers by sending the document with its hash.
Documents are kept in the table, so every replica knows them, and by each process once
read. A process that found a hash missing hears of its registration anywhere through the
table's stream (`persisted_documents`), so that it runs it at once.

**With replicas (Redis), a document runs on every replica from the moment its registration
is answered.** A process remembers a hash it found missing (or untrusted) for
`RECHECK_SECONDS`, so that one sent over and over costs one read; behind a load balancer,
that memory must not outlive a registration another replica answered, and the table's
stream tells of it only later. So, as the read cache does (docs/cache.md#several-replicas):
the registering replica adds the hash to the Redis stream the replicas share before it
answers (`Replicas.announce`); every replica drops what it remembers of that hash when it
hears it; and a replica trusts what it remembers only once it has heard every entry Redis
held when asked (`Replicas.caught_up`), and only if it was hearing them before it read the
table (`Replicas.listening`). No timing is assumed: an announcement is in Redis before the
answer leaves, so a request sent after that answer finds it there. Where that cannot be
known (Redis down, this process not hearing yet or lagging), the table is read again: a
miss costs a read, never a wrong PERSISTED_QUERY_NOT_FOUND. The table is read strongly
consistent, so a write answered anywhere is seen.

In trusted mode (`DYNAGATE_DOCUMENTS=trusted`) only documents an admin registered (through
a request, or `dynagate documents add`) run for other callers, and only admins register.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from strawberry.extensions import SchemaExtension
from strawberry.http import GraphQLRequestData

from data.callers import Caller
from data.changes import Record
from data.documents import load_document, register_document, registered_by
from errors.vocabulary import BadUserInput, DynagateError, Forbidden, UnknownDocument
from gateway.documents.parsing import oversized
from gateway.documents.registrations import Replicas, ThroughRedis
from gateway.operation_context import OperationContext
from gateway.request_scope import is_request_error
from gateway.runtime import Runtime
from keys.documents import checked_hash, digest
from store.client import Store

logger = logging.getLogger("dynagate")
DOCUMENT_ID = "documentId"
_SHA256 = "sha256:"
# The message exactly: Apollo Client knows the answer by its code, urql by this message.
_NOT_FOUND = "PersistedQueryNotFound"
# How long a hash found missing (or untrusted) is taken as such before the table is read
# again, should the table's stream not tell of its registration sooner.
RECHECK_SECONDS = 10.0
# How long the first request that reads the table for a hash waits for this process to
# start hearing the table's stream (it goes on reading meanwhile).
FOLLOW_SECONDS = 1.0
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
    # When the table was last read for it (this process's clock), and whether the replicas'
    # registrations were heard here from before that read (`Replicas.listening`).
    read_at: float = 0.0
    listened: bool = False
    # Announced to the replicas by this process (`register`).
    told: bool = False


@dataclass(frozen=True)
class _Missing:
    """A hash the table did not hold when read (this process's clock then), and whether
    the replicas' registrations were heard here from before that read."""

    at: float
    listened: bool = False


def _at(remembered: _Known | _Missing) -> float:
    return remembered.read_at if isinstance(remembered, _Known) else remembered.at


@dataclass(kw_only=True, eq=False)
class PersistedDocuments:
    """The documents this process has read or registered, by hash (least recent dropped),
    and, in trusted mode (`trusted_only`), the rule that only trusted ones run for callers
    other than admins: by hash, or sent in full when its hash is registered as trusted.

    `follow` is awaited before the table is read for a hash: it starts hearing the table's
    stream, whose records of documents (`heard`) end what was found missing or untrusted.
    With `replicas`, their announcements (`announced`) end it at once, and what is
    remembered holds only while nothing announced may be unheard (see the module's text)."""

    trusted_only: bool = False
    size: int = 4096
    clock: Callable[[], float] = time.monotonic
    follow: Callable[[], Awaitable[None]] | None = None
    replicas: Replicas | None = None
    known: OrderedDict[str, _Known] = field(default_factory=OrderedDict, init=False)
    # Hashes the table did not hold when last read: each is read again only after
    # `RECHECK_SECONDS`, so unknown documents sent over and over cost one read.
    missing: OrderedDict[str, _Missing] = field(default_factory=OrderedDict, init=False)
    # Hashes being read from the table now: a registration heard meanwhile is kept; and
    # how many registrations of each were announced meanwhile.
    reading: Counter[str] = field(default_factory=Counter, init=False)
    raced: Counter[str] = field(default_factory=Counter, init=False)

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
            # Kept already, but maybe never told (`dynagate documents add`, a registration
            # Redis refused): a client sends it after some replica found it missing.
            if not kept.told and self.replicas is not None:
                self.known[sha256] = replace(kept, told=True)
                await self.replicas.announce(sha256, kept.trusted)
            return
        try:
            document = await register_document(store, text, bound, trusted=trusted)
        except DynagateError as exc:
            logger.warning("document %s was not registered: %s", sha256, exc)
            return
        # Whether it is trusted is not known here when another registration came first.
        self.missing.pop(sha256, None)
        told = self.replicas is not None
        self._keep(sha256, _Known(text, document.trusted and trusted, told=told))
        if self.replicas is not None:  # before the registration is answered
            await self.replicas.announce(sha256, trusted)

    def announced(self, sha256: str, trusted: bool) -> None:
        """A replica registered `sha256` (heard through Redis): that it was missing here,
        or (for a trusted registration) untrusted, is forgotten; a read under way is not
        taken for a miss."""
        if sha256 in self.reading:
            self.raced[sha256] += 1
        self.missing.pop(sha256, None)
        kept = self.known.get(sha256)
        if kept is not None and trusted and not kept.trusted:
            self.known[sha256] = replace(kept, read_at=-math.inf)  # read again where it matters

    def heard(self, record: Record) -> None:
        """A change of the table's stream: a document registered, or made trusted, is kept
        where this process found it missing, kept it untrusted, or is reading it now."""
        document = registered_by(record)
        if document is None:
            return
        sha256, kept = document.sha256, self.known.get(document.sha256)
        if kept is not None and (kept.trusted or not document.trusted):
            return
        if kept is None and sha256 not in self.missing and sha256 not in self.reading:
            return  # never asked for here: read when it is
        self.missing.pop(sha256, None)
        heard = _Known(document.text, document.trusted, self.clock(), self._listening())
        self._keep(sha256, heard)

    async def _known(self, store: Store, sha256: str, caller: Caller) -> _Known | None:
        """What is kept of `sha256`, read from the table when this process has not kept it,
        or kept it untrusted where trust decides (an admin may have added it since): at
        most once per `RECHECK_SECONDS` for a hash found missing or untrusted."""
        now = self.clock()
        known = self.known.get(sha256)
        stale = known is not None and not known.trusted and self.restricts(caller)
        if known is None or stale:
            missed = self.missing.get(sha256)
            # What was read last stands for a while, unless a registration may be unheard.
            remembered = known if stale else missed
            if remembered is not None and now - _at(remembered) < RECHECK_SECONDS:
                holds = await self._holds(remembered.listened)
                if holds and remembered is (self.known if stale else self.missing).get(sha256):
                    return known
            found, listened, raced = await self._read(store, sha256)
            # A registration heard while reading is newer than what was read.
            heard = self.known.get(sha256)
            if heard is not None and heard is not known and (found is None or heard.trusted):
                return heard
            if found is None:
                if not raced:  # else registered while read: not remembered as missing
                    self.missing[sha256] = _Missing(now, listened)
                    self.missing.move_to_end(sha256)
                    if len(self.missing) > self.size:
                        self.missing.popitem(last=False)
                return None
            self.missing.pop(sha256, None)
            known = found
        self._keep(sha256, known)
        return known

    async def _holds(self, listened: bool) -> bool:
        """Whether what was remembered of a hash (read while `listened`) still stands: no
        replica's registration of it can be unheard here. Without replicas, it stands
        until the table's stream tells otherwise."""
        if self.replicas is None:
            return True
        return listened and await self.replicas.caught_up()

    def _listening(self) -> bool:
        return self.replicas is not None and self.replicas.listening()

    async def _read(self, store: Store, sha256: str) -> tuple[_Known | None, bool, bool]:
        """The document as the table holds it (strongly consistent: a registration answered
        anywhere is seen), once this process hears of registrations (`follow`): one made
        after this read reaches `heard`, or `announced`. With it, whether the replicas'
        announcements were heard from before the read, and whether one of this hash came
        while reading (what was read may be older)."""
        self.reading[sha256] += 1
        try:
            if self.follow is not None:
                await self.follow()
            listened, before = self._listening(), self.raced[sha256]
            found = await load_document(store, sha256, consistent=True)
            raced = self.raced[sha256] != before
        finally:
            self.reading[sha256] -= 1
            if self.reading[sha256] <= 0:
                del self.reading[sha256]
                self.raced.pop(sha256, None)
        if found is None:
            return None, listened, raced
        # Untrusted while a registration was announced: read again when trust decides.
        read_at = -math.inf if raced else self.clock()
        return _Known(found.text, found.trusted, read_at, listened), listened, raced

    def _keep(self, sha256: str, known: _Known) -> None:
        self.known[sha256] = known
        self.known.move_to_end(sha256)
        if len(self.known) > self.size:
            self.known.popitem(last=False)


def persisted_documents(runtime: Runtime, *, trusted_only: bool) -> PersistedDocuments:
    """The process's persisted documents, told of every registration the table's stream
    carries (with Redis, whichever replica reads it: `gateway/replicas/fanout.py`), and
    with Redis, of every registration a replica announces before answering it."""

    async def follow() -> None:
        try:
            await runtime.follow(FOLLOW_SECONDS)
        except (TimeoutError, RuntimeError):
            # Not heard yet (or no lifespan): a miss is then read again after RECHECK_SECONDS.
            logger.debug("the table's stream is not heard yet")

    replicas = None if runtime.redis is None else ThroughRedis(runtime)
    documents = PersistedDocuments(trusted_only=trusted_only, follow=follow, replicas=replicas)
    runtime.feed.listeners.append(documents.heard)
    runtime.registrations.append(documents.announced)
    return documents


async def resolved(
    documents: PersistedDocuments,
    data: GraphQLRequestData,
    raw: object,
    context: OperationContext,
    max_bytes: int,
) -> GraphQLRequestData:
    """One request (of a batch, maybe) with the document it names by hash in place, once
    admitted where only trusted documents run; `raw`: the request as sent (its JSON object,
    or a GET's parameters), where a `documentId` is read. A document sent with its hash is
    noted on `context`, to be registered once it ran (`DocumentRegistration`)."""
    if data.query is not None and oversized(data.query, max_bytes):
        return data  # refused by the parser (QUERY_TOO_COMPLEX): neither read nor kept
    document_id = raw.get(DOCUMENT_ID) if isinstance(raw, Mapping) and data.query is None else None
    sha256 = requested_hash(document_id, data.extensions)
    store, caller = context.store, context.caller
    if sha256 is None:
        if data.query is not None:  # in trusted mode, run only if registered
            await documents.admit(store, data.query, caller)
        return data
    text = await documents.document(store, sha256, data.query, caller)
    if data.query is not None:
        context.request.sent_documents.add(text)
    return replace(data, query=text)


class DocumentRegistration(SchemaExtension):
    """Registers a document its request sent with its hash, right after it ran and before
    its cost is reported: the write is in `extensions.cost` and drawn from the caller's
    rate limit. An operation refused before it ran (nothing executed) registers nothing."""

    def __init__(self, documents: PersistedDocuments | None = None) -> None:
        super().__init__()
        self.documents = documents

    async def on_execute(self) -> AsyncIterator[None]:
        yield
        query = self.execution_context.query
        context = self.execution_context.context  # the operation's own, in a batch
        documents = self.documents
        if documents is None or not isinstance(context, OperationContext):
            return
        if query is None or query not in context.request.sent_documents:
            return
        result = self.execution_context.result
        if result is None or is_request_error(result.data, result.errors):
            return
        if context.operation.bounding_only:
            return  # a batch's operations are bounded first, then run (`gateway/http/batches.py`)
        context.request.sent_documents.discard(query)  # once, should a batch send it twice
        # A write of its own, past the operation's bound, in the operation's cost.
        store = context.store
        registering = store.sibling(cost=store.cost)
        await documents.register(
            registering, query, context.operation.estimated, trusted=context.caller.admin
        )
