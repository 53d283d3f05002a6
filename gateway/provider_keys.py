"""The signing keys an OpenID Connect provider publishes (docs/identity.md, "Signing in"),
cached so that a token naming a key already fetched never waits on the provider.

- Keys are held by id in a dict that requests read without a lock: one event loop owns it,
  and a fetch replaces it whole.
- Only a key id missing from the cache makes a request wait for a fetch. A key set older
  than its lifespan is fetched again in the background while its keys keep serving.
- One fetch runs at a time, shared by every request waiting for it, and at most one starts
  every `cooldown` seconds: stamped when it starts, so failed fetches count too. A flood of
  made-up key ids costs the provider one request per cooldown.
- A request waits for a fetch `timeout` seconds at most, then the provider is unavailable.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.request
from collections.abc import Callable, Collection
from http.client import HTTPResponse
from typing import Any
from urllib.error import HTTPError

import jwt

logger = logging.getLogger("dynagate.identity")

# Bounds on what a provider may send: larger sets than any provider publishes are refused,
# and keys with longer ids are left out (tokens naming one are refused unread).
MAX_KEYS = 64
MAX_KID_CHARS = 128
MAX_KEY_SET_BYTES = 256 * 1024


class KeySetUnavailable(Exception):
    """The provider's key set could not be had in time (fetch failed, timed out or cooling
    down after a failure): the token cannot be checked now."""


class UnknownKey(Exception):
    """The provider's current key set has no key with this id."""


class ProviderKeys:
    """The provider's keys by id, fetched from `url` when a token names one not cached."""

    def __init__(
        self,
        url: str,
        *,
        algorithms: Collection[str],
        lifespan: float,
        cooldown: float,
        timeout: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.algorithms = frozenset(algorithms)
        self.lifespan = lifespan
        self.cooldown = cooldown
        self.timeout = timeout
        self._clock = clock
        self._keys: dict[str, jwt.PyJWK] = {}
        # When the last fetch that succeeded ended, and when the last attempt started.
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        # Whether the last attempt that ended succeeded: a key id missing from a set just
        # fetched is not published; one missing after a failure may just not be had yet.
        self._succeeded = False
        self._fetching: asyncio.Task[bool] | None = None

    async def key(self, kid: str) -> jwt.PyJWK:
        """The key `kid` names: at once when cached, else after a fetch (UnknownKey when the
        provider does not publish it, KeySetUnavailable when its keys cannot be had)."""
        key = self._keys.get(kid)
        if key is not None:
            if self._stale() and self._fetching is None:
                self._start_fetch()  # in the background; these keys serve meanwhile
            return key
        if len(kid) > MAX_KID_CHARS:
            raise UnknownKey(kid)
        fetch = self._fetching or self._start_fetch()
        if fetch is None:  # cooling down: answered from what the last attempt left
            if self._succeeded:
                raise UnknownKey(kid)
            raise KeySetUnavailable("the last fetch failed and the next may not start yet")
        try:
            # Shielded: a waiter giving up (or its client leaving) stops no one else's fetch.
            succeeded = await asyncio.wait_for(asyncio.shield(fetch), self.timeout)
        except TimeoutError:
            raise KeySetUnavailable(f"no key set within {self.timeout:g} s") from None
        key = self._keys.get(kid)
        if key is not None:
            return key
        if succeeded:
            raise UnknownKey(kid)
        raise KeySetUnavailable("the fetch failed")

    def _stale(self) -> bool:
        return self._fetched_at is not None and self._clock() - self._fetched_at >= self.lifespan

    def _start_fetch(self) -> asyncio.Task[bool] | None:
        """The fetch just started; None while the last attempt is too recent."""
        now = self._clock()
        if self._attempted_at is not None and now - self._attempted_at < self.cooldown:
            return None
        self._attempted_at = now
        self._fetching = asyncio.get_running_loop().create_task(self._fetch())
        return self._fetching

    async def _fetch(self) -> bool:
        try:
            # urllib blocks: on a thread. Its timeout bounds each socket wait, not the whole
            # exchange (nor name resolution), so the task has a deadline of its own; a thread
            # outliving it ends on its own socket timeout, and at most one starts a cooldown.
            keys = await asyncio.wait_for(
                asyncio.to_thread(download_keys, self.url, self.timeout, self.algorithms),
                self.timeout,
            )
        except Exception as exc:
            # Anything the fetch raises (no answer, an HTML error page, a body cut short, a
            # set with no usable key) is the provider's failure, never the caller's.
            self._succeeded = False
            silent = f"no answer within {self.timeout:g} s" if isinstance(exc, TimeoutError) else ""
            reason = str(exc) or silent or type(exc).__name__
            logger.warning(
                "the identity provider's keys could not be fetched from %s: %s", self.url, reason
            )
            return False
        finally:
            self._fetching = None
        self._keys, self._fetched_at, self._succeeded = keys, self._clock(), True
        return True


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Keys come from the configured URL alone: a redirect (to plain http, say) is a failure."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def download_keys(url: str, timeout: float, algorithms: Collection[str]) -> dict[str, jwt.PyJWK]:
    """The signing keys `url` publishes, by id, within about `timeout` seconds (blocking)."""
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(
        url, headers={"User-Agent": "dynagate", "Accept": "application/json"}
    )
    opener = urllib.request.build_opener(_NoRedirects())
    try:
        with opener.open(request, timeout=timeout) as response:
            body = _read_bounded(response, deadline)
    except HTTPError as exc:
        exc.close()  # it holds the connection of the error's answer
        raise OSError(f"HTTP {exc.code} {exc.reason}") from None
    return key_set(json.loads(body), algorithms)


def _read_bounded(response: HTTPResponse, deadline: float) -> bytes:
    """The body, refused when over `MAX_KEY_SET_BYTES` or still arriving at `deadline` (a
    provider dripping bytes would otherwise hold the fetch for ever)."""
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(64 * 1024):
        size += len(chunk)
        if size > MAX_KEY_SET_BYTES:
            raise ValueError(f"the key set is over {MAX_KEY_SET_BYTES:,} bytes")
        if time.monotonic() > deadline:
            raise TimeoutError("the key set was still arriving at the deadline")
        chunks.append(chunk)
    return b"".join(chunks)


def key_set(document: object, algorithms: Collection[str]) -> dict[str, jwt.PyJWK]:
    """The signing keys of a JWKS document by id: those for signatures with one of
    `algorithms` and an id of `MAX_KID_CHARS` at most; the others are left out."""
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError("the answer is not a key set (no `keys` list)")
    if len(entries) > MAX_KEYS:
        raise ValueError(f"the key set has {len(entries)} keys, over {MAX_KEYS}")
    keys: dict[str, jwt.PyJWK] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("use") not in (None, "sig"):
            continue
        kid = entry.get("kid")
        if not isinstance(kid, str) or not 0 < len(kid) <= MAX_KID_CHARS or kid in keys:
            continue
        try:
            key = jwt.PyJWK(entry)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue  # a kind of key not accepted here, or a broken one
        if key.algorithm_name in algorithms:
            keys[kid] = key
    if not keys:
        raise ValueError("the key set has no usable signing key")
    return keys
