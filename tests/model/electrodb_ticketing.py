"""A model of a table ElectroDB writes (`tests/tools/electrodb.mjs`): its `ticketing`
service's venues and events, in ElectroDB's own key formats (lower case), identifiers
(`__edb_e__`, `__edb_v__`), layout (`pk`/`sk`, `gsi1`) and field names (an event's
`title` is stored as `eventTitle`).
    venue  pk = $ticketing#venueid_<venueId>   sk = $venue_1
    event  pk = $ticketing#eventid_<eventId>   sk = $event_1
           gsi1  $ticketing#venueid_<venueId> / $event_1#day_<day>#eventid_<eventId>
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
GSI1 = m.Index("gsi1", "gsi1pk", "gsi1sk")
LAYOUT = m.Layout(PK_SK, (GSI1,))


def _electro(text: str) -> m.Key:
    """A key as ElectroDB writes it: in lower case."""
    return m.template(text, casing="lower")


def _identity(entity: str) -> m.Discriminator:
    return m.Discriminator("__edb_e__", entity, {"__edb_v__": "1"})


DAY = m.Code(pattern=r"\d{4}-\d{2}-\d{2}", described="a day such as 2025-03-01")
VENUE = m.Entity(
    "Venue",
    {"venueId": m.Identifier(), "name": m.Text(max_length=80)},
    key=m.Keys(_electro("$ticketing#venueid_${venueId}"), _electro("$venue_1")),
    table=PK_SK,
    discriminator=_identity("venue"),
)
EVENT = m.Entity(
    "Event",
    {
        "eventId": m.Identifier(),
        "venueId": m.Identifier(shown=False),
        "day": DAY,
        "title": m.Text(max_length=120, stored="eventTitle"),
        "seats": m.Number(low=0, high=100_000),
    },
    key=m.Keys(_electro("$ticketing#eventid_${eventId}"), _electro("$event_1")),
    indexes={
        GSI1: m.Keys(
            _electro("$ticketing#venueid_${venueId}"),
            _electro("$event_1#day_${day}#eventid_${eventId}"),
        )
    },
    parent=m.Parent("Venue", {"venueId": "venueId"}),
    table=PK_SK,
    discriminator=_identity("event"),
)
MODEL = m.Model(
    (VENUE, EVENT),
    (
        m.Lookup(VENUE, "venue", access="anyone"),
        m.Lookup(EVENT, "event", access="anyone"),
        m.ListOf(EVENT, GSI1, "events"),
        m.Create(EVENT, "addEvent", access="admins"),
        m.Update(EVENT, "retitleEvent", ("title",), access="admins"),
    ),
    LAYOUT,
)
