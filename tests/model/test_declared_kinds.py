"""The seed strategies' declarations (`model/kinds.py`), pure: copies (seed 003) and places
(seed 002), each declaration the engine could not serve refused when the model is built."""

from __future__ import annotations

from typing import Any

import pytest

from data.copies.writes import copies
from keys.table import GSI1, TABLE
from model import (
    Choice,
    Coordinate,
    Copies,
    Create,
    Entity,
    GeneratedId,
    Geohash,
    Heatmap,
    Identifier,
    Keys,
    ListOf,
    Model,
    ModelError,
    Near,
    Number,
    Parent,
    Places,
    Text,
    Timestamp,
    Update,
    key,
    same,
)
from model.kinds import copies_made
from tests.model.test_declarations import Odd, Size, _escaped, _one, item


def _rated(**copies: Any) -> Entity:
    """An entity rated 1 to 4 and sized, copied into lists filtered by both."""
    own_key = copies.pop("key", same(key("RATED", "id")))
    parent = copies.pop("parent", None)
    attributes = {
        "id": GeneratedId(),
        "rating": Number(low=1, high=4),
        "size": Choice(values=Size),
        "text": Text(),
        **copies.pop("attributes", {}),
    }
    declared = {
        "index": GSI1,
        "partition": key("RATED"),
        "sort": key("RATED", "id"),
        "either": ("size",),
        "sets": {"rating": "ratings"},
        **copies,
    }
    return Entity("Rated", attributes, key=own_key, parent=parent, copies=Copies(**declared))


def test_copies_are_one_per_list_a_filter_can_ask_for() -> None:
    rated = _rated()
    assert copies_made(rated) == 2 * 8
    values = {"id": "2VQp3kQxLzVQbYy3w1wYfJk1bQe", "rating": 2, "size": Size.M, "text": "t"}
    item = {**rated.primary_key(values), **values, "size": "M", "version": 1}
    made = copies(rated, item)
    lists = {c["GSI1PK"] for c in made}
    assert len(made) == len(lists) == 16
    # Each list holds the item exactly when its filter matches it.
    for size in ("S", "M", "~"):
        for mask in range(1, 16):
            held = f"RATED#{size}#{mask}" in lists
            assert held == (size in ("M", "~") and bool(mask & 2)), (size, mask)
    assert {c["SK"] for c in made} == {"COPY#" + p[len("RATED#") :] for p in lists}
    assert all(c["PK"] == item["PK"] and c["type"] == "RATED_COPY" for c in made)


@pytest.mark.parametrize(
    ("declare", "refusal"),
    [
        (lambda: _rated(index=TABLE), "the index holds the copies only"),
        (
            lambda: _rated(key=Keys(key("RATED"), key("RATED", "id"))),
            "copies live in the item's own partition",
        ),
        (lambda: _rated(sets={"text": "texts"}), "'text' is not a required attribute a key"),
        (
            lambda: _rated(attributes={"rating": Number(low=1, high=9)}),
            "a set of 'rating' needs a choice or a number of 2 to 6 values",
        ),
        (
            lambda: _rated(
                attributes={"a": Number(low=1, high=6), "b": Number(low=1, high=2)},
                sets={"a": "as", "b": "bs"},
            ),
            "128 copies of each item; at most 49",
        ),
        (
            lambda: _rated(attributes={"text": Text(max_length=100_000)}),
            "an update's transaction could exceed 4 MB",
        ),
        (lambda: _rated(either=(), sets={}), "give each filter once, at least one"),
        (lambda: item(version=Number()), "'version': the name is the engine's own"),
        (
            lambda: Model((rated := _rated(),), (ListOf(rated, GSI1, "r", equal=("size",)),)),
            "a list of copies is narrowed by the copies' filters only",
        ),
        (
            lambda: Model((rated := _rated(),), (Update(rated, "e", ("text",), access="admins"),)),
            "",
        ),
        (
            lambda: _one(lambda e: Update(e, "c", ("size",), access="admins", at_least_one=False)),
            "`at_least_one=False` needs copies",
        ),
        (lambda: _rated(label="C#P"), "the label 'C#P' is letters and digits"),
        (
            lambda: _rated(attributes={"size": Choice(values=Odd)}),
            "a value of 'size' holds a key delimiter",
        ),
        (
            lambda: item(at=Timestamp(imported=True)),
            "only a time stamped on create may be imported",
        ),
        (
            lambda: Model(
                (rated := _rated(attributes={"at": Timestamp(stamped="create", imported=True)}),),
                (Create(rated, "rate", access="anyone"),),
            ),
            "an import is for admins, of signed-in callers",
        ),
        (
            lambda: Model(
                (
                    _rated(),
                    Entity("Other", {"id": Identifier()}, key=Keys(key("RATED"), key("COPY"))),
                ),
                (),
            ),
            "Other and Rated keys on the table can collide: both RATED / COPY",
        ),
        (
            lambda: Model(
                (
                    Entity("Shelf", {"id": Identifier()}, key=same(key("SHELF", "id"))),
                    rated := _rated(
                        attributes={"shelf": Identifier()}, parent=Parent("Shelf", {"shelf": "id"})
                    ),
                ),
                (ListOf(rated, GSI1, "rated"),),
            ),
            "its partition on GSI1 is not made of Shelf's key",
        ),
    ],
)
def test_copies_that_would_fail_at_run_time_are_refused(declare: Any, refusal: str) -> None:
    if not refusal:
        assert declare()  # accepted
        return
    with pytest.raises(ModelError, match=_escaped(refusal)):
        declare()


def _placed(name: str = "Spot", **attributes: Any) -> Entity:
    declared = {
        "id": Identifier(),
        "lat": Coordinate(axis="lat"),
        "lon": Coordinate(axis="lon"),
        "cell": Geohash(),
        **attributes,
    }
    return Entity(
        name,
        {k: v for k, v in declared.items() if v is not None},
        key=same(key(name.upper(), "id")),
        places=Places("SpPl", "SpCe"),
    )


@pytest.mark.parametrize(
    ("declare", "refusal"),
    [
        (lambda: _placed(lon=None), "it needs one Coordinate of each axis and one Geohash"),
        (lambda: _placed(cell=None), "it needs one Coordinate of each axis and one Geohash"),
        (lambda: _placed(other=Coordinate(axis="lat")), "one Coordinate of each axis"),
        (
            lambda: Entity(
                "Spot",
                {"id": Identifier(), "lat": Coordinate(axis="lat"), "lon": Coordinate(axis="lon")}
                | {"cell": Geohash()},
                key=same(key("SPOT", "id")),
                places=Places("Sp#Pl", "SpCe"),
            ),
            "the label 'Sp#Pl' is letters and digits",
        ),
        (lambda: _placed(lat=Coordinate(axis="lat", optional=True)), "its position is required"),
        (
            lambda: Entity(
                "Spot",
                {"id": Identifier(), "lat": Coordinate(axis="lat"), "lon": Coordinate(axis="lon")}
                | {"cell": Geohash()},
                key=same(key("SPOT", "id")),
                places=Places("SpPl", "SpCe1"),
            ),
            "the label 'SpCe1' is letters and digits, ending with a letter",
        ),
        (
            lambda: Entity(
                "Spot", {"id": Identifier(), "cell": Geohash()}, key=same(key("S", "id"))
            ),
            "a Geohash is made for an entity with places only",
        ),
        (
            lambda: Model((spot := _placed(),), (Near(spot, "near", access="writer"),)),
            "`writer` decides writes only",
        ),
        (
            lambda: Model((_placed(), _placed(name="Other")), ()),
            "Other and Spot both keep places under 'SpPl'",
        ),
        (
            lambda: Model(
                (_placed(), Entity("Pl", {"id": Identifier()}, key=same(key("SpPl", "id")))), ()
            ),
            "Pl's key label 'SpPl' is Spot's places label",
        ),
        (
            lambda: Model(
                (
                    spot := _placed(),
                    Entity("Cell", {"id": Identifier()}, key=same(key("CELL", "id"))),
                ),
                (Heatmap(spot, "map"),),
            ),
            "generated type names clash: ['Cell']",
        ),
        (lambda: _one(lambda e: Near(e, "near")), "near: Item declares no places"),
        (lambda: _one(lambda e: Heatmap(e, "map")), "map: Item declares no places"),
    ],
)
def test_places_that_would_fail_at_run_time_are_refused(declare: Any, refusal: str) -> None:
    with pytest.raises(ModelError, match=_escaped(refusal)):
        declare()


def test_a_placed_entity_serves_its_viewport_and_its_cells() -> None:
    spot = _placed()
    assert spot.position == ("lat", "lon", "cell")
    model = Model((spot,), (Near(spot, "near", subscription="moves"), Heatmap(spot, "map")))
    assert [p.field for p in model.of_kind(Near)] == ["near"]
