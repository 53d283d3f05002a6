"""What the schema says of a derived type, field or argument its declaration leaves
undescribed: a sentence from what it is (a list's arguments; an attribute's is its kind's
own, `Attribute.sentence`) and, for a field that reads or writes, what its access pattern
asks of DynamoDB and its worst case, as `dynagate model check` prints them
(`data/pattern_requests.py`)."""

from __future__ import annotations

from data.pattern_requests import item_key, list_read, pattern_requests, sort_of
from data.places.items import DEFAULT_LIMIT, MAX_LIMIT
from data.writes import parents
from model import (
    Create,
    Delete,
    Entity,
    Heatmap,
    ListOf,
    Lookup,
    Model,
    Near,
    Pattern,
    Update,
)
from model.entities import plural
from store.pagination import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE


def one(noun: str, *, capital: bool = False) -> str:
    """`an order`, `a customer`; `An order` with `capital`."""
    article = "an" if noun[:1].lower() in "aeiou" else "a"
    return f"{article.capitalize() if capital else article} {noun}"


def entity_sentence(entity: Entity) -> str:
    return f"{one(entity.noun, capital=True)}, one item keyed {item_key(entity)}."


def pattern_sentence(model: Model, pattern: Pattern) -> str:
    """A root field's or a list's: what it answers, then its requests and worst case."""
    entity = pattern.entity
    noun, many = entity.noun, plural(entity.noun)
    requests = pattern_requests(model, pattern)
    if isinstance(pattern, Lookup):
        return f"{one(noun, capital=True)} by its key, null when there is none: {requests}."
    if isinstance(pattern, ListOf):
        if pattern.whole is not None:
            every = f"Every one of its {many} (at most {pattern.whole})"
            return f"{every}, in key order: {list_read(pattern)}."
        order = "descending" if pattern.descending else "ascending"
        return f"The {many} of one partition, {order} by {sort_of(pattern)}: {list_read(pattern)}."
    if isinstance(pattern, Create):
        return f"Creates {one(noun)}: {requests}."
    if isinstance(pattern, Update):
        return f"Changes {one(noun)} named by its key: {requests}."
    if isinstance(pattern, Delete) and model.children_of(entity):
        return _parent_removal(model, pattern)
    if isinstance(pattern, Delete):
        return f"Removes the {noun} its key names, true once removed: {requests}."
    if isinstance(pattern, Near):
        return f"The {many} inside a viewport: {requests}."
    if isinstance(pattern, Heatmap):
        return f"Exact counts of {many} in the geohash cells meeting a viewport: {requests}."
    return _within(f"The {many}: {requests}.")


def _parent_removal(model: Model, pattern: Delete) -> str:
    """A parent's delete: what becomes of what is below it, and its worst case."""
    entity = pattern.entity
    below = " and ".join(plural(child.noun) for child in model.children_of(entity))
    calls, _ = parents.removal_calls(model, entity)
    if pattern.children == "refuse":
        return (
            f"Removes the {entity.noun} its key names; CONFLICT naming its {below} while any"
            f" exist; worst {calls} calls."
        )
    return (
        f"Removes the {entity.noun} its key names with its {below}, in one transaction of at"
        f" most {parents.MOST_ACTIONS} writes (beyond, `dynagate remove`); worst {calls} calls."
    )


# The longest description: one sentence beside a name in GraphiQL.
LONGEST = 200


def _within(sentence: str) -> str:
    """`sentence`, cut after its last clause that ends within `LONGEST` characters."""
    if len(sentence) <= LONGEST:
        return sentence
    cut = sentence.rfind("; ", 0, LONGEST)
    return sentence[:cut] + "." if cut > 0 else sentence[: LONGEST - 1] + "…"


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
