"""Map markers and heatmap cells over geohash partitions (seed 002)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

import strawberry

from data import map as data
from keys.errors import BadUserInput
from resolvers.access import ANYONE, AUTHOR, Stored
from resolvers.context import Context
from resolvers.cost import (
    PAGE,
    Args,
    FieldCost,
    Tune,
    cost,
    field_with_cost,
    mutation_with_cost,
    writes,
)
from resolvers.records import FromRecord, written_by
from resolvers.relay import NOT_GIVEN, given

Info = strawberry.Info[Context, None]
DEFAULT_LIMIT = 100


@strawberry.input(name="Viewport", description="`west > east` crosses the antimeridian.")
class ViewportInput:
    north: float
    south: float
    east: float
    west: float

    def to_viewport(self) -> data.Viewport:
        return data.Viewport(north=self.north, south=self.south, east=self.east, west=self.west)


# Calls, items read and cells answered.
Figures = tuple[int, int, int]


def _limit(args: Args) -> int:
    """The markers a search may answer with; 0 when the field refuses its `limit`."""
    limit = DEFAULT_LIMIT if args.get("limit") is None else int(args["limit"])
    return limit if 1 <= limit <= data.MAX_LIMIT else 0


def _markers_bound(args: Args) -> tuple[int, int]:
    limit = _limit(args)
    return data.markers_bound(limit) if limit else (0, 0)


@lru_cache(maxsize=1024)
def _heatmap_bound(view: tuple[float, float, float, float], precision: int | None) -> Figures:
    try:
        return data.heatmap_bound(data.Viewport(*view), precision)
    except BadUserInput:
        return 0, 0, 0  # the field refuses the view or precision before any read


def _heatmap(args: Args) -> Figures:
    """Calls, items and cells of `heatmap`, each figure of one field from one computation."""
    view = args["viewport"]
    corners = (view["north"], view["south"], view["east"], view["west"])
    return _heatmap_bound(corners, args.get("precision"))


def _precisions(args: Args) -> list[int]:
    """The precisions `heatmap` falls back on to fit the limits, largest first."""
    view = args["viewport"]
    try:
        viewport = data.Viewport(view["north"], view["south"], view["east"], view["west"])
        return data.precision_choices(viewport, args.get("precision"))
    except BadUserInput:
        return []  # the field refuses the view before any read


MARKERS_READ = FieldCost(
    requests=lambda args: _markers_bound(args)[0],
    items=lambda args: _markers_bound(args)[1],
    page=_limit,
    worst_values={"limit": (data.MAX_LIMIT,)},
)
HEATMAP_READ = FieldCost(
    requests=lambda args: _heatmap(args)[0],
    items=lambda args: _heatmap(args)[1],
    page=lambda args: _heatmap(args)[2],
    tune=Tune("precision", _precisions, advice="zoom in, or select fewer fields of each cell"),
    # Each the viewport may allow (left out, the gateway picks one of them).
    worst_values={"precision": tuple(data.CELL_LENGTHS)},
    unbounded={"viewport": "its viewport"},
)


@strawberry.type
class Marker(FromRecord):
    id: strawberry.ID
    lat: float
    lon: float
    geohash: str
    label: str
    created_at: datetime
    created_by: str | None = written_by("added", "a marker")


@strawberry.type
class MarkerSearch:
    markers: list[Marker] = strawberry.field(metadata=cost(FieldCost(fanout=PAGE)))
    truncated: bool

    @classmethod
    def from_record(cls, search: data.MarkerSearch) -> MarkerSearch:
        return cls(
            markers=[Marker.from_record(m) for m in search.markers], truncated=search.truncated
        )


@strawberry.type
class Cell(FromRecord):
    geohash: str
    count: int


@strawberry.type
class Heatmap:
    precision: int
    cells: list[Cell] = strawberry.field(metadata=cost(FieldCost(fanout=PAGE)))

    @classmethod
    def from_record(cls, heatmap: data.Heatmap) -> Heatmap:
        return cls(precision=heatmap.precision, cells=[Cell.from_record(c) for c in heatmap.cells])


@strawberry.input
class AddMarkerInput:
    lat: float
    lon: float
    label: str


@strawberry.type
class MapQuery:
    @field_with_cost(MARKERS_READ, ANYONE)
    async def markers(
        self, info: Info, viewport: ViewportInput, limit: int | None = DEFAULT_LIMIT
    ) -> MarkerSearch:
        """Markers inside the viewport (edges included); at most 0.5 degrees a side."""
        view = viewport.to_viewport()
        # `limit: null` is the default; 0 is out of range, not "the default".
        limit = DEFAULT_LIMIT if limit is None else limit
        found = await data.search_markers(info.context.store, view, limit)
        return MarkerSearch.from_record(found)

    @field_with_cost(HEATMAP_READ, ANYONE)
    async def heatmap(
        self, info: Info, viewport: ViewportInput, precision: int | None = NOT_GIVEN
    ) -> Heatmap:
        """Exact marker counts of the geohash cells of one length that meet the viewport:
        `precision`, 1 to 8, or left out the largest the view and the limits allow."""
        chosen = info.context.chosen.get(str(info.path.key))
        picked = given(precision)
        result = await data.heatmap(
            info.context.store, viewport.to_viewport(), chosen if picked is None else picked
        )
        return Heatmap.from_record(result)


@strawberry.type
class MapMutation:
    @mutation_with_cost(writes(data.add_marker), AUTHOR)
    async def add_marker(self, info: Info, input: AddMarkerInput) -> Marker:
        marker = await data.add_marker(
            info.context.store, input.lat, input.lon, input.label, caller=info.context.caller
        )
        return Marker.from_record(marker)

    @mutation_with_cost(writes(data.remove_marker), Stored("the marker's creator"))
    async def remove_marker(self, info: Info, id: strawberry.ID) -> bool:
        await data.remove_marker(info.context.store, id, caller=info.context.caller)
        return True
