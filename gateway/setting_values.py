"""What a setting is (a row of `gateway/setting_table.py`), and how its text becomes its
value: each parser raises ValueError for text it cannot read, and `Settings.from_env` words
the error from the setting's row; a default is shown in the words that would set it."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
# An origin as a browser's `Origin` header names it: scheme, host (a name or an IPv6 address
# in brackets) and port.
_ORIGIN = re.compile(r"https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?")
_LOOPBACK_NAMES = {"localhost"}


def flag(value: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ValueError(value)


def whole(low: int, high: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        number = int(value)
        if not low <= number <= high:
            raise ValueError(value)
        return number

    return parse


def positive(high: float) -> Callable[[str], float]:
    def parse(value: str) -> float:
        number = float(value)
        if not 0 < number <= high:  # also refuses NaN
            raise ValueError(value)
        return number

    return parse


def choice(*names: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value.lower() not in names:
            raise ValueError(value)
        return value.lower()

    return parse


class Words(Generic[T]):
    """One of a few words, each standing for a value (`on` for True), in any case; and the
    word of a value, to show a default as people would set it."""

    def __init__(self, **meanings: T) -> None:
        self.meanings = meanings

    def __call__(self, value: str) -> T:
        if value.lower() not in self.meanings:
            raise ValueError(value)
        return self.meanings[value.lower()]

    def word(self, meant: object) -> str:
        return next(word for word, value in self.meanings.items() if value == meant)


class Section(NamedTuple):
    """Settings listed together, and the page of the docs that explains them at length."""

    title: str
    page: str


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable: the `Settings` field it fills (None: it is read elsewhere,
    by uvicorn, the log set-up or `Settings.from_env`'s checks), the field's `default`, the
    words that say what it `accepts`, and what `parse` makes of its text (ValueError when it
    cannot be read). A setting `from_env` works out from the mode when unset has the default
    of a `Settings` made by hand, a development one's."""

    name: str
    section: Section
    field: str | None
    default: T
    accepts: str
    help: str
    parse: Callable[[str], T]
    # What holds when the variable is unset, as people read it: `{}` is the default in words.
    when_unset: str = "{}"
    # How an error shows the value given: a secret never is.
    shown: Callable[[str], str] = repr
    # Read by another program (uvicorn): listed and documented, not parsed here.
    foreign: bool = False

    @property
    def default_text(self) -> str:
        """The default as `--help`, `dynagate check`, the docs and errors say it."""
        return self.when_unset.format(_in_words(self.default, self.parse))


def _in_words(value: object, parse: Callable[[str], object]) -> str:
    """A value as people would set it: 10.0 is 10, True is true, None and () are none."""
    if isinstance(parse, Words):
        return parse.word(value)
    if value is None or value == ():
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def matching(pattern: re.Pattern[str]) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(value)
        return value

    return parse


# What DynamoDB allows a table's name; an AWS region; a token's claim name.
table_name = matching(re.compile(r"[A-Za-z0-9_.-]{3,255}"))
region = matching(re.compile(r"[a-z]{2}(-[a-z]+)+-\d{1,2}"))
claim = matching(re.compile(r"[A-Za-z0-9_:.-]{1,64}"))
# A Python module's dotted name, or the path of a `.py` file (a model: docs/model.md).
module_name = matching(
    re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*|[^\x00]+\.py")
)


def url(*schemes: str) -> Callable[[str], str]:
    """A URL of one of `schemes` that names a host (and, if any, a valid port)."""

    def parse(value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.hostname:
            raise ValueError(value)
        _ = parts.port  # ValueError for a port out of range or not a number
        return value

    return parse


def rate(value: str) -> float | None:
    """Capacity units per caller per minute, or `off`."""
    return None if value.lower() == "off" else positive(1e9)(value)


def origins(value: str) -> tuple[str, ...]:
    """`*`, or origins (scheme, host and port as a browser's `Origin` header names them)."""
    listed = tuple(part.strip().rstrip("/") for part in value.split(","))
    if listed == ("*",):
        return listed
    if not all(_ORIGIN.fullmatch(origin) for origin in listed):
        raise ValueError(value)
    return listed


def on_this_machine(endpoint: str) -> bool:
    """Whether `endpoint`'s host is `localhost` or a loopback address."""
    host = (urlsplit(endpoint).hostname or "").rstrip(".").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def hidden(value: str) -> str:
    return "(the value given)"


def without_credentials(value: str) -> str:
    """A URL as an error may show it: no user name or password."""
    parts = urlsplit(value)
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return repr(parts._replace(netloc=(parts.hostname or "") + port).geturl())


# OpenTelemetry's own settings that turn tracing on (docs/tracing.md): the exporters the
# gateway can export with, and the one protocol it speaks.
TRACES_EXPORTERS = ("otlp", "console")
_OTLP_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
_PROTOCOLS = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")


def traces_exporter(env: Mapping[str, str]) -> str | None:
    """The exporter `env`'s `OTEL_*` settings ask traces to go to, or None: tracing off.

    `OTEL_TRACES_EXPORTER` names it (`none`: off); unset, an OTLP endpoint alone turns it on;
    `OTEL_SDK_DISABLED=true` turns it off. A value the gateway cannot honour is ValueError,
    with what to set instead.
    """
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    named = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if named == "none":
        return None
    if not named:
        if not any(env.get(name, "").strip() for name in _OTLP_ENDPOINTS):
            return None
        named = "otlp"
    if named not in TRACES_EXPORTERS:
        raise ValueError(f"OTEL_TRACES_EXPORTER={named!r}: the gateway exports to otlp or console")
    for name in _PROTOCOLS:
        protocol = env.get(name, "").strip()
        if named == "otlp" and protocol and protocol != "http/protobuf":
            raise ValueError(f"{name}={protocol!r}: the gateway exports OTLP as http/protobuf")
    return named
