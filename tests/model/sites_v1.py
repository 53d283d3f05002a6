"""The sites model as it was before it grew (`tests/model/sites.py` is now): no category,
no list by category, sites neither changed nor moved. Migrating its table gives each
site's own item its category's initial value and its GSI1 keys, and its place item the
category."""

from __future__ import annotations

from dataclasses import replace

import model as m
from tests.model.sites import SITE

SITE_V1 = replace(
    SITE,
    attributes={n: a for n, a in SITE.attributes.items() if n != "category"},
    indexes={},
)
MODEL = m.Model(
    (SITE_V1,),
    (
        m.Lookup(SITE_V1, "site", access="anyone"),
        m.Near(SITE_V1, "sitesNear"),
        m.Heatmap(SITE_V1, "siteMap"),
        m.Create(SITE_V1, "addSite"),
        m.Delete(SITE_V1, "removeSite"),
    ),
)
