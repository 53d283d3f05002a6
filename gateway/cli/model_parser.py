"""The arguments of `dynagate model`: its actions `check`, `inspect`, `infer` and `chart`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from gateway.cli import commands
from gateway.cli.arguments import Commands, add_actions, add_command


def add_model_actions(subcommands: Commands, on_model: Sequence[argparse.ArgumentParser]) -> None:
    """`dynagate model` and its actions, each on the model `on_model` names."""
    model_actions = add_actions(
        subcommands,
        "model",
        "check the model: its declarations, its access patterns' requests, its chart, a live table",
    )
    add_command(
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
    inspect = add_command(
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
    infer = add_command(
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
    chart = add_command(
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
