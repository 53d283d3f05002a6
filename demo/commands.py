"""The demo model's own commands, which `dynagate seed` and `dynagate verify` run: its
demo data, and its offline check of the items it derives (comment copies, the heatmap's
short counts)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from demo import verify as checks
from demo.seed import Seeder

if TYPE_CHECKING:
    from dynagate import DynamoDBClient, Seeding


# The seed's options: each a count, its default and what it counts.
SEED_COUNTS = (
    ("--customers", 40, "customers to create"),
    ("--max-orders", 20, "most orders per customer"),
    ("--products", 6, "products to create"),
    ("--max-comments", 25, "most comments per product"),
    ("--markers-per-place", 60, "map markers around each of the demo places"),
    ("--repos", 4, "repositories, each with issues and stars"),
    ("--organizations", 2, "organizations, each with teams"),
    ("--queues", 2, "support queues with tickets"),
)


def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    for option, default, counted in SEED_COUNTS:
        parser.add_argument(option, type=int, default=default, help=counted)


async def seed(api: Seeding, args: argparse.Namespace) -> str:
    """The demo data, through the API's own mutations: what was added, or skipped."""
    seeder = Seeder(api.client, api.table)
    await seeder.run(args.customers, args.max_orders)
    await seeder.run_comments(args.products, args.max_comments)
    await seeder.run_markers(args.markers_per_place)
    await seeder.run_collections(args.repos, args.organizations, args.queues)
    return seeder.summary()


async def verify(
    client: DynamoDBClient, table: str, args: argparse.Namespace
) -> tuple[list[str], int]:
    """The report's lines and the exit code (`demo/verify.py`)."""
    report = await checks.verify(client, table, repair=args.repair, segments=args.segments)
    return checks.render(report), report.exit_code
