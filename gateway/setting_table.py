"""Every setting the gateway reads, in one table: its name, what it accepts, its default and
its help. `Settings.from_env` parses with it, `dynagate --help` lists it, and a test holds
`docs/commands.md` to it, so the three never drift apart."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from gateway.setting_values import (
    choice,
    claim,
    flag,
    hidden,
    module_name,
    origins,
    positive,
    rate,
    region,
    table_name,
    url,
    whole,
    without_credentials,
)


@dataclass(frozen=True)
class Setting:
    """One environment variable: what `parse` makes of its text (ValueError when it cannot
    be read), the words that say what it `accepts`, its `default` as shown to people."""

    name: str
    section: str
    accepts: str
    default: str
    help: str
    parse: Callable[[str], object] = str
    # How an error shows the value given: a secret never is.
    shown: Callable[[str], str] = repr
    # Read by another program (uvicorn): listed and documented, not parsed here.
    foreign: bool = False


_TABLE = "Table"
_MODES = "Mode and playground"
_IDENTITY = "Identity"
_DEMAND = "Demand control"
_HTTP = "HTTP, documents and browsers"
_LIVE = "Subscriptions and several processes"
_CACHE = "Read cache"
_LOGS = "Logs and metrics"

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "DYNAGATE_DYNAMODB_ENDPOINT",
        _TABLE,
        "an http:// or https:// URL",
        "AWS's own endpoint",
        "the DynamoDB endpoint, e.g. http://127.0.0.1:8001 for `dynagate dynamodb-local`; "
        "with an endpoint other than AWS's and no AWS credentials, dummy ones are used",
        url("http", "https"),
    ),
    Setting(
        "DYNAGATE_TABLE",
        _TABLE,
        "3 to 255 letters, digits, '_', '-' or '.'",
        "dynagate",
        "the table's name",
        table_name,
    ),
    Setting(
        "DYNAGATE_MODEL",
        _TABLE,
        "a Python module's dotted name, or a .py file's path",
        "demo.model (the demo)",
        "the model served: the module that declares its entities and access patterns "
        "(docs/model.md)",
        module_name,
    ),
    Setting(
        "AWS_REGION",
        _TABLE,
        "an AWS region such as eu-west-1",
        "AWS_DEFAULT_REGION, else us-east-1",
        "the AWS region",
        region,
    ),
    Setting(
        "DYNAGATE_ENV",
        _MODES,
        "development or production",
        "production, unless the endpoint's host is localhost or a loopback address",
        "development allows open mode, turns GraphiQL and introspection on, generates a "
        "cursor secret and sets no rate limit; production refuses open mode unless "
        "DYNAGATE_AUTH=off, needs a cursor secret of 32 bytes or more, turns GraphiQL and "
        "introspection off unless switched on and limits each caller's rate",
        choice("development", "production"),
    ),
    Setting(
        "DYNAGATE_CURSOR_SECRET",
        _MODES,
        "at least 32 bytes in production (e.g. `openssl rand -hex 32`)",
        "generated per process in development; required in production",
        "the key that signs cursors, the same for every process and replica",
        shown=hidden,
    ),
    Setting(
        "DYNAGATE_GRAPHIQL",
        _MODES,
        "true or false",
        "on in development, off in production",
        "the GraphiQL playground at GET /graphql",
        flag,
    ),
    Setting(
        "DYNAGATE_INTROSPECTION",
        _MODES,
        "true or false",
        "on in development, off in production",
        "schema introspection",
        flag,
    ),
    Setting(
        "DYNAGATE_AUTH_SECRET",
        _IDENTITY,
        "at least 32 bytes (e.g. `openssl rand -hex 32`)",
        "none",
        "the HS256 secret whose tokens sign callers in (`dynagate token` makes them)",
        shown=hidden,
    ),
    Setting(
        "DYNAGATE_AUTH_JWKS_URL",
        _IDENTITY,
        "an https:// URL (http:// on this machine)",
        "none",
        "an OpenID Connect provider's key set; needs DYNAGATE_AUTH_ISSUER and "
        "DYNAGATE_AUTH_AUDIENCE",
        url("http", "https"),
    ),
    Setting("DYNAGATE_AUTH_ISSUER", _IDENTITY, "the provider's issuer", "none", "its `iss`"),
    Setting(
        "DYNAGATE_AUTH_AUDIENCE",
        _IDENTITY,
        "the provider's audience",
        "none",
        "its `aud`, or a Cognito access token's `client_id`",
    ),
    Setting(
        "DYNAGATE_AUTH_ADMIN_GROUP",
        _IDENTITY,
        "a group name",
        "admin",
        "the group (`groups` or `cognito:groups`) whose members are admins",
    ),
    Setting(
        "DYNAGATE_AUTH_GROUPS_CLAIM",
        _IDENTITY,
        "a claim name such as roles or custom:groups",
        "none",
        "a claim holding the caller's groups (a name or a list of names), read beside"
        " `groups` and `cognito:groups`: the groups that entity and field readers name",
        claim,
    ),
    Setting(
        "DYNAGATE_AUTH_USERNAME_CLAIM",
        _IDENTITY,
        "a claim name such as sub, username or cognito:username",
        "sub",
        "the claim whose value, 1 to 64 letters, digits, '.', '_' or '-', is the caller's "
        "username (Cognito: username in access tokens, cognito:username in ID tokens)",
        claim,
    ),
    Setting(
        "DYNAGATE_AUTH",
        _IDENTITY,
        "off",
        "unset",
        "off: open mode (every request may do everything) even in production",
        choice("off"),
    ),
    Setting(
        "DYNAGATE_MAX_REQUESTS",
        _DEMAND,
        "a whole number from 1 to 1000000000",
        "50",
        "the most DynamoDB calls an operation's bound may reach",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_ITEMS",
        _DEMAND,
        "a whole number from 1 to 1000000000",
        "150000",
        "the most items an operation may read",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_FIELDS",
        _DEMAND,
        "a whole number from 1 to 1000000000",
        "20000",
        "the most fields a response may hold",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_RATE_LIMIT",
        _DEMAND,
        "a number above 0, or off",
        "off in development, 6000 in production",
        "DynamoDB capacity units (read and write) each caller may consume a minute",
        rate,
    ),
    Setting(
        "DYNAGATE_REQUEST_TIMEOUT",
        _DEMAND,
        "a number of seconds above 0 and at most 3600",
        "10",
        "seconds within which every request is answered; what is not done is UNAVAILABLE",
        positive(3_600),
    ),
    Setting(
        "DYNAGATE_COST_REPORT",
        _HTTP,
        "true or false",
        "true",
        "extensions.cost in every response",
        flag,
    ),
    Setting(
        "DYNAGATE_DOCUMENTS",
        _HTTP,
        "open or trusted",
        "open",
        "trusted: only registered documents run, for every caller but admins",
        choice("open", "trusted"),
    ),
    Setting(
        "DYNAGATE_MAX_DOCUMENT_BYTES",
        _HTTP,
        "a whole number from 1 to 1048576",
        "65536",
        "the largest document (comments included) that runs or is registered",
        whole(1, 1024 * 1024),
    ),
    Setting(
        "DYNAGATE_MAX_BATCH",
        _HTTP,
        "a whole number from 0 to 100",
        "0",
        "the most requests one POST may batch in an array (0: no batches)",
        whole(0, 100),
    ),
    Setting(
        "DYNAGATE_CORS_ORIGINS",
        _HTTP,
        "* or comma-separated origins such as https://app.example.com,http://localhost:5173",
        "none (same origin only)",
        "the browser origins allowed to call the API from their pages",
        origins,
    ),
    Setting(
        "FORWARDED_ALLOW_IPS",
        _HTTP,
        "addresses, or *",
        "127.0.0.1,::1",
        "read by uvicorn: the proxies whose X-Forwarded-For names the client (list the "
        "load balancer: anonymous callers are rate-limited by address)",
        foreign=True,
    ),
    Setting(
        "DYNAGATE_MAX_SUBSCRIPTIONS",
        _LIVE,
        "a whole number from 1 to 1000000000",
        "25",
        "subscriptions at once per socket",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_CONNECTIONS",
        _LIVE,
        "a whole number from 1 to 1000000000",
        "20",
        "sockets at once per caller",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_SUBSCRIPTION_BUFFER",
        _LIVE,
        "a whole number from 1 to 100000",
        "100",
        "events one subscription may leave unsent before it ends",
        whole(1, 100_000),
    ),
    Setting(
        "DYNAGATE_REDIS_URL",
        _LIVE,
        "redis://host:6379/0 or rediss://… (TLS)",
        "none (each process on its own)",
        "the Redis or Valkey that processes and replicas share rate limits and the table's "
        "stream through",
        url("redis", "rediss"),
        shown=without_credentials,
    ),
    Setting(
        "DYNAGATE_CACHE",
        _CACHE,
        "on or off",
        "off (`make run`: on)",
        "answer key-condition reads again from memory until the table's stream, this "
        "gateway or a replica changes what they read",
        choice("on", "off"),
    ),
    Setting(
        "DYNAGATE_CACHE_BYTES",
        _CACHE,
        "a whole number of bytes from 1048576 (1 MiB) to 68719476736 (64 GiB)",
        "67108864 (64 MiB)",
        "the most memory the read cache holds, per process",
        whole(1 << 20, 64 << 30),
    ),
    Setting(
        "DYNAGATE_METRICS",
        _LOGS,
        "true or false",
        "true",
        "GET /metrics (Prometheus)",
        flag,
    ),
    Setting(
        "DYNAGATE_LOG_FORMAT",
        _LOGS,
        "text or json",
        "text",
        "log lines as text, or as one JSON object a line",
        choice("text", "json"),
    ),
)

BY_NAME = {setting.name: setting for setting in SETTINGS}


def environment_help(width: int = 30, columns: int = 100) -> str:
    """The settings for `dynagate --help`, by section, each with its default."""
    lines = ["environment (each with its default):"]
    section = None
    indent = " " * (4 + width + 1)
    for setting in SETTINGS:
        if setting.section != section:
            section = setting.section
            lines.append(f"  {section}:")
        text = f"{setting.help} (default: {setting.default})"
        first = f"    {setting.name:<{width}} "
        lines.extend(textwrap.wrap(text, columns, initial_indent=first, subsequent_indent=indent))
    return "\n".join(lines) + "\n"


# Where each section's settings are explained at length.
_PAGES = {
    _TABLE: "[containers](containers.md)",
    _MODES: "[identity](identity.md#production-unless-said-otherwise)",
    _IDENTITY: "[identity](identity.md)",
    _DEMAND: "[demand control](demand-control.md)",
    _HTTP: "[HTTP](http.md)",
    _LIVE: "[subscriptions](subscriptions.md)",
    _CACHE: "[the read cache](cache.md)",
    _LOGS: "[HTTP](http.md#logs)",
}


def settings_markdown() -> str:
    """The settings tables of `docs/commands.md`, a table a section."""
    parts: list[str] = []
    for section, page in _PAGES.items():
        parts += [f"### {section}", "", f"More in {page}.", ""]
        parts += ["| variable | accepts | default | meaning |", "| --- | --- | --- | --- |"]
        parts += [
            f"| `{setting.name}` | {setting.accepts} | {setting.default} | {setting.help} |"
            for setting in SETTINGS
            if setting.section == section
        ]
        parts.append("")
    return "\n".join(parts)
