"""Great-circle distances on the mean Earth sphere: point to point (haversine), and the
nearest and a farthest bound from a point to a geohash cell's box, for searches that read
cells nearest first (`keys/nearest.py`).

A box's edges are meridians and parallels. Seen from a point, the distance along a
parallel grows with the difference of longitude, so the box's nearest point is straight
north or south of the point when the box holds its longitude, and otherwise lies on one of
its two meridian edges: there, at the latitude where the great circle through the point
meets the meridian at a right angle, or at an end of the edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from errors.vocabulary import BadUserInput
from keys.geohash import Box

# The mean Earth radius (IUGG), in metres.
EARTH_RADIUS = 6_371_008.8


@dataclass(frozen=True)
class Point:
    """A position in decimal degrees, checked: BAD_USER_INPUT naming the argument."""

    latitude: float
    longitude: float

    def __post_init__(self) -> None:
        for name, value, limit in (
            ("latitude", self.latitude, 90.0),
            ("longitude", self.longitude, 180.0),
        ):
            if not math.isfinite(value) or not -limit <= value <= limit:
                raise BadUserInput(f"{value} is outside -{limit:g} to {limit:g}", field=name)


def distance(a: Point, lat: float, lon: float) -> float:
    """Metres from `a` to (`lat`, `lon`) along the great circle (haversine)."""
    phi1, phi2 = math.radians(a.latitude), math.radians(lat)
    dphi = phi2 - phi1
    dlambda = math.radians(_difference(lon, a.longitude))
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(math.sqrt(min(1.0, h)))


def nearest_in(a: Point, box: Box) -> float:
    """Metres from `a` to the nearest point of `box` (0 inside it)."""
    lat = min(max(a.latitude, box.south), box.north)
    if box.west <= a.longitude <= box.east:
        return distance(a, lat, a.longitude)
    return min(_to_meridian(a, box, box.west), _to_meridian(a, box, box.east))


def farthest_in(a: Point, box: Box) -> float:
    """At least the metres from `a` to the farthest point of `box`: to its middle, and from
    there along a meridian and then a parallel (no shorter than the great circle) to any
    point of it."""
    middle_lat, middle_lon = (box.south + box.north) / 2, (box.west + box.east) / 2
    widest = 1.0 if box.south <= 0.0 <= box.north else max(_cos(box.south), _cos(box.north))
    half_height = math.radians(box.north - box.south) / 2
    half_width = math.radians(box.east - box.west) / 2 * widest
    return distance(a, middle_lat, middle_lon) + EARTH_RADIUS * (half_height + half_width)


def _to_meridian(a: Point, box: Box, lon: float) -> float:
    """Metres from `a` to the edge of `box` along the meridian `lon`."""
    phi = math.radians(a.latitude)
    dlambda = math.radians(_difference(lon, a.longitude))
    # The latitude where the meridian is nearest to `a`: cos(d) peaks there.
    foot = math.degrees(math.atan2(math.sin(phi), math.cos(phi) * math.cos(dlambda)))
    candidates = [box.south, box.north]
    if box.south <= foot <= box.north:
        candidates.append(foot)
    return min(distance(a, lat, lon) for lat in candidates)


def _difference(lon: float, other: float) -> float:
    """`lon - other` within -180 to 180 (across the antimeridian, the short way)."""
    return (lon - other + 180.0) % 360.0 - 180.0


def _cos(degrees: float) -> float:
    return math.cos(math.radians(degrees))


def circle_boxes(a: Point, radius: float) -> list[Box]:
    """Boxes (at most two, none across the antimeridian) that hold every point within
    `radius` metres of `a`: all longitudes where the circle holds a pole."""
    # A hair wider than exact, so that no rounding leaves a cell of the circle out; the
    # cells found are then kept by their exact nearest distance.
    angle = math.degrees(radius / EARTH_RADIUS) + 1e-9
    south, north = a.latitude - angle, a.latitude + angle
    if north >= 90.0 or south <= -90.0:
        return [Box(max(south, -90.0), min(north, 90.0), -180.0, 180.0)]
    ratio = math.sin(math.radians(angle)) / math.cos(math.radians(a.latitude))
    if ratio >= 1.0:
        return [Box(south, north, -180.0, 180.0)]
    half = math.degrees(math.asin(ratio)) + 1e-9
    west, east = a.longitude - half, a.longitude + half
    if west < -180.0:
        return [Box(south, north, -180.0, east), Box(south, north, west + 360.0, 180.0)]
    if east > 180.0:
        return [Box(south, north, west, 180.0), Box(south, north, -180.0, east - 360.0)]
    return [Box(south, north, west, east)]
