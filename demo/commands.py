"""The demo model's own commands, which `dynagate seed` and `dynagate verify` run: its
demo data, and its offline check of the items it derives (comment copies, the heatmap's
short counts)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from demo.seed import Seeder
from demo.verify import render, verify

if TYPE_CHECKING:
    from store.client import DynamoDBClient


def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--customers", type=int, default=40, help="customers to create")
    parser.add_argument("--max-orders", type=int, default=20, help="most orders per customer")
    parser.add_argument("--products", type=int, default=6, help="products to create")
    parser.add_argument("--max-comments", type=int, default=25, help="most comments per product")
    parser.add_argument(
        "--markers-per-place",
        type=int,
        default=60,
        help="map markers around each of the demo places",
    )
    parser.add_argument(
        "--repos", type=int, default=4, help="repositories, each with issues and stars"
    )
    parser.add_argument(
        "--organizations", type=int, default=2, help="organizations, each with teams"
    )
    parser.add_argument("--queues", type=int, default=2, help="support queues with tickets")


async def seed(client: DynamoDBClient, table: str, args: argparse.Namespace) -> str:
    """The demo data, through the API's own mutations: what was added, or skipped."""
    seeder = Seeder(client, table)
    await seeder.run(args.customers, args.max_orders)
    await seeder.run_comments(args.products, args.max_comments)
    await seeder.run_markers(args.markers_per_place)
    await seeder.run_collections(args.repos, args.organizations, args.queues)
    return seeder.summary()


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repair",
        action="store_true",
        help="put missing and stale copies, delete extra and orphan ones (a comment changed "
        "since the scan is skipped), and rebuild the short cells' counts",
    )
    parser.add_argument("--segments", type=int, default=4, help="parallel Scan segments")


async def check(
    client: DynamoDBClient, table: str, args: argparse.Namespace
) -> tuple[list[str], int]:
    """The report's lines and the exit code (`demo/verify.py`)."""
    report = await verify(client, table, repair=args.repair, segments=args.segments)
    return render(report), report.exit_code
