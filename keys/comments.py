"""Product comments filtered by language and any set of ratings (seed 003).

    comment   PK = SK = COMMENT#<ksuid>                      the primary item
    copy      PK = COMMENT#<ksuid>  SK = COPY#<lang|~>#<set>  32 per comment
              GSI1  PRODUCT#<id>#<lang|~>#<set>  COMMENT#<t>#<ksuid>   newest first

A comment with rating r is copied once for every subset of {1..5} that contains r (16),
under `~` (any language) and under its own language: 32 copies. Asking for language L and
ratings S is then one Query on the list `PRODUCT#<id>#L#S`. No ratings filter is the set
{1..5}; no language filter is `~`. The copies share the comment's partition, so one Query
(or the rules below) reaches all of them, and they are written in the same transaction as
the primary item. A list's key extends its product's key (`keys/products.py`).

A rating set is a bitmask (`{1, 2, 5}` -> `19`) rather than the seed's readable `1.2.5`:
fewer key bytes and fewer write units (docs/decisions/comments-layout.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Literal

from keys.codecs import ANY, KsuidCodec, TimestampCodec
from keys.conditions import KeyCondition
from keys.errors import BadUserInput
from keys.products import PRODUCT
from keys.table import GSI1, TABLE, entity_key
from keys.template import KeyTemplate, Segment

RATINGS = frozenset({1, 2, 3, 4, 5})
# The one rating-set style: the layout is `LAYOUTS[RATING_STYLE]`.
RatingStyle = Literal["bitmask"]
RATING_STYLE: RatingStyle = "bitmask"
_LANGUAGE = re.compile(r"[A-Za-z]{2}")


def language(value: str, field: str = "language") -> str:
    """A two-letter language code, lower-cased."""
    if not _LANGUAGE.fullmatch(value):
        raise BadUserInput(f"{value!r} is not a two-letter language code such as 'en'", field=field)
    return value.lower()


def rating(value: int, field: str = "rating") -> int:
    if value not in RATINGS:
        raise BadUserInput(f"{value} is not a rating from 1 to 5", field=field)
    return value


def rating_set(values: list[int], field: str = "ratings") -> frozenset[int]:
    """A non-empty set of ratings 1 to 5 (repeats collapse)."""
    if not values:
        raise BadUserInput("give at least one rating, or leave the filter out for all", field=field)
    return frozenset(rating(v, field) for v in values)


@dataclass(frozen=True)
class LanguageCodec:
    """A language code, or None for "any language" (`~`)."""

    def encode(self, value: str | None) -> str:
        return ANY if value is None else language(value)

    def decode(self, segment: str) -> str | None:
        return None if segment == ANY else language(segment)


@dataclass(frozen=True)
class RatingSetCodec:
    """A non-empty rating set as a bitmask: rating r is bit r - 1 (`{1, 2, 5}` -> `19`)."""

    def encode(self, value: frozenset[int]) -> str:
        ordered = sorted(rating(r, "ratings") for r in value)
        if not ordered:
            raise BadUserInput("a rating set is not empty", field="ratings")
        return str(sum(1 << (r - 1) for r in ordered))

    def decode(self, segment: str) -> frozenset[int]:
        if not (segment.isascii() and segment.isdigit()) or not 1 <= int(segment) <= 31:
            raise BadUserInput(f"{segment!r} is not a rating set", field="ratings")
        values = frozenset(r for r in RATINGS if int(segment) >> (r - 1) & 1)
        if self.encode(values) != segment:
            raise BadUserInput(f"{segment!r} is not a canonical rating set", field="ratings")
        return values


COMMENT = KeyTemplate("COMMENT", (Segment("comment_id", KsuidCodec()),))
COMMENT_BY_TIME = KeyTemplate(
    "COMMENT", (Segment("created_at", TimestampCodec()), Segment("comment_id", KsuidCodec()))
)


@dataclass(frozen=True)
class Layout:
    """The copy and list templates."""

    copy: KeyTemplate
    listing: KeyTemplate


_FILTER = (Segment("language", LanguageCodec()), Segment("ratings", RatingSetCodec()))
LAYOUTS: dict[RatingStyle, Layout] = {
    RATING_STYLE: Layout(
        copy=KeyTemplate("COPY", _FILTER),
        listing=KeyTemplate(PRODUCT.label, (*PRODUCT.segments, *_FILTER)),
    )
}
_LAYOUT = LAYOUTS[RATING_STYLE]


@dataclass(frozen=True)
class CopyFilter:
    """One list a comment appears in: a language (None = any) and a rating set."""

    language: str | None
    ratings: frozenset[int]


def comment_key(comment_id: str) -> dict[str, str]:
    return entity_key(COMMENT.render(comment_id=comment_id))


def copy_filters(comment_language: str, comment_rating: int) -> list[CopyFilter]:
    """The 32 lists a comment belongs to: 16 rating sets holding its rating, by 2 languages."""
    others = sorted(RATINGS - {rating(comment_rating)})
    sets = [
        frozenset({comment_rating, *extra})
        for size in range(len(others) + 1)
        for extra in combinations(others, size)
    ]
    return [
        CopyFilter(lang, ratings) for lang in (None, language(comment_language)) for ratings in sets
    ]


def copy_key(comment_id: str, copy: CopyFilter) -> dict[str, str]:
    return {
        TABLE.partition_key: COMMENT.render(comment_id=comment_id),
        TABLE.sort_key: _LAYOUT.copy.render(language=copy.language, ratings=copy.ratings),
    }


def copy_attributes(
    product_id: str, comment_id: str, created_at: datetime, copy: CopyFilter
) -> dict[str, str]:
    """Keys of one copy: its place in the comment's partition and in its list on GSI1."""
    return {
        **copy_key(comment_id, copy),
        GSI1.partition_key: _LAYOUT.listing.render(
            product_id=product_id, language=copy.language, ratings=copy.ratings
        ),
        GSI1.sort_key: COMMENT_BY_TIME.render(created_at=created_at, comment_id=comment_id),
    }


def parse_copy_sort_key(sort_key: str) -> CopyFilter | None:
    """The filter a copy's sort key stands for, or None if it is not a copy's key."""
    try:
        values = _LAYOUT.copy.parse(sort_key)
    except ValueError:
        return None
    return CopyFilter(values["language"], values["ratings"])


def product_comments(
    product_id: str,
    language_code: str | None = None,
    ratings: frozenset[int] | None = None,
) -> KeyCondition:
    """The list holding a product's comments in `language_code` with a rating in `ratings`."""
    partition = _LAYOUT.listing.render(
        product_id=product_id,
        language=language_code,
        ratings=RATINGS if ratings is None else ratings,
    )
    return KeyCondition.prefix(GSI1, partition, COMMENT_BY_TIME.prefix())
