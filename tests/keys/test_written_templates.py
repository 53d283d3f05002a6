"""Property tests of written key templates (`keys.template.parse_template`): literal text
and segments in any order, as a table another tool made holds its keys. Every template
parses back what it renders, its prefixes bound exactly the keys with their leading
values, and a range on a segment holds exactly the keys whose value is in it.

Keys are ASCII, bounds add KEY_MAX (U+FFFF): for such strings Python's `str` order is
DynamoDB's UTF-8 byte order, so `KeyCondition.contains` (plain `<=`) is what DynamoDB does.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from keys.codecs import (
    ChoiceCodec,
    EpochCodec,
    IdentifierCodec,
    KsuidCodec,
    NumberCodec,
    WholeNumberCodec,
)
from keys.conditions import KeyCondition, within
from keys.table import TABLE
from keys.template import KeyTemplate, Segment, TemplateError, parse_template
from tests.keys.strategies import FAST, FEWER, ksuids

STATUSES = frozenset({"OPEN", "SHUT", "DRAFT"})
CODECS: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "orgId": (IdentifierCodec(), st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True)),
    "id": (KsuidCodec(), ksuids),
    "status": (ChoiceCodec(STATUSES), st.sampled_from(sorted(STATUSES))),
    "rank": (NumberCodec(5), st.integers(0, 99999)),
}
# Literal text: anything printable but `$` (a template's own sign) and space.
plain = st.text(string.ascii_letters + string.digits + "_-.:@", max_size=6)
delimited = st.tuples(plain, st.sampled_from("#/~"), plain).map("".join)


@st.composite
def written(draw: st.DrawFn) -> tuple[str, KeyTemplate]:
    """A template's text and its KeyTemplate: 1 to 4 segments, a delimiter between each."""
    names = draw(st.lists(st.sampled_from(sorted(CODECS)), min_size=1, max_size=4, unique=True))
    texts = [draw(plain)]
    texts += [draw(delimited) for _ in names[1:]]
    texts.append(draw(st.one_of(st.just(""), delimited)))
    text = texts[0] + "".join(f"${{{n}}}{after}" for n, after in zip(names, texts[1:], strict=True))
    parsed = parse_template(text)
    assert (parsed.texts, parsed.names) == (tuple(texts), tuple(names))
    segments = tuple(Segment(n, CODECS[n][0]) for n in names)
    return text, KeyTemplate(parsed.label, segments, parsed.texts)


def values_for(template: KeyTemplate) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({s.name: CODECS[s.name][1] for s in template.segments})


cases = written().flatmap(lambda w: st.tuples(st.just(w[1]), values_for(w[1])))


@FAST
@given(cases)
def test_a_written_template_parses_back_what_it_renders(
    case: tuple[KeyTemplate, dict[str, Any]],
) -> None:
    template, values = case
    key = template.render(**values)
    assert template.parse(key) == values
    assert template.matches(key)
    assert template.render(**template.parse(key)) == key


@FAST
@given(cases)
def test_every_leading_prefix_bounds_the_full_key(case: tuple[KeyTemplate, dict[str, Any]]) -> None:
    template, values = case
    key = template.render(**values)
    names = [s.name for s in template.segments]
    for count in range(len(names)):
        prefix = template.prefix(**{n: values[n] for n in names[:count]})
        assert key.startswith(prefix)
        assert KeyCondition.prefix(TABLE, "P", prefix).contains(key)
    # All given: the key up to a delimiter, which bounds no longer value of the last one.
    whole = template.prefix(**values)
    assert key.startswith(whole) or whole.startswith(key)


@FEWER
@given(cases, st.data())
def test_a_prefix_never_reaches_another_value(
    case: tuple[KeyTemplate, dict[str, Any]], data: st.DataObject
) -> None:
    template, values = case
    position = data.draw(st.integers(0, len(template.segments) - 1))
    segment = template.segments[position]
    other = data.draw(CODECS[segment.name][1])
    assume(segment.codec.encode(other) != segment.codec.encode(values[segment.name]))
    names = [s.name for s in template.segments]
    leading = {n: values[n] for n in names[:position]}
    prefix = template.prefix(**leading, **{segment.name: other})
    assert not KeyCondition.prefix(TABLE, "P", prefix).contains(template.render(**values))


@FEWER
@given(cases, st.data())
def test_a_range_holds_exactly_the_keys_whose_value_is_in_it(
    case: tuple[KeyTemplate, dict[str, Any]], data: st.DataObject
) -> None:
    template, values = case
    ordered = [s for s in template.segments if s.name in ("rank", "id")]
    assume(ordered)
    segment = ordered[0]
    names = [s.name for s in template.segments]
    position = names.index(segment.name)
    leading = {n: values[n] for n in names[:position]}
    low, high = sorted(data.draw(st.lists(CODECS[segment.name][1], min_size=2, max_size=2)))
    condition = within(TABLE, "P", template, leading, segment.name, low, high)
    key = template.render(**values)
    inside = low <= values[segment.name] <= high
    assert condition.contains(key) == inside


@FEWER
@given(cases)
def test_a_key_stored_in_lower_case_is_matched_and_read(
    case: tuple[KeyTemplate, dict[str, Any]],
) -> None:
    template, values = case
    assume("id" not in values)  # a KSUID is case-sensitive: folded, it is another id
    lower = KeyTemplate(template.label, template.segments, template.texts, "lower")
    key = lower.render(**values)
    assert key == key.lower()
    assert lower.matches(key)
    assert not template.texts or lower.prefix() == template.prefix().lower()


@pytest.mark.parametrize(
    ("text", "texts", "names"),
    [
        ("ORG#${orgId}", ("ORG#", ""), ("orgId",)),
        (
            "$ticketing#event_1#eventid_${eventId}",
            ("$ticketing#event_1#eventid_", ""),
            ("eventId",),
        ),
        ("${status}#${createdAt}", ("", "#", ""), ("status", "createdAt")),
        ("ORDER#${id}#META", ("ORDER#", "#META"), ("id",)),
        ("USERS", ("USERS",), ()),
    ],
)
def test_the_formats_of_other_tools_parse(
    text: str, texts: tuple[str, ...], names: tuple[str, ...]
) -> None:
    parsed = parse_template(text)
    assert (parsed.texts, parsed.names) == (texts, names)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("${a}${b}", "holds no delimiter"),
        ("A#${a}_${b}", "holds no delimiter"),
        ("A#${a}_tail", "after the last attribute"),
        ("A#${a}#${a}", "appears twice"),
        ("A#${a", "not closed"),
        ("", "empty template"),
    ],
)
def test_a_template_that_could_not_be_read_back_is_refused(text: str, said: str) -> None:
    with pytest.raises(TemplateError, match=said):
        parse_template(text)


def test_a_casing_is_one_of_three() -> None:
    with pytest.raises(TemplateError, match="casing"):
        parse_template("A#${a}", "title")  # type: ignore[arg-type]


NUMBER_KEY = KeyTemplate("", (Segment("points", WholeNumberCodec()),), ("", ""), numeric=True)
TIME_KEY = KeyTemplate("", (Segment("at", EpochCodec(millis=True)),), ("", ""), numeric=True)
WHOLE = st.integers(-(10**30), 10**30)


@FAST
@given(WHOLE)
def test_a_number_key_holds_its_number_and_reads_it_back(points: int) -> None:
    held = NUMBER_KEY.stored(points=points)
    assert held == points and isinstance(held, int)
    assert NUMBER_KEY.parse(held) == {"points": points}
    assert NUMBER_KEY.parse(str(held)) == {"points": points}


@FAST
@given(st.integers(-(10**12), 10**13))
def test_an_epoch_time_key_reads_back_its_time(millis: int) -> None:
    at = TIME_KEY.segments[0].codec.decode(str(millis))
    assert TIME_KEY.stored(at=at) == millis
    assert TIME_KEY.parse(millis) == {"at": at}


@FAST
@given(WHOLE, st.one_of(st.none(), WHOLE), st.one_of(st.none(), WHOLE))
def test_a_range_on_a_number_key_holds_exactly_the_numbers_in_it(
    value: int, start: int | None, end: int | None
) -> None:
    """Number keys compare as numbers in DynamoDB: the bounds are the values themselves,
    never a prefix (`begins_with` is refused on a number)."""
    condition = within(TABLE, "P", NUMBER_KEY, {}, "points", start, end)
    assert condition.begins_with is None
    low = None if condition.low is None else int(condition.low)
    high = None if condition.high is None else int(condition.high)
    inside = (low is None or low <= value) and (high is None or value <= high)
    assert inside == ((start is None or start <= value) and (end is None or value <= end))


@pytest.mark.parametrize("segment", ["", "-", "01", "1.5", "1e3", "--1", " 1"])
def test_a_number_key_refuses_what_no_number_renders(segment: str) -> None:
    with pytest.raises(ValueError):
        NUMBER_KEY.parse(segment)
