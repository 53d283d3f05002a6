"""A benchmark's arguments: the types of what they take, and its `add_arguments` written as
the list of its options, so that a benchmark's options read as one table of flags,
types, defaults and help rather than one `parser.add_argument` call each."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from gateway.cli.arguments import positive as positive_float
from gateway.cli.arguments import positive_int

__all__ = [
    "Option",
    "arguments",
    "names",
    "not_negative",
    "positive_float",
    "positive_int",
    "switch",
    "turns",
    "whole_number",
]

Number = TypeVar("Number", int, float)


def at_least_zero(read: Callable[[str], Number], name: str) -> Callable[[str], Number]:
    """An argument type, called `name` in argparse's errors: a number `read` reads, 0 or more
    (whole numbers and seconds share one check)."""

    def parse(text: str) -> Number:
        value = read(text)
        if not value >= 0:
            raise argparse.ArgumentTypeError(f"{text} is negative")
        return value

    parse.__name__ = name
    return parse


whole_number = at_least_zero(int, "whole_number")
not_negative = at_least_zero(float, "not_negative")


def names(allowed: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """An argument type: some of `allowed`, comma-separated."""

    def parse(text: str) -> tuple[str, ...]:
        chosen = tuple(n for n in text.split(",") if n)
        if unknown := sorted(set(chosen) - set(allowed)):
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(unknown)}; choose from {', '.join(allowed)}"
            )
        return chosen

    return parse


@dataclass(frozen=True)
class Option:
    """One `--flag` of a benchmark: how its value is read (None: a switch, off unless
    given), its default, and what it is, which its help follows with the default so that
    the two cannot disagree (`shown`: the default as the help says it, where not as read)."""

    flag: str
    type: Callable[[str], Any] | None
    default: Any
    about: str
    shown: str | None = None
    nargs: str | None = None

    @property
    def help(self) -> str:
        if self.type is None or self.default is None:
            return self.about
        return f"{self.about} (default {self.shown or self._said()})"

    def _said(self) -> str:
        if isinstance(self.default, list | tuple):
            return (" " if self.nargs else ",").join(map(str, self.default))
        return f"{self.default:g}" if isinstance(self.default, float) else str(self.default)

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        if self.type is None:
            parser.add_argument(self.flag, action="store_true", help=self.help)
        else:
            parser.add_argument(
                self.flag, type=self.type, default=self.default, help=self.help, nargs=self.nargs
            )


def switch(flag: str, help: str) -> Option:
    """An option given or not: False unless given."""
    return Option(flag, None, False, help)


def turns(rounds: int, seconds: float) -> tuple[Option, Option]:
    """`--rounds` and `--seconds` of the benchmarks that load in turns: how many turns of
    each, and the seconds of load in one."""
    return (
        Option("--rounds", positive_int, rounds, "turns of each"),
        Option("--seconds", positive_float, seconds, "seconds of load a turn"),
    )


def arguments(*options: Option) -> Callable[[argparse.ArgumentParser], None]:
    """A benchmark's `add_arguments` (`Benchmark.add_arguments`): its options, in order."""

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        for option in options:
            option.add_to(parser)

    return add_arguments
