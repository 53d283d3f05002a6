"""What a setting is (a row of `gateway/setting_table.py`), and how its text becomes its
value: each parser raises ValueError for text it cannot read, and `Settings.from_env` words
the error from the setting's row; a default is shown in the words that would set it."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Generic, NamedTuple, TypeVar
from urllib.parse import urlsplit

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
# An origin as a browser's `Origin` header names it: scheme, host (a name or an IPv6 address
# in brackets) and port.
_ORIGIN = re.compile(r"https?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?")
_LOOPBACK_NAMES = {"localhost"}


@dataclass(frozen=True)
class Parser(Generic[T]):
    """How a setting's text becomes its value (`read`: ValueError for text it cannot
    read), and the words that say what it `accepts`, made from the same bounds."""

    accepts: str
    read: Callable[[str], T]
    # The words that stand for values, where a word is given rather than a value.
    meanings: Mapping[str, T] | None = None

    def __call__(self, value: str) -> T:
        return self.read(value)

    def saying(self, accepts: str) -> Parser[T]:
        """The same parser, its text said otherwise (with an example, say)."""
        return replace(self, accepts=accepts)

    def in_words(self, value: object) -> str:
        """A value as people would set it: 10.0 is 10, True is true, None and () are none."""
        if self.meanings is not None:
            return next(word for word, meant in self.meanings.items() if meant == value)
        if value is None or value == ():
            return "none"
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            return f"{value:g}"
        return str(value)


def _flag(value: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ValueError(value)


flag = Parser("true or false", _flag)


def text(accepts: str) -> Parser[str]:
    """Any text, as `accepts` says it."""
    return Parser(accepts, str)


def secret(accepts: str) -> Parser[bytes]:
    """A secret's bytes, as `accepts` says them."""
    return Parser(accepts, str.encode)


def whole(low: int, high: int, of: str = "") -> Parser[int]:
    """A whole number from `low` to `high` (`of`: what it counts)."""

    def parse(value: str) -> int:
        number = int(value)
        if not low <= number <= high:
            raise ValueError(value)
        return number

    counted = f" of {of}" if of else ""
    return Parser(f"a whole number{counted} from {low} to {high}", parse)


def positive(high: float, of: str = "") -> Parser[float]:
    """A number above 0 and at most `high` (`of`: what it counts)."""

    def parse(value: str) -> float:
        number = float(value)
        if not 0 < number <= high:  # also refuses NaN
            raise ValueError(value)
        return number

    counted = f" of {of}" if of else ""
    return Parser(f"a number{counted} above 0 and at most {high:g}", parse)


def choice(*names: str) -> Parser[str]:
    def parse(value: str) -> str:
        if value.lower() not in names:
            raise ValueError(value)
        return value.lower()

    return Parser(" or ".join(names), parse)


def words(**meanings: T) -> Parser[T]:
    """One of a few words, in any case, each standing for a value (`on` for True)."""

    def parse(value: str) -> T:
        if value.lower() not in meanings:
            raise ValueError(value)
        return meanings[value.lower()]

    return Parser(" or ".join(meanings), parse, meanings)


class Section(NamedTuple):
    """Settings listed together, and the page of the docs that explains them at length."""

    title: str
    page: str


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One environment variable: the `Settings` field it fills (None: it is read elsewhere,
    by uvicorn, the log set-up or `Settings.from_env`'s checks), the field's `default`, and
    what `parse` makes of its text (ValueError when it cannot be read) and says it accepts.
    A setting `from_env` works out from the mode when unset has the default of a `Settings`
    made by hand, a development one's."""

    name: str
    section: Section
    field: str | None
    default: T
    help: str
    parse: Parser[T]
    # What holds when the variable is unset, as people read it: `{}` is the default in words.
    when_unset: str = "{}"
    # How an error shows the value given: a secret never is.
    shown: Callable[[str], str] = repr
    # Read by another program (uvicorn): listed and documented, not parsed here.
    foreign: bool = False

    @property
    def accepts(self) -> str:
        """What its text may be, as `--help`, `dynagate check`, the docs and errors say it."""
        return self.parse.accepts

    @property
    def default_text(self) -> str:
        """The default as `--help`, `dynagate check`, the docs and errors say it."""
        return self.when_unset.format(self.parse.in_words(self.default))


def matching(pattern: re.Pattern[str], accepts: str) -> Parser[str]:
    def parse(value: str) -> str:
        if not pattern.fullmatch(value):
            raise ValueError(value)
        return value

    return Parser(accepts, parse)


# What DynamoDB allows a table's name; an AWS region; a token's claim name.
table_name = matching(
    re.compile(r"[A-Za-z0-9_.-]{3,255}"), "3 to 255 letters, digits, '_', '-' or '.'"
)
region = matching(re.compile(r"[a-z]{2}(-[a-z]+)+-\d{1,2}"), "an AWS region such as eu-west-1")
claim = matching(re.compile(r"[A-Za-z0-9_:.-]{1,64}"), "a claim name")
# A Python module's dotted name, or the path of a `.py` file (a model: docs/model.md).
module_name = matching(
    re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*|[^\x00]+\.py"),
    "a Python module's dotted name, or a .py file's path",
)


def url(*schemes: str) -> Parser[str]:
    """A URL of one of `schemes` that names a host (and, if any, a valid port)."""

    def parse(value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in schemes or not parts.hostname:
            raise ValueError(value)
        _ = parts.port  # ValueError for a port out of range or not a number
        return value

    named = " or ".join(f"{scheme}://" for scheme in schemes)
    # "an http:// URL": a scheme is read out letter by letter, "a redis:// URL" as a word.
    article = "an" if schemes[0][0] in "aeiouh" else "a"
    return Parser(f"{article} {named} URL", parse)


_RATE = positive(1e9)


def _rate(value: str) -> float | None:
    return None if value.lower() == "off" else _RATE(value)


# Capacity units per caller per minute, or `off`.
rate = Parser("a number above 0, or off", _rate)


def _origins(value: str) -> tuple[str, ...]:
    listed = tuple(part.strip().rstrip("/") for part in value.split(","))
    if listed == ("*",):
        return listed
    if not all(_ORIGIN.fullmatch(origin) for origin in listed):
        raise ValueError(value)
    return listed


# `*`, or origins (scheme, host and port as a browser's `Origin` header names them).
origins = Parser(
    "* or comma-separated origins such as https://app.example.com,http://localhost:5173",
    _origins,
)


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
