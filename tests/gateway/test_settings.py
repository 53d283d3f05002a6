"""Settings from an injected environment mapping (never the real process environment)."""

from __future__ import annotations

import logging

import pytest

from gateway.setting_table import SETTINGS
from gateway.setting_values import Setting
from gateway.settings import Settings, SettingsError

LOCAL = {"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:8000"}
AUTH_SECRET = "a-secret-of-at-least-32-bytes-xyz"
CURSOR_SECRET = "a-cursor-secret-of-32-bytes-or-more"
AWS = {"DYNAGATE_CURSOR_SECRET": CURSOR_SECRET, "DYNAGATE_AUTH_SECRET": AUTH_SECRET}


def test_defaults_with_a_secret_and_no_endpoint() -> None:
    settings = Settings.from_env(AWS)
    assert settings == Settings(
        table="dynagate",
        endpoint=None,
        region="us-east-1",
        cursor_secret=CURSOR_SECRET.encode(),
        development=False,
        graphiql=False,
        introspection=False,
        cost_report=True,
        max_body_bytes=1024 * 1024,
        rate_limit=6_000.0,
        auth_secret=AUTH_SECRET.encode(),
    )
    assert not settings.custom_endpoint


def test_table_region_and_endpoint_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            **LOCAL,
            "DYNAGATE_TABLE": "shop",
            "AWS_REGION": "eu-west-1",
            "DYNAGATE_CURSOR_SECRET": "k",
        }
    )
    assert settings.table == "shop"
    assert settings.region == "eu-west-1"
    assert settings.endpoint == "http://127.0.0.1:8000"
    assert settings.custom_endpoint
    assert settings.development
    assert settings.cursor_secret == b"k"


def test_region_falls_back_to_aws_default_region() -> None:
    assert Settings.from_env({**AWS, "AWS_DEFAULT_REGION": "ap-south-1"}).region == "ap-south-1"
    both = {**AWS, "AWS_DEFAULT_REGION": "ap-south-1", "AWS_REGION": "eu-north-1"}
    assert Settings.from_env(both).region == "eu-north-1"


@pytest.mark.parametrize("setting", [s for s in SETTINGS if not s.foreign])
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_value_is_an_error_not_the_default(setting: Setting, value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**AWS, setting.name: value})
    message = str(raised.value)
    assert message.startswith(f"{setting.name} is set but empty: use {setting.accepts}")
    assert "\n" not in message


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"DYNAGATE_DYNAMODB_ENDPOINT": "http://dynamodb:8000"},
        {"DYNAGATE_DYNAMODB_ENDPOINT": "http://127.0.0.1:8000", "DYNAGATE_ENV": "production"},
    ],
)
def test_the_cursor_secret_is_required_in_production(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="DYNAGATE_CURSOR_SECRET is required in production"):
        Settings.from_env({"DYNAGATE_AUTH_SECRET": AUTH_SECRET, **env})


def test_a_short_cursor_secret_is_refused_in_production_without_echoing_it() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**AWS, "DYNAGATE_CURSOR_SECRET": "abc"})
    assert "DYNAGATE_CURSOR_SECRET is 3 bytes: use at least 32" in str(raised.value)
    assert "'abc'" not in str(raised.value)
    # In development a short one is the developer's business.
    local = Settings.from_env({**LOCAL, "DYNAGATE_CURSOR_SECRET": "abc"})
    assert local.cursor_secret == b"abc"


@pytest.mark.parametrize(
    ("endpoint", "development"),
    [
        ("http://127.0.0.1:8001", True),
        ("http://127.0.0.2:8001", True),
        ("http://localhost:8001", True),
        ("http://LOCALHOST.:8001", True),
        ("http://[::1]:8001", True),
        # Anything else is production, however local it looks: a proxy, a VPC endpoint,
        # a container's service name, a private address.
        ("http://dynamodb:8000", False),
        ("http://dynamodb-local.internal:8000", False),
        ("http://10.0.0.5:8000", False),
        ("http://localhost.example.com:8000", False),
        ("https://dynamodb.eu-west-1.amazonaws.com", False),
        ("https://vpce-1a2b.dynamodb.us-east-1.vpce.amazonaws.com", False),
    ],
)
def test_development_only_on_this_machine_unless_said(endpoint: str, development: bool) -> None:
    settings = Settings.from_env({**AWS, "DYNAGATE_DYNAMODB_ENDPOINT": endpoint})
    assert settings.development is development
    assert (settings.graphiql, settings.introspection) == (development, development)
    assert settings.rate_limit == (None if development else 6_000.0)


def test_dynagate_env_says_which_whatever_the_endpoint() -> None:
    service = {"DYNAGATE_DYNAMODB_ENDPOINT": "http://dynamodb:8000"}
    development = Settings.from_env({**service, "DYNAGATE_ENV": "development"})
    assert development.development and development.open_mode and development.graphiql
    assert development.rate_limit is None
    laptop = {**LOCAL, "DYNAGATE_ENV": "Production"}
    with pytest.raises(SettingsError, match="no identity is configured in production"):
        Settings.from_env({**laptop, "DYNAGATE_CURSOR_SECRET": CURSOR_SECRET})
    production = Settings.from_env({**laptop, **AWS})
    assert not production.development and not production.graphiql
    with pytest.raises(SettingsError, match="DYNAGATE_ENV='staging': use development or"):
        Settings.from_env({**AWS, "DYNAGATE_ENV": "staging"})


@pytest.mark.parametrize(
    ("name", "value", "accepts"),
    [
        ("DYNAGATE_DYNAMODB_ENDPOINT", "notaurl", "an http:// or https:// URL"),
        ("DYNAGATE_DYNAMODB_ENDPOINT", "http://:8000", "an http:// or https:// URL"),
        ("DYNAGATE_DYNAMODB_ENDPOINT", "http://127.0.0.1:99999", "an http:// or https:// URL"),
        ("AWS_REGION", "Mars", "an AWS region"),
        ("DYNAGATE_CORS_ORIGINS", "example.com", "* or comma-separated origins"),
        ("DYNAGATE_CORS_ORIGINS", "https://a.example,*", "* or comma-separated origins"),
        ("DYNAGATE_MAX_BATCH", "-1", "a whole number from 0 to 100"),
        ("DYNAGATE_MAX_BATCH", "101", "a whole number from 0 to 100"),
        ("DYNAGATE_MAX_DOCUMENT_BYTES", "0", "a whole number from 1 to 1048576"),
        ("DYNAGATE_AUTH_USERNAME_CLAIM", "a b", "a claim name"),
        ("DYNAGATE_LOG_FORMAT", "xml", "text or json"),
        ("DYNAGATE_REDIS_URL", "http://redis:6379", "redis://host:6379/0"),
    ],
)
def test_each_bad_value_is_one_line_naming_the_setting(name: str, value: str, accepts: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**AWS, name: value})
    message = str(raised.value)
    assert message.startswith(f"{name}=")
    assert accepts in message
    assert "\n" not in message


def test_secrets_are_never_echoed_in_errors() -> None:
    url = "http://user:hunter2@redis:6379"
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**AWS, "DYNAGATE_REDIS_URL": url})
    assert "hunter2" not in str(raised.value)


def test_browsers_batches_and_documents_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            **AWS,
            "DYNAGATE_CORS_ORIGINS": "https://app.example.com, http://localhost:5173/",
            "DYNAGATE_MAX_BATCH": "10",
            "DYNAGATE_MAX_DOCUMENT_BYTES": "4096",
            "DYNAGATE_AUTH_USERNAME_CLAIM": "username",
        }
    )
    assert settings.cors_origins == ("https://app.example.com", "http://localhost:5173")
    assert (settings.max_batch, settings.max_document_bytes) == (10, 4096)
    assert settings.auth_username_claim == "username"
    assert Settings.from_env({**AWS, "DYNAGATE_CORS_ORIGINS": "*"}).cors_origins == ("*",)
    defaults = Settings.from_env(AWS)
    assert (defaults.cors_origins, defaults.max_batch, defaults.max_document_bytes) == (
        (),
        0,
        65_536,
    )


def test_a_local_endpoint_generates_a_secret_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        first = Settings.from_env(LOCAL)
        second = Settings.from_env(LOCAL)
    assert len(first.cursor_secret) >= 32
    assert first.cursor_secret != second.cursor_secret
    warnings = [r for r in caplog.records if "DYNAGATE_CURSOR_SECRET" in r.getMessage()]
    assert len(warnings) == 2
    # The warning names the problem, never the generated value.
    assert first.cursor_secret.decode() not in caplog.text


def test_a_given_secret_is_used_locally_without_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        settings = Settings.from_env({**LOCAL, "DYNAGATE_CURSOR_SECRET": "given"})
    assert settings.cursor_secret == b"given"
    assert "DYNAGATE_CURSOR_SECRET" not in caplog.text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", True),
        ("true", True),
        ("True", True),
        ("YES", True),
        ("on", True),
        ("0", False),
        ("false", False),
        ("FALSE", False),
        ("no", False),
        ("Off", False),
    ],
)
@pytest.mark.parametrize("name", ["DYNAGATE_GRAPHIQL", "DYNAGATE_COST_REPORT", "DYNAGATE_METRICS"])
def test_boolean_flags(name: str, value: str, expected: bool) -> None:
    settings = Settings.from_env({**LOCAL, name: value})
    flags = {
        "DYNAGATE_GRAPHIQL": settings.graphiql,
        "DYNAGATE_COST_REPORT": settings.cost_report,
        "DYNAGATE_METRICS": settings.metrics,
    }
    assert flags[name] is expected
    # The other flag keeps its default.
    assert all(flag is True for other, flag in flags.items() if other != name)


@pytest.mark.parametrize("value", ["maybe", "2", "tru", "true!", "enabled"])
@pytest.mark.parametrize("name", ["DYNAGATE_GRAPHIQL", "DYNAGATE_COST_REPORT", "DYNAGATE_METRICS"])
def test_a_bad_flag_is_refused_and_named(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**AWS, name: value})
    assert name in str(raised.value)
    assert repr(value) in str(raised.value)


def test_settings_are_read_when_asked_not_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DYNAGATE_CURSOR_SECRET", CURSOR_SECRET)
    monkeypatch.setenv("DYNAGATE_TABLE", "process-table")
    monkeypatch.setenv("DYNAGATE_AUTH", "off")
    monkeypatch.delenv("DYNAGATE_AUTH_SECRET", raising=False)
    monkeypatch.delenv("DYNAGATE_AUTH_JWKS_URL", raising=False)
    monkeypatch.delenv("DYNAGATE_DYNAMODB_ENDPOINT", raising=False)
    settings = Settings.from_env()
    assert settings.table == "process-table"
    assert settings.cursor_secret == CURSOR_SECRET.encode()


@pytest.mark.parametrize("name", ["ab", "bad name", "a/b", "x" * 256])
def test_table_names_dynamodb_would_refuse_are_refused(name: str) -> None:
    with pytest.raises(SettingsError, match="DYNAGATE_TABLE"):
        Settings.from_env({**AWS, "DYNAGATE_TABLE": name})


# ---- demand control ----------------------------------------------------------------------


def test_demand_control_defaults() -> None:
    local = Settings.from_env(LOCAL)
    assert (local.max_requests, local.max_items, local.max_fields) == (50, 150_000, 20_000)
    assert local.request_timeout == 10.0
    # No rate limit against DynamoDB Local unless asked; 6,000 units a minute against AWS.
    assert local.rate_limit is None
    assert Settings.from_env(AWS).rate_limit == 6_000.0


def test_demand_control_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            **LOCAL,
            "DYNAGATE_MAX_REQUESTS": "7",
            "DYNAGATE_MAX_ITEMS": "900",
            "DYNAGATE_MAX_FIELDS": "300",
            "DYNAGATE_RATE_LIMIT": "120.5",
            "DYNAGATE_REQUEST_TIMEOUT": "2.5",
        }
    )
    assert (settings.max_requests, settings.max_items, settings.max_fields) == (7, 900, 300)
    assert settings.rate_limit == 120.5
    assert settings.request_timeout == 2.5
    assert Settings.from_env({**AWS, "DYNAGATE_RATE_LIMIT": "off"}).rate_limit is None


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DYNAGATE_MAX_REQUESTS", "0"),
        ("DYNAGATE_MAX_REQUESTS", "2.5"),
        ("DYNAGATE_MAX_ITEMS", "-1"),
        ("DYNAGATE_MAX_FIELDS", "many"),
        ("DYNAGATE_RATE_LIMIT", "nan"),
        ("DYNAGATE_RATE_LIMIT", "0"),
        ("DYNAGATE_REQUEST_TIMEOUT", "inf"),
        ("DYNAGATE_REQUEST_TIMEOUT", "-3"),
    ],
)
def test_bad_demand_control_values_are_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({**LOCAL, name: value})


# ---- identity ------------------------------------------------------------------------------


def test_open_mode_in_production_is_refused_unless_switched_off_explicitly() -> None:
    cursor = {"DYNAGATE_CURSOR_SECRET": CURSOR_SECRET}
    with pytest.raises(SettingsError, match="DYNAGATE_AUTH=off"):
        Settings.from_env(cursor)
    assert Settings.from_env({**cursor, "DYNAGATE_AUTH": "off"}).open_mode
    # Admin commands serve no one: they are not asked.
    assert Settings.from_env(cursor, serving=False).open_mode


def test_open_mode_locally_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="dynagate"):
        settings = Settings.from_env(LOCAL)
    assert settings.open_mode
    assert "open mode" in caplog.text


def test_identity_settings_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            **LOCAL,
            "DYNAGATE_AUTH_SECRET": AUTH_SECRET,
            "DYNAGATE_AUTH_JWKS_URL": "https://id.example.com/.well-known/jwks.json",
            "DYNAGATE_AUTH_ISSUER": "https://id.example.com/",
            "DYNAGATE_AUTH_AUDIENCE": "dynagate",
            "DYNAGATE_AUTH_ADMIN_GROUP": "ops",
        }
    )
    assert not settings.open_mode
    assert settings.auth_secret == AUTH_SECRET.encode()
    assert settings.auth_jwks_url == "https://id.example.com/.well-known/jwks.json"
    assert (settings.auth_issuer, settings.auth_audience) == ("https://id.example.com/", "dynagate")
    assert settings.auth_admin_group == "ops"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"DYNAGATE_AUTH": "on"}, "DYNAGATE_AUTH='on'"),
        ({"DYNAGATE_AUTH": "off", "DYNAGATE_AUTH_SECRET": AUTH_SECRET}, "DYNAGATE_AUTH=off"),
        ({"DYNAGATE_AUTH_SECRET": "short"}, "at least 32"),
        ({"DYNAGATE_AUTH_JWKS_URL": "file:///etc/passwd"}, "https://"),
        ({"DYNAGATE_AUTH_JWKS_URL": "http://id.example.com/jwks"}, "https://"),
        ({"DYNAGATE_AUTH_JWKS_URL": "https://id.example.com/jwks"}, "DYNAGATE_AUTH_ISSUER"),
    ],
)
def test_bad_identity_settings_are_refused_and_named(env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({**LOCAL, **env})
    assert named in str(raised.value)


def test_playground_and_introspection_are_off_against_aws_unless_switched_on() -> None:
    aws = Settings.from_env(AWS)
    assert (aws.graphiql, aws.introspection) == (False, False)
    on = Settings.from_env({**AWS, "DYNAGATE_GRAPHIQL": "true", "DYNAGATE_INTROSPECTION": "1"})
    assert (on.graphiql, on.introspection) == (True, True)
    local = Settings.from_env(LOCAL)
    assert (local.graphiql, local.introspection) == (True, True)


def test_dual_stack_aws_endpoints_are_aws() -> None:
    assert not Settings(endpoint="https://dynamodb.eu-west-1.api.aws").custom_endpoint
