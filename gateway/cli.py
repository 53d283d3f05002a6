"""The `dynagate` command: serve, create-table, seed, dynamodb-local, export-schema, verify,
token."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from gateway.dynamodb_local import DynamoDBLocalError
from gateway.identity import TOKEN_TTL, issue_token
from gateway.seed import SeedError
from gateway.settings import Settings, SettingsError
from store.errors import DynamoDBFailure, admin_failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        with admin_failures():
            result: int = args.run(args)
    except SettingsError as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    except (DynamoDBLocalError, DynamoDBFailure, TimeoutError, SeedError) as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dynagate", description=__doc__)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve the GraphQL API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(run=_serve)

    create = commands.add_parser("create-table", help="create the table and its indexes")
    create.set_defaults(run=_create_table)

    seed = commands.add_parser("seed", help="load demo data through the API's mutations")
    seed.add_argument("--customers", type=int, default=40)
    seed.add_argument("--max-orders", type=int, default=20)
    seed.add_argument("--products", type=int, default=6)
    seed.add_argument("--max-comments", type=int, default=25)
    seed.add_argument("--markers-per-place", type=int, default=60)
    seed.add_argument("--repos", type=int, default=4)
    seed.add_argument("--organizations", type=int, default=2)
    seed.add_argument("--queues", type=int, default=2)
    seed.set_defaults(run=_seed)

    local = commands.add_parser(
        "dynamodb-local", help="run Amazon DynamoDB Local in the foreground"
    )
    local.add_argument("--port", type=int, default=8001)
    local.add_argument(
        "--db-path", type=Path, default=None, help="keep data here (default: in memory)"
    )
    local.set_defaults(run=_dynamodb_local)

    export = commands.add_parser("export-schema", help="print the schema in SDL")
    export.add_argument("--output", type=Path, default=None, help="write to this file instead")
    export.set_defaults(run=_export_schema)

    verify = commands.add_parser(
        "verify",
        help="check every comment's copies against the comment (offline: scans the table)",
        description="Scan the table and report comment copies that are missing, stale, extra "
        "or orphaned. Exit status: 0 when nothing differs (or --repair fixed all of it), "
        "1 when differences remain.",
    )
    verify.add_argument(
        "--repair",
        action="store_true",
        help="put missing and stale copies, delete extra and orphan ones; a comment changed "
        "since the scan is skipped",
    )
    verify.add_argument("--segments", type=int, default=4, help="parallel Scan segments")
    verify.set_defaults(run=_verify)

    token = commands.add_parser(
        "token",
        help="print a bearer token signed with DYNAGATE_AUTH_SECRET (development and tests)",
    )
    token.add_argument("--sub", required=True, help="the username the token signs in")
    token.add_argument("--admin", action="store_true", help="in the admin group")
    token.add_argument(
        "--ttl", type=int, default=TOKEN_TTL, help=f"seconds it is valid (default {TOKEN_TTL})"
    )
    token.set_defaults(run=_token)
    return parser


def _token(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    print(issue_token(settings, args.sub, admin=args.admin, ttl=args.ttl))
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from gateway.app import create_app

    uvicorn.run(create_app(Settings.from_env()), host=args.host, port=args.port)
    return 0


def _create_table(args: argparse.Namespace) -> int:
    from store.tables import create_table

    settings = Settings.from_env(serving=False)

    async def run() -> str:
        async with settings.open_client() as client:
            return await create_table(client, settings.table)

    print(asyncio.run(run()))
    return 0


def _seed(args: argparse.Namespace) -> int:
    from gateway.seed import Seeder

    settings = Settings.from_env(serving=False)

    async def run() -> tuple[int, ...]:
        async with settings.open_client() as client:
            seeder = Seeder(client, settings.table)
            customers, orders = await seeder.run(args.customers, args.max_orders)
            products, comments = await seeder.run_comments(args.products, args.max_comments)
            markers = await seeder.run_markers(args.markers_per_place)
            collections = await seeder.run_collections(args.repos, args.organizations, args.queues)
            return customers, orders, products, comments, markers, *collections

    customers, orders, products, comments, markers, repos, organizations, queues = asyncio.run(
        run()
    )
    print(
        f"seeded {customers} customers and {orders} orders, {products} products and"
        f" {comments} comments, {markers} markers, {repos} repositories, {organizations}"
        f" organizations and {queues} queues into {settings.table!r}"
    )
    return 0


def _verify(args: argparse.Namespace) -> int:
    from gateway.admin.verify import Report, render, verify

    settings = Settings.from_env(serving=False)

    async def run() -> Report:
        async with settings.open_client() as client:
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
