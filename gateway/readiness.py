"""Is the table there to serve? `/readyz` asks on every probe; start-up asks once and
warns with the fix, and serving goes on either way (DynamoDB or the table may come later).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gateway.settings import Settings
from keys.table import Index, Layout
from store.tables import (
    NotReady,
    describe,
    layout_differences,
    missing_indexes,
    stream_problem,
    table_status,
)

if TYPE_CHECKING:
    from store.client import DynamoDBClient

logger = logging.getLogger("dynagate")

# Orchestrators probe readiness every few seconds; a probe must answer within that time.
READY_CHECK_SECONDS = 3.0


async def not_ready(client: DynamoDBClient, table: str) -> NotReady | None:
    """Why the table cannot serve, within READY_CHECK_SECONDS; None when it can."""
    try:
        async with asyncio.timeout(READY_CHECK_SECONDS):
            return await table_status(client, table)
    except TimeoutError:
        return NotReady(
            "unreachable", f"DynamoDB did not answer within {READY_CHECK_SECONDS:.0f} s"
        )


def fix(problem: NotReady, settings: Settings) -> str:
    """What the operator does about `problem`."""
    if problem.kind == "missing":
        return "run `dynagate create-table`"
    if problem.kind == "no-credentials":
        return "configure AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
    if problem.kind == "unreachable" and settings.endpoint is None:
        return (
            "check the network and AWS_REGION, or set DYNAGATE_DYNAMODB_ENDPOINT to a running"
            " `dynagate dynamodb-local`"
        )
    if problem.kind == "unreachable":
        return (
            "start DynamoDB Local with `dynagate dynamodb-local` or set"
            " DYNAGATE_DYNAMODB_ENDPOINT to where DynamoDB listens"
        )
    if problem.kind == "refused":
        return "check that the credentials may call dynamodb:DescribeTable on the table"
    return "see /readyz until it answers 200"


async def layout_refusal(settings: Settings, layout: Layout) -> str | None:
    """Why the table must not be served with `layout`: its key schema or an index differs
    (served, every read and write would fail or land apart from the other app's items).
    None when it matches, or when the table cannot be read yet (then `/readyz` says so)."""
    async with settings.open_client() as client:
        try:
            async with asyncio.timeout(READY_CHECK_SECONDS):
                if await table_status(client, settings.table) is not None:
                    return None
                description = await describe(client, settings.table) or {}
        except TimeoutError:  # unanswered now: serving decides later, by /readyz
            return None
    problems = [
        p for p in layout_differences(description, layout) if "lacks the global index" not in p
    ]
    if not problems:
        return None
    return (
        f"table {settings.table!r} is not the model's layout: {'; '.join(problems)}. Declare"
        " the table as it is (docs/model.md, the table's layout), or serve another table"
    )


async def warn_unless_ready(
    client: DynamoDBClient, settings: Settings, indexes: Sequence[Index] = ()
) -> str | None:
    """One warning at start, naming the endpoint, the table and the fix; one when the
    table lacks `indexes` the model reads (its lists on them answer UNAVAILABLE); and one
    when it has no stream of new and old images, which is returned (what needs one is off)."""
    problem = await not_ready(client, settings.table)
    if problem is None:
        description = await describe(client, settings.table) or {}
        stream = stream_problem(description)
        if stream is not None:
            logger.warning(
                "table %r: %s; served without what needs one: subscriptions hear of no"
                " change, the read cache answers nothing, persisted documents are read from"
                " the table; `dynagate create-table --enable-stream` turns a missing one on",
                settings.table,
                stream,
            )
        missing = [index.name for index in missing_indexes(description, indexes)]
        if missing:
            logger.warning(
                "table %r lacks the indexes %s that the model %r reads: its lists on them"
                " answer UNAVAILABLE until `dynagate migrate apply` adds them",
                settings.table,
                missing,
                settings.model,
            )
        return stream
    where = settings.endpoint or f"AWS ({settings.region})"
    logger.warning(
        "%s (DynamoDB at %s, table %r): %s; serving anyway, /readyz answers 503 until the"
        " table is ready",
        problem.reason,
        where,
        settings.table,
        fix(problem, settings),
    )
    return None
