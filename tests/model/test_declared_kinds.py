"""The seed strategies' declarations (`model/kinds.py`), pure: copies (seed 003) and places
(seed 002), each declaration the engine could not serve refused when the model is built."""

from __future__ import annotations

from typing import Any

import pytest

import model as m
from data.copies.writes import copies
from keys.table import GSI1, TABLE
from model.kinds import copies_made
from tests.model.declaring import refused_by_name
from tests.model.test_declarations import Odd, Size, _escaped, _one, item


def _rated(**copies: Any) -> m.Entity:
    """An entity rated 1 to 4 and sized, copied into lists filtered by both."""
    own_key = copies.pop("key", m.same(m.key("RATED", "id")))
    parent = copies.pop("parent", None)
    attributes = {
        "id": m.GeneratedId(),
        "rating": m.Number(low=1, high=4),
        "size": m.Choice(values=Size),
        "text": m.Text(),
        **copies.pop("attributes", {}),
    }
    declared = {
        "index": GSI1,
        "partition": m.key("RATED"),
        "sort": m.key("RATED", "id"),
        "either": ("size",),
        "sets": {"rating": "ratings"},
        **copies,
    }
    return m.Entity("Rated", attributes, key=own_key, parent=parent, copies=m.Copies(**declared))


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
            lambda: _rated(key=m.Keys(m.key("RATED"), m.key("RATED", "id"))),
            "copies live in the item's own partition",
        ),
        (lambda: _rated(sets={"text": "texts"}), "'text' is not a required attribute a key"),
        (
            lambda: _rated(attributes={"rating": m.Number(low=1, high=9)}),
            "a set of 'rating' needs a choice or a number of 2 to 6 values",
        ),
        (
            lambda: _rated(
                attributes={"a": m.Number(low=1, high=6), "b": m.Number(low=1, high=2)},
                sets={"a": "as", "b": "bs"},
            ),
            "128 copies of each item; at most 49",
        ),
        (
            lambda: _rated(attributes={"text": m.Text(max_length=100_000)}),
            "an update's transaction could exceed 4 MB",
        ),
        (lambda: _rated(either=(), sets={}), "give each filter once, at least one"),
        (lambda: item(version=m.Number()), "'version': the name is the engine's own"),
        (
            lambda: m.Model((rated := _rated(),), (m.ListOf(rated, GSI1, "r", equal=("size",)),)),
            "a list of copies is narrowed by the copies' filters only",
        ),
        (
            lambda: m.Model(
                (rated := _rated(),), (m.Update(rated, "e", ("text",), access="admins"),)
            ),
            "",
        ),
        (
            lambda: _one(
                lambda e: m.Update(e, "c", ("size",), access="admins", at_least_one=False)
            ),
            "`at_least_one=False` needs copies",
        ),
        (lambda: _rated(label="C#P"), "the label 'C#P' is letters and digits"),
        (
            lambda: _rated(attributes={"size": m.Choice(values=Odd)}),
            "a value of 'size' holds a key delimiter",
        ),
        (
            lambda: item(at=m.Timestamp(imported=True)),
            "only a time stamped on create may be imported",
        ),
        (
            lambda: m.Model(
                (rated := _rated(attributes={"at": m.Timestamp(stamped="create", imported=True)}),),
                (m.Create(rated, "rate", access="anyone"),),
            ),
            "an import is for admins, of signed-in callers",
        ),
        (
            lambda: m.Model(
                (
                    _rated(),
                    m.Entity(
                        "Other", {"id": m.Identifier()}, key=m.Keys(m.key("RATED"), m.key("COPY"))
                    ),
                ),
                (),
            ),
            "Other and Rated keys on the table can collide: both RATED / COPY",
        ),
        (
            lambda: m.Model(
                (
                    m.Entity("Shelf", {"id": m.Identifier()}, key=m.same(m.key("SHELF", "id"))),
                    rated := _rated(
                        attributes={"shelf": m.Identifier()},
                        parent=m.Parent("Shelf", {"shelf": "id"}),
                    ),
                ),
                (m.ListOf(rated, GSI1, "rated"),),
            ),
            "its partition on GSI1 is not made of Shelf's key",
        ),
    ],
)
def test_copies_that_would_fail_at_run_time_are_refused(declare: Any, refusal: str) -> None:
    if not refusal:
        assert declare()  # accepted
        return
    with pytest.raises(m.ModelError, match=_escaped(refusal)):
        declare()


SPOT_PLACES = m.Places("SpPl", "SpCe")


def _placed(name: str = "Spot", places: m.Places = SPOT_PLACES, **attributes: Any) -> m.Entity:
    declared = {
        "id": m.Identifier(),
        "lat": m.Coordinate(axis="lat"),
        "lon": m.Coordinate(axis="lon"),
        "cell": m.Geohash(),
        **attributes,
    }
    return m.Entity(
        name,
        {k: v for k, v in declared.items() if v is not None},
        key=m.same(m.key(name.upper(), "id")),
        places=places,
    )


test_places_that_would_fail_at_run_time_are_refused = refused_by_name(
    [
        (lambda: _placed(lon=None), "it needs one Coordinate of each axis and one Geohash"),
        (lambda: _placed(cell=None), "it needs one Coordinate of each axis and one Geohash"),
        (lambda: _placed(other=m.Coordinate(axis="lat")), "one Coordinate of each axis"),
        (
            lambda: _placed(places=m.Places("Sp#Pl", "SpCe")),
            "the label 'Sp#Pl' is letters and digits",
        ),
        (lambda: _placed(lat=m.Coordinate(axis="lat", optional=True)), "its position is required"),
        (
            lambda: _placed(places=m.Places("SpPl", "SpCe1")),
            "the label 'SpCe1' is letters and digits, ending with a letter",
        ),
        (
            lambda: m.Entity(
                "Spot", {"id": m.Identifier(), "cell": m.Geohash()}, key=m.same(m.key("S", "id"))
            ),
            "a Geohash is made for an entity with places only",
        ),
        (
            lambda: m.Model((spot := _placed(),), (m.Near(spot, "near", access="writer"),)),
            "`writer` decides writes only",
        ),
        (
            lambda: m.Model((_placed(), _placed(name="Other")), ()),
            "Other and Spot both keep places under 'SpPl'",
        ),
        (
            lambda: m.Model(
                (
                    _placed(),
                    m.Entity("Pl", {"id": m.Identifier()}, key=m.same(m.key("SpPl", "id"))),
                ),
                (),
            ),
            "Pl's key label 'SpPl' is Spot's places label",
        ),
        (
            lambda: m.Model(
                (
                    spot := _placed(),
                    m.Entity("Cell", {"id": m.Identifier()}, key=m.same(m.key("CELL", "id"))),
                ),
                (m.Heatmap(spot, "map"),),
            ),
            "generated type names clash: ['Cell']",
        ),
        (lambda: _one(lambda e: m.Near(e, "near")), "near: Item declares no places"),
        (lambda: _one(lambda e: m.Heatmap(e, "map")), "map: Item declares no places"),
    ]
)


def test_a_placed_entity_serves_its_viewport_and_its_cells() -> None:
    spot = _placed()
    assert spot.position == ("lat", "lon", "cell")
    model = m.Model((spot,), (m.Near(spot, "near", subscription="moves"), m.Heatmap(spot, "map")))
    assert [p.field for p in model.of_kind(m.Near)] == ["near"]
