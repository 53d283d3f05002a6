"""A model of a table dynagate did not make (`DYNAGATE_MODEL=tests.model.adopted`): an app's
own boto3 code wrote it, keyed `pk`/`sk` with one global index `gsi1` on `gsi1pk`/`gsi1sk`.
    org    pk = sk = ORG#<id>
    event  pk = ORG#<orgId>   sk = EVENT#<day>#<id>
           gsi1  DAY#<day> / EVENT#<orgId>#<id>
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
BY_DAY = m.Index("gsi1", "gsi1pk", "gsi1sk")
LAYOUT = m.Layout(PK_SK, (BY_DAY,))

DAY = m.Code(pattern=r"\d{4}-\d{2}-\d{2}", described="a day such as 2025-03-01")
ORG = m.Entity(
    "Org",
    {"id": m.Identifier(), "name": m.Text(max_length=80)},
    key=m.same(m.key("ORG", "id")),
    table=PK_SK,
)
EVENT = m.Entity(
    "Event",
    {
        "orgId": m.Identifier(shown=False),
        "day": DAY,
        "id": m.Identifier(),
        "title": m.Text(max_length=120),
    },
    key=m.Keys(m.key("ORG", "orgId"), m.key("EVENT", "day", "id")),
    indexes={BY_DAY: m.Keys(m.key("DAY", "day"), m.key("EVENT", "orgId", "id"))},
    parent=m.Parent("Org", {"orgId": "id"}),
    table=PK_SK,
)
MODEL = m.Model(
    (ORG, EVENT),
    (
        m.Lookup(ORG, "org", access="anyone"),
        m.ListOf(EVENT, PK_SK, "events", descending=True),
        m.ListOf(
            EVENT,
            BY_DAY,
            "eventsOn",
            root=True,
            access="anyone",
            subscription="eventsOnChanges",
            subscription_access="anyone",
        ),
        m.Create(ORG, "addOrg", access="admins"),
        m.Create(EVENT, "addEvent", access="admins"),
        m.Update(EVENT, "renameEvent", ("title",), access="admins"),
    ),
    LAYOUT,
)
