"""The `dynagate` command: serve, create-table, seed, dynamodb-local, export-schema,
schema-diff, documents, verify, token."""

from __future__ import annotations

import argparse
import asyncio
import logging.config
import os
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.dynamodb_local import DynamoDBLocalError
from gateway.identity import TOKEN_TTL, issue_token
from gateway.logs import logging_config
from gateway.seed import SeedError
from gateway.setting_table import environment_help
from gateway.settings import Settings, SettingsError
from keys.errors import Unavailable
from store.errors import NO_CREDENTIALS, UNREACHABLE, DynamoDBFailure, admin_failures

if TYPE_CHECKING:
    from store.client import DynamoDBClient


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):  # no command: a newcomer is better served by the help
        parser.print_help(sys.stderr)
        return 2
    # Plain text, or JSON lines with DYNAGATE_LOG_FORMAT=json, for uvicorn's records too
    # (`gateway/logs.py`).
    logging.config.dictConfig(logging_config())
    try:
        with admin_failures():
            result: int = args.run(args)
    except SettingsError as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    except DynamoDBFailure as exc:
        print(f"dynagate: {_explained(exc, os.environ)}", file=sys.stderr)
        return 1
    # Unavailable: DynamoDB failed midway, after `_reach` found it.
    except (DynamoDBLocalError, TimeoutError, SeedError, Unavailable, _NoTable) as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


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


class _NoTable(Exception):
    """The command needs the table, which does not exist."""


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, save where there is none to show, and keeps the
    epilog's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dynagate", description=__doc__, epilog=environment_help(), formatter_class=_Formatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('dynagate')}")
    commands = parser.add_subparsers(metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the GraphQL API", formatter_class=_Formatter)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes serving the port; above 2 needs DYNAGATE_REDIS_URL",
    )
    serve.set_defaults(run=_serve)

    create = commands.add_parser(
        "create-table", help="create the table and its indexes", formatter_class=_Formatter
    )
    create.set_defaults(run=_create_table)

    seed = commands.add_parser(
        "seed", help="load demo data through the API's mutations", formatter_class=_Formatter
    )
    seed.add_argument("--customers", type=int, default=40, help="customers to create")
    seed.add_argument("--max-orders", type=int, default=20, help="most orders per customer")
    seed.add_argument("--products", type=int, default=6, help="products to create")
    seed.add_argument("--max-comments", type=int, default=25, help="most comments per product")
    seed.add_argument(
        "--markers-per-place",
        type=int,
        default=60,
        help="map markers around each of the demo places",
    )
    seed.add_argument(
        "--repos", type=int, default=4, help="repositories, each with issues and stars"
    )
    seed.add_argument("--organizations", type=int, default=2, help="organizations, each with teams")
    seed.add_argument("--queues", type=int, default=2, help="support queues with tickets")
    seed.set_defaults(run=_seed)

    local = commands.add_parser(
        "dynamodb-local",
        help="run Amazon DynamoDB Local in the foreground",
        formatter_class=_Formatter,
    )
    local.add_argument("--port", type=int, default=8001, help="port to listen on")
    local.add_argument(
        "--db-path", type=Path, default=None, help="keep data here (default: in memory)"
    )
    local.set_defaults(run=_dynamodb_local)

    export = commands.add_parser(
        "export-schema", help="print the schema in SDL", formatter_class=_Formatter
    )
    export.add_argument("--output", type=Path, default=None, help="write to this file instead")
    export.set_defaults(run=_export_schema)

    diff = commands.add_parser(
        "schema-diff",
        help="list what changed for clients since an older schema",
        description="Compare the schema with OLD (SDL, e.g. the schema.graphql of the last "
        "release) and print the changes a client sees, breaking, then dangerous, then safe, "
        "one a line. Exit status: 0 when nothing breaks, 1 when a change is breaking or a "
        "document is rejected, 2 when a file cannot be read or parsed.",
        formatter_class=_Formatter,
    )
    diff.add_argument("old", type=Path, metavar="OLD.graphql", help="the older schema")
    diff.add_argument(
        "--documents",
        type=Path,
        metavar="MANIFEST.json",
        help="also list the documents the schema rejects: a JSON object of id → document "
        "(Relay, GraphQL Codegen) or an Apollo persisted query manifest",
    )
    diff.set_defaults(run=_schema_diff)

    documents = commands.add_parser(
        "documents",
        help="trusted documents: register a client's manifest, list what is registered",
        description="With DYNAGATE_DOCUMENTS=trusted only registered documents run (but "
        "for admins). `add` checks every document of MANIFEST.json against the schema and "
        "the demand limits and registers all of them, or none when one is refused.",
        formatter_class=_Formatter,
    )
    documents.set_defaults(run=lambda _: _usage(documents))
    actions = documents.add_subparsers(metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="check a manifest's documents and register them as trusted",
        description="Exit status: 0 when every document was registered, 1 when one is "
        "refused (none is then registered), 2 when the manifest cannot be read.",
        formatter_class=_Formatter,
    )
    add.add_argument(
        "manifest",
        type=Path,
        metavar="MANIFEST.json",
        help='a JSON object of "sha256:<hex>" or "<hex>" → document (Relay, GraphQL '
        "Codegen) or an Apollo persisted query manifest",
    )
    add.set_defaults(run=_documents_add)
    listing = actions.add_parser(
        "list", help="list the registered documents", formatter_class=_Formatter
    )
    listing.set_defaults(run=_documents_list)

    verify = commands.add_parser(
        "verify",
        help="check every comment's copies against the comment, and the heatmap's counts of "
        "short cells against their children's (offline: scans the table)",
        description="Scan the table and report comment copies that are missing, stale, extra "
        "or orphaned, and heatmap counts of cells of lengths 2 and 1 that are not their "
        "children's sum. Exit status: 0 when nothing differs (or --repair fixed all of it), "
        "1 when differences remain.",
        formatter_class=_Formatter,
    )
    verify.add_argument(
        "--repair",
        action="store_true",
        help="put missing and stale copies, delete extra and orphan ones (a comment changed "
        "since the scan is skipped), and rebuild the short cells' counts",
    )
    verify.add_argument("--segments", type=int, default=4, help="parallel Scan segments")
    verify.set_defaults(run=_verify)

    token = commands.add_parser(
        "token",
        help="print a bearer token signed with DYNAGATE_AUTH_SECRET (development and tests)",
        formatter_class=_Formatter,
    )
    token.add_argument("--sub", required=True, help="the username the token signs in")
    token.add_argument("--admin", action="store_true", help="in the admin group")
    token.add_argument("--ttl", type=int, default=TOKEN_TTL, help="seconds it is valid")
    token.set_defaults(run=_token)
    return parser


def _token(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    print(issue_token(settings, args.sub, admin=args.admin, ttl=args.ttl))
    return 0


def _serve(args: argparse.Namespace) -> int:
    from gateway.serving import serve

    return serve(args.host, args.port, args.workers)


def _create_table(args: argparse.Namespace) -> int:
    from store.tables import create_table

    settings = Settings.from_env(serving=False)

    async def run() -> str:
        async with settings.open_client() as client:
            return await create_table(client, settings.table)

    print(asyncio.run(run()))
    return 0


async def _reach(client: DynamoDBClient, table: str) -> None:
    """One call before the work, so a missing database or table fails at once with its fix
    (`_explained`), not as the API's client-facing error halfway through a progress bar."""
    from store.tables import describe

    if await describe(client, table) is None:
        raise _NoTable(f"table {table!r} does not exist: run `dynagate create-table` first")


def _seed(args: argparse.Namespace) -> int:
    from gateway.seed import Seeder

    settings = Settings.from_env(serving=False)

    async def run() -> str:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            seeder = Seeder(client, settings.table)
            await seeder.run(args.customers, args.max_orders)
            await seeder.run_comments(args.products, args.max_comments)
            await seeder.run_markers(args.markers_per_place)
            await seeder.run_collections(args.repos, args.organizations, args.queues)
            return seeder.summary()

    print(asyncio.run(run()))
    return 0


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _documents_add(args: argparse.Namespace) -> int:
    from gateway.admin import documents
    from gateway.schema import build_schema
    from gateway.schema_diff import Unreadable, load_manifest
    from store.client import Store

    settings = Settings.from_env(serving=False)
    try:
        manifest = load_manifest(_read(args.manifest), str(args.manifest))
    except Unreadable as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    schema = build_schema(introspection=settings.introspection)._schema
    checked = documents.check(
        schema,
        manifest,
        settings.limits,
        introspection=settings.introspection,
        max_bytes=settings.max_document_bytes,
    )
    refused = documents.refusals(checked)
    if refused:
        print("\n".join(refused), file=sys.stderr)
        return 1

    async def run() -> int:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            store = Store(client, settings.table)
            return await documents.add(store, checked, partial(print, flush=True))

    return asyncio.run(run())


def _documents_list(args: argparse.Namespace) -> int:
    from gateway.admin import documents
    from gateway.schema import build_schema
    from store.client import Store

    settings = Settings.from_env(serving=False)
    schema = build_schema(introspection=settings.introspection)._schema

    async def run() -> int:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            store = Store(client, settings.table)
            return await documents.show(store, schema, print, settings.limits)

    return asyncio.run(run())


def _verify(args: argparse.Namespace) -> int:
    from gateway.admin.verify import Report, render, verify

    settings = Settings.from_env(serving=False)

    async def run() -> Report:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            return await verify(client, settings.table, repair=args.repair, segments=args.segments)

    report = asyncio.run(run())
    print("\n".join(render(report)))
    return report.exit_code


def _dynamodb_local(args: argparse.Namespace) -> int:
    from gateway.dynamodb_local import run_foreground

    return run_foreground(args.port, args.db_path)


def _export_schema(args: argparse.Namespace) -> int:
    from gateway.schema import schema_sdl

    if args.output is None:
        sys.stdout.write(schema_sdl())
    else:
        args.output.write_text(schema_sdl())
    return 0


def _schema_diff(args: argparse.Namespace) -> int:
    from gateway.schema import schema_sdl
    from gateway.schema_diff import (
        Unreadable,
        load_manifest,
        parse_schema,
        rejected_documents,
        render,
        schema_changes,
    )

    try:
        old = parse_schema(_read(args.old), str(args.old))
        documents = None
        if args.documents is not None:
            documents = load_manifest(_read(args.documents), str(args.documents))
    except Unreadable as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    # From the exported SDL, as OLD is: the two are compared as clients read them.
    current = parse_schema(schema_sdl())
    changes = schema_changes(old, current)
    rejected = None if documents is None else rejected_documents(current, documents)
    print("\n".join(render(changes, rejected)))
    return 1 if rejected or any(change.kind == "breaking" for change in changes) else 0


def _read(path: Path) -> str:
    """The file's text, or `Unreadable` with one line naming it."""
    from gateway.schema_diff import Unreadable

    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Unreadable(f"{path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise Unreadable(f"{path}: not UTF-8 text") from exc
