"""A model of items whose values another app stored in DynamoDB's own types
(`DYNAGATE_MODEL=tests.model.stored_kinds`): booleans, non-whole numbers, string and number
sets, maps and lists, null, times as epoch seconds, epoch milliseconds and ISO text of any
zone, and a version the app locks on.
    device  pk = sk = DEVICE#<id>
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
LAYOUT = m.Layout(PK_SK)

DEVICE = m.Entity(
    "Device",
    {
        "id": m.Identifier(),
        "name": m.Text(max_length=80),
        "active": m.Flag(),
        "ratio": m.Real(low=0, high=1, optional=True),
        "tags": m.TextSet(max_length=20, most=5),
        "ports": m.NumberSet(low=1, high=65535, most=8),
        "settings": m.Json(optional=True, limit=1024),
        "note": m.Text(optional=True),
        "seenAt": m.Timestamp(stored_as="epoch_seconds", stored="seen_at"),
        "madeAt": m.Timestamp(stored_as="epoch_millis", stamped="create"),
        "checkedAt": m.Timestamp(optional=True),
        "revision": m.Version(stored="_version"),
    },
    key=m.same(m.key("DEVICE", "id")),
    table=PK_SK,
    discriminator=m.Discriminator("_type", "Device"),
)
MODEL = m.Model(
    (DEVICE,),
    (
        m.Lookup(DEVICE, "device", access="anyone"),
        m.Create(DEVICE, "addDevice", access="admins"),
        m.Update(
            DEVICE,
            "changeDevice",
            ("name", "active", "ratio", "tags", "ports", "settings", "seenAt"),
            access="admins",
        ),
    ),
    LAYOUT,
)
