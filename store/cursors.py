"""Opaque, signed cursors bound to the field, arguments and parent they came from.

A cursor carries the key of its edge's item, enciphered so no table key is shown. Its MAC
covers the key and a *binding* (the field, its parent and its filtering arguments) that is
not in the cursor, so a cursor altered by one character, or presented to another field,
argument set or parent, fails the check. The MAC doubles as the nonce of a SHAKE-256
keystream (a synthetic-IV construction): equal keys give equal cursors, nothing repeats
a keystream for different keys, and no extra dependency is needed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from store.errors import BadCursor

_MAC_BYTES = 16


@dataclass(frozen=True)
class Binding:
    """Where a cursor is valid: `Customer.orders` of customer `alice` with these filters."""

    field: str
    parent: str
    arguments: Mapping[str, Any]

    def canonical(self) -> bytes:
        return json.dumps(
            [self.field, self.parent, self.arguments],
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        ).encode()


@dataclass(frozen=True)
class CursorCodec:
    secret: bytes

    def encode(self, binding: Binding, key: Sequence[str]) -> str:
        """A cursor for the key values `key` (in the index's key-attribute order)."""
        payload = json.dumps(list(key), separators=(",", ":")).encode()
        mac = self._mac(binding, payload)
        return _b64(mac + self._xor(mac, payload))

    def decode(self, binding: Binding, cursor: str) -> list[str]:
        try:
            raw = _unb64(cursor)
        except (ValueError, binascii.Error) as exc:
            raise BadCursor("the cursor is malformed; use a cursor returned by this field") from exc
        mac, payload = raw[:_MAC_BYTES], self._xor(raw[:_MAC_BYTES], raw[_MAC_BYTES:])
        if len(mac) < _MAC_BYTES or not hmac.compare_digest(mac, self._mac(binding, payload)):
            raise BadCursor(
                "the cursor is not valid here: it was altered or comes from another field,"
                " argument set or parent"
            )
        key = json.loads(payload)
        if not isinstance(key, list) or not all(isinstance(v, str) for v in key):
            raise BadCursor("the cursor is malformed; use a cursor returned by this field")
        return key

    def _xor(self, nonce: bytes, data: bytes) -> bytes:
        # SHAKE-256 is an extendable-output function: one call yields a keystream as long as
        # the payload, keyed by the secret and the nonce (no length extension in SHA-3).
        stream = hashlib.shake_256(b"dynagate-cursor\0" + self.secret + b"\0" + nonce)
        mixed = int.from_bytes(data, "big") ^ int.from_bytes(stream.digest(len(data)), "big")
        return mixed.to_bytes(len(data), "big")

    def _mac(self, binding: Binding, payload: bytes) -> bytes:
        message = binding.canonical() + b"\n" + payload
        return hmac.new(self.secret, message, hashlib.sha256).digest()[:_MAC_BYTES]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text or len(text) > 4096:
        raise ValueError("empty or oversized")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # The decoder ignores the spare bits of the last character and skips characters outside
    # the alphabet, so several texts decode alike: accept only the one `_b64` produces.
    if _b64(raw) != text:
        raise ValueError("not the canonical encoding")
    return raw
