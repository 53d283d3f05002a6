"""The `dynagate` command: its arguments (`gateway/cli/parser.py`), its commands
(`gateway/cli/commands.py`), and here what each failure prints and exits with."""

from __future__ import annotations

import argparse
import logging.config
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from errors.vocabulary import Unavailable
from gateway.cli.dynamodb_local import DynamoDBLocalError
from gateway.cli.errors import CommandFailed
from gateway.cli.parser import command_parser
from gateway.logs import logging_config
from gateway.settings import DEFAULT_MODEL, SettingsError
from model import ModelError
from store.errors import NO_CREDENTIALS, UNREACHABLE, DynamoDBFailure, admin_failures

if TYPE_CHECKING:
    pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = command_parser(_model_named(argv))
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):  # no command: a newcomer is better served by the help
        parser.print_help(sys.stderr)
        return 2
    # Plain text, or JSON lines with DYNAGATE_LOG_FORMAT=json, for uvicorn's records too
    # (`gateway/logs.py`).
    logging.config.dictConfig(logging_config())
    if getattr(args, "model", None):  # as DYNAGATE_MODEL, for this process and its workers
        os.environ["DYNAGATE_MODEL"] = args.model
    try:
        with admin_failures():
            result: int = args.run(args)
    except (SettingsError, ModelError) as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    except DynamoDBFailure as exc:
        print(f"dynagate: {_explained(exc, os.environ)}", file=sys.stderr)
        return 1
    # Unavailable: DynamoDB failed midway, after `_reach` found it.
    except (DynamoDBLocalError, TimeoutError, CommandFailed, Unavailable) as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


def _model_named(argv: Sequence[str] | None) -> str:
    """The model the arguments or DYNAGATE_MODEL name, read before the rest: its hooks add
    options of their own to `seed` and `verify`."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--model")
    named = early.parse_known_args(argv)[0].model
    return named or os.environ.get("DYNAGATE_MODEL") or DEFAULT_MODEL


def _explained(exc: DynamoDBFailure, env: Mapping[str, str]) -> str:
    """Botocore's message, with the fix when the cause is a usual set-up mistake."""
    cause = exc.__cause__
    endpoint = env.get("DYNAGATE_DYNAMODB_ENDPOINT") or None
    if isinstance(cause, NO_CREDENTIALS) and endpoint is None:
        return (
            "no AWS credentials found, and DYNAGATE_DYNAMODB_ENDPOINT is not set, so AWS itself "
            "was used. To work locally, start `dynagate dynamodb-local` and set "
            "DYNAGATE_DYNAMODB_ENDPOINT=http://127.0.0.1:8001; to use AWS, configure "
            "credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or "
            "~/.aws/credentials)"
        )
    if isinstance(cause, NO_CREDENTIALS):
        return f"no AWS credentials found for DYNAGATE_DYNAMODB_ENDPOINT={endpoint}: {exc}"
    if isinstance(cause, UNREACHABLE) and endpoint is not None:
        return (
            f"DynamoDB at DYNAGATE_DYNAMODB_ENDPOINT={endpoint} is unreachable: is "
            "`dynagate dynamodb-local` running (port 8001 unless --port says otherwise)? "
            f"({exc})"
        )
    if isinstance(cause, UNREACHABLE):
        return (
            f"AWS DynamoDB is unreachable ({exc}): DYNAGATE_DYNAMODB_ENDPOINT is not set, so "
            "AWS itself was used; check the network and AWS_REGION, or set "
            "DYNAGATE_DYNAMODB_ENDPOINT to a running `dynagate dynamodb-local`"
        )
    return str(exc)
