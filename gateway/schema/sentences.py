"""What the schema says of a derived type, field or argument its declaration leaves
undescribed: a sentence from what it is (a list's arguments; an attribute's is its kind's
own, `Attribute.sentence`) and, for a field that reads or writes, what its access pattern
asks of DynamoDB and its worst case, as `dynagate model check` prints them
(`data/pattern_requests.py`)."""

from __future__ import annotations

from data.pattern_requests import item_key, one, said_of
from data.places.items import DEFAULT_LIMIT, MAX_LIMIT
from model import Entity, ListOf, Model, Near, Pattern
from model.entities import plural
from store.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE


def entity_sentence(entity: Entity) -> str:
    return f"{one(entity.noun, capital=True)}, one item keyed {item_key(entity)}."


def pattern_sentence(model: Model, pattern: Pattern) -> str:
    """A root field's or a list's: what it answers, then its requests and worst case."""
    return said_of(model, pattern).sentence


def followed_sentence(pattern: ListOf | Near) -> str:
    many = plural(pattern.entity.noun)
    if isinstance(pattern, Near):
        return f"Each of the {many} entering, changing in or leaving the viewport, as it happens."
    return (
        f"Each change to the {many} `{pattern.field}` lists with these arguments (added,"
        " changed or removed), as it happens."
    )


def list_arguments(pattern: ListOf) -> dict[str, str]:
    """What each of a list's own arguments does, by name."""
    entity = pattern.entity
    many = plural(entity.noun)
    said: dict[str, str] = {}
    for name in pattern.equal:
        said[name] = f"Only the {many} whose {name} is this: it narrows the key condition."
    if pattern.range is not None:
        said[pattern.range.argument] = (
            f"Only the {many} whose {pattern.range.attribute} is within these bounds: it"
            " narrows the key condition."
        )
    for name in pattern.filtered:
        said[name] = (
            f"Only the {many} whose {name} is this, as a filter: a page is refilled until"
            " it is full or the list ends."
        )
    for name in pattern.either:
        said[name] = f"Only the {many} whose {name} is this; left out, any."
    for name, argument in pattern.sets.items():
        said[argument] = f"Only the {many} whose {name} is one of these; left out, any."
    default = "DESC" if pattern.descending else "ASC"
    said["direction"] = f"Which way to read the sort key; {default} when left out."
    return said


# The arguments every connection, search or heatmap takes, by name.
ARGUMENTS = {
    "first": (
        f"At most this many items from the start, or after `after` (1 to {MAX_PAGE_SIZE};"
        f" {DEFAULT_PAGE_SIZE} when neither first nor last is given)."
    ),
    "after": "The cursor of the edge the page follows.",
    "last": f"At most this many items from the end, or before `before` (1 to {MAX_PAGE_SIZE}).",
    "before": "The cursor of the edge the page precedes.",
    "viewport": "The area: its edges in degrees, at most 0.5° a side.",
    "latitude": "The point's latitude, in degrees from -90 to 90.",
    "longitude": "The point's longitude, in degrees from -180 to 180.",
    "radiusMeters": "How far from the point to look, in metres.",
    "limit": f"The most answered, 1 to {MAX_LIMIT:,} ({DEFAULT_LIMIT} when left out).",
    "precision": (
        "The cells' geohash length, 1 to 8; left out, the largest the view and the limits allow."
    ),
}
