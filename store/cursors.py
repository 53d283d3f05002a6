"""Opaque, sealed cursors bound to the field, arguments and parent they came from.

A cursor carries the key of its edge's item, sealed with AES-SIV (RFC 5297, from
`cryptography`): the key is enciphered, so no table key is shown, and authenticated
together with a *binding* (the field, its parent and its filtering arguments) that is not
in the cursor, as associated data. A cursor altered by one character, or presented to
another field, argument set or parent, fails to open. SIV is deterministic, as a cursor
must be: equal keys in equal places give equal cursors.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from errors.vocabulary import BadCursor

# AES-256-SIV takes two 256-bit keys: one for the synthetic IV (a CMAC), one for CTR.
_KEY_BYTES = 64
_CONTEXT = b"dynagate cursor AES-256-SIV"
# The longest cursor read: far above any real one (a key of three attributes is under 200).
_MAX_CHARS = 4096


@dataclass(frozen=True)
class Binding:
    """Where a cursor is valid: `Customer.orders` of customer `alice` with these filters."""

    field: str
    parent: str
    arguments: Mapping[str, Any]

    def canonical(self) -> bytes:
        return self._canonical

    @cached_property
    def _canonical(self) -> bytes:
        # Made once per binding: a page seals each of its cursors with it.
        return json.dumps(
            [self.field, self.parent, self.arguments],
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        ).encode()


@dataclass(frozen=True)
class CursorCodec:
    """Seals and opens cursors with a key derived from `secret` (any length)."""

    secret: bytes
    _siv: AESSIV = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # HKDF turns a configured secret of any length and strength into the cipher's key.
        key = HKDF(SHA256(), _KEY_BYTES, salt=None, info=_CONTEXT).derive(self.secret)
        object.__setattr__(self, "_siv", AESSIV(key))

    def encode(self, binding: Binding, key: Sequence[str]) -> str:
        """A cursor for the key values `key` (in the index's key-attribute order)."""
        payload = json.dumps(list(key), separators=(",", ":")).encode()
        return _b64(self._siv.encrypt(payload, [binding.canonical()]))

    def decode(self, binding: Binding, cursor: str) -> list[str]:
        try:
            sealed = _unb64(cursor)
        except (ValueError, binascii.Error) as exc:
            raise BadCursor("the cursor is malformed; use a cursor returned by this field") from exc
        try:
            payload = self._siv.decrypt(sealed, [binding.canonical()])
        except InvalidTag as exc:
            raise BadCursor(
                "the cursor is not valid here: it was altered or comes from another field,"
                " argument set or parent"
            ) from exc
        key = json.loads(payload)
        if not isinstance(key, list) or not all(isinstance(v, str) for v in key):
            raise BadCursor("the cursor is malformed; use a cursor returned by this field")
        return key


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text or len(text) > _MAX_CHARS:
        raise ValueError("empty or oversized")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    # The decoder ignores the spare bits of the last character and skips characters outside
    # the alphabet, so several texts decode alike: accept only the one `_b64` produces.
    if _b64(raw) != text:
        raise ValueError("not the canonical encoding")
    return raw
