"""A ticketing model whose orders are their attendees' (`DYNAGATE_MODEL=tests.model.ticketing`),
listed under a public event: its orders are read by their attendee, by the event's
organizer (the parent's owner), by the staff group and by admins, on every path; an
order's note by its attendee (and admins) only.
    event  PK = SK = EVENT#<id>                         owner: organizer
    order  PK = EVENT#<eventId>   SK = ORDER#<id>       owner: attendeeId
           GSI1  ATTENDEE#<attendeeId> / ORDER#<id>
"""

from __future__ import annotations

from enum import StrEnum

import model as m


class OrderStatus(StrEnum):
    RESERVED = "RESERVED"
    PAID = "PAID"
    REFUNDED = "REFUNDED"


ORDER_READERS = m.readers(owner=True, parent_owner=True, groups=["staff"])
EVENT = m.Entity(
    "Event",
    {"id": m.Identifier(), "organizer": m.Handle(), "title": m.Text(max_length=80)},
    key=m.same(m.key("EVENT", "id")),
    owner=m.Owner("organizer", "organizer"),
)
ORDER = m.Entity(
    "Order",
    {
        "eventId": m.Identifier(shown=False),
        "id": m.Identifier(),
        "attendeeId": m.Handle(),
        "seats": m.Number(low=1, high=10),
        "status": m.Choice(values=OrderStatus, initial=OrderStatus.RESERVED),
        "note": m.Text(optional=True, readers=m.readers(owner=True)),
    },
    key=m.Keys(m.key("EVENT", "eventId"), m.key("ORDER", "id")),
    indexes={m.GSI1: m.Keys(m.key("ATTENDEE", "attendeeId"), m.key("ORDER", "eventId", "id"))},
    parent=m.Parent("Event", {"eventId": "id"}, field="event"),
    owner=m.Owner("attendeeId", "attendee"),
    readers=ORDER_READERS,
)
MODEL = m.Model(
    (EVENT, ORDER),
    (
        m.Lookup(EVENT, "event", access="anyone"),
        m.Lookup(ORDER, "order", access="anyone"),
        m.ListOf(
            ORDER,
            m.TABLE,
            "orders",
            subscription="eventOrderChanges",
            subscription_access="signed_in",
        ),
        m.ListOf(
            ORDER,
            m.GSI1,
            "ordersOf",
            root=True,
            access="signed_in",
            subscription="myOrderChanges",
            subscription_access="signed_in",
        ),
        # The staff's desk: an event's orders, for the staff group (and admins) alone.
        m.ListOf(ORDER, m.TABLE, "eventOrders", root=True, access=m.group("staff")),
        m.Create(EVENT, "addEvent", access="owner"),
        m.Create(ORDER, "placeOrder", access="owner"),
        m.Update(ORDER, "changeOrder", ("seats", "note"), access="admins"),
        # The attendee pays their own order (one an admin may have reserved for them);
        # only an admin refunds.
        m.Update(
            ORDER,
            "setOrderStatus",
            ("status",),
            access="owner",
            inline=True,
            moves=(
                m.moves(
                    "status",
                    {
                        OrderStatus.RESERVED: [OrderStatus.PAID],
                        OrderStatus.PAID: [OrderStatus.REFUNDED],
                    },
                    admins_only=[OrderStatus.REFUNDED],
                ),
            ),
        ),
        m.Delete(ORDER, "cancelOrder", access="owner"),
        # The event's organizer changes the seats of its orders ...
        m.Update(ORDER, "reseat", ("seats",), access="parent_owner", inline=True),
        # ... and removes them.
        m.Delete(ORDER, "dropOrder", access="parent_owner"),
    ),
)
