"""The `dynagate` command: serve, create-table, seed, dynamodb-local, export-schema."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError

from gateway.dynamodb_local import DynamoDBLocalError
from gateway.seed import SeedError
from gateway.settings import Settings, SettingsError


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        result: int = args.run(args)
    except SettingsError as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    except (DynamoDBLocalError, BotoCoreError, ClientError, TimeoutError, SeedError) as exc:
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
    return parser


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from gateway.app import create_app

    uvicorn.run(create_app(Settings.from_env()), host=args.host, port=args.port)
    return 0


def _create_table(args: argparse.Namespace) -> int:
    from gateway.dynamodb import create_table, open_client

    settings = Settings.from_env()

    async def run() -> str:
        async with open_client(settings) as client:
            return await create_table(client, settings.table)

    print(asyncio.run(run()))
    return 0


def _seed(args: argparse.Namespace) -> int:
    from gateway.dynamodb import open_client
    from gateway.seed import Seeder

    settings = Settings.from_env()

    async def run() -> tuple[int, int]:
        async with open_client(settings) as client:
            return await Seeder(client, settings.table).run(args.customers, args.max_orders)

    customers, orders = asyncio.run(run())
    print(f"seeded {customers} customers and {orders} orders into {settings.table!r}")
    return 0


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
