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

    @property
    def is_local(self) -> bool:
        """An endpoint other than AWS's own, such as DynamoDB Local."""
        if self.endpoint is None:
            return False
        host = urlsplit(self.endpoint).hostname or ""
        return not (
            host == "amazonaws.com" or host.endswith((".amazonaws.com", ".amazonaws.com.cn"))
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
                    "DYNAGATE_CURSOR_SECRET is required when the endpoint is AWS: "
                    "set it to a long random string shared by every instance"
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
        return cls(
            table=table,
            endpoint=endpoint,
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            cursor_secret=secret.encode(),
            graphiql=_flag(env, "DYNAGATE_GRAPHIQL", default=True),
            cost_report=_flag(env, "DYNAGATE_COST_REPORT", default=True),
            max_requests=int(_number(env, "DYNAGATE_MAX_REQUESTS", 50, whole=True)),
            max_items=int(_number(env, "DYNAGATE_MAX_ITEMS", 150_000, whole=True)),
            max_fields=int(_number(env, "DYNAGATE_MAX_FIELDS", 20_000, whole=True)),
            rate_limit=_rate_limit(env, local=local),
            request_timeout=_number(env, "DYNAGATE_REQUEST_TIMEOUT", 10.0, high=3_600),
        )


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
