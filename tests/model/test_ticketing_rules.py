"""Readers on every path (`tests/model/ticketing.py`): orders that are their attendees',
listed under a public event. Every path the model gives to an order — its lookup, the
event's list (read with the event in one Query), the attendee's own list, the events of
both subscriptions, a payload — is walked as anonymous, the attendee, another attendee, the
event's organizer, a member of the staff group and an admin, and each sees exactly what
the rules say: the whole answer, or FORBIDDEN at that path with nothing of the items.
The paths are made from the model's own patterns, so a path added to it is walked too."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

import model as m
from tests.client import Api, settings_for
from tests.docs.test_model_guide import GUIDE
from tests.identity import SECURED, token
from tests.live import connected, served
from tests.model.ticketing import EVENT, MODEL, ORDER

pytestmark = pytest.mark.overrides(model="tests.model.ticketing", **SECURED)


@dataclass(frozen=True)
class Persona:
    name: str
    username: str | None
    groups: tuple[str, ...] = ()

    @property
    def token(self) -> str | None:
        if self.username is None:
            return None
        return token(self.username, groups=list(self.groups))

    def reads(self, order: dict[str, str]) -> bool:
        """The rules as the model states them, for one order: its attendee, the event's
        organizer, the staff and admins."""
        return (
            "admin" in self.groups
            or "staff" in self.groups
            or self.username in (order["attendeeId"], ORGANIZER)
        )

    def reads_all(self, attendee: str | None = None) -> bool:
        """Whether every order a list can hold is theirs to read: the event's (their
        organizer's), or an attendee's, which may be of any event."""
        return (
            "admin" in self.groups
            or "staff" in self.groups
            or (attendee is None and self.username == ORGANIZER)
            or (attendee is not None and self.username == attendee)
        )

    def reads_note(self, order: dict[str, str]) -> bool:
        return "admin" in self.groups or self.username == order["attendeeId"]


ORGANIZER = "olga"
PERSONAS = [
    Persona("anonymous", None),
    Persona("the attendee", "alice"),
    Persona("another attendee", "bob"),
    Persona("the organizer", ORGANIZER),
    Persona("staff", "sam", ("staff",)),
    Persona("an admin", "root", ("admin",)),
]
ORDERS = [
    {"id": "o1", "attendeeId": "alice", "note": "aisle seat"},
    {"id": "o2", "attendeeId": "bob", "note": "wheelchair"},
]


@dataclass(frozen=True)
class Path:
    """One way a query reaches orders: its document, and which orders it reaches."""

    name: str
    document: str
    orders: tuple[dict[str, str], ...]
    # A list, decided for the caller as a whole before it is read: of the event (None)
    # or of an attendee, whose orders may be of any event.
    whole: bool = False
    attendee: str | None = None
    # The groups the field itself is for (`access=group(...)`), beside admins.
    field_groups: tuple[str, ...] = ()

    def allows(self, persona: Persona) -> bool:
        if self.field_groups and not {"admin", *self.field_groups} & set(persona.groups):
            return False
        if self.whole:
            return persona.reads_all(self.attendee)
        return all(persona.reads(order) for order in self.orders)


def partition_of(pattern: m.ListOf) -> tuple[str, ...]:
    keys = pattern.entity.keys_on(pattern.index)
    assert keys is not None
    return keys.partition.attributes


def paths() -> Iterator[Path]:
    """Every path the model's patterns give to an order, with the orders each reaches."""
    shown = "id attendeeId seats"
    for pattern in MODEL.patterns:
        if pattern.entity is not ORDER:
            continue
        if isinstance(pattern, m.Lookup):
            for order in ORDERS:
                yield Path(
                    f"{pattern.field}({order['id']})",
                    f'{{ {pattern.field}(eventId: "ev1", id: "{order["id"]}") {{ {shown} }} }}',
                    (order,),
                )
        elif isinstance(pattern, m.ListOf) and not pattern.root:
            parent = MODEL.parent_of(ORDER)
            assert parent is EVENT
            document = (
                f'{{ event(id: "ev1") {{ title {pattern.field} {{ edges {{ node {{ {shown} }} }}'
                " } } }"
            )
            yield Path(f"event.{pattern.field}", document, tuple(ORDERS), whole=True)
        elif isinstance(pattern, m.ListOf) and "eventId" in partition_of(pattern):
            assert isinstance(pattern.access, m.Group)
            yield Path(
                pattern.field,
                f'{{ {pattern.field}(eventId: "ev1") {{ edges {{ node {{ {shown} }} }} }} }}',
                tuple(ORDERS),
                whole=True,
                field_groups=pattern.access.names,
            )
        elif isinstance(pattern, m.ListOf):
            for order in ORDERS:
                who = order["attendeeId"]
                yield Path(
                    f"{pattern.field}({who})",
                    f'{{ {pattern.field}(attendeeId: "{who}")'
                    f" {{ edges {{ node {{ {shown} }} }} }} }}",
                    (order,),
                    whole=True,
                    attendee=who,
                )


@pytest.fixture
async def seeded(api: Api) -> Api:
    return await seed(api)


async def seed(api: Api) -> Api:
    """The event of the organizer, and an order of each attendee, each made by its owner."""
    organizer = api.signed_in(token(ORGANIZER))
    made = await organizer(
        f'mutation {{ addEvent(input: {{id: "ev1", organizer: "{ORGANIZER}", title: "Gala"}})'
        " { id } }"
    )
    made.ok()
    for order in ORDERS:
        attendee = api.signed_in(token(order["attendeeId"]))
        placed = await attendee(
            f'mutation {{ placeOrder(input: {{eventId: "ev1", id: "{order["id"]}",'
            f' attendeeId: "{order["attendeeId"]}", seats: 1, note: "{order["note"]}"}})'
            " { id } }"
        )
        placed.ok()
    return api


def as_persona(api: Api, persona: Persona) -> Api:
    return api if persona.token is None else api.signed_in(persona.token)


@pytest.mark.parametrize("persona", PERSONAS, ids=lambda p: p.name)
async def test_each_path_answers_exactly_what_the_rules_allow(
    seeded: Api, persona: Persona
) -> None:
    walked = list(paths())
    assert {p.name.split("(")[0] for p in walked} == {
        "order",
        "event.orders",
        "ordersOf",
        "eventOrders",
    }
    for path in walked:
        answer = await as_persona(seeded, persona)(path.document)
        allowed = path.allows(persona)
        codes = [e["extensions"]["code"] for e in answer.errors]
        text = str(answer.body.get("data"))
        if allowed:
            assert not answer.errors, (path.name, persona.name, answer.errors)
            for order in path.orders:
                assert order["id"] in text, (path.name, persona.name, text)
        else:
            assert codes and set(codes) <= {"FORBIDDEN", "UNAUTHENTICATED"}, (
                path.name,
                persona.name,
                answer.body,
            )
            # Nothing of the orders, not even a page with holes.
            for order in ORDERS:
                assert order["attendeeId"] not in text or path.name.startswith("ordersOf"), text
                assert f"'{order['id']}'" not in text, (path.name, persona.name, text)


@pytest.mark.parametrize("persona", PERSONAS, ids=lambda p: p.name)
async def test_a_field_rule_hides_the_note_from_other_readers(
    seeded: Api, persona: Persona
) -> None:
    order = ORDERS[0]
    answer = await as_persona(seeded, persona)(
        '{ order(eventId: "ev1", id: "o1") { id seats note } }'
    )
    if not persona.reads(order):
        assert answer.errors[0]["extensions"]["code"] in {"FORBIDDEN", "UNAUTHENTICATED"}
        return
    if persona.reads_note(order):
        assert answer.ok()["order"] == {"id": "o1", "seats": 1, "note": "aisle seat"}
        return
    # The order, without its note: null there and FORBIDDEN at that field's path.
    assert answer.body["data"]["order"] == {"id": "o1", "seats": 1, "note": None}
    (error,) = answer.errors
    assert error["path"] == ["order", "note"] and error["extensions"]["code"] == "FORBIDDEN"


async def test_the_event_read_with_its_orders_reads_no_order_it_refuses(seeded: Api) -> None:
    """Readers the token settles (the staff) read the event and its orders in one Query;
    the organizer, whom only the event's item names, has the event read first and then its
    orders; for any other caller the orders are refused and not one of them is read."""
    document = '{ event(id: "ev1") { title orders { edges { node { id } } } } }'
    staff = await seeded.signed_in(token("sam", groups=["staff"]))(document)
    assert [e["node"]["id"] for e in staff.ok()["event"]["orders"]["edges"]] == ["o1", "o2"]
    assert staff.cost["requests"] == 1, staff.cost
    mine = await seeded.signed_in(token(ORGANIZER))(document)
    assert [e["node"]["id"] for e in mine.ok()["event"]["orders"]["edges"]] == ["o1", "o2"]
    assert mine.cost["requests"] == 2, mine.cost
    for caller in (seeded.signed_in(token("bob")), seeded):
        theirs = await caller(document)
        event = theirs.body["data"]["event"]
        assert event is None  # a connection is never null: its refusal nulls the event
        assert theirs.errors[0]["path"] == ["event", "orders"]
        assert theirs.errors[0]["extensions"]["code"] == "FORBIDDEN"
        assert theirs.cost["itemsScanned"] == 1, theirs.cost  # the event alone


PAYLOAD_ORDERS = "id event { title orders { edges { node { id attendeeId } } } }"


async def test_a_payload_reaches_orders_only_as_the_rules_allow(seeded: Api) -> None:
    """A mutation's payload is a path too: the attendee who pays their order and asks for
    the event's orders in the answer is refused them (their payment made), the organizer
    who reseats an order gets them all."""
    paid = await seeded.signed_in(token("alice"))(
        'mutation { setOrderStatus(eventId: "ev1", id: "o1", status: PAID)'
        f" {{ {PAYLOAD_ORDERS} }} }}"
    )
    assert paid.errors[0]["path"] == ["setOrderStatus", "event", "orders"], paid.body
    assert paid.errors[0]["extensions"]["code"] == "FORBIDDEN"
    assert "bob" not in str(paid.body["data"]) and "o2" not in str(paid.body["data"])
    mine = await seeded.signed_in(token("alice"))('{ order(eventId: "ev1", id: "o1") { status } }')
    assert mine.ok()["order"] == {"status": "PAID"}
    reseated = await seeded.signed_in(token(ORGANIZER))(
        f'mutation {{ reseat(eventId: "ev1", id: "o2", seats: 2) {{ {PAYLOAD_ORDERS} }} }}'
    )
    orders = reseated.ok()["reseat"]["event"]["orders"]["edges"]
    assert [(e["node"]["id"], e["node"]["attendeeId"]) for e in orders] == [
        ("o1", "alice"),
        ("o2", "bob"),
    ]


@pytest.fixture
async def gateway(endpoint: str, table: str, seeded: Api) -> AsyncIterator[Any]:
    settings = replace(settings_for(endpoint, table), **seeded.settings.__dict__)
    async with served(settings) as running:
        yield running


@pytest.mark.parametrize("persona", PERSONAS[1:], ids=lambda p: p.name)
async def test_subscriptions_follow_the_list_s_rule(gateway: Any, persona: Persona) -> None:
    """A subscription's events are its list's items: it is refused as its list is."""
    cases = [
        ('subscription { eventOrderChanges(eventId: "ev1") { kind id } }', None),
        ('subscription { myOrderChanges(attendeeId: "alice") { kind id } }', "alice"),
    ]
    for document, attendee in cases:
        async with connected(gateway, persona.token) as client:
            ident = await client.subscribe(document)
            if persona.reads_all(attendee):
                with pytest.raises(TimeoutError):  # following: no refusal
                    await client.next_for(ident, within=0.5)
            else:
                message = await client.next_for(ident)
                payload = message["payload"]
                errors = payload if message["type"] == "error" else payload["errors"]
                assert errors[0]["extensions"]["code"] == "FORBIDDEN", (document, message)


def test_a_list_that_would_reach_others_orders_is_refused_naming_the_path() -> None:
    """The leak as a newcomer wrote it: orders their attendees' only, listed under a public
    event. The model is refused, naming the path and the ways out."""
    only_attendees = replace(ORDER, readers=m.readers(owner=True))
    listed = m.ListOf(only_attendees, m.TABLE, "orders")
    with pytest.raises(m.ModelError) as refused:
        m.Model((EVENT, only_attendees), (m.Lookup(EVENT, "event", access="anyone"), listed))
    said = str(refused.value)
    assert said.startswith("Event.orders reaches Order, which only admins or its owner may")
    assert "key the list by the owner" in said and 'access="admins"' in said
    # docs/model.md shows the refusal as it is said.
    assert said in GUIDE.read_text(encoding="utf-8").splitlines()
    # Keyed by the attendee, the same entity's list is theirs whole: accepted.
    mine = m.ListOf(only_attendees, m.GSI1, "ordersOf", root=True, access="signed_in")
    m.Model((EVENT, only_attendees), (mine,))
    # A subscription is a path too.
    followed = m.ListOf(
        only_attendees,
        m.TABLE,
        "orders",
        access="admins",
        root=True,
        subscription="orderChanges",
        subscription_access="signed_in",
    )
    with pytest.raises(m.ModelError, match=r"Subscription\.orderChanges reaches Order"):
        m.Model((EVENT, only_attendees), (followed,))


@pytest.mark.parametrize(
    ("readers", "says"),
    [
        (m.readers(parent_owner=True), "parent_owner needs a parent that declares its Owner"),
        (m.readers(groups=[""]), "a group is named by a non-empty text"),
    ],
)
def test_readers_that_cannot_be_decided_are_refused(readers: m.Readers, says: str) -> None:
    ownerless = replace(EVENT, owner=None)
    with pytest.raises(m.ModelError, match=says):
        m.Model((ownerless, replace(ORDER, readers=readers)), ())


async def test_groups_come_from_a_configured_claim(endpoint: str, table: str) -> None:
    settings = settings_for(
        endpoint, table, model="tests.model.ticketing", auth_groups_claim="roles", **SECURED
    )
    async with Api.serving(settings) as api:
        seeded_api = await seed(api)
        document = '{ event(id: "ev1") { orders { edges { node { id } } } } }'
        staff = seeded_api.signed_in(token("sam", roles=["staff"]))
        assert len((await staff(document)).ok()["event"]["orders"]["edges"]) == 2
        other = seeded_api.signed_in(token("sam", roles=["visitors"]))
        assert (await other(document)).errors[0]["extensions"]["code"] == "FORBIDDEN"


@pytest.mark.streamed
async def test_answers_from_the_read_cache_hold_the_rules(
    endpoint: str, table: str, seeded: Api
) -> None:
    """The read cache keeps DynamoDB's answers, below the rules: a page the organizer's
    read made hot is still refused to another attendee, an order still to others."""
    from tests.caching import ask, caching, hot

    settings = replace(settings_for(endpoint, table), **seeded.settings.__dict__)
    orders = '{ event(id: "ev1") { title orders { edges { node { id } } } } }'
    order = '{ order(eventId: "ev1", id: "o1") { id } }'
    async with caching(settings) as gateway:
        warm = await hot(gateway, orders, ORGANIZER)
        assert [e["node"]["id"] for e in warm.data["event"]["orders"]["edges"]] == ["o1", "o2"]
        refused = await ask(gateway, orders, "bob")
        assert refused.errors[0]["path"] == ["event", "orders"]
        assert refused.errors[0]["extensions"]["code"] == "FORBIDDEN"
        assert (await hot(gateway, order, "alice")).data["order"] == {"id": "o1"}
        other = await ask(gateway, order, "bob")
        assert other.data["order"] is None and other.errors[0]["extensions"]["code"] == "FORBIDDEN"
        assert other.cost["cachedRequests"] > 0  # answered from the cache, and refused
