"""The demo: the seeds' domain, the default model. Customers and orders, ticket queues,
products and comments, and map markers are declared (`demo/model/`); the other areas are
still hand-written root types, which join the derived ones through the model's hook, in
the schema's order."""

from __future__ import annotations

from data.changes import AREAS_FOLLOWED
from demo.model import comments, markers, orders, tickets
from model import Model
from resolvers.derived_roots import Roots
from resolvers.organizations import OrganizationsMutation, OrganizationsQuery
from resolvers.repos import ReposMutation, ReposQuery
from resolvers.subscriptions import IssueSubscription

MODEL = Model(
    (*orders.ENTITIES, *comments.ENTITIES, *tickets.ENTITIES, *markers.ENTITIES),
    (*orders.PATTERNS, *comments.PATTERNS, *tickets.PATTERNS, *markers.PATTERNS),
)
_COMMENTS_QUERY = ("product", "comment")
_COMMENTS_MUTATION = ("createProduct", "postComment", "editComment", "deleteComment")


def roots(derived: Roots) -> Roots:
    """The hand-written areas around the declared ones."""
    return Roots(
        query=(
            *derived.part("customer", "order", "openOrders"),
            *derived.part(*_COMMENTS_QUERY),
            ReposQuery,
            OrganizationsQuery,
            *derived.part("queue", "ticket"),
            *derived.part("markers", "heatmap"),
        ),
        mutation=(
            *derived.part("createCustomer", "placeOrder", "setOrderStatus"),
            *derived.part(*_COMMENTS_MUTATION),
            ReposMutation,
            OrganizationsMutation,
            *derived.part("createQueue", "openTicket", "updateTicket"),
            *derived.part("addMarker", "removeMarker"),
        ),
        subscription=(
            *derived.part("markerChanges"),
            *derived.part("commentChanges"),
            IssueSubscription,
            *derived.part("ticketChanges", "orderChanges"),
        ),
        followed=(*AREAS_FOLLOWED, *derived.followed),
    )
