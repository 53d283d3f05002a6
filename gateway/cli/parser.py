"""The arguments of every `dynagate` command, each with its help and default, and every
setting in the help's epilog (`gateway/setting_table.py`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeAlias

from gateway.cli import commands
from gateway.identity import TOKEN_TTL
from gateway.setting_table import environment_help

# The commands of `dynagate`, or the actions of one of them.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, save where there is none to show, and keeps the
    epilog's lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


def _model_option() -> argparse.ArgumentParser:
    """`--model`, on every command that touches the table or the schema."""
    option = argparse.ArgumentParser(add_help=False)
    option.add_argument(
        "--model",
        metavar="MODULE",
        help="the model: a module's dotted name or a .py file's path (DYNAGATE_MODEL; "
        "unset, the demo's)",
    )
    return option


def _hook(model: str | None, name: str) -> Callable[[argparse.ArgumentParser], None]:
    """The model's `name` hook adding its own options, or none: a model that does not load
    is reported when its command runs, not while the arguments are read."""
    if model is None:
        return lambda _: None
    try:
        hook = commands.model_hook(model, name)
    except Exception:
        return lambda _: None
    return hook or (lambda _: None)


def _actions(
    subcommands: Commands,
    name: str,
    about: str,
    description: str | None = None,
) -> Commands:
    """A command made of actions (`dynagate migrate plan`); alone, it prints its help."""
    command = subcommands.add_parser(
        name, help=about, description=description, formatter_class=_Formatter
    )
    command.set_defaults(run=lambda _: commands.usage(command))
    return command.add_subparsers(metavar="ACTION")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a whole number above 0")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not a number above 0")
    return value


def _command(
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
        formatter_class=_Formatter,
        parents=list(options),
    )
    command.set_defaults(run=run)
    return command


def command_parser(model: str | None = None) -> argparse.ArgumentParser:
    """Every command; `seed` and `verify` with the options of `model`'s hooks."""
    on_model = [_model_option()]
    parser = argparse.ArgumentParser(
        prog="dynagate", description=__doc__, epilog=environment_help(), formatter_class=_Formatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('dynagate')}")
    subcommands = parser.add_subparsers(metavar="COMMAND")

    serve = _command(
        subcommands, "serve", commands.serve, "serve the GraphQL API", options=on_model
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes serving the port; above 2 needs DYNAGATE_REDIS_URL",
    )

    _command(
        subcommands,
        "check",
        commands.check,
        "check the settings, DynamoDB, the table, its stream and Redis before serving;"
        " exit 1 on any problem",
        options=on_model,
    )
    create = _command(
        subcommands,
        "create-table",
        commands.make_table,
        "create the table of the model's layout; an existing one is compared, not changed",
        options=on_model,
    )
    create.add_argument(
        "--enable-stream",
        action="store_true",
        help="turn an existing table's stream on (new and old images), if it is off",
    )
    create.add_argument(
        "--add-indexes",
        action="store_true",
        help="add the global indexes the model declares and an existing table lacks",
    )
    create.add_argument(
        "--enable-ttl",
        action="store_true",
        help="turn an existing table's time to live on, on expiresAt, if it has none",
    )
    seed = _command(
        subcommands,
        "seed",
        commands.seed,
        "load demo data through the API's mutations",
        options=on_model,
    )
    _hook(model, "add_seed_arguments")(seed)

    local = _command(
        subcommands,
        "dynamodb-local",
        commands.dynamodb_local,
        "run Amazon DynamoDB Local in the foreground",
    )
    local.add_argument("--port", type=int, default=8001, help="port to listen on")
    local.add_argument(
        "--db-path", type=Path, default=None, help="keep data here (default: in memory)"
    )

    export = _command(
        subcommands,
        "export-schema",
        commands.export_schema,
        "print the schema in SDL",
        options=on_model,
    )
    export.add_argument("--output", type=Path, default=None, help="write to this file instead")

    diff = _command(
        subcommands,
        "schema-diff",
        commands.schema_diff,
        "list what changed for clients since an older schema",
        description="Compare the schema with OLD (SDL, e.g. the schema.graphql of the last "
        "release) and print the changes a client sees, breaking, then dangerous, then safe, "
        "one a line. Exit status: 0 when nothing breaks, 1 when a change is breaking or a "
        "document is rejected, 2 when a file cannot be read or parsed.",
        options=on_model,
    )
    diff.add_argument("old", type=Path, metavar="OLD.graphql", help="the older schema")
    diff.add_argument(
        "--documents",
        type=Path,
        metavar="MANIFEST.json",
        help="also list the documents the schema rejects: a JSON object of id → document "
        "(Relay, GraphQL Codegen) or an Apollo persisted query manifest",
    )

    actions = _actions(
        subcommands,
        "documents",
        "trusted documents: register a client's manifest, list what is registered",
        description="With DYNAGATE_DOCUMENTS=trusted only registered documents run (but "
        "for admins). `add` checks every document of MANIFEST.json against the schema and "
        "the demand limits and registers all of them, or none when one is refused.",
    )
    add = _command(
        actions,
        "add",
        commands.documents_add,
        "check a manifest's documents and register them as trusted",
        description="Exit status: 0 when every document was registered, 1 when one is "
        "refused (none is then registered), 2 when the manifest cannot be read.",
        options=on_model,
    )
    add.add_argument(
        "manifest",
        type=Path,
        metavar="MANIFEST.json",
        help='a JSON object of "sha256:<hex>" or "<hex>" → document (Relay, GraphQL '
        "Codegen) or an Apollo persisted query manifest",
    )
    _command(
        actions,
        "list",
        commands.documents_list,
        "list the registered documents",
        options=on_model,
    )

    verify = _command(
        subcommands,
        "verify",
        commands.verify,
        "check every item the model derives (index keys, copies, and the model's own "
        "checks) against the items it derives them from (offline: scans the table)",
        description="Scan the table and report items whose index keys, defaults or copies "
        "are not what the model derives from them, and what the model's own checks find "
        "(the demo's: comment copies and the heatmap's counts of short cells). Exit status: "
        "0 when nothing differs (or --repair fixed all of it), 1 when differences remain.",
        options=on_model,
    )
    verify.add_argument(
        "--repair",
        action="store_true",
        help="write what differs, each item only while it is still as it was read",
    )
    verify.add_argument("--segments", type=_positive_int, default=4, help="parallel Scan segments")
    _hook(model, "add_verify_arguments")(verify)

    template = _command(
        subcommands,
        "table-template",
        commands.table_template,
        "print the table as CloudFormation or Terraform (JSON) define it",
        description="The table create-table makes (DYNAGATE_TABLE), its indexes, its stream "
        "with new and old images and time to live on expiresAt, on-demand, with point-in-time "
        "recovery and deletion protection on. Terraform reads the JSON as a .tf.json file.",
        options=on_model,
    )
    template.add_argument(
        "--format", choices=("cloudformation", "terraform"), default="cloudformation"
    )

    policy = _command(
        subcommands,
        "iam-policy",
        commands.iam_policy,
        "print the least-privilege IAM policy `serve` needs on the table",
        description="The DynamoDB actions the server calls on DYNAGATE_TABLE (in AWS_REGION), "
        "Query on its indexes, and the reads of its stream; nothing else.",
        options=on_model,
    )
    policy.add_argument("--account", default="*", help="the AWS account id of the table's ARNs")
    policy.add_argument(
        "--for",
        dest="purpose",
        choices=("serve", "migrate"),
        default="serve",
        help="what the policy lets do: serve, or also migrate and verify (a Scan, UpdateTable)",
    )

    model_actions = _actions(
        subcommands,
        "model",
        "check the model: its declarations, its access patterns' requests, its chart, a live table",
    )
    _command(
        model_actions,
        "check",
        commands.model_check,
        "build the model as serve does and print each access pattern",
        description="Refuses, naming the declaration, a model the engine cannot serve (keys "
        "that can collide, a key naming an attribute its entity lacks, a generated name given "
        "twice, …): exit 2. Otherwise prints each access pattern with the DynamoDB requests it "
        "leads to and its worst case: exit 0.",
        options=on_model,
    )
    inspect = _command(
        model_actions,
        "inspect",
        commands.model_inspect,
        "compare the model with a live table: its layout, and a sample of its items",
        description="Reads the table's description and a sample of its items (a Scan of at "
        "most --sample items: an admin's command) and says, per entity, how many items it "
        "claims, how many read as the model's, whose keys render back, and the attributes "
        "they hold that it does not declare; then the items no entity claims. Exit status: 0 "
        "when the table is the model's, 1 otherwise.",
        options=on_model,
    )
    inspect.add_argument("--table", default=None, help="the table (default: DYNAGATE_TABLE)")
    inspect.add_argument(
        "--sample",
        type=int,
        default=commands.INSPECT_SAMPLE,
        help=f"the most items read (default {commands.INSPECT_SAMPLE},"
        f" at most {commands.INSPECT_MOST:,})",
    )
    infer = _command(
        model_actions,
        "infer",
        commands.model_infer,
        "draft a first model file from a live table and a sample of its items",
        description="Reads the table's description and a sample of its items (a Scan of at "
        "most --sample items: an admin's command) and drafts a model file to edit from there: "
        "the table's layout, an entity per kind of item (told by a discriminator such as "
        "ElectroDB's __edb_e__ or OneTable's _type, else by the shape of its keys), its key "
        "templates, attribute kinds and parent, and a lookup for admins per entity. Its first "
        "lines say what to review. Exit status: 0 drafted, 1 when the table is missing, holds "
        "no items, or is keyed so that no model serves it.",
    )
    infer.add_argument("--table", default=None, help="the table (default: DYNAGATE_TABLE)")
    infer.add_argument(
        "--sample",
        type=int,
        default=commands.INSPECT_SAMPLE,
        help=f"the most items read, at most {commands.INSPECT_MOST:,}",
    )
    infer.add_argument(
        "--output", type=Path, default=None, help="write to this new file instead of printing"
    )
    chart = _command(
        model_actions,
        "chart",
        commands.model_chart,
        "print the model's single-table design: keys per index, example items, access patterns",
        description="The single-table chart of the model, built as serve builds it: a row per "
        "entity with its key templates on the table and on each index and its discriminator, "
        "an example item of each entity, and each access pattern with its requests and worst "
        "case. Markdown, or a self-contained HTML page.",
        options=on_model,
    )
    chart.add_argument(
        "--format",
        choices=("markdown", "html"),
        default="markdown",
        help="Markdown, or an HTML page to open in a browser",
    )
    chart.add_argument(
        "--output", type=Path, metavar="FILE", default=None, help="write to this file instead"
    )

    migrate_actions = _actions(
        subcommands, "migrate", "bring the table and its items to the model: indexes, keys, copies"
    )
    plan = _command(
        migrate_actions,
        "plan",
        commands.migrate_plan,
        "print what the model asks of the table and its items (reads only)",
        description="Compares the model with the table's indexes and with every item (a "
        "consistent Scan): indexes to add, and items to give index keys, defaults or copies. "
        "Exit status: 0 nothing to change, 1 changes to apply or items left as they are (listed), "
        "2 refused.",
        options=on_model,
    )
    plan.add_argument("--segments", type=_positive_int, default=4, help="parallel Scan segments")
    apply = _command(
        migrate_actions,
        "apply",
        commands.migrate_apply,
        "add the indexes one at a time, then write what the items lack, resumable",
        description="Adds each missing index and waits until DynamoDB has built it, then "
        "writes what each item lacks, paced to --max-wcu write units a second, keeping a "
        "checkpoint in the table: stopped at any point and run again, it goes on where it "
        "was. Safe while the gateway serves. Exit status: 0 done, 1 items left (reported), "
        "2 refused.",
        options=on_model,
    )
    apply.add_argument("--max-wcu", type=_positive, default=100, help="most write units a second")
    apply.add_argument(
        "--segments", type=_positive_int, default=4, help="parallel Scan segments (a fresh run's)"
    )

    token = _command(
        subcommands,
        "token",
        commands.token,
        "print a bearer token signed with DYNAGATE_AUTH_SECRET (development and tests)",
    )
    token.add_argument("--sub", required=True, help="the username the token signs in")
    token.add_argument("--admin", action="store_true", help="in the admin group")
    token.add_argument("--ttl", type=int, default=TOKEN_TTL, help="seconds it is valid")
    return parser
