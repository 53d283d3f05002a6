"""`dynagate model infer`'s drafting, on hand-made items (no table read): which items make an
entity (a discriminator found by its statistics, else the keys' shapes), the key templates
and their casing, the attributes' kinds, and the worst inputs. Each draft is built as the
gateway builds a model and held against the items it came from, as `model inspect` holds
a table."""

from __future__ import annotations

import re
from typing import Any

import pytest

import model
from data.inference.drafts import InferenceError, drafted
from data.inference.inspection import classify
from data.inference.key_formats import drafted_key
from data.inference.kinds import field_name, kind_of, offered
from data.inference.source import refused, source
from store.requests import Item
from tests.model.declaring import assert_drafted

OFFERS = offered()


def described(*indexes: dict[str, Any], keys: tuple[str, str] = ("pk", "sk")) -> dict[str, Any]:
    """A DescribeTable answer: the table keyed `keys`, with global `indexes`."""
    names = [*keys, *(k["AttributeName"] for i in indexes for k in i["KeySchema"])]
    kinds = ("HASH", "RANGE")
    return {
        "TableName": "t",
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": "S"} for n in names],
        "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in zip(keys, kinds, strict=True)],
        "GlobalSecondaryIndexes": list(indexes),
    }


def index(name: str, partition: str, sort: str, **projection: Any) -> dict[str, Any]:
    """An index's description (global, or local on the table's partition key)."""
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": partition, "KeyType": "HASH"},
            {"AttributeName": sort, "KeyType": "RANGE"},
        ],
        "Projection": projection or {"ProjectionType": "ALL"},
    }


def draft_of(description: dict[str, Any], items: list[Item]) -> str:
    return source(drafted(description, items, table="t", scanned=len(items)))


def loaded(text: str) -> model.Model:
    """The model a drafted file declares, built as the gateway builds it."""
    assert refused(text) is None, refused(text)
    namespace: dict[str, Any] = {}
    exec(compile(text, "<drafted>", "exec"), namespace)
    found = namespace["MODEL"]
    assert isinstance(found, model.Model)
    return found


def clean(text: str, items: list[Item]) -> None:
    """Every item read as the drafted model's, its keys rendered back."""
    findings = classify(loaded(text), items)
    assert findings.clean, findings.lines()


def draft_holding(description: dict[str, Any], items: list[Item], *lines: str) -> str:
    """The draft of `items`, which holds `lines` and reads every item back (`clean`)."""
    text = draft_of(description, items)
    assert_drafted(text, *lines)
    clean(text, items)
    return text


def customer(n: int) -> Item:
    return {
        "pk": f"CUSTOMER#c{n}",
        "sk": "PROFILE",
        "rtype": "Customer",
        "customerId": f"c{n}",
        "name": f"Customer number {n}",
        "balance": -30 + 20 * n,
    }


def order(n: int, of: int, *, note: bool) -> Item:
    found: Item = {
        "pk": f"CUSTOMER#c{of}",
        "sk": f"ORDER#o{n}",
        "rtype": "Order",
        "customerId": f"c{of}",
        "orderId": f"o{n}",
        "total": 5 + 250 * n,
        "placedAt": f"2025-03-0{n}T09:00:00.000Z",
    }
    return {**found, "note": "leave at the door"} if note else found


MIXED = [
    *(customer(n) for n in range(1, 5)),
    *(order(n, 1 + n % 2, note=n % 3 == 0) for n in range(1, 7)),
    {"pk": "CUSTOMER#c1", "sk": "AUDIT#1", "what": "an item of no entity"},
]


def test_a_discriminator_found_by_its_statistics_groups_the_items() -> None:
    text = draft_of(described(), MIXED)
    assert_drafted(
        text,
        'discriminator=m.Discriminator("rtype", "Customer")',
        'discriminator=m.Discriminator("rtype", "Order")',
        'key=m.Keys(m.template("CUSTOMER#${customerId}"), m.template("PROFILE"))',
        'key=m.Keys(m.template("CUSTOMER#${customerId}"), m.template("ORDER#${orderId}"))',
        # A group with an attribute some of its items lack: optional.
        '"note": m.Text(max_length=20, optional=True),',
        # Numbers: round bounds around those seen; a time in ISO 8601.
        '"total": m.Number(low=0, high=2000),',
        '"balance": m.Number(low=-20, high=100),',
        '"placedAt": m.Timestamp(),',
        # The order's partition is the customer's: its child, listed below it.
        'parent=m.Parent("Customer", {"customerId": "customerId"}),',
        'm.ListOf(ORDER, TABLE, "orders"),',
        # The item of no group is said, with its key.
        "1 items of no entity drafted (for example CUSTOMER#c1 / AUDIT#1)",
    )
    clean(text, MIXED[:-1])


def test_without_a_discriminator_the_shapes_of_the_keys_group_the_items() -> None:
    org = {"pk": "ORG#acme", "sk": "ORG#acme", "id": "acme", "name": "Acme"}
    events = [
        {
            "pk": "ORG#acme",
            "sk": f"EVENT#2025-03-0{n}#e{n}",
            "gsi1pk": f"DAY#2025-03-0{n}",
            "gsi1sk": f"EVENT#acme#e{n}",
            "orgId": "acme",
            "day": f"2025-03-0{n}",
            "id": f"e{n}",
            "title": f"Event {n}",
            "createdBy": "legacy-app",
        }
        for n in range(1, 4)
    ]
    text = draft_of(described(index("gsi1", "gsi1pk", "gsi1sk")), [org, *events])
    assert "by the shapes of their keys" in text
    assert "discriminator=" not in text
    assert_drafted(
        text,
        'key=m.same(m.template("ORG#${id}")),',
        'GSI1: m.Keys(m.template("DAY#${day}"), m.template("EVENT#${orgId}#${id}")),',
        'm.ListOf(EVENT, TABLE, "events"),',
    )
    clean(text, [org, *events])


def test_a_list_the_model_refuses_is_left_out_and_said() -> None:
    org = {"pk": "ORG#acme", "sk": "ORG#acme", "id": "acme"}
    events = [
        {"pk": "ORG#acme", "sk": f"EVENT#e{n}", "orgId": "acme", "id": f"e{n}"} for n in (1, 2)
    ]
    notes = [
        {"pk": "ORG#acme", "sk": f"NOTE#n{n}", "orgId": "acme", "noteId": f"n{n}"} for n in (1, 2)
    ]
    text = draft_of(described(), [org, *events, *notes])
    # Notes sort between events and their org: read with the org, a page of events would
    # hold them.
    assert "Event's list 'events' is left out: model check refuses it (ModelError: Event" in text
    assert 'm.ListOf(EVENT, TABLE, "events")' not in text
    assert 'm.ListOf(NOTE, TABLE, "notes"),' in text
    clean(text, [org, *events, *notes])


def test_a_draft_the_model_refuses_is_written_with_the_refusal() -> None:
    items = [
        {"pk": f"{t}{n}", "sk": f"{t}{n}", "_type": t, "id": f"{t}{n}"}
        for t in "ab"
        for n in (1, 2)
    ]
    text = draft_of(described(), items)
    assert_drafted(
        text,
        "model check refuses it: ModelError: B and A keys on the table can collide",
        'key=m.same(m.template("${id}")),',
    )


def test_keys_stored_in_upper_case_and_values_no_attribute_holds() -> None:
    items = [
        {"pk": f"TEAM#T{n}", "sk": f"MEMBER#{who.upper()}", "member": who, "rank": f"{n:04d}"}
        for n, who in enumerate(["ada", "bob", "cy"], start=1)
    ]
    text = draft_of(described(), items)
    # The team's id is held by no attribute: made up from the text before it.
    assert (
        'key=m.Keys(m.template("TEAM#${teamId}"), m.template("MEMBER#${member}", casing="upper"))'
        in (text)
    )
    assert "made up, held by no item attribute: teamId" in text
    clean(text, items)


def test_numbers_in_keys_are_zero_padded_numbers() -> None:
    items = [
        {"pk": "BOARD#b1", "sk": f"RANK#{n:04d}", "boardId": "b1", "rank": n} for n in (7, 42, 910)
    ]
    draft_holding(
        described(),
        items,
        'm.template("RANK#${rank}")',
        '"rank": m.Number(low=0, high=9999),',
    )


def test_number_keys_of_indexes_hold_numbers_and_epoch_times() -> None:
    description = described(index("gsi1", "gsi1pk", "gsi1sk"))
    description["AttributeDefinitions"][-1]["AttributeType"] = "N"
    description["AttributeDefinitions"].append({"AttributeName": "lsi1sk", "AttributeType": "N"})
    description["LocalSecondaryIndexes"] = [index("lsi1", "pk", "lsi1sk")]
    played = 1_750_000_000_000
    items = [
        {
            "pk": f"PLAYER#p{n}",
            "sk": f"GAME#g{n}",
            "gsi1pk": "BOARD#b1",
            "gsi1sk": 100 * n,
            "lsi1sk": played + n,
            "player": f"p{n}",
            "game": f"g{n}",
            "board": "b1",
            "points": 100 * n,
            "playedAt": played + n,
        }
        for n in range(1, 4)
    ]
    draft_holding(
        description,
        items,
        'GSI1 = m.Index("gsi1", "gsi1pk", "gsi1sk", types=("S", "N"))',
        'GSI1: m.Keys(m.template("BOARD#${board}"), m.template("${points}")),',
        'LSI1: m.Keys(m.template("PLAYER#${player}"), m.template("${playedAt}")),',
        '"points": m.Number(low=0, high=500),',
        '"playedAt": m.Timestamp(stored_as="epoch_millis"),',
    )


def test_written_templates_of_electrodb_in_lower_case() -> None:
    found = drafted_key(
        ["$shop#order_1#orderid_o1", "$shop#order_1#orderid_o2"],
        {"orderId": ["O1", "O2"], "other": ["x", "y"]},
        set(),
    )
    assert (found.text, found.casing) == ("$shop#order_1#orderid_${orderId}", "lower")
    # Without an attribute holding it, the name comes from the text before it.
    made = drafted_key(["EVENT#x1", "EVENT#x2"], {}, set())
    assert (made.text, dict(made.made)) == ("EVENT#${eventId}", {"eventId": ("x1", "x2")})


def test_the_kinds_of_values() -> None:
    stamps = kind_of("createdAt", [1_740_000_000, 1_750_000_000], optional=False, offers=OFFERS)
    flags = kind_of("done", [True, False, None], optional=True, offers=OFFERS)
    mixed = kind_of("code", ["a", 1], optional=False, offers=OFFERS)
    assert mixed.kind is None and mixed.note == "text, whole mixed: no kind holds them"
    assert (stamps.kind, stamps.options) == ("Timestamp", {"stored_as": "epoch_seconds"})
    assert (flags.kind, flags.options) == ("Flag", {"optional": True})
    # Without the model's kinds of stored values, a comment says what no kind holds.
    assert kind_of("done", [True], optional=False).note == "booleans — no kind yet"
    epoch = kind_of("createdAt", [1_740_000_000], optional=False)
    assert (epoch.kind, epoch.options["high"]) == ("Number", 2**31 - 1) and epoch.note
    sets = kind_of("tags", [{"a", "b"}], optional=True, offers=OFFERS)
    assert (sets.kind, sets.options) == ("TextSet", {"optional": True})
    real = kind_of("mean", [1.5, 2], optional=False, offers=OFFERS)
    assert real.kind == "Real"
    text = kind_of("email", ["ada@acme.io"], optional=False, keyed=True, offers=OFFERS)
    assert text.kind == "Code" and text.options["described"] == "an e-mail address"


def test_weird_attribute_names() -> None:
    taken: set[str] = {"type"}
    assert field_name("__edb_e__", taken) == ("edbE", "__edb_e__")
    assert field_name("_type", taken) == ("typeValue", "_type")
    assert field_name("first-name", taken) is None  # no attribute is stored under it
    assert field_name("version", taken) is None  # the engine's own
    assert field_name("startsAt", taken) == ("startsAt", None)
    items = [
        {
            "pk": f"THING#t{n}",
            "sk": "THING",
            "_hidden": f"h{n}",
            "first-name": "x",
            "version": n,
            "ünïcode": "ü",
            "__tool__": f"v{n}",
        }
        for n in range(3)
    ]
    draft_holding(
        described(),
        items,
        '"hidden": m.Text(max_length=10, stored="_hidden"),',
        '"tool": m.Text(max_length=10, stored="__tool__"),',
        "'first-name' is a name no attribute takes: not declared",
        "'version' is the engine's own name: not declared",
    )


def test_the_layout_as_described() -> None:
    description = described(
        index("slim", "gpk", "gsk", ProjectionType="INCLUDE", NonKeyAttributes=["title"]),
        index("keys", "kpk", "ksk", ProjectionType="KEYS_ONLY"),
    )
    description["GlobalSecondaryIndexes"].append(
        {"IndexName": "lone", "KeySchema": [{"AttributeName": "lpk", "KeyType": "HASH"}]}
    )
    description["LocalSecondaryIndexes"] = [index("by_rank", "pk", "rank")]
    description["AttributeDefinitions"] += [{"AttributeName": "rank", "AttributeType": "N"}]
    items = [{"pk": "A#1", "sk": "A#1", "id": "1", "rank": 3}]
    draft_holding(
        description,
        items,
        'SLIM = m.Index("slim", "gpk", "gsk", projection="INCLUDE", included=("title",))',
        'KEYS = m.Index("keys", "kpk", "ksk", projection="KEYS_ONLY")',
        'BY_RANK = m.local_index("by_rank", TABLE, "rank", sort_type="N")',
        "index lone is keyed by lpk alone",
        "LAYOUT = m.Layout(TABLE, (SLIM, KEYS, BY_RANK))",
        # A number key (N) holds an attribute's number itself: here, none.
        "its keys on by_rank are left out: no attribute holds the number rank holds",
    )


@pytest.mark.parametrize(
    ("description", "items", "said"),
    [
        (described(), [], "holds no items to draft entities from (a sample of 0)"),
        (
            {**described(), "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]},
            [{"pk": "x"}],
            "is keyed by 'pk' alone",
        ),
        (
            {
                **described(),
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "N"},
                    {"AttributeName": "sk", "AttributeType": "S"},
                ],
            },
            [{"pk": 1, "sk": "x"}],
            "is keyed pk (N) + sk (S)",
        ),
        (described(), [{"pk": "IDEMPOTENCY#k", "sk": "IDEMPOTENCY#k"}], "holds no items"),
    ],
)
def test_no_draft_of_a_table_no_model_serves(
    description: dict[str, Any], items: list[Item], said: str
) -> None:
    with pytest.raises(InferenceError, match=re.escape(said)):
        drafted(description, items, table="t", scanned=len(items))
