"""Property tests of the comments' copies (`demo/model/comments.py`): codecs, the 32 copy
filters and the lists they make.

Pure: no DynamoDB. "The comment appears in a list" means one of its copies carries that
list's GSI1PK and a GSI1SK inside the list's key condition, which is exactly what a Query
on GSI1 would return.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from errors.vocabulary import BadUserInput
from keys.codecs import ANY, DELIMITERS
from keys.table import GSI1, TABLE
from keys.template import DELIMITER
from store.cursors import Binding
from tests.demo_comments import (
    RATINGS,
    CopyFilter,
    comments_read,
    copy_attributes,
    copy_filters,
    language,
    parse_copy_sort_key,
    parse_listing,
    product_comments,
    rating_set,
)
from tests.demo_comments import language_codec as LanguageCodec
from tests.demo_comments import rating_set_codec as RatingSetCodec
from tests.keys.strategies import identifiers, ksuids

FAST = settings(max_examples=100)
QUICK = settings(max_examples=30)

SUBSETS = [frozenset(c) for size in range(1, 6) for c in combinations(sorted(RATINGS), size)]
CANONICAL = {RatingSetCodec().encode(s): s for s in SUBSETS}

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
rating_sets = st.sampled_from(SUBSETS)
ratings = st.sampled_from(sorted(RATINGS))
posted_ats = st.builds(
    lambda ms: datetime(2024, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms),
    st.integers(0, 10**11),
)
# Ids that prefix one another, plus any identifier.
products = st.one_of(st.sampled_from(["4", "42", "42.1", "42-1", "a", "A", "a_b"]), identifiers)


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
    with pytest.raises(BadUserInput):
        language(value)
    with pytest.raises(BadUserInput):
        LanguageCodec().encode(value)
    if value != ANY:
        with pytest.raises(BadUserInput):
            LanguageCodec().decode(value)


# ---- rating sets -----------------------------------------------------------------------


@pytest.mark.parametrize("subset", SUBSETS, ids=lambda s: ".".join(map(str, sorted(s))))
def test_rating_set_round_trip(subset: frozenset[int]) -> None:
    codec = RatingSetCodec()
    assert codec.decode(codec.encode(subset)) == subset


def test_rating_set_examples() -> None:
    assert RatingSetCodec().encode(frozenset({1, 2, 5})) == "19"
    assert RatingSetCodec().encode(RATINGS) == "31"


def test_31_distinct_canonical_segments() -> None:
    assert len(CANONICAL) == 31
    for segment in CANONICAL:
        assert not DELIMITERS.intersection(segment)


digits_and_dots = st.text(alphabet="0123456789.", min_size=0, max_size=12)
# Canonical forms bent out of shape: reordered, repeated, zero-padded.
bent = st.builds(
    lambda parts, pad: ".".join(("0" * pad) + p for p in parts),
    st.lists(st.sampled_from("123456"), min_size=1, max_size=6),
    st.integers(0, 1),
)


@FAST
@given(st.one_of(digits_and_dots, bent, st.text(max_size=6)))
@example("01")
@example("0")
@example("32")
@example("-1")
@example("+1")
@example("1.0")
@example(" 1")
@example("")
@example("\u0661")  # ARABIC-INDIC DIGIT ONE
def test_only_canonical_segments_decode(segment: str) -> None:
    codec = RatingSetCodec()
    if segment in CANONICAL:
        assert codec.decode(segment) == CANONICAL[segment]
    else:
        with pytest.raises(BadUserInput):
            codec.decode(segment)


@QUICK
@given(st.sets(st.integers(-3, 40), max_size=6))
def test_empty_or_out_of_range_sets_are_refused(values: set[int]) -> None:
    codec = RatingSetCodec()
    if values and values <= RATINGS:
        assert codec.decode(codec.encode(frozenset(values))) == values
    else:
        with pytest.raises(BadUserInput):
            codec.encode(frozenset(values))


@QUICK
@given(st.lists(st.integers(-3, 40), max_size=8))
def test_rating_set_input(values: list[int]) -> None:
    if values and set(values) <= RATINGS:
        assert rating_set(values) == frozenset(values)
    else:
        with pytest.raises(BadUserInput):
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
    with pytest.raises(BadUserInput):
        copy_filters(code, rating)
    if rating not in RATINGS:
        with pytest.raises(BadUserInput):
            copy_filters("en", rating)


# ---- lists: membership, delimiters, injectivity ----------------------------------------


def copies(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
) -> list[dict[str, str]]:
    return [
        copy_attributes(product_id, comment_id, posted_at, f) for f in copy_filters(code, rating)
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
)
def test_a_comment_is_in_exactly_the_lists_it_matches(
    product_id: str,
    comment_id: str,
    posted_at: datetime,
    code: str,
    rating: int,
    query_language: str | None,
    query_ratings: frozenset[int] | None,
) -> None:
    condition = product_comments(product_id, query_language, query_ratings)
    found = [
        c
        for c in copies(product_id, comment_id, posted_at, code, rating)
        if c[GSI1.partition_key] == condition.partition and condition.contains(c[GSI1.sort_key])
    ]
    language_ok = query_language is None or query_language.lower() == code.lower()
    rating_ok = query_ratings is None or rating in query_ratings
    assert len(found) == (1 if language_ok and rating_ok else 0)
    assert condition.index == GSI1


def _segments_are_clean(key: str) -> bool:
    return all(s and (s == ANY or not DELIMITERS.intersection(s)) for s in key.split(DELIMITER))


@FAST
@given(products, ksuids, posted_ats, two_letters, ratings)
def test_no_delimiter_inside_a_segment(
    product_id: str, comment_id: str, posted_at: datetime, code: str, rating: int
) -> None:
    for attributes in copies(product_id, comment_id, posted_at, code, rating):
        for name in (*TABLE.attributes, *GSI1.attributes):
            assert _segments_are_clean(attributes[name]), attributes[name]


@FAST
@given(products, ksuids, posted_ats, two_letters, ratings)
def test_copy_keys_parse_back(
    product_id: str, comment_id: str, posted_at: datetime, code: str, rating: int
) -> None:
    for f in copy_filters(code, rating):
        attributes = copy_attributes(product_id, comment_id, posted_at, f)
        assert parse_copy_sort_key(attributes[TABLE.sort_key]) == f
        assert parse_listing(attributes[GSI1.partition_key]) == {
            "productId": product_id,
            "language": f.language,
            "rating": f.ratings,
        }


@FAST
@given(
    products,
    products,
    st.none() | two_letters,
    st.none() | two_letters,
    st.none() | rating_sets,
    st.none() | rating_sets,
)
def test_different_products_never_share_a_list(
    first: str,
    second: str,
    first_language: str | None,
    second_language: str | None,
    first_ratings: frozenset[int] | None,
    second_ratings: frozenset[int] | None,
) -> None:
    a = product_comments(first, first_language, first_ratings).partition
    b = product_comments(second, second_language, second_ratings).partition
    if first != second:
        assert a != b
    same_filter = (first_language or "").lower() == (second_language or "").lower() and (
        first_ratings or RATINGS
    ) == (second_ratings or RATINGS)
    assert (a == b) == (first == second and same_filter)


@pytest.mark.parametrize(
    ("language", "ratings", "bound"),
    [
        (None, None, {"language": None, "ratings": None}),
        ("EN", [5, 1, 2], {"language": "en", "ratings": [1, 2, 5]}),
    ],
)
def test_a_page_is_bound_as_cursors_always_were(
    language: str | None, ratings: list[int] | None, bound: dict[str, object]
) -> None:
    """Cursors handed out before the comments were declared stay valid."""
    assert comments_read("p1", language, ratings).binding == Binding(
        "Product.comments", "p1", bound
    )
