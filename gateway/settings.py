"""Settings read from an injectable mapping (the process environment by default), through
the one table of `gateway/setting_table.py`."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from gateway.demand.control import Limits
from gateway.setting_table import SETTINGS
from gateway.setting_values import on_this_machine, traces_exporter
from store.client import DynamoDBClient
from store.transport.connection import open_client

logger = logging.getLogger("dynagate")

# Capacity units per caller per minute in production when nothing is set.
DEFAULT_RATE_LIMIT = 6_000.0
# HS256 keys shorter than the hash (RFC 7518 section 3.2) are refused; cursor secrets too,
# in production.
MIN_SECRET_BYTES = 32


class SettingsError(ValueError):
    """A setting has a value the gateway cannot run with."""


# The model served unless DYNAGATE_MODEL names another: the demo's, reached by its name.
DEFAULT_MODEL = "demo.model"


@dataclass(frozen=True)
class Settings:
    table: str = "dynagate"
    # The model served (docs/model.md): its module's dotted name.
    model: str = DEFAULT_MODEL
    endpoint: str | None = None
    region: str = "us-east-1"
    cursor_secret: bytes = b""
    # `DYNAGATE_ENV` (docs/identity.md#production-unless-said-otherwise).
    development: bool = True
    graphiql: bool = True
    cost_report: bool = True
    max_body_bytes: int = 1024 * 1024
    # Demand control (docs/demand-control.md): the bound an operation may reach before it
    # runs, capacity units per caller per minute (None: no rate limit), seconds per request.
    max_requests: int = 50
    max_items: int = 150_000
    max_fields: int = 20_000
    rate_limit: float | None = None
    request_timeout: float = 10.0
    # Identity (docs/identity.md): HS256 tokens signed with `auth_secret`, and/or RS256 and
    # ES256 tokens of the provider whose keys `auth_jwks_url` serves. Neither: open mode.
    auth_secret: bytes | None = None
    auth_jwks_url: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_admin_group: str = "admin"
    # A claim holding groups, read beside `groups` and `cognito:groups`.
    auth_groups_claim: str | None = None
    # The claim whose value is the caller's username (Cognito: `username`).
    auth_username_claim: str = "sub"
    introspection: bool = True
    # `GET /metrics` (docs/http.md#metrics).
    metrics: bool = True
    # Subscriptions (docs/subscriptions.md): at once per connection, sockets at once per
    # caller, and the events one subscriber may leave unread.
    max_subscriptions: int = 25
    max_connections: int = 20
    subscription_buffer: int = 100
    # docs/http.md: only registered documents run, but for admins; the largest document;
    # requests one POST may batch (0: none); the browser origins allowed (`*`: any).
    trusted_documents: bool = False
    max_document_bytes: int = 65_536
    max_batch: int = 0
    cors_origins: tuple[str, ...] = ()
    # Several processes (docs/containers.md): the Redis (or Valkey) they share state in.
    redis_url: str | None = None
    # The read cache (docs/cache.md): on or off, and the most bytes it holds per process.
    cache: bool = False
    cache_bytes: int = 64 << 20
    # Traces (docs/tracing.md): the exporter OpenTelemetry's `OTEL_*` settings ask for, or
    # None: no tracing code runs.
    traces: str | None = None

    @property
    def open_mode(self) -> bool:
        """No identity configured: every request may do everything."""
        return self.auth_secret is None and self.auth_jwks_url is None

    @property
    def custom_endpoint(self) -> bool:
        """An endpoint other than AWS's own (DynamoDB Local, a proxy, a container's service
        name): dummy credentials stand in when none are configured."""
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
        return open_client(self.endpoint, self.region, local=self.custom_endpoint)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, serving: bool = True) -> Settings:
        """Settings from `env`; `serving=False` for admin commands, which sign no cursors and
        serve no one. Each bad value is one SettingsError naming the setting."""
        source = os.environ if env is None else env
        given = _parsed(source)
        endpoint: str | None = given.get("DYNAGATE_DYNAMODB_ENDPOINT")
        mode = given.get("DYNAGATE_ENV")
        development = (
            mode == "development"
            if mode is not None
            else (endpoint is not None and on_this_machine(endpoint))
        )
        region = given.get("AWS_REGION") or source.get("AWS_DEFAULT_REGION")
        rate_limit = given.get("DYNAGATE_RATE_LIMIT", "default")
        return cls(
            table=given.get("DYNAGATE_TABLE", "dynagate"),
            model=given.get("DYNAGATE_MODEL", DEFAULT_MODEL),
            endpoint=endpoint,
            region=region or "us-east-1",
            cursor_secret=_cursor_secret(given, development=development, serving=serving),
            development=development,
            graphiql=given.get("DYNAGATE_GRAPHIQL", development),
            introspection=given.get("DYNAGATE_INTROSPECTION", development),
            cost_report=given.get("DYNAGATE_COST_REPORT", True),
            metrics=given.get("DYNAGATE_METRICS", True),
            max_requests=given.get("DYNAGATE_MAX_REQUESTS", 50),
            max_items=given.get("DYNAGATE_MAX_ITEMS", 150_000),
            max_fields=given.get("DYNAGATE_MAX_FIELDS", 20_000),
            rate_limit=(
                (None if development else DEFAULT_RATE_LIMIT)
                if rate_limit == "default"
                else rate_limit
            ),
            request_timeout=given.get("DYNAGATE_REQUEST_TIMEOUT", 10.0),
            max_subscriptions=given.get("DYNAGATE_MAX_SUBSCRIPTIONS", 25),
            max_connections=given.get("DYNAGATE_MAX_CONNECTIONS", 20),
            subscription_buffer=given.get("DYNAGATE_SUBSCRIPTION_BUFFER", 100),
            trusted_documents=given.get("DYNAGATE_DOCUMENTS", "open") == "trusted",
            max_document_bytes=given.get("DYNAGATE_MAX_DOCUMENT_BYTES", 65_536),
            max_batch=given.get("DYNAGATE_MAX_BATCH", 0),
            cors_origins=given.get("DYNAGATE_CORS_ORIGINS", ()),
            redis_url=given.get("DYNAGATE_REDIS_URL"),
            cache=given.get("DYNAGATE_CACHE", "off") == "on",
            cache_bytes=given.get("DYNAGATE_CACHE_BYTES", 64 << 20),
            traces=_traces(source, serving=serving),
            **_identity(given, development=development, serving=serving),
        )


def _traces(env: Mapping[str, str], *, serving: bool) -> str | None:
    """Admin commands trace nothing: OpenTelemetry's settings are the server's business."""
    try:
        return traces_exporter(env)
    except ValueError as exc:
        if not serving:
            return None
        raise SettingsError(f"{exc}; see docs/tracing.md") from None


def _parsed(env: Mapping[str, str]) -> dict[str, Any]:
    """Each setting `env` gives, read by the table's parser: an empty value is an error (a
    variable set by mistake must not quietly mean its default)."""
    given: dict[str, Any] = {}
    for setting in SETTINGS:
        raw = env.get(setting.name)
        if raw is None or setting.foreign:
            continue
        value = raw.strip()
        if not value:
            raise SettingsError(
                f"{setting.name} is set but empty: use {setting.accepts}, or unset it "
                f"(default: {setting.default})"
            )
        try:
            given[setting.name] = setting.parse(value)
        except ValueError:
            shown = setting.shown(raw)
            raise SettingsError(f"{setting.name}={shown}: use {setting.accepts}") from None
    return given


def _cursor_secret(given: Mapping[str, Any], *, development: bool, serving: bool) -> bytes:
    """The cursor secret: given, or generated in development and for admin commands."""
    secret: str | None = given.get("DYNAGATE_CURSOR_SECRET")
    if secret is not None:
        if not development and serving and len(secret.encode()) < MIN_SECRET_BYTES:
            raise SettingsError(
                f"DYNAGATE_CURSOR_SECRET is {len(secret.encode())} bytes: use at least "
                f"{MIN_SECRET_BYTES} random bytes in production (for instance `openssl rand "
                "-hex 32`), or DYNAGATE_ENV=development"
            )
        return secret.encode()
    if serving and not development:
        raise SettingsError(
            "DYNAGATE_CURSOR_SECRET is required in production: set it to at least "
            f"{MIN_SECRET_BYTES} random bytes shared by every instance (`openssl rand -hex "
            "32`); to work locally, start `dynagate dynamodb-local` and set "
            "DYNAGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:8001, or set DYNAGATE_ENV=development"
        )
    if serving:
        logger.warning(
            "DYNAGATE_CURSOR_SECRET is not set; generated one for this process, "
            "so cursors will not survive a restart"
        )
    return secrets.token_hex(32).encode()


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _identity(given: Mapping[str, Any], *, development: bool, serving: bool) -> dict[str, Any]:
    """The identity settings; open mode only in development or when `DYNAGATE_AUTH=off`
    says so (admin commands serve no one, so they are not asked)."""
    switched_off = given.get("DYNAGATE_AUTH") == "off"
    secret: str | None = given.get("DYNAGATE_AUTH_SECRET")
    jwks_url: str | None = given.get("DYNAGATE_AUTH_JWKS_URL")
    issuer = given.get("DYNAGATE_AUTH_ISSUER")
    audience = given.get("DYNAGATE_AUTH_AUDIENCE")
    configured = secret is not None or jwks_url is not None
    if switched_off and configured:
        raise SettingsError(
            "DYNAGATE_AUTH=off with DYNAGATE_AUTH_SECRET or DYNAGATE_AUTH_JWKS_URL set: "
            "unset one or the other"
        )
    if not configured and serving:
        if not development and not switched_off:
            raise SettingsError(
                "no identity is configured in production: set DYNAGATE_AUTH_SECRET or "
                "DYNAGATE_AUTH_JWKS_URL, or DYNAGATE_AUTH=off to let anyone do everything "
                "(to work locally, point DYNAGATE_DYNAMODB_ENDPOINT at `dynagate "
                "dynamodb-local` on this machine, or set DYNAGATE_ENV=development)"
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
        "auth_admin_group": given.get("DYNAGATE_AUTH_ADMIN_GROUP", "admin"),
        "auth_groups_claim": given.get("DYNAGATE_AUTH_GROUPS_CLAIM") or None,
        "auth_username_claim": given.get("DYNAGATE_AUTH_USERNAME_CLAIM", "sub"),
    }
