"""The demo: the seeds' domain, the default model, declared (`demo/model/`): customers and
orders, products and comments, repositories, organizations, ticket queues and map
markers. What no declaration covers (gapless issue numbers, star counts, the roles of an
organization's members) is hand-written root types, which join the derived ones through
the model's hook, in the schema's order."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from demo import organization_fields, repo_fields
from demo.model import comments, markers, orders, organizations, repos, tickets
from dynagate import Face, Roots
from model import GSI1, GSI2, GSI3, TABLE, Layout, Model

if TYPE_CHECKING:
    from dynagate import DynamoDBClient, Seeding

AREAS = (orders, comments, repos, organizations, tickets, markers)
# The table as dynagate makes it: `PK`/`SK`, and three overloaded global indexes.
LAYOUT = Layout(TABLE, (GSI1, GSI2, GSI3))
MODEL = Model(
    tuple(entity for area in AREAS for entity in area.ENTITIES),
    tuple(pattern for area in AREAS for pattern in area.PATTERNS),
    LAYOUT,
)
_COMMENTS_QUERY = ("product", "comment")
_COMMENTS_MUTATION = ("createProduct", "postComment", "editComment", "deleteComment")


def roots(derived: Roots) -> Roots:
    """The hand-written areas around the declared ones."""
    return Roots(
        query=(
            *derived.part("customer", "order", "openOrders"),
            *derived.part(*_COMMENTS_QUERY),
            *derived.part("repo"),
            *derived.part("organization"),
            *derived.part("queue", "ticket"),
            *derived.part("markers", "heatmap"),
        ),
        mutation=(
            *derived.part("createCustomer", "placeOrder", "setOrderStatus"),
            *derived.part(*_COMMENTS_MUTATION),
            *derived.part("createRepo"),
            repo_fields.issue_mutation(derived),
            *derived.part("closeIssue"),
            repo_fields.star_mutations(derived),
            organization_fields.organization_mutations(derived),
            *derived.part("createQueue", "openTicket", "updateTicket"),
            *derived.part("addMarker", "removeMarker"),
        ),
        subscription=(
            *derived.part("markerChanges"),
            *derived.part("commentChanges"),
            *derived.part("issueChanges"),
            *derived.part("ticketChanges", "orderChanges"),
        ),
        followed=derived.followed,
    )


# `dynagate seed` and `dynagate verify`: the demo's data and checks (`demo/commands.py`),
# imported when a command runs them, not when the model is served.
def add_seed_arguments(parser: argparse.ArgumentParser) -> None:
    from demo import commands

    commands.add_seed_arguments(parser)


async def seed(api: Seeding, args: argparse.Namespace) -> str:
    from demo import commands

    return await commands.seed(api, args)


async def verify(
    client: DynamoDBClient, table: str, args: argparse.Namespace
) -> tuple[list[str], int]:
    from demo import commands

    return await commands.verify(client, table, args)


# What the gateway serves of this module: the model and its hooks (docs/model.md#the-hook).
FACE = Face(MODEL, roots=roots, seed_options=add_seed_arguments, seed=seed, verify=verify)
