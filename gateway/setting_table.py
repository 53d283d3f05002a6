"""Every setting the gateway reads, declared once, in one table: its name, the `Settings`
field it fills, its default, its help, and its parser, which says what it accepts from the
bounds it checks (`gateway/setting_values.py`). The `Settings` dataclass takes its defaults
from it, `Settings.from_env` parses with it, `dynagate --help` and `dynagate check` list it,
and a test holds `docs/commands.md` to it, so none of them can drift apart."""

from __future__ import annotations

from typing import Any

from gateway.logs import FORMATS
from gateway.setting_values import (
    Section,
    Setting,
    choice,
    claim,
    flag,
    hidden,
    module_name,
    origins,
    positive,
    rate,
    region,
    secret,
    table_name,
    text,
    url,
    whole,
    without_credentials,
    words,
)

# The sections settings are listed in, each with the page that explains them at length.
_TABLE = Section("Table", "[containers](containers.md)")
_MODES = Section("Mode and playground", "[identity](identity.md#production-unless-said-otherwise)")
_IDENTITY = Section("Identity", "[identity](identity.md)")
_DEMAND = Section("Demand control", "[demand control](demand-control.md)")
_HTTP = Section("HTTP, documents and browsers", "[HTTP](http.md)")
_LIVE = Section("Subscriptions and several processes", "[subscriptions](subscriptions.md)")
_CACHE = Section("Read cache", "[the read cache](cache.md)")
_LOGS = Section("Logs and metrics", "[HTTP](http.md#logs)")

# Capacity units per caller per minute in production when DYNAGATE_RATE_LIMIT is unset.
PRODUCTION_RATE_LIMIT = 6_000.0

SETTINGS: tuple[Setting[Any], ...] = (
    Setting(
        "DYNAGATE_DYNAMODB_ENDPOINT",
        _TABLE,
        "endpoint",
        None,
        "the DynamoDB endpoint, e.g. http://127.0.0.1:8001 for `dynagate dynamodb-local`; "
        "with an endpoint other than AWS's and no AWS credentials, dummy ones are used",
        url("http", "https"),
        when_unset="AWS's own endpoint",
    ),
    Setting(
        "DYNAGATE_TABLE",
        _TABLE,
        "table",
        "dynagate",
        "the table's name",
        table_name,
    ),
    Setting(
        "DYNAGATE_MODEL",
        _TABLE,
        "model",
        "demo.model",
        "the model served: the module that declares its entities and access patterns "
        "(docs/model.md)",
        module_name,
        when_unset="{} (the demo)",
    ),
    Setting(
        "AWS_REGION",
        _TABLE,
        "region",
        "us-east-1",
        "the AWS region",
        region,
        when_unset="AWS_DEFAULT_REGION, else {}",
    ),
    Setting(
        "DYNAGATE_ENV",
        _MODES,
        "development",
        True,
        "development allows open mode, turns GraphiQL and introspection on, generates a "
        "cursor secret and sets no rate limit; production refuses open mode unless "
        "DYNAGATE_AUTH=off, needs a cursor secret of 32 bytes or more, turns GraphiQL and "
        "introspection off unless switched on and limits each caller's rate",
        words(development=True, production=False),
        when_unset="production, unless the endpoint's host is localhost or a loopback address",
    ),
    Setting(
        "DYNAGATE_CURSOR_SECRET",
        _MODES,
        "cursor_secret",
        b"",
        "the key that signs cursors, the same for every process and replica",
        secret("at least 32 bytes in production (e.g. `openssl rand -hex 32`)"),
        when_unset="generated per process in development; required in production",
        shown=hidden,
    ),
    Setting(
        "DYNAGATE_GRAPHIQL",
        _MODES,
        "graphiql",
        True,
        "the GraphiQL playground at GET /graphql",
        flag,
        when_unset="on in development, off in production",
    ),
    Setting(
        "DYNAGATE_INTROSPECTION",
        _MODES,
        "introspection",
        True,
        "schema introspection",
        flag,
        when_unset="on in development, off in production",
    ),
    Setting(
        "DYNAGATE_AUTH_SECRET",
        _IDENTITY,
        "auth_secret",
        None,
        "the HS256 secret whose tokens sign callers in (`dynagate token` makes them)",
        secret("at least 32 bytes (e.g. `openssl rand -hex 32`)"),
        shown=hidden,
    ),
    Setting(
        "DYNAGATE_AUTH_JWKS_URL",
        _IDENTITY,
        "auth_jwks_url",
        None,
        "an OpenID Connect provider's key set; needs DYNAGATE_AUTH_ISSUER and "
        "DYNAGATE_AUTH_AUDIENCE",
        url("http", "https").saying("an https:// URL (http:// on this machine)"),
    ),
    Setting(
        "DYNAGATE_AUTH_ISSUER",
        _IDENTITY,
        "auth_issuer",
        None,
        "its `iss`",
        text("the provider's issuer"),
    ),
    Setting(
        "DYNAGATE_AUTH_AUDIENCE",
        _IDENTITY,
        "auth_audience",
        None,
        "its `aud`, or a Cognito access token's `client_id`",
        text("the provider's audience"),
    ),
    Setting(
        "DYNAGATE_AUTH_ADMIN_GROUP",
        _IDENTITY,
        "auth_admin_group",
        "admin",
        "the group (`groups` or `cognito:groups`) whose members are admins",
        text("a group name"),
    ),
    Setting(
        "DYNAGATE_AUTH_GROUPS_CLAIM",
        _IDENTITY,
        "auth_groups_claim",
        None,
        "a claim holding the caller's groups (a name or a list of names), read beside"
        " `groups` and `cognito:groups`: the groups that entity and field readers name",
        claim.saying("a claim name such as roles or custom:groups"),
    ),
    Setting(
        "DYNAGATE_AUTH_USERNAME_CLAIM",
        _IDENTITY,
        "auth_username_claim",
        "sub",
        "the claim whose value, 1 to 64 letters, digits, '.', '_' or '-', is the caller's "
        "username (Cognito: username in access tokens, cognito:username in ID tokens)",
        claim.saying("a claim name such as sub, username or cognito:username"),
    ),
    Setting(
        "DYNAGATE_AUTH",
        _IDENTITY,
        None,
        None,
        "off: open mode (every request may do everything) even in production",
        choice("off"),
        when_unset="unset",
    ),
    Setting(
        "DYNAGATE_MAX_REQUESTS",
        _DEMAND,
        "max_requests",
        50,
        "the most DynamoDB calls an operation's bound may reach",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_ITEMS",
        _DEMAND,
        "max_items",
        150_000,
        "the most items an operation may read",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_FIELDS",
        _DEMAND,
        "max_fields",
        20_000,
        "the most fields a response may hold",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_RATE_LIMIT",
        _DEMAND,
        "rate_limit",
        None,
        "DynamoDB capacity units (read and write) each caller may consume a minute",
        rate,
        when_unset=f"off in development, {PRODUCTION_RATE_LIMIT:g} in production",
    ),
    Setting(
        "DYNAGATE_REQUEST_TIMEOUT",
        _DEMAND,
        "request_timeout",
        10.0,
        "seconds within which every request is answered; what is not done is UNAVAILABLE",
        positive(3_600, of="seconds"),
    ),
    Setting(
        "DYNAGATE_COST_REPORT",
        _HTTP,
        "cost_report",
        True,
        "extensions.cost in every response",
        flag,
    ),
    Setting(
        "DYNAGATE_PLANS",
        _HTTP,
        "plans",
        "on",
        "on: a query document runs from a plan compiled once; off: field by field through"
        " the executor; checked: both, compared (for tests)",
        choice("on", "off", "checked"),
    ),
    Setting(
        "DYNAGATE_DOCUMENTS",
        _HTTP,
        "trusted_documents",
        False,
        "trusted: only registered documents run, for every caller but admins",
        words(open=False, trusted=True),
    ),
    Setting(
        "DYNAGATE_MAX_DOCUMENT_BYTES",
        _HTTP,
        "max_document_bytes",
        65_536,
        "the largest document (comments included) that runs or is registered",
        whole(1, 1024 * 1024),
    ),
    Setting(
        "DYNAGATE_MAX_BATCH",
        _HTTP,
        "max_batch",
        0,
        "the most requests one POST may batch in an array (0: no batches)",
        whole(0, 100),
    ),
    Setting(
        "DYNAGATE_CORS_ORIGINS",
        _HTTP,
        "cors_origins",
        (),
        "the browser origins allowed to call the API from their pages",
        origins,
        when_unset="{} (same origin only)",
    ),
    Setting(
        "FORWARDED_ALLOW_IPS",
        _HTTP,
        None,
        "127.0.0.1,::1",
        "read by uvicorn: the proxies whose X-Forwarded-For names the client (list the "
        "load balancer: anonymous callers are rate-limited by address)",
        text("addresses, or *"),
        foreign=True,
    ),
    Setting(
        "DYNAGATE_MAX_SUBSCRIPTIONS",
        _LIVE,
        "max_subscriptions",
        25,
        "subscriptions at once per socket",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_MAX_CONNECTIONS",
        _LIVE,
        "max_connections",
        20,
        "sockets at once per caller",
        whole(1, 10**9),
    ),
    Setting(
        "DYNAGATE_SUBSCRIPTION_BUFFER",
        _LIVE,
        "subscription_buffer",
        100,
        "events one subscription may leave unsent before it ends",
        whole(1, 100_000),
    ),
    Setting(
        "DYNAGATE_REDIS_URL",
        _LIVE,
        "redis_url",
        None,
        "the Redis or Valkey that processes and replicas share rate limits and the table's "
        "stream through",
        url("redis", "rediss").saying("redis://host:6379/0 or rediss://… (TLS)"),
        when_unset="{} (each process on its own)",
        shown=without_credentials,
    ),
    Setting(
        "DYNAGATE_CACHE",
        _CACHE,
        "cache",
        False,
        "answer key-condition reads again from memory until the table's stream, this "
        "gateway or a replica changes what they read",
        words(on=True, off=False),
        when_unset="{} (`make run`: on)",
    ),
    Setting(
        "DYNAGATE_CACHE_BYTES",
        _CACHE,
        "cache_bytes",
        64 << 20,
        "the most memory the read cache holds, per process",
        whole(1 << 20, 64 << 30, of="bytes"),
        when_unset="{} (64 MiB)",
    ),
    Setting(
        "DYNAGATE_METRICS",
        _LOGS,
        "metrics",
        True,
        "GET /metrics (Prometheus)",
        flag,
    ),
    Setting(
        "DYNAGATE_LOG_FORMAT",
        _LOGS,
        # Read by `gateway/logs.py` before any setting, to log their errors.
        None,
        FORMATS[0],
        "log lines as text, or as one JSON object a line",
        choice(*FORMATS),
    ),
)

BY_NAME = {setting.name: setting for setting in SETTINGS}
_BY_FIELD = {setting.field: setting for setting in SETTINGS if setting.field is not None}


def default_of(field: str) -> Any:
    """The default of the `Settings` field `field`, as the table declares it."""
    return _BY_FIELD[field].default
