"""AWS Signature Version 4 for JSON-protocol POSTs to the path `/`, as botocore signs them.

botocore's signer (`botocore.auth.SigV4Auth`) is general: it copies the request, parses
its URL, normalises every header and derives the signing key with four HMACs on every
call. A DynamoDB call is always a POST of a JSON body to `/` with the same few headers, so
here the canonical request is written directly and the signing key is kept per day,
region, service and secret. `tests/store/test_sigv4.py` checks every header against
botocore's signer, byte for byte.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from datetime import datetime
from typing import NamedTuple
from urllib.parse import urlsplit

ALGORITHM = "AWS4-HMAC-SHA256"
# Headers botocore never signs (`botocore.auth.SIGNED_HEADERS_BLACKLIST`).
UNSIGNED = frozenset({"expect", "transfer-encoding", "user-agent", "x-amzn-trace-id"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


class Credentials(NamedTuple):
    """As botocore's frozen credentials (`ReadOnlyCredentials`), which are taken as such."""

    access_key: str
    secret_key: str
    token: str | None = None


def canonical_host(url: str) -> str:
    """The `host` header botocore signs: the URL's host, its port only if not the default."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme):
        return f"{host}:{port}"
    return host


class Signer:
    """Signs POSTs to `/` of one host, region and service."""

    def __init__(self, host: str, region: str, service: str) -> None:
        self._host = host
        self._region = region
        self._service = service
        # (secret, day) -> signing key; the day changes once a day, the secret rarely.
        self._keys: dict[tuple[str, str], bytes] = {}

    def headers(
        self,
        fixed: Mapping[str, str],
        body: bytes,
        credentials: Credentials,
        now: datetime,
    ) -> dict[str, str]:
        """`fixed` (the operation's own headers, such as X-Amz-Target and Content-Type) with
        X-Amz-Date, the session token if any, and Authorization, for `body` sent at `now`
        (UTC)."""
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        day = stamp[:8]
        headers = dict(fixed)
        headers["X-Amz-Date"] = stamp
        if credentials.token:
            headers["X-Amz-Security-Token"] = credentials.token
        signed = {
            name.lower(): " ".join(value.split())
            for name, value in headers.items()
            if name.lower() not in UNSIGNED
        }
        signed["host"] = self._host
        names = sorted(signed)
        signed_names = ";".join(names)
        canonical = "\n".join(
            (
                "POST",
                "/",
                "",
                "".join(f"{name}:{signed[name]}\n" for name in names),
                signed_names,
                hashlib.sha256(body).hexdigest(),
            )
        )
        scope = f"{day}/{self._region}/{self._service}/aws4_request"
        to_sign = "\n".join(
            (ALGORITHM, stamp, scope, hashlib.sha256(canonical.encode()).hexdigest())
        )
        key = self._key(credentials.secret_key, day)
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["Authorization"] = (
            f"{ALGORITHM} Credential={credentials.access_key}/{scope},"
            f" SignedHeaders={signed_names}, Signature={signature}"
        )
        return headers

    def _key(self, secret: str, day: str) -> bytes:
        known = self._keys.get((secret, day))
        if known is not None:
            return known
        key = _hmac(("AWS4" + secret).encode(), day)
        for part in (self._region, self._service, "aws4_request"):
            key = _hmac(key, part)
        if len(self._keys) > 8:  # old days and rotated secrets
            self._keys.clear()
        self._keys[(secret, day)] = key
        return key


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()
