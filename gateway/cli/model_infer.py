"""`dynagate model infer`: a first model file drafted from a live table's description and a
sample of its items (an admin's command: a Scan within a budget of items), written to a new
file or printed, to edit from there (`data/inference/drafts.py` drafts it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from data.inference.drafts import InferenceError, drafted, sampled
from data.inference.source import source
from gateway.cli.errors import CommandFailed
from gateway.settings import Settings
from store.client import Store
from store.tables import describe


def infer(args: argparse.Namespace, most: int) -> int:
    """The draft of `args.table` (else DYNAGATE_TABLE) from at most `args.sample` items,
    written to `args.output` (a file that is not there yet) or printed; exit 1 on a table
    that is missing, empty, or keyed so that no model serves it."""
    if not 1 <= args.sample <= most:
        raise CommandFailed(f"--sample {args.sample}: read 1 to {most:,} items")
    output: Path | None = args.output
    if output is not None and output.exists():
        raise CommandFailed(f"{output} exists: give a new file, which infer writes, or none")
    settings = Settings.from_env(serving=False)
    table: str = args.table or settings.table

    async def run() -> tuple[dict[str, Any], list[dict[str, Any]], int]:
        async with settings.open_client() as client:
            description = await describe(client, table)
            if description is None:
                raise CommandFailed(f"table {table!r} does not exist")
            items, scanned = await sampled(Store(client, table), args.sample)
            return description, items, scanned

    description, items, scanned = asyncio.run(run())
    try:
        draft = drafted(description, items, table=table, scanned=scanned)
    except InferenceError as exc:
        raise CommandFailed(str(exc)) from None
    text = source(draft)
    said = (
        f"drafted {len(draft.entities)} entities of table {table!r} from a sample of"
        f" {scanned} items"
    )
    if output is None:
        sys.stdout.write(text)
        print(said, file=sys.stderr)
    else:
        output.write_text(text, encoding="utf-8")
        print(f"{said}: {output}; review it, then `dynagate model check --model {output}`")
    return 0
