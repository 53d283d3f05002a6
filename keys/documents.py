"""Persisted documents: a GraphQL document kept under the SHA-256 of its text.

    document  PK = DOCUMENTS  SK = DOCUMENT#<sha256 hex>

One collection holds every document, so they can be listed; each is read by its key and
then kept by every process, so the partition sees one read per document and process.
"""

from __future__ import annotations

import hashlib
import re

from errors.vocabulary import BadUserInput
from keys.conditions import KeyCondition
from keys.table import Index

DOCUMENTS = "DOCUMENTS"
LABEL = "DOCUMENT#"
_HEX = re.compile(r"[0-9a-f]{64}")


def digest(text: str) -> str:
    """The SHA-256 of a document's text (UTF-8), in lower-case hex, as clients compute it.
    A lone surrogate (JSON carries one, UTF-8 does not) is hashed as its three bytes: no
    client's hash matches it, and nothing fails on it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def checked_hash(value: object, field: str) -> str:
    """A SHA-256 in hex (upper case read as lower), else BAD_USER_INPUT naming `field`."""
    if not isinstance(value, str) or not _HEX.fullmatch(value.lower()):
        raise BadUserInput("give the SHA-256 of the document as 64 hexadecimal digits", field=field)
    return value.lower()


def document_key(table: Index, sha256: str) -> dict[str, str]:
    """The document's key on `table` (the layout's)."""
    return {table.partition_key: DOCUMENTS, table.sort_key: LABEL + sha256}


def all_documents(table: Index) -> KeyCondition:
    """Every document, in hash order."""
    return KeyCondition.prefix(table, DOCUMENTS, LABEL)
