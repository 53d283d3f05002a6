"""The arguments of every `dynagate` command, each with its help and default, and every
setting in the help's epilog (`gateway/cli/setting_lists.py`)."""

from __future__ import annotations

import argparse
from importlib.metadata import version
from pathlib import Path

from gateway.cli import commands
from gateway.cli.arguments import (
    Formatter,
    add_actions,
    add_command,
    hook_options,
    model_option,
    positive,
    positive_int,
)
from gateway.cli.model_parser import add_model_actions
from gateway.cli.setting_lists import environment_help
from gateway.identity import TOKEN_TTL


def command_parser(model: str | None = None) -> argparse.ArgumentParser:
    """Every command; `seed` and `verify` with the options of `model`'s hooks."""
    on_model = [model_option()]
    parser = argparse.ArgumentParser(
        prog="dynagate", description=__doc__, epilog=environment_help(), formatter_class=Formatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('dynagate')}")
    subcommands = parser.add_subparsers(metavar="COMMAND")

    serve = add_command(
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

    add_command(
        subcommands,
        "check",
        commands.check,
        "check the settings, DynamoDB, the table, its stream and Redis before serving;"
        " exit 1 on any problem",
        options=on_model,
    )
    create = add_command(
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
    seed = add_command(
        subcommands,
        "seed",
        commands.seed,
        "load demo data through the API's mutations",
        options=on_model,
    )
    hook_options(model, "seed_options")(seed)

    local = add_command(
        subcommands,
        "dynamodb-local",
        commands.dynamodb_local,
        "run Amazon DynamoDB Local in the foreground",
    )
    local.add_argument("--port", type=int, default=8001, help="port to listen on")
    local.add_argument(
        "--db-path", type=Path, default=None, help="keep data here (default: in memory)"
    )

    export = add_command(
        subcommands,
        "export-schema",
        commands.export_schema,
        "print the schema in SDL",
        options=on_model,
    )
    export.add_argument("--output", type=Path, default=None, help="write to this file instead")

    diff = add_command(
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

    actions = add_actions(
        subcommands,
        "documents",
        "trusted documents: register a client's manifest, list what is registered",
        description="With DYNAGATE_DOCUMENTS=trusted only registered documents run (but "
        "for admins). `add` checks every document of MANIFEST.json against the schema and "
        "the demand limits and registers all of them, or none when one is refused.",
    )
    add = add_command(
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
    add_command(
        actions,
        "list",
        commands.documents_list,
        "list the registered documents",
        options=on_model,
    )

    verify = add_command(
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
    verify.add_argument("--segments", type=positive_int, default=4, help="parallel Scan segments")
    hook_options(model, "verify_options")(verify)

    template = add_command(
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

    policy = add_command(
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

    add_model_actions(subcommands, on_model)

    migrate_actions = add_actions(
        subcommands, "migrate", "bring the table and its items to the model: indexes, keys, copies"
    )
    plan = add_command(
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
    plan.add_argument("--segments", type=positive_int, default=4, help="parallel Scan segments")
    apply = add_command(
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
    apply.add_argument("--max-wcu", type=positive, default=100, help="most write units a second")
    apply.add_argument(
        "--segments", type=positive_int, default=4, help="parallel Scan segments (a fresh run's)"
    )

    removal = add_command(
        subcommands,
        "remove",
        commands.remove,
        "remove a parent and everything below it, in steps, resumable",
        description="For a parent with more below it than its delete removes in one call: "
        "closes it to new children, removes them a transaction at a time, then the parent. "
        "Stopped at any point and run again, it goes on with what is left. Exit status: 0 "
        "removed, 1 not (the reason printed).",
        options=on_model,
    )
    removal.add_argument("entity", help="the parent's entity, as the model names it (Venue)")
    removal.add_argument("key", nargs="+", help="its key, as NAME=VALUE (id=v1)")

    token = add_command(
        subcommands,
        "token",
        commands.token,
        "print a bearer token signed with DYNAGATE_AUTH_SECRET (development and tests)",
    )
    token.add_argument("--sub", required=True, help="the username the token signs in")
    token.add_argument("--admin", action="store_true", help="in the admin group")
    token.add_argument("--ttl", type=int, default=TOKEN_TTL, help="seconds it is valid")
    return parser
