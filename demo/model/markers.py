"""Map markers and heatmap cells over geohash partitions (seed 002), declared.

    marker    PK = SK = MARKER#<ksuid>                            by id
              PK = DgMa#<geohash[0:3]>   SK = <geohash[3:12]>#<ksuid>   where it is
    cell      PK = DgCe#<geohash[0:L-3]> SK = <geohash[L-3:L]>    count, for L = 3..8
              PK = DgCe<L>#              SK = <geohash[0:L]>      count, for L = 1, 2

`Dg` is the app, `Ma`/`Ce` the purpose (marker data, cell counts): `keys/map.py` says how
places and counts are laid out, docs/design.md how they are read.
"""

from __future__ import annotations

from model import (
    Author,
    Coordinate,
    Create,
    Delete,
    Entity,
    GeneratedId,
    Geohash,
    Heatmap,
    Near,
    Places,
    Text,
    Timestamp,
    key,
    same,
)

MARKER_PLACES = Places(places="DgMa", cells="DgCe")
MARKER = Entity(
    "Marker",
    {
        "id": GeneratedId(),
        "lat": Coordinate(axis="lat"),
        "lon": Coordinate(axis="lon"),
        "geohash": Geohash(),
        "label": Text(),
        "createdAt": Timestamp(stamped="create"),
        "createdBy": Author(verb="added", role="creator"),
    },
    key=same(key("MARKER", "id")),
    places=MARKER_PLACES,
)
ENTITIES = (MARKER,)
PATTERNS = (
    Near(MARKER, "markers", subscription="markerChanges"),
    Heatmap(MARKER, "heatmap"),
    Create(MARKER, "addMarker", done="added"),
    Delete(MARKER, "removeMarker"),
)
