"""What `dynagate seed` says it did: what it wrote, and what it found there and skipped."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from demo.seed import Seeder

if TYPE_CHECKING:
    from types_aiobotocore_dynamodb import DynamoDBClient


async def test_seeding_again_adds_only_what_is_missing(client: DynamoDBClient, table: str) -> None:
    first = Seeder(client, table)
    await first.run(customers=2, max_orders=2)
    assert re.fullmatch(rf"seeded 2 customers and \d+ orders into '{table}'", first.summary())

    more = Seeder(client, table)
    await more.run(customers=3, max_orders=2)
    await more.run_collections(repos=0, organizations=0, queues=1)
    assert re.fullmatch(
        rf"seeded 1 customers and \d+ orders and 1 queues into '{table}';"
        r" skipped what was there already: 2 customers",
        more.summary(),
    )

    again = Seeder(client, table)
    await again.run(customers=3, max_orders=2)
    assert again.summary() == (
        f"the demo data already exists in '{table}', nothing was added (skipped 3 customers)"
    )
    assert Seeder(client, table).summary() == f"seeded nothing into '{table}'"
