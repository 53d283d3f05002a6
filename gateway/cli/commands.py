"""What each `dynagate` command does, once its arguments are read (`gateway/cli/parser.py`).
A model's own parts of `seed` and `verify` are hooks of its face (`model_hook`):
the demo's are reached as any model's, never imported by the engine."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.cli.errors import CommandFailed
from gateway.identity import issue_token
from gateway.settings import Settings
from resolvers.strawberry_internals import core_schema

if TYPE_CHECKING:
    from keys.table import Layout
    from store.client import DynamoDBClient


def model_hook(model: str, name: str) -> Any:
    """The hook `name` of the model `model` (`seed`, `seed_options`, `verify`,
    `verify_options`: docs/model.md#the-hook), or None."""
    from gateway.served_model import face

    return getattr(face(model), name)


def token(args: argparse.Namespace) -> int:
    settings = Settings.from_env(serving=False)
    print(issue_token(settings, args.sub, admin=args.admin, ttl=args.ttl))
    return 0


def serve(args: argparse.Namespace) -> int:
    from gateway.cli.serving import serve

    return serve(args.host, args.port, args.workers)


def check(args: argparse.Namespace) -> int:
    """`dynagate check` (`gateway/cli/check.py`)."""
    from gateway.cli.check import check

    return check()


def make_table(args: argparse.Namespace) -> int:
    """`dynagate create-table`."""
    from gateway.served_model import declared
    from store.tables import create_table

    settings = Settings.from_env(serving=False)
    layout = declared(settings.model).table_layout

    async def run() -> str:
        async with settings.open_client() as client:
            return await create_table(
                client,
                settings.table,
                layout=layout,
                enable_stream=args.enable_stream,
                add_indexes=args.add_indexes,
                enable_ttl=args.enable_ttl,
            )

    print(asyncio.run(run()))
    return 0


def _layout(settings: Settings) -> Layout:
    """The table's layout, as the served model declares it."""
    from gateway.served_model import declared

    return declared(settings.model).table_layout


async def _reach(client: DynamoDBClient, table: str) -> None:
    """One call before the work, so a missing database or table fails at once with its fix
    (`_explained`), not as the API's client-facing error halfway through a progress bar."""
    from store.tables import describe

    if await describe(client, table) is None:
        raise CommandFailed(f"table {table!r} does not exist: run `dynagate create-table` first")


def seed(args: argparse.Namespace) -> int:
    """The model's demo data (its `seed` hook), through the API's own mutations."""
    from gateway.cli.seeding import Seeding

    settings = Settings.from_env(serving=False)
    hook = model_hook(settings.model, "seed")
    if hook is None:  # not a failure: `make run` serves a model without demo data too
        print(
            f"the model {settings.model!r} has no demo data: its module defines no"
            " `async def seed(api, args)` (docs/model.md)"
        )
        return 0

    async def run() -> str:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            summary: str = await hook(Seeding(client, settings.table, settings.model), args)
            return summary

    print(asyncio.run(run()))
    return 0


def usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def documents_add(args: argparse.Namespace) -> int:
    from gateway.cli import documents
    from gateway.cli.schema_diff import Unreadable, load_manifest
    from gateway.schema.build import build_schema
    from gateway.served_model import served
    from store.client import Store

    settings = Settings.from_env(serving=False)
    try:
        manifest = load_manifest(_read(args.manifest), str(args.manifest))
    except Unreadable as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    schema = core_schema(
        build_schema(introspection=settings.introspection, roots=served(settings.model))
    )
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
            store = Store(client, settings.table, layout=_layout(settings))
            return await documents.add(store, checked, partial(print, flush=True))

    return asyncio.run(run())


def documents_list(args: argparse.Namespace) -> int:
    from gateway.cli import documents
    from gateway.schema.build import build_schema
    from gateway.served_model import served
    from store.client import Store

    settings = Settings.from_env(serving=False)
    schema = core_schema(
        build_schema(introspection=settings.introspection, roots=served(settings.model))
    )

    async def run() -> int:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            store = Store(client, settings.table, layout=_layout(settings))
            return await documents.show(store, schema, print, settings.limits)

    return asyncio.run(run())


def verify(args: argparse.Namespace) -> int:
    """The model's offline check of what it derives, repaired with `--repair`: its own
    checks (its `verify` hook), then every item it derives."""
    from gateway.cli.migrate import verify_items
    from gateway.served_model import declared

    settings = Settings.from_env(serving=False)
    model = declared(settings.model)
    hook = model_hook(settings.model, "verify")

    async def run() -> tuple[list[str], int]:
        async with settings.open_client() as client:
            await _reach(client, settings.table)
            lines: list[str] = []
            code = 0
            if hook is not None:
                lines, code = await hook(client, settings.table, args)
            derived, derived_code = await verify_items(
                client, settings.table, model, repair=args.repair, segments=args.segments
            )
            return [*lines, *derived], max(code, derived_code)

    lines, exit_code = asyncio.run(run())
    print("\n".join(lines))
    return exit_code


def migrate_plan(args: argparse.Namespace) -> int:
    from gateway.cli import migrate

    return migrate.plan(args)


def migrate_apply(args: argparse.Namespace) -> int:
    from gateway.cli import migrate

    return migrate.apply(args)


def remove(args: argparse.Namespace) -> int:
    from gateway.cli.removal import remove

    return remove(args)


def dynamodb_local(args: argparse.Namespace) -> int:
    from gateway.cli.dynamodb_local import run_foreground

    return run_foreground(args.port, args.db_path)


def table_template(args: argparse.Namespace) -> int:
    """`dynagate table-template`: the table as infrastructure code, on standard output."""
    from gateway.served_model import declared
    from store.deployment import table_template as template

    settings = Settings.from_env(serving=False)
    layout = declared(settings.model).table_layout
    print(json.dumps(template(settings.table, args.format, layout), indent=2))
    return 0


def iam_policy(args: argparse.Namespace) -> int:
    """`dynagate iam-policy`: what `serve` may do on the table, and nothing more."""
    from gateway.served_model import declared
    from store.deployment import iam_policy as policy

    settings = Settings.from_env(serving=False)
    declared(settings.model)  # the policy of a model that loads: a broken one is exit 2
    print(json.dumps(policy(settings.table, settings.region, args.account, args.purpose), indent=2))
    return 0


# `model inspect` reads this many items by default, and never more than the most.
INSPECT_SAMPLE = 200
INSPECT_MOST = 10_000


def model_inspect(args: argparse.Namespace) -> int:
    """`dynagate model inspect`: the model held against a live table and a sample of it."""
    from data.inference.inspection import sample
    from gateway.served_model import declared, served
    from store.client import Store
    from store.tables import describe, layout_differences, stream_problem

    if not 1 <= args.sample <= INSPECT_MOST:
        raise CommandFailed(f"--sample {args.sample}: read 1 to {INSPECT_MOST:,} items")
    settings = Settings.from_env(serving=False)
    table = args.table or settings.table
    served(settings.model)
    model = declared(settings.model)

    async def run() -> tuple[list[str], bool]:
        async with settings.open_client() as client:
            await _reach(client, table)
            description = await describe(client, table) or {}
            lines = [f"table {table!r} against the model {settings.model!r}:"]
            differences = layout_differences(description, model.table_layout)
            lines += [f"  layout: {d}" for d in differences] or ["  layout: as declared"]
            stream = stream_problem(description)
            lines.append(f"  stream: {stream}" if stream else "  stream: new and old images")
            store = Store(client, table, layout=model.table_layout)
            findings = await sample(store, model, args.sample)
            return [*lines, *findings.lines()], findings.clean and not differences

    lines, clean = asyncio.run(run())
    print("\n".join([*lines, "ok: the table is the model's" if clean else "differs"]))
    return 0 if clean else 1


def model_infer(args: argparse.Namespace) -> int:
    """`dynagate model infer`: a first model drafted from a live table and a sample of it."""
    from gateway.cli.model_infer import infer

    return infer(args, INSPECT_MOST)


def model_check(args: argparse.Namespace) -> int:
    """`dynagate model check`: the model built as `serve` builds it, each access pattern
    with its requests and worst case."""
    from gateway.cli.model_check import described
    from gateway.served_model import declared, served

    name = Settings.from_env(serving=False).model
    served(name)  # the whole schema, as `serve` makes it: a ModelError names what fails
    model = declared(name)
    print("\n".join(described(model)))
    print(
        f"model {name!r}: {_count(len(model.entities), 'entity', 'entities')},"
        f" {_count(len(model.patterns), 'access pattern', 'access patterns')}, ok"
    )
    return 0


def model_chart(args: argparse.Namespace) -> int:
    """`dynagate model chart`: the model's single-table design, in Markdown or HTML."""
    from gateway.cli.model_chart import html_page, markdown
    from gateway.served_model import declared, served

    name = Settings.from_env(serving=False).model
    served(name)  # refused as `serve` refuses it, the declaration named
    model = declared(name)
    text = html_page(model, name) if args.format == "html" else markdown(model, name)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


def _count(number: int, one: str, more: str) -> str:
    return f"{number} {one if number == 1 else more}"


def export_schema(args: argparse.Namespace) -> int:
    from gateway.schema.build import schema_sdl

    sdl = schema_sdl(Settings.from_env(serving=False).model)
    if args.output is None:
        sys.stdout.write(sdl)
    else:
        args.output.write_text(sdl)
    return 0


def schema_diff(args: argparse.Namespace) -> int:
    from gateway.cli import schema_diff as diffs
    from gateway.schema.build import schema_sdl

    try:
        old = diffs.parse_schema(_read(args.old), str(args.old))
        documents = None
        if args.documents is not None:
            documents = diffs.load_manifest(_read(args.documents), str(args.documents))
    except diffs.Unreadable as exc:
        print(f"dynagate: {exc}", file=sys.stderr)
        return 2
    # From the exported SDL, as OLD is: the two are compared as clients read them.
    current = diffs.parse_schema(schema_sdl(Settings.from_env(serving=False).model))
    changes = diffs.schema_changes(old, current)
    rejected = None if documents is None else diffs.rejected_documents(current, documents)
    print("\n".join(diffs.render(changes, rejected)))
    return 1 if rejected or any(change.kind == "breaking" for change in changes) else 0


def _read(path: Path) -> str:
    """The file's text, or `Unreadable` with one line naming it."""
    from gateway.cli.schema_diff import Unreadable

    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Unreadable(f"{path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise Unreadable(f"{path}: not UTF-8 text") from exc
