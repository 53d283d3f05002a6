"""A model of sites on a map (`DYNAGATE_MODEL=tests.model.sites`): kept by place, changed,
moved and removed by the curator who added them, and listed by category on an index the
model gained since `tests/model/sites_v1.py` wrote its table.
    site   PK = SK = SITE#<id>         GSI1  SITES#<category> / SITE#<id>
           its place StPl#<cell[0:3]> / <cell[3:12]>#<id>, its cells counted StCe#…
"""

from __future__ import annotations

from enum import StrEnum

import model as m
from keys.table import GSI1

Category = StrEnum("Category", {"MUSEUM": "MUSEUM", "PARK": "PARK", "OTHER": "OTHER"})
SITE = m.Entity(
    "Site",
    {
        "id": m.Identifier(),
        "name": m.Text(max_length=60),
        "lat": m.Coordinate(axis="lat"),
        "lon": m.Coordinate(axis="lon"),
        "cell": m.Geohash(shown=False),
        "category": m.Choice(values=Category, initial=Category.OTHER),
        "updatedAt": m.Timestamp(stamped="write"),
        "by": m.Author(verb="added", role="curator"),
    },
    key=m.same(m.key("SITE", "id")),
    indexes={GSI1: m.Keys(m.key("SITES", "category"), m.key("SITE", "id"))},
    places=m.Places("StPl", "StCe"),
)
MODEL = m.Model(
    (SITE,),
    (
        m.Lookup(SITE, "site", access="anyone"),
        m.Near(SITE, "sitesNear"),
        m.Heatmap(SITE, "siteMap"),
        m.ListOf(SITE, GSI1, "sitesOf", root=True, access="anyone"),
        m.Create(SITE, "addSite"),
        m.Update(SITE, "changeSite", ("name", "lat", "lon", "category")),
        m.Delete(SITE, "removeSite"),
    ),
)
