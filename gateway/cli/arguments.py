"""The parts every `dynagate` command's arguments are made of: the help's formatter, the
`--model` option and a model's own options, a command and a command of actions, and the
checks of numbers given."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from gateway.cli import commands

# The commands of `dynagate`, or the actions of one of them.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, save where there is none to show, and keeps the
    epilog's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def model_option() -> argparse.ArgumentParser:
    """`--model`, on every command that touches the table or the schema."""
    option = argparse.ArgumentParser(add_help=False)
    option.add_argument(
        "--model",
        metavar="MODULE",
        help="the model: a module's dotted name or a .py file's path (DYNAGATE_MODEL; "
        "unset, the demo's)",
    )
    return option


def hook_options(model: str | None, name: str) -> Callable[[argparse.ArgumentParser], None]:
    """The model's `name` hook adding its own options, or none: a model that does not load
    is reported when its command runs, not while the arguments are read."""
    if model is None:
        return lambda _: None
    try:
        hook = commands.model_hook(model, name)
    except Exception:
        return lambda _: None
    return hook or (lambda _: None)


def add_actions(
    subcommands: Commands,
    name: str,
    about: str,
    description: str | None = None,
) -> Commands:
    """A command made of actions (`dynagate migrate plan`); alone, it prints its help."""
    command = subcommands.add_parser(
        name, help=about, description=description, formatter_class=Formatter
    )
    command.set_defaults(run=lambda _: commands.usage(command))
    return command.add_subparsers(metavar="ACTION")


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number above 0")
    return value


def positive(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number above 0")
    return value


def add_command(
    parent: Commands,
    name: str,
    run: Callable[[argparse.Namespace], Any],
    about: str,
    *,
    description: str | None = None,
    options: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    """The command `name` of `parent`, which `run` carries out."""
    command = parent.add_parser(
        name,
        help=about,
        description=description,
        formatter_class=Formatter,
        parents=list(options),
    )
    command.set_defaults(run=run)
    return command
