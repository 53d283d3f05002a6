"""Relay page arguments: defaults, bounds and combinations (no DynamoDB)."""

from __future__ import annotations

from typing import Any

import pytest

from errors.vocabulary import BadUserInput
from store.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageArgs


def test_defaults_to_first_20_forward() -> None:
    assert PageArgs.parse(None, None, None, None) == PageArgs(size=20, backward=False, cursor=None)
    assert DEFAULT_PAGE_SIZE == 20
    assert MAX_PAGE_SIZE == 100


def test_first_and_after() -> None:
    assert PageArgs.parse(3, "c", None, None) == PageArgs(size=3, backward=False, cursor="c")
    assert PageArgs.parse(None, "c", None, None) == PageArgs(size=20, backward=False, cursor="c")


def test_last_and_before() -> None:
    assert PageArgs.parse(None, None, 3, "c") == PageArgs(size=3, backward=True, cursor="c")
    assert PageArgs.parse(None, None, 3, None) == PageArgs(size=3, backward=True, cursor=None)
    assert PageArgs.parse(None, None, None, "c") == PageArgs(size=20, backward=True, cursor="c")


@pytest.mark.parametrize("value", [1, 2, 50, 99, 100])
def test_bounds_accepted(value: int) -> None:
    assert PageArgs.parse(value, None, None, None).size == value
    assert PageArgs.parse(None, None, value, None).size == value


@pytest.mark.parametrize("value", [0, -1, 101, 1000, -(2**31), 2**31 - 1])
def test_out_of_range_is_bad_user_input(value: int) -> None:
    with pytest.raises(BadUserInput, match="first"):
        PageArgs.parse(value, None, None, None)
    with pytest.raises(BadUserInput, match="last"):
        PageArgs.parse(None, None, value, None)
    with pytest.raises(BadUserInput):
        PageArgs.parse(value, "c", None, None)
    with pytest.raises(BadUserInput):
        PageArgs.parse(None, None, value, "c")


@pytest.mark.parametrize(
    ("first", "after", "last", "before"),
    [
        (3, None, 3, None),  # first and last
        (1, None, 1, None),
        (0, None, 0, None),
        (3, "c", 3, "c"),
        (None, "c", 3, None),  # after with last
        (3, None, None, "c"),  # before with first
        (None, "c", None, "c"),  # after and before
        (3, "c", None, "d"),
        (None, "c", 3, "d"),
    ],
)
def test_mixed_arguments_are_bad_user_input(
    first: int | None, after: str | None, last: int | None, before: str | None
) -> None:
    with pytest.raises(BadUserInput):
        PageArgs.parse(first, after, last, before)


def test_bad_user_input_carries_its_code() -> None:
    with pytest.raises(BadUserInput) as caught:
        PageArgs.parse(101, None, None, None)
    assert caught.value.extensions == {"code": "BAD_USER_INPUT"}


# ---- one reading for the field, its parent's look-ahead and the bound


ARGUMENT_SETS = [
    {},
    {"first": 7},
    {"first": 7, "after": "c"},
    {"last": 7, "before": "c"},
    {"before": "c"},
    {"first": None, "last": 3},  # a variable left out arrives as None
    {"first": 100},
]
REFUSED = [
    ({"first": 0}, 0),
    ({"first": -5}, 0),
    ({"first": 101}, MAX_PAGE_SIZE),
    ({"last": 10**9}, MAX_PAGE_SIZE),
    ({"first": 3, "last": 4}, 3),
    ({"after": "a", "before": "b"}, DEFAULT_PAGE_SIZE),
]


@pytest.mark.parametrize("arguments", ARGUMENT_SETS)
def test_arguments_by_name_are_parsed_as_the_field_parses_them(
    arguments: dict[str, Any],
) -> None:
    names = ("first", "after", "last", "before")
    expected = PageArgs.parse(*(arguments.get(n) for n in names))
    assert PageArgs.from_arguments(arguments) == expected
    # The bound counts what the read uses.
    assert PageArgs.most_edges(arguments) == expected.size


@pytest.mark.parametrize(("arguments", "edges"), REFUSED)
def test_refused_arguments_are_bounded_by_the_size_asked_for_within_range(
    arguments: dict[str, Any], edges: int
) -> None:
    with pytest.raises(BadUserInput):
        PageArgs.from_arguments(arguments)
    assert PageArgs.most_edges(arguments) == edges
