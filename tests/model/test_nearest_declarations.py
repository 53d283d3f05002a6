"""`Nearest` declared (`model/`), pure: refused when the model is built where the engine
could not serve it, naming it; its field, types and worst case derived from it."""

from __future__ import annotations

import math

import pytest

from data.places.nearest import bound, described
from model import Model, ModelError, Nearest
from tests.model.library import BOOK, BRANCH, MODEL


@pytest.mark.parametrize("radius", [0, -1.0, math.nan, 100_001.0, True])
def test_a_radius_outside_what_partitions_allow_is_refused(radius: float) -> None:
    with pytest.raises(ModelError, match="branchesNearby: max_radius"):
        Nearest(BRANCH, "branchesNearby", max_radius=radius)


def test_a_nearest_field_needs_places_and_a_read_access() -> None:
    with pytest.raises(ModelError, match="Book declares no places"):
        Model(MODEL.entities, (*MODEL.patterns, Nearest(BOOK, "booksNearby")))
    with pytest.raises(ModelError, match="`writer` decides writes only"):
        Model(MODEL.entities, (*MODEL.patterns, Nearest(BRANCH, "near2", access="writer")))
    with pytest.raises(ModelError, match="access 'owner'"):
        Model(MODEL.entities, (*MODEL.patterns, Nearest(BRANCH, "near2", access="owner")))


def test_its_generated_names_are_given_once() -> None:
    with pytest.raises(ModelError, match="BranchNearbyConnection"):
        Model(MODEL.entities, (*MODEL.patterns, Nearest(BRANCH, "otherNearby")))
    others = tuple(p for p in MODEL.patterns if not isinstance(p, Nearest))
    with pytest.raises(ModelError, match="Query field names clash: \\['branches'\\]"):
        Model(MODEL.entities, (*others, Nearest(BRANCH, "branches")))


def test_its_worst_case_is_computed_from_its_arguments() -> None:
    [pattern] = MODEL.of_kind(Nearest)
    oslo = {"latitude": 59.91, "longitude": 10.75, "radiusMeters": 5_000.0, "first": 20}
    calls, items = bound(pattern, oslo)
    assert 16 < calls <= 32 and items == calls * 128
    # At a pole every place partition meets: many more; refused arguments read nothing.
    assert bound(pattern, {**oslo, "latitude": 90.0}) == (512, 512 * 128)
    assert bound(pattern, {**oslo, "radiusMeters": 0.0}) == (0, 0)
    assert bound(pattern, {**oslo, "first": 101}) == (0, 0)
    said = described(pattern, 20)
    assert "on LbBr#<geohash[0:3]>" in said and "worst 32 calls, 4096 items" in said
    assert "512 calls" in said
