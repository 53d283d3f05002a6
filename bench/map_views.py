"""The viewports of bench.map, the uniform marker fields around them, and their items.

Each view kind (small, city, max) has its own density, chosen so that one view holds about
`per_view` markers; markers are spread uniformly over a square "field" centred on the view
and `margin` view-sides wider on every side, so ranges that read past the view's edge find
markers at the same density. Fields never overlap (checked), and each kind has one view
crossing the antimeridian.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from data import validation
from data.clock import new_ksuid
from keys import map as map_keys
from keys.codecs import format_timestamp
from keys.geohash import Box
from store.requests import Item


@dataclass(frozen=True)
class Kind:
    name: str
    side: float  # degrees, both ways
    places: tuple[tuple[str, float, float], ...]  # (name, latitude, longitude) of the centre


KINDS: tuple[Kind, ...] = (
    Kind(
        "small",
        0.01,
        (
            ("Paris", 48.8566, 2.3522),
            ("New York", 40.7128, -74.0060),
            ("Sao Paulo", -23.5505, -46.6333),
            ("Singapore", 1.3521, 103.8198),
            ("Taveuni (180)", -16.80, 180.0),
        ),
    ),
    Kind(
        "city",
        0.1,
        (
            ("London", 51.5074, -0.1278),
            ("Tokyo", 35.6762, 139.6503),
            ("Sydney", -33.8688, 151.2093),
            ("Chicago", 41.8781, -87.6298),
            ("Chukotka (180)", 66.0, 180.0),
        ),
    ),
    Kind(
        "max",
        map_keys.MAX_MARKER_SPAN,
        (
            ("Berlin", 52.52, 13.405),
            ("Nairobi", -1.2921, 36.8219),
            ("Los Angeles", 34.0522, -118.2437),
            ("Null Island", 0.0, 0.0),
            ("Fiji (180)", -18.0, 180.0),
        ),
    ),
)

# Views only `heatmap` accepts (wider than 0.5 degrees): requests only, no markers there.
WIDE_HEATMAP_VIEWS: tuple[tuple[str, float, float, float], ...] = (
    ("region 2 deg, Paris", 2.0, 48.8566, 2.3522),
    ("country 10 deg, Germany", 10.0, 51.0, 10.0),
    ("continent 40 deg, Europe", 40.0, 50.0, 15.0),
    ("ocean 20 deg, Pacific (180)", 20.0, -15.0, 180.0),
)


@dataclass(frozen=True)
class View:
    kind: str
    place: str
    viewport: map_keys.Viewport
    lat: float  # centre
    lon: float
    side: float

    @property
    def label(self) -> str:
        return f"{self.kind}/{self.place}"

    def describe(self) -> str:
        v = self.viewport
        return f"N{v.north:.4f} S{v.south:.4f} W{v.west:.4f} E{v.east:.4f}"


def wrap(lon: float) -> float:
    """A longitude brought into -180..180 (180 stays 180)."""
    if -180.0 <= lon <= 180.0:
        return lon
    return (lon + 180.0) % 360.0 - 180.0


def viewport(lat: float, lon: float, side: float) -> map_keys.Viewport:
    """The `side` by `side` view centred on (lat, lon), never a hair over `side` wide/tall."""
    south = round(lat - side / 2, 9)
    north = south + side
    while north - south > side:
        north = math.nextafter(north, -math.inf)
    west = round(wrap(lon - side / 2), 9)
    east = wrap(west + side)
    view = map_keys.Viewport(north=north, south=south, east=east, west=west)
    while view.width > side:
        east = math.nextafter(east, -math.inf)
        view = map_keys.Viewport(north=north, south=south, east=east, west=west)
    return view


def views() -> list[View]:
    return [
        View(kind.name, place, viewport(lat, lon, kind.side), lat, lon, kind.side)
        for kind in KINDS
        for place, lat, lon in kind.places
    ]


def wide_views() -> list[View]:
    return [
        View("wide", place, viewport(lat, lon, side), lat, lon, side)
        for place, side, lat, lon in WIDE_HEATMAP_VIEWS
    ]


@dataclass(frozen=True)
class Field:
    """Where one view's markers are spread: a square around it, split at the antimeridian."""

    view: View
    half: float  # half the side, degrees

    @property
    def boxes(self) -> list[Box]:
        south, north = self.view.lat - self.half, self.view.lat + self.half
        west, east = self.view.lon - self.half, self.view.lon + self.half
        if west < -180.0:
            return [Box(south, north, west + 360.0, 180.0), Box(south, north, -180.0, east)]
        if east > 180.0:
            return [Box(south, north, west, 180.0), Box(south, north, -180.0, east - 360.0)]
        return [Box(south, north, west, east)]

    @property
    def area(self) -> float:
        return (2 * self.half) ** 2


def fields(all_views: Sequence[View], margin: float) -> list[Field]:
    """One field per view; ValueError if two would overlap (densities would add up)."""
    made = [Field(v, v.side / 2 + margin * v.side) for v in all_views]
    for i, a in enumerate(made):
        for b in made[i + 1 :]:
            if any(x.intersects(y) for x in a.boxes for y in b.boxes):
                raise ValueError(f"the fields of {a.view.label} and {b.view.label} overlap")
    return made


def marker_item(lat: float, lon: float, label: str, marker_id: str, created_at: str) -> Item:
    """The place item `data.map.add_marker` writes (what `markers` reads)."""
    geohash = map_keys.marker_geohash(lat, lon)
    fields_ = {
        "id": marker_id,
        "lat": lat,
        "lon": lon,
        "geohash": geohash,
        "label": validation.text(label, "label"),
        "createdAt": created_at,
    }
    return {**map_keys.marker_place(geohash, marker_id), **fields_, "type": "MARKER"}


@dataclass(frozen=True)
class Markers:
    by_field: dict[str, list[Item]]  # place items, by the label of the view they surround
    density: dict[str, float]  # per square degree, by kind

    @property
    def items(self) -> list[Item]:
        return [m for items in self.by_field.values() for m in items]


def spread(all_fields: Sequence[Field], per_view: int, seed: int, at: datetime) -> Markers:
    """Uniform markers: `per_view` expected in each view, at its kind's density."""
    rng = random.Random(seed)
    created = format_timestamp(at)
    by_field: dict[str, list[Item]] = {}
    density: dict[str, float] = {}
    for f in all_fields:
        view = f.view
        density[view.kind] = per_view / view.side**2
        items = by_field[view.label] = []
        for n in range(round(density[view.kind] * f.area)):
            lat = round(view.lat + rng.uniform(-f.half, f.half), 7)
            lon = round(wrap(view.lon + rng.uniform(-f.half, f.half)), 7)
            label = f"bench {view.label} #{n}"
            items.append(marker_item(lat, lon, label, new_ksuid(at), created))
    return Markers(by_field, density)


def inside(items: Iterable[Item], view: View) -> set[str]:
    """Ids of the markers in `view` (edges included): what `markers` must return."""
    return {m["id"] for m in items if view.viewport.contains(m["lat"], m["lon"])}


def count_items(markers: Markers, precision: Mapping[str, int]) -> list[Item]:
    """The cell-count items add_marker keeps, at the length each view's heatmap reads.

    `precision` maps a view label to its length. A kept cell counts every marker in it, so
    its count is exact; cells of a length that hold no marker of a field read at that length
    are left out (the heatmap of no view reads them).
    """
    everything = markers.items
    out: list[Item] = []
    for length in sorted(set(precision.values())):
        wanted = {
            m["geohash"][:length]
            for label, items in markers.by_field.items()
            if precision.get(label) == length
            for m in items
        }
        counts = Counter(m["geohash"][:length] for m in everything)
        out += [
            {**map_keys.cell_key(c), "count": n} for c, n in sorted(counts.items()) if c in wanted
        ]
    return out
