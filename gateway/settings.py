"""Settings read from an injectable mapping (the process environment by default), through
the one table of `gateway/setting_table.py`, which declares each setting once: the field it
fills, its default and how it is read."""

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
from gateway.setting_table import PRODUCTION_RATE_LIMIT, SETTINGS, default_of
from gateway.setting_values import on_this_machine, traces_exporter
from store.client import DynamoDBClient
from store.transport.connection import open_client

logger = logging.getLogger("dynagate")

# HS256 keys shorter than the hash (RFC 7518 section 3.2) are refused; cursor secrets too,
# in production.
MIN_SECRET_BYTES = 32


class SettingsError(ValueError):
    """A setting has a value the gateway cannot run with."""


# The model served unless DYNAGATE_MODEL names another: the demo's, reached by its name.
DEFAULT_MODEL: str = default_of("model")


@dataclass(frozen=True)
class Settings:
    """What the gateway runs with. A field a setting fills has the table's default; made by
    hand, without `from_env`, settings are a development machine's (open mode, GraphiQL and
    introspection on, no rate limit)."""

    table: str = default_of("table")
    # The model served (docs/model.md): its module's dotted name.
    model: str = default_of("model")
    endpoint: str | None = default_of("endpoint")
    region: str = default_of("region")
    cursor_secret: bytes = default_of("cursor_secret")
    # `DYNAGATE_ENV` (docs/identity.md#production-unless-said-otherwise).
    development: bool = default_of("development")
    graphiql: bool = default_of("graphiql")
    cost_report: bool = default_of("cost_report")
    # `DYNAGATE_PLANS` (docs/performance.md#plans): on, off or checked.
    plans: str = default_of("plans")
    # Not a setting: the largest request body, whatever the document limit.
    max_body_bytes: int = 1024 * 1024
    # Demand control (docs/demand-control.md): the bound an operation may reach before it
    # runs, capacity units per caller per minute (None: no rate limit), seconds per request.
    max_requests: int = default_of("max_requests")
    max_items: int = default_of("max_items")
    max_fields: int = default_of("max_fields")
    rate_limit: float | None = default_of("rate_limit")
    request_timeout: float = default_of("request_timeout")
    # Identity (docs/identity.md): HS256 tokens signed with `auth_secret`, and/or RS256 and
    # ES256 tokens of the provider whose keys `auth_jwks_url` serves. Neither: open mode.
    auth_secret: bytes | None = default_of("auth_secret")
    auth_jwks_url: str | None = default_of("auth_jwks_url")
    auth_issuer: str | None = default_of("auth_issuer")
    auth_audience: str | None = default_of("auth_audience")
    auth_admin_group: str = default_of("auth_admin_group")
    # A claim holding groups, read beside `groups` and `cognito:groups`.
    auth_groups_claim: str | None = default_of("auth_groups_claim")
    # The claim whose value is the caller's username (Cognito: `username`).
    auth_username_claim: str = default_of("auth_username_claim")
    introspection: bool = default_of("introspection")
    # `GET /metrics` (docs/http.md#metrics).
    metrics: bool = default_of("metrics")
    # Subscriptions (docs/subscriptions.md): at once per connection, sockets at once per
    # caller, and the events one subscriber may leave unread.
    max_subscriptions: int = default_of("max_subscriptions")
    max_connections: int = default_of("max_connections")
    subscription_buffer: int = default_of("subscription_buffer")
    # docs/http.md: only registered documents run, but for admins; the largest document;
    # requests one POST may batch (0: none); the browser origins allowed (`*`: any).
    trusted_documents: bool = default_of("trusted_documents")
    max_document_bytes: int = default_of("max_document_bytes")
    max_batch: int = default_of("max_batch")
    cors_origins: tuple[str, ...] = default_of("cors_origins")
    # Several processes (docs/containers.md): the Redis (or Valkey) they share state in.
    redis_url: str | None = default_of("redis_url")
    # The read cache (docs/cache.md): on or off, and the most bytes it holds per process.
    cache: bool = default_of("cache")
    cache_bytes: int = default_of("cache_bytes")
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
        # Each setting given fills its field; a field not given keeps its default (the
        # table's), but for those the mode decides, worked out below.
        values = {s.field: given[s.name] for s in SETTINGS if s.field and s.name in given}
        development = values.get("development")
        if development is None:
            endpoint = values.get("endpoint")
            development = endpoint is not None and on_this_machine(endpoint)
        values["development"] = development
        values.setdefault("graphiql", development)
        values.setdefault("introspection", development)
        if not development:
            values.setdefault("rate_limit", PRODUCTION_RATE_LIMIT)
        # Where AWS_REGION is unset, the region the AWS CLI and SDKs read.
        if source.get("AWS_DEFAULT_REGION"):
            values.setdefault("region", source["AWS_DEFAULT_REGION"])
        values["cursor_secret"] = _cursor_secret(
            values.get("cursor_secret"), development=development, serving=serving
        )
        values["traces"] = _traces(source, serving=serving)
        _check_identity(
            values, given.get("DYNAGATE_AUTH") == "off", development=development, serving=serving
        )
        return cls(**values)


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
                f"(default: {setting.default_text})"
            )
        try:
            given[setting.name] = setting.parse(value)
        except ValueError:
            shown = setting.shown(raw)
            raise SettingsError(f"{setting.name}={shown}: use {setting.accepts}") from None
    return given


def _cursor_secret(secret: bytes | None, *, development: bool, serving: bool) -> bytes:
    """The cursor secret: given, or generated in development and for admin commands."""
    if secret is not None:
        if not development and serving and len(secret) < MIN_SECRET_BYTES:
            raise SettingsError(
                f"DYNAGATE_CURSOR_SECRET is {len(secret)} bytes: use at least "
                f"{MIN_SECRET_BYTES} random bytes in production (for instance `openssl rand "
                "-hex 32`), or DYNAGATE_ENV=development"
            )
        return secret
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


def _check_identity(
    values: Mapping[str, Any], switched_off: bool, *, development: bool, serving: bool
) -> None:
    """Open mode only in development or when `DYNAGATE_AUTH=off` (`switched_off`) says so
    (admin commands serve no one, so they are not asked); and identity settings that hold
    together."""
    secret: bytes | None = values.get("auth_secret")
    jwks_url: str | None = values.get("auth_jwks_url")
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
    if secret is not None and len(secret) < MIN_SECRET_BYTES:
        raise SettingsError(
            f"DYNAGATE_AUTH_SECRET is {len(secret)} bytes: use at least "
            f"{MIN_SECRET_BYTES} random bytes (for instance `openssl rand -hex 32`)"
        )
    if jwks_url is not None:
        parts = urlsplit(jwks_url)
        # Keys fetched in the clear could be swapped on the way: https, except on this host.
        loopback = parts.scheme == "http" and parts.hostname in _LOOPBACK
        if parts.scheme != "https" and not loopback:
            raise SettingsError(f"DYNAGATE_AUTH_JWKS_URL={jwks_url!r}: use an https:// URL")
        if values.get("auth_issuer") is None or values.get("auth_audience") is None:
            raise SettingsError(
                "DYNAGATE_AUTH_JWKS_URL needs DYNAGATE_AUTH_ISSUER and DYNAGATE_AUTH_AUDIENCE: "
                "tokens of the provider are checked against both"
            )
