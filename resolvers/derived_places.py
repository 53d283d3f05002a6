"""The fields of an entity kept by place (`model.Near` and `model.Heatmap`, docs/model.md#places): a
search of a viewport answering `<Entity>Search`, exact cell counts answering `Heatmap`,
and the subscription of the entities entering, changing in or leaving a viewport; each
with its worst case (the heatmap's precision, left out, picked to fit the limits)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping
from functools import lru_cache
from typing import Any

import strawberry

from data.changes import ChangeKind
from data.places import items as entity_places
from data.places.items import Viewport
from errors.vocabulary import BadUserInput
from model import Heatmap, Near, Places
from resolvers.context import Context
from resolvers.derived_arguments import REQUIRED, signed
from resolvers.derived_types import EntityTypes
from resolvers.field_costs import PAGE, Args, FieldCost, Tune, field_with_cost
from resolvers.field_costs import cost as cost_of
from resolvers.planned import CountsRead, SearchRead, planned
from resolvers.relay import NOT_GIVEN, given
from resolvers.subscriptions import follow, subscription

Info = strawberry.Info[Context, None]
# Calls, items read and cells answered.
Figures = tuple[int, int, int]


@strawberry.input(name="Viewport", description="`west > east` crosses the antimeridian.")
class ViewportInput:
    north: float
    south: float
    east: float
    west: float

    def to_viewport(self) -> Viewport:
        return Viewport(north=self.north, south=self.south, east=self.east, west=self.west)


@strawberry.type
class Cell:
    geohash: str
    count: int


@strawberry.type(name="Heatmap")
class HeatmapType:
    precision: int
    cells: list[Cell] = strawberry.field(metadata=cost_of(FieldCost(fanout=PAGE)))


def near(types: EntityTypes, pattern: Near, rule: Any) -> Any:
    """`field(viewport, limit = 100): <Entity>Search!`."""
    entity = pattern.entity
    node = types.types[entity.name]
    counts = next((p.field for p in types.model.of_kind(Heatmap) if p.entity is entity), None)
    # Named by what it holds, never after the root field again (`eventsNear { events }`).
    found = entity.plural_field
    namespace = {
        "__annotations__": {found: list[node], "truncated": bool},  # type: ignore[valid-type]
        found: strawberry.field(metadata=cost_of(FieldCost(fanout=PAGE))),
    }
    found_type = strawberry.type(type(f"{entity.name}Search", (), namespace))

    async def read(context: Context, arguments: Mapping[str, Any]) -> tuple[list[Any], bool]:
        view = arguments["viewport"].to_viewport()
        limit = arguments.get("limit")
        search = await entity_places.search(context.store, entity, view, limit, counts)
        return search.found, search.truncated

    async def resolve(self: Any, info: Info, viewport: ViewportInput, **arguments: Any) -> Any:
        records, truncated = await read(info.context, {**arguments, "viewport": viewport})
        nodes = [types.node(entity, record) for record in records]
        return found_type(**{found: nodes, "truncated": truncated})

    def most(args: Args) -> int:
        """The entities a search may answer with; 0 when the field refuses its `limit`."""
        try:
            return entity_places.checked_limit(args.get("limit"))
        except BadUserInput:
            return 0

    def bound(args: Args) -> tuple[int, int]:
        limit = most(args)
        return entity_places.search_bound(entity, limit) if limit else (0, 0)

    cost = FieldCost(
        requests=lambda args: bound(args)[0],
        items=lambda args: bound(args)[1],
        page=most,
        worst_values={"limit": (entity_places.MAX_LIMIT,)},
    )
    parameters = {
        "viewport": (ViewportInput, REQUIRED),
        "limit": (int | None, entity_places.DEFAULT_LIMIT),
    }
    field = field_with_cost(cost, rule)(signed(resolve, pattern.field, parameters, found_type))
    field.description = pattern.description
    # Shown as they are only when no readers need deciding (`types.node` refuses them).
    return field if entity.readers is not None else planned(field, SearchRead(entity, found, read))


def heatmap(pattern: Heatmap, rule: Any) -> Any:
    """`field(viewport, precision): Heatmap!`."""
    places = pattern.entity.places
    assert places is not None  # checked when the model is built

    async def read(
        context: Context, arguments: Mapping[str, Any], key: str
    ) -> tuple[int, list[tuple[str, int]]]:
        chosen = context.reads.chosen.get(key)
        picked = given(arguments.get("precision"))
        view = arguments["viewport"].to_viewport()
        found = await entity_places.heatmap(
            context.store, places, view, chosen if picked is None else picked
        )
        return found.precision, found.counts

    async def resolve(self: Any, info: Info, viewport: ViewportInput, **arguments: Any) -> Any:
        given_arguments = {**arguments, "viewport": viewport}
        precision, counts = await read(info.context, given_arguments, str(info.path.key))
        cells = [Cell(geohash=geohash, count=count) for geohash, count in counts]
        return HeatmapType(precision=precision, cells=cells)

    def figures(args: Args) -> Figures:
        """Calls, items and cells, each figure of one field from one computation."""
        view = args["viewport"]
        corners = (view["north"], view["south"], view["east"], view["west"])
        return _heatmap_bound(places, corners, args.get("precision"))

    def precisions(args: Args) -> list[int]:
        """The precisions the field falls back on to fit the limits, largest first."""
        view = args["viewport"]
        try:
            viewport = Viewport(view["north"], view["south"], view["east"], view["west"])
            return entity_places.precision_choices(viewport, args.get("precision"))
        except BadUserInput:
            return []  # the field refuses the view before any read

    cost = FieldCost(
        requests=lambda args: figures(args)[0],
        items=lambda args: figures(args)[1],
        page=lambda args: figures(args)[2],
        tune=Tune("precision", precisions, advice="zoom in, or select fewer fields of each cell"),
        # Each the viewport may allow (left out, the gateway picks one of them).
        worst_values={"precision": tuple(entity_places.CELL_LENGTHS)},
        unbounded={"viewport": "its viewport"},
    )
    parameters = {"viewport": (ViewportInput, REQUIRED), "precision": (int | None, NOT_GIVEN)}
    field = field_with_cost(cost, rule)(signed(resolve, pattern.field, parameters, HeatmapType))
    field.description = pattern.description
    return planned(field, CountsRead(read))


@lru_cache(maxsize=1024)
def _heatmap_bound(
    places: Places, view: tuple[float, float, float, float], precision: int | None
) -> Figures:
    try:
        return entity_places.heatmap_bound(places, Viewport(*view), precision)
    except BadUserInput:
        return 0, 0, 0  # the field refuses the view or precision before any read


def follow_near(
    types: EntityTypes, pattern: Near, rule: Any, made: Callable[[ChangeKind, Any], Any]
) -> Any:
    """`subscription(viewport): <Entity>Change!`: the entities that enter, move or change
    inside the viewport, or leave it."""
    entity = pattern.entity
    lat, lon, _ = entity.position
    name = pattern.subscription or ""

    async def resolve(self: Any, info: Info, viewport: ViewportInput) -> AsyncGenerator[Any, None]:
        view = viewport.to_viewport()

        def inside(state: Any) -> bool:
            return view.contains(state[lat], state[lon])

        return follow(info, ((name, ""), inside), made)

    returns = AsyncGenerator[types.changes[entity.name], None]  # type: ignore[name-defined]
    parameters = {"viewport": (ViewportInput, REQUIRED)}
    field = subscription(rule)(signed(resolve, name, parameters, returns))
    field.description = pattern.subscription_description
    return field
