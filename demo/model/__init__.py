"""The demo: the seeds' domain, the default model. Ticket queues are declared
(`demo/model/tickets.py`); the other areas are still hand-written root types, which join
the derived ones through the model's hook, in the schema's order."""

from __future__ import annotations

from data.changes import AREAS_FOLLOWED
from demo.model import tickets
from model import Model
from resolvers.comments import CommentsMutation, CommentsQuery
from resolvers.derived_roots import Roots
from resolvers.map import MapMutation, MapQuery
from resolvers.orders import OrdersMutation, OrdersQuery
from resolvers.organizations import OrganizationsMutation, OrganizationsQuery
from resolvers.products import ProductsMutation, ProductsQuery
from resolvers.repos import ReposMutation, ReposQuery
from resolvers.subscriptions import (
    CommentSubscription,
    IssueSubscription,
    MarkerSubscription,
    OrderSubscription,
)

MODEL = Model(tickets.ENTITIES, tickets.PATTERNS)


def roots(derived: Roots) -> Roots:
    """The hand-written areas around the declared ones."""
    return Roots(
        query=(
            OrdersQuery,
            ProductsQuery,
            CommentsQuery,
            ReposQuery,
            OrganizationsQuery,
            *derived.query,
            MapQuery,
        ),
        mutation=(
            OrdersMutation,
            ProductsMutation,
            CommentsMutation,
            ReposMutation,
            OrganizationsMutation,
            *derived.mutation,
            MapMutation,
        ),
        subscription=(
            MarkerSubscription,
            CommentSubscription,
            IssueSubscription,
            *derived.subscription,
            OrderSubscription,
        ),
        followed=(*AREAS_FOLLOWED, *derived.followed),
    )
