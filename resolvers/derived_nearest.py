"""The field of an entity kept by place that answers those within a radius of a point,
nearest first (`model.Nearest`): a connection of `<Entity>NearbyEdge`s, each with its
distance in metres, paged by `first` and `after`, with its worst case before any read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import strawberry

from data.places import nearest as entity_nearest
from errors.vocabulary import BadUserInput
from model import Nearest
from resolvers.context import Context
from resolvers.derived_arguments import REQUIRED, signed
from resolvers.derived_types import EntityTypes
from resolvers.field_costs import PAGE, Args, FieldCost, cost, field_with_cost, page_size
from resolvers.relay import NOT_GIVEN, PageInfo, given

Info = strawberry.Info[Context, None]


def nearest_field(types: EntityTypes, pattern: Nearest, rule: Any) -> Any:
    """`field(latitude, longitude, radiusMeters, first = 20, after): <Entity>NearbyConnection!`."""
    entity = pattern.entity
    node = types.types[entity.name]
    edge = strawberry.type(
        type(
            f"{entity.name}NearbyEdge",
            (),
            {
                "__annotations__": {"cursor": str, "distance_meters": float, "node": node},
                "cursor": strawberry.field(
                    description=f"Where the {entity.noun} stands: give it as `after` to go on."
                ),
                "distance_meters": strawberry.field(
                    description="Metres along the great circle from the point (haversine, on"
                    " the mean Earth radius of 6,371,008.8 m)."
                ),
            },
        ),
        description=f"A {entity.noun} and its great-circle distance from the point, in metres.",
    )
    connection = strawberry.type(
        type(
            f"{entity.name}NearbyConnection",
            (),
            {
                "__annotations__": {"edges": list[edge], "page_info": PageInfo},  # type: ignore[valid-type]
                "edges": strawberry.field(
                    description=f"The page, nearest first: each {entity.noun} with its distance.",
                    metadata=cost(FieldCost(fanout=PAGE)),
                ),
            },
        ),
        description="Nearest first; at one distance, by key.",
    )

    async def resolve(self: Any, info: Info, **arguments: Any) -> Any:
        args = {name: given(value) for name, value in arguments.items()}
        context = info.context
        found = await entity_nearest.nearby(context.store, context.pages.cursors, pattern, args)
        edges = [
            edge(cursor=e.cursor, distance_meters=e.distance, node=types.node(entity, e.record))
            for e in found.edges
        ]
        page_info = PageInfo(
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
            next_check=_known(found.has_next_page),
            previous_check=_known(found.has_previous_page),
        )
        return connection(edges=edges, page_info=page_info)

    def figures(args: Args) -> tuple[int, int]:
        return entity_nearest.bound(pattern, dict(args))

    def edges_of(args: Args) -> int:
        try:
            entity_nearest.asked(pattern, dict(args))
        except (BadUserInput, TypeError, ValueError):
            return 0  # refused before any read
        return page_size(args)

    read = FieldCost(
        requests=lambda args: figures(args)[0],
        items=lambda args: figures(args)[1],
        page=edges_of,
        # Both flags are known from the page itself.
        flag=lambda args: (0, 0),
        worst_values={entity_nearest.RADIUS: (pattern.max_radius,)},
        unbounded={"latitude": "its latitude (a circle holding a pole reads every partition)"},
    )
    within = f"In metres: above 0, at most {pattern.max_radius:g}."
    parameters = {
        "latitude": (float, REQUIRED),
        "longitude": (float, REQUIRED),
        entity_nearest.RADIUS: (
            Annotated[float, strawberry.argument(description=within)],
            REQUIRED,
        ),
        "first": (int | None, NOT_GIVEN),
        "after": (str | None, NOT_GIVEN),
    }
    field = field_with_cost(read, rule)(signed(resolve, pattern.field, parameters, connection))
    field.description = pattern.description
    return field


def _known(value: bool) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return value

    return check
