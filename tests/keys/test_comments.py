"""Property tests of `keys.comments`: codecs, the 32 copy filters and the lists they make.

Pure: no DynamoDB. "The comment appears in a list" means one of its copies carries that
list's GSI1PK and a GSI1SK inside the list's key condition, which is exactly what a Query
on GSI1 would return.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import get_args

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from keys.codecs import ANY, DELIMITERS
from keys.comments import (
    LAYOUTS,
    RATINGS,
    CopyFilter,
    LanguageCodec,
    RatingSetCodec,
    RatingStyle,
    copy_attributes,
    copy_filters,
    language,
    parse_copy_sort_key,
    product_comments,
    rating_set,
)
from keys.errors import InvalidInput
from keys.table import GSI1, TABLE
from keys.template import DELIMITER
from tests.keys.strategies import identifiers, ksuids

FAST = settings(max_examples=100)
QUICK = settings(max_examples=30)

STYLES: tuple[RatingStyle, ...] = get_args(RatingStyle)
SUBSETS = [frozenset(c) for size in range(1, 6) for c in combinations(sorted(RATINGS), size)]
CANONICAL = {style: {RatingSetCodec(style).encode(s): s for s in SUBSETS} for style in STYLES}

# ---- strategies ------------------------------------------------------------------------

two_letters = st.text(alphabet=string.ascii_letters, min_size=2, max_size=2)
# Near misses: one or three letters, non-ASCII letters that case-fold to ASCII (KELVIN SIGN,
# LATIN SMALL LETTER LONG S), dotted capital I, an Arabic-Indic digit, ASCII digits,
# delimiters, white space, a trailing newline.
not_languages = st.one_of(
    st.text(
        alphabet=string.ascii_letters + "\u00e9\u0130\u212a\u017f\u0663" + "1#~/ \n\t", max_size=4
    ),
    two_letters.map(lambda s: s + "\n"),
    st.text(max_size=4),
).filter(lambda s: not (len(s) == 2 and all(c in string.ascii_letters for c in s)))
styles = st.sampled_from(STYLES)
rating_sets = st.sampled_from(SUBSETS)
ratings = st.sampled_from(sorted(RATINGS))
posted_ats = st.builds(
    lambda ms: datetime(2024, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms),
    st.integers(0, 10**11),
)
# Ids that prefix one another, plus any identifier.
products = st.one_of(st.sampled_from(["4", "42", "42.1", "42-1", "a", "A", "a_b"]), identifiers)


def canonical_segments(style: RatingStyle) -> set[str]:
    return set(CANONICAL[style])


# ---- languages -------------------------------------------------------------------------


@FAST
@given(two_letters)
def test_language_round_trip_lower_cases(code: str) -> None:
    codec = LanguageCodec()
    assert language(code) == code.lower()
    assert codec.encode(code) == code.lower()
    assert codec.decode(codec.encode(code)) == code.lower()


def test_any_language_is_the_marker() -> None:
    assert LanguageCodec().encode(None) == ANY
    assert LanguageCodec().decode(ANY) is None


@FAST
@given(not_languages)
@example("e")
@example("eng")
@example("e1")
@example("en\n")
@example("\u212an")  # KELVIN SIGN lower-cases to ASCII `k`
@example("")
def test_anything_else_is_refused(value: str) -> None:
    with pytest.raises(InvalidInput):
        language(value)
    with pytest.raises(InvalidInput):
        LanguageCodec().encode(value)
    if value != ANY:
        with pytest.raises(InvalidInput):
            LanguageCodec().decode(value)


# ---- rating sets -----------------------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("subset", SUBSETS, ids=lambda s: ".".join(map(str, sorted(s))))
def test_rating_set_round_trip(style: RatingStyle, subset: frozenset[int]) -> None:
    codec = RatingSetCodec(style)
    assert codec.decode(codec.encode(subset)) == subset


def test_rating_set_examples() -> None:
    assert RatingSetCodec("bitmask").encode(frozenset({1, 2, 5})) == "19"
    assert RatingSetCodec("dotted").encode(frozenset({5, 2, 1})) == "1.2.5"
    assert RatingSetCodec("bitmask").encode(RATINGS) == "31"
    assert RatingSetCodec("dotted").encode(RATINGS) == "1.2.3.4.5"


@pytest.mark.parametrize("style", STYLES)
def test_31_distinct_canonical_segments(style: RatingStyle) -> None:
    assert len(canonical_segments(style)) == 31
    for segment in canonical_segments(style):
        assert not DELIMITERS.intersection(segment)


digits_and_dots = st.text(alphabet="0123456789.", min_size=0, max_size=12)
# Canonical forms bent out of shape: reordered, repeated, zero-padded.
bent = st.builds(
    lambda parts, pad: ".".join(("0" * pad) + p for p in parts),
    st.lists(st.sampled_from("123456"), min_size=1, max_size=6),
    st.integers(0, 1),
)


@FAST
@given(styles, st.one_of(digits_and_dots, bent, st.text(max_size=6)))
@example("dotted", "2.1")
@example("dotted", "1.1")
@example("dotted", "01")
@example("dotted", "0")
@example("dotted", "6")
@example("dotted", "1.")
@example("dotted", ".1")
@example("dotted", "1..2")
@example("dotted", "\u0661")  # ARABIC-INDIC DIGIT ONE
@example("bitmask", "01")
@example("bitmask", "0")
@example("bitmask", "32")
@example("bitmask", "-1")
@example("bitmask", "+1")
@example("bitmask", "1.0")
@example("bitmask", " 1")
@example("bitmask", "")
def test_only_canonical_segments_decode(style: RatingStyle, segment: str) -> None:
    codec = RatingSetCodec(style)
    if segment in CANONICAL[style]:
        assert codec.decode(segment) == CANONICAL[style][segment]
    else:
        with pytest.raises(InvalidInput):
            codec.decode(segment)


@QUICK
@given(styles, st.sets(st.integers(-3, 40), max_size=6))
def test_empty_or_out_of_range_sets_are_refused(style: RatingStyle, values: set[int]) -> None:
    codec = RatingSetCodec(style)
    if values and values <= RATINGS:
        assert codec.decode(codec.encode(frozenset(values))) == values
    else:
        with pytest.raises(InvalidInput):
            codec.encode(frozenset(values))


@QUICK
@given(st.lists(st.integers(-3, 40), max_size=8))
def test_rating_set_input(values: list[int]) -> None:
    if values and set(values) <= RATINGS:
        assert rating_set(values) == frozenset(values)
    else:
        with pytest.raises(InvalidInput):
            rating_set(values)


# ---- copy filters ----------------------------------------------------------------------


@FAST
@given(two_letters, ratings)
def test_copy_filters_are_the_32_lists_holding_the_comment(code: str, rating: int) -> None:
    filters = copy_filters(code, rating)
    expected = {
        CopyFilter(lang, subset)
        for lang in (None, code.lower())
        for subset in SUBSETS
        if rating in subset
    }
    assert len(filters) == 32
    assert set(filters) == expected


@QUICK
@given(not_languages, st.integers(-3, 40))
def test_copy_filters_refuse_bad_comments(code: str, rating: int) -> None:
    with pytest.raises(InvalidInput):
        copy_filters(code, rating)
    if rating not in RATINGS:
        with pytest.raises(InvalidInput):
            copy_filters("en", rating)


# ---- lists: membership, delimiters, injectivity ----------------------------------------


def copies(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
    style: RatingStyle,
) -> list[dict[str, str]]:
    return [
        copy_attributes(product_id, comment_id, posted_at, f, style)
        for f in copy_filters(code, rating)
    ]


@FAST
@given(
    products,
    ksuids,
    posted_ats,
    two_letters,
    ratings,
    st.none() | two_letters,
    st.none() | rating_sets,
    styles,
)
def test_a_comment_is_in_exactly_the_lists_it_matches(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
    query_language: str | None,
    query_ratings: frozenset[int] | None,
    style: RatingStyle,
) -> None:
    condition = product_comments(product_id, query_language, query_ratings, style)
    found = [
        c
        for c in copies(product_id, comment_id, posted_at, code, rating, style)
        if c[GSI1.partition_key] == condition.partition and condition.contains(c[GSI1.sort_key])
    ]
    language_ok = query_language is None or query_language.lower() == code.lower()
    rating_ok = query_ratings is None or rating in query_ratings
    assert len(found) == (1 if language_ok and rating_ok else 0)
    assert condition.index == GSI1


def _segments_are_clean(key: str) -> bool:
    return all(s and (s == ANY or not DELIMITERS.intersection(s)) for s in key.split(DELIMITER))


@FAST
@given(products, ksuids, posted_ats, two_letters, ratings, styles)
def test_no_delimiter_inside_a_segment(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
    style: RatingStyle,
) -> None:
    for attributes in copies(product_id, comment_id, posted_at, code, rating, style):
        for name in (*TABLE.attributes, *GSI1.attributes):
            assert _segments_are_clean(attributes[name]), attributes[name]


@FAST
@given(products, ksuids, posted_ats, two_letters, ratings, styles)
def test_copy_keys_parse_back(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
    style: RatingStyle,
) -> None:
    layout = LAYOUTS[style]
    for f in copy_filters(code, rating):
        attributes = copy_attributes(product_id, comment_id, posted_at, f, style)
        assert parse_copy_sort_key(attributes[TABLE.sort_key], style) == f
        assert layout.listing.parse(attributes[GSI1.partition_key]) == {
            "product_id": product_id,
            "language": f.language,
            "ratings": f.ratings,
        }


@FAST
@given(
    products,
    products,
    st.none() | two_letters,
    st.none() | two_letters,
    st.none() | rating_sets,
    st.none() | rating_sets,
    styles,
)
def test_different_products_never_share_a_list(
    first: str,
    second: str,
    first_language: str | None,
    second_language: str | None,
    first_ratings: frozenset[int] | None,
    second_ratings: frozenset[int] | None,
    style: RatingStyle,
) -> None:
    a = product_comments(first, first_language, first_ratings, style).partition
    b = product_comments(second, second_language, second_ratings, style).partition
    if first != second:
        assert a != b
    same_filter = (first_language or "").lower() == (second_language or "").lower() and (
        first_ratings or RATINGS
    ) == (second_ratings or RATINGS)
    assert (a == b) == (first == second and same_filter)


# ---- the two styles --------------------------------------------------------------------


def test_styles_differ_except_for_the_single_ratings_1_and_2() -> None:
    # {1} and {2} are written `1` and `2` either way and mean the same set; every other set
    # gets a different segment, hence different copy and list keys.
    same = [s for s in SUBSETS if len({RatingSetCodec(style).encode(s) for style in STYLES}) == 1]
    assert same == [frozenset({1}), frozenset({2})]


@FAST
@given(products, st.none() | two_letters, rating_sets)
def test_layouts_are_distinct_for_the_same_filter(
    product_id: str, code: str | None, subset: frozenset[int]
) -> None:
    f = CopyFilter(None if code is None else code.lower(), subset)
    keys = {
        style: (
            LAYOUTS[style].copy.render(language=f.language, ratings=f.ratings),
            product_comments(product_id, f.language, f.ratings, style).partition,
        )
        for style in STYLES
    }
    if subset in (frozenset({1}), frozenset({2})):
        assert keys["bitmask"] == keys["dotted"]
    else:
        assert keys["bitmask"][0] != keys["dotted"][0]
        assert keys["bitmask"][1] != keys["dotted"][1]


def test_a_segment_of_both_styles_can_mean_different_sets() -> None:
    # Why the two styles must never share a table: `3` is {1, 2} in one and {3} in the other.
    both = canonical_segments("bitmask") & canonical_segments("dotted")
    assert both == {"1", "2", "3", "4", "5"}
    differ = {s for s in both if CANONICAL["bitmask"][s] != CANONICAL["dotted"][s]}
    assert differ == {"3", "4", "5"}
