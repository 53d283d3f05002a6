"""Settings read from an injectable mapping (the process environment by default)."""

from __future__ import annotations

import logging
import math
import os
import re
import secrets
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gateway.demand import Limits
from store.client import DynamoDBClient, open_client

logger = logging.getLogger("dynagate")

_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
# Capacity units per caller per minute when the endpoint is AWS and nothing is set.
DEFAULT_RATE_LIMIT = 6_000.0


class SettingsError(ValueError):
    """A setting has a value the gateway cannot run with."""


@dataclass(frozen=True)
class Settings:
    table: str = "dynagate"
    endpoint: str | None = None
    region: str = "us-east-1"
    cursor_secret: bytes = b""
    graphiql: bool = True
    cost_report: bool = True
    max_body_bytes: int = 1024 * 1024
    # Demand control (API.md section 6): the bound an operation may reach before it runs,
    # capacity units per caller per minute (None: no rate limit), and seconds per request.
    max_requests: int = 50
    max_items: int = 150_000
    max_fields: int = 20_000
    rate_limit: float | None = None
    request_timeout: float = 10.0
    # Identity (API.md section 7): HS256 tokens signed with `auth_secret`, and/or RS256 and
    # ES256 tokens of the provider whose keys `auth_jwks_url` serves. Neither: open mode.
    auth_secret: bytes | None = None
    auth_jwks_url: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_admin_group: str = "admin"
    introspection: bool = True
    # `GET /metrics` (API.md section 8).
    metrics: bool = True
    # Subscriptions (API.md section 9): at once per connection, sockets at once per caller,
    # and the events one subscriber may leave unread.
    max_subscriptions: int = 25
    max_connections: int = 20
    subscription_buffer: int = 100
    # Trusted documents (API.md section 10): only registered documents run, but for admins.
    trusted_documents: bool = False
    # More than one process (API.md section 11): the Redis (or Valkey) they share state in.
    redis_url: str | None = None

    @property
    def open_mode(self) -> bool:
        """No identity configured: every request may do everything."""
        return self.auth_secret is None and self.auth_jwks_url is None

    @property
    def is_local(self) -> bool:
        """An endpoint other than AWS's own, such as DynamoDB Local."""
        if self.endpoint is None:
            return False
        host = urlsplit(self.endpoint).hostname or ""
        return not (
            host == "amazonaws.com"
            or host.endswith((".amazonaws.com", ".amazonaws.com.cn", ".api.aws"))
        )

    @property
    def limits(self) -> Limits:
        return Limits(self.max_requests, self.max_items, self.max_fields)

    def open_client(self) -> AbstractAsyncContextManager[DynamoDBClient]:
        """The DynamoDB client these settings name, for the lifetime of the app or command."""
        return open_client(self.endpoint, self.region, local=self.is_local)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, serving: bool = True) -> Settings:
        """Settings from `env`; `serving=False` for admin commands, which sign no cursors."""
        env = os.environ if env is None else env
        endpoint = env.get("DYNAGATE_DYNAMODB_ENDPOINT") or None
        secret = env.get("DYNAGATE_CURSOR_SECRET", "")
        if not secret and not serving:
            secret = secrets.token_hex(32)
        elif not secret:
            if not cls(endpoint=endpoint).is_local:
                raise SettingsError(
                    "DYNAGATE_CURSOR_SECRET is required when the endpoint is AWS "
                    "(DYNAGATE_DYNAMODB_ENDPOINT is not set): set it to a long random string "
                    "shared by every instance, or, to work locally, start `dynagate "
                    "dynamodb-local` and set DYNAGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:8001"
                )
            secret = secrets.token_hex(32)
            logger.warning(
                "DYNAGATE_CURSOR_SECRET is not set; generated one for this process, "
                "so cursors will not survive a restart"
            )
        table = env.get("DYNAGATE_TABLE") or "dynagate"
        if not _TABLE_NAME.fullmatch(table):
            raise SettingsError(
                f"DYNAGATE_TABLE={table!r}: use 3 to 255 letters, digits, '_', '-' or '.'"
            )
        local = cls(endpoint=endpoint).is_local
        identity = _identity(env, local=local, serving=serving)
        return cls(
            table=table,
            endpoint=endpoint,
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            cursor_secret=secret.encode(),
            # With an AWS endpoint the playground and introspection are off unless asked for.
            graphiql=_flag(env, "DYNAGATE_GRAPHIQL", default=local),
            introspection=_flag(env, "DYNAGATE_INTROSPECTION", default=local),
            cost_report=_flag(env, "DYNAGATE_COST_REPORT", default=True),
            metrics=_flag(env, "DYNAGATE_METRICS", default=True),
            max_requests=int(_number(env, "DYNAGATE_MAX_REQUESTS", 50, whole=True)),
            max_items=int(_number(env, "DYNAGATE_MAX_ITEMS", 150_000, whole=True)),
            max_fields=int(_number(env, "DYNAGATE_MAX_FIELDS", 20_000, whole=True)),
            rate_limit=_rate_limit(env, local=local),
            request_timeout=_number(env, "DYNAGATE_REQUEST_TIMEOUT", 10.0, high=3_600),
            max_subscriptions=int(_number(env, "DYNAGATE_MAX_SUBSCRIPTIONS", 25, whole=True)),
            max_connections=int(_number(env, "DYNAGATE_MAX_CONNECTIONS", 20, whole=True)),
            subscription_buffer=int(
                _number(env, "DYNAGATE_SUBSCRIPTION_BUFFER", 100, whole=True, high=100_000)
            ),
            trusted_documents=_documents(env),
            redis_url=_redis_url(env),
            **identity,
        )


def _redis_url(env: Mapping[str, str]) -> str | None:
    """`DYNAGATE_REDIS_URL`: a redis:// or rediss:// URL, or unset."""
    url = env.get("DYNAGATE_REDIS_URL", "").strip() or None
    if url is not None and urlsplit(url).scheme not in ("redis", "rediss"):
        shown = urlsplit(url)._replace(netloc=urlsplit(url).hostname or "").geturl()
        raise SettingsError(
            f"DYNAGATE_REDIS_URL={shown!r}: use redis://host:6379/0 or rediss://… (TLS)"
        )
    return url


def _documents(env: Mapping[str, str]) -> bool:
    """`DYNAGATE_DOCUMENTS`: whether only trusted documents run."""
    mode = env.get("DYNAGATE_DOCUMENTS", "").strip().lower() or "open"
    if mode not in ("open", "trusted"):
        raise SettingsError(f"DYNAGATE_DOCUMENTS={mode!r}: use trusted, or open (the default)")
    return mode == "trusted"


def _flag(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    value = env.get(name)
    if value is None or value == "":
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise SettingsError(f"{name}={value!r}: use true or false")


def _number(
    env: Mapping[str, str], name: str, default: float, *, whole: bool = False, high: float = 1e9
) -> float:
    """A positive number (a whole one with `whole`) up to `high`, or `default` when unset."""
    value = env.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value) if whole else float(value)
    except ValueError:
        number = math.nan
    if not 0 < number <= high:  # also refuses NaN
        kind = "a whole number" if whole else "a number"
        raise SettingsError(f"{name}={value!r}: use {kind} above 0 and at most {high:g}")
    return number


def _rate_limit(env: Mapping[str, str], *, local: bool) -> float | None:
    """Capacity units per caller per minute: `off`, or unset with a local endpoint, is none."""
    value = env.get("DYNAGATE_RATE_LIMIT", "")
    if value.lower() == "off" or (value == "" and local):
        return None
    return _number(env, "DYNAGATE_RATE_LIMIT", DEFAULT_RATE_LIMIT)


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}
# HS256 keys shorter than the hash (RFC 7518 section 3.2) are refused.
MIN_SECRET_BYTES = 32


def _identity(env: Mapping[str, str], *, local: bool, serving: bool) -> dict[str, Any]:
    """The identity settings; open mode only locally or when `DYNAGATE_AUTH=off` says so
    (admin commands serve no one, so they are not asked)."""
    mode = env.get("DYNAGATE_AUTH", "")
    if mode not in ("", "off"):
        raise SettingsError(f"DYNAGATE_AUTH={mode!r}: use off, or leave it unset")
    secret = env.get("DYNAGATE_AUTH_SECRET") or None
    jwks_url = env.get("DYNAGATE_AUTH_JWKS_URL") or None
    issuer = env.get("DYNAGATE_AUTH_ISSUER") or None
    audience = env.get("DYNAGATE_AUTH_AUDIENCE") or None
    configured = secret is not None or jwks_url is not None
    if mode == "off" and configured:
        raise SettingsError(
            "DYNAGATE_AUTH=off with DYNAGATE_AUTH_SECRET or DYNAGATE_AUTH_JWKS_URL set: "
            "unset one or the other"
        )
    if not configured and serving:
        if not local and mode != "off":
            raise SettingsError(
                "no identity is configured and the endpoint is AWS: set DYNAGATE_AUTH_SECRET "
                "or DYNAGATE_AUTH_JWKS_URL, or DYNAGATE_AUTH=off to let anyone do everything "
                "(to work locally, set DYNAGATE_DYNAMODB_ENDPOINT to `dynagate dynamodb-local`)"
            )
        logger.warning(
            "open mode: no identity is configured, so every request may do everything; "
            "set DYNAGATE_AUTH_SECRET or DYNAGATE_AUTH_JWKS_URL to sign callers in"
        )
    if secret is not None and len(secret.encode()) < MIN_SECRET_BYTES:
        raise SettingsError(
            f"DYNAGATE_AUTH_SECRET is {len(secret.encode())} bytes: use at least "
            f"{MIN_SECRET_BYTES} random bytes (for instance `openssl rand -hex 32`)"
        )
    if jwks_url is not None:
        parts = urlsplit(jwks_url)
        # Keys fetched in the clear could be swapped on the way: https, except on this host.
        loopback = parts.scheme == "http" and parts.hostname in _LOOPBACK
        if parts.scheme != "https" and not loopback:
            raise SettingsError(f"DYNAGATE_AUTH_JWKS_URL={jwks_url!r}: use an https:// URL")
        if issuer is None or audience is None:
            raise SettingsError(
                "DYNAGATE_AUTH_JWKS_URL needs DYNAGATE_AUTH_ISSUER and DYNAGATE_AUTH_AUDIENCE: "
                "tokens of the provider are checked against both"
            )
    return {
        "auth_secret": None if secret is None else secret.encode(),
        "auth_jwks_url": jwks_url,
        "auth_issuer": issuer,
        "auth_audience": audience,
        "auth_admin_group": env.get("DYNAGATE_AUTH_ADMIN_GROUP") or "admin",
    }
