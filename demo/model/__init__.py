"""The demo: the seeds' domain, the default model. Ticket queues are declared
(`demo/model/tickets.py`); the other areas are still hand-written root types, which join
the derived ones through the model's hook, in the schema's order."""

from __future__ import annotations

from data.changes import AREAS_FOLLOWED
from demo.model import comments, tickets
from model import Model
from resolvers.derived_roots import Roots
from resolvers.map import MapMutation, MapQuery
from resolvers.orders import OrdersMutation, OrdersQuery
from resolvers.organizations import OrganizationsMutation, OrganizationsQuery
from resolvers.repos import ReposMutation, ReposQuery
from resolvers.subscriptions import (
    IssueSubscription,
    MarkerSubscription,
    OrderSubscription,
)

MODEL = Model((*comments.ENTITIES, *tickets.ENTITIES), (*comments.PATTERNS, *tickets.PATTERNS))
_COMMENTS_QUERY = ("product", "comment")
_COMMENTS_MUTATION = ("createProduct", "postComment", "editComment", "deleteComment")


def roots(derived: Roots) -> Roots:
    """The hand-written areas around the declared ones."""
    return Roots(
        query=(
            OrdersQuery,
            *derived.part(*_COMMENTS_QUERY),
            ReposQuery,
            OrganizationsQuery,
            *derived.part("queue", "ticket"),
            MapQuery,
        ),
        mutation=(
            OrdersMutation,
            *derived.part(*_COMMENTS_MUTATION),
            ReposMutation,
            OrganizationsMutation,
            *derived.part("createQueue", "openTicket", "updateTicket"),
            MapMutation,
        ),
        subscription=(
            MarkerSubscription,
            *derived.part("commentChanges"),
            IssueSubscription,
            *derived.part("ticketChanges"),
            OrderSubscription,
        ),
        followed=(*AREAS_FOLLOWED, *derived.followed),
    )
