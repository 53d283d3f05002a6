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
`bench/comments.py` measures both, and the docs give the figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import Literal

from keys.codecs import ANY, KsuidCodec, TimestampCodec
from keys.conditions import KeyCondition
from keys.errors import InvalidInput
from keys.products import PRODUCT
from keys.table import GSI1, TABLE, entity_key
from keys.template import KeyTemplate, Segment

RATINGS = frozenset({1, 2, 3, 4, 5})
RatingStyle = Literal["bitmask", "dotted"]
RATING_STYLE: RatingStyle = "bitmask"
_LANGUAGE = re.compile(r"[A-Za-z]{2}")


def language(value: str, field: str = "language") -> str:
    """A two-letter language code, lower-cased."""
    if not _LANGUAGE.fullmatch(value):
        raise InvalidInput(field, f"{value!r} is not a two-letter language code such as 'en'")
    return value.lower()


def rating(value: int, field: str = "rating") -> int:
    if value not in RATINGS:
        raise InvalidInput(field, f"{value} is not a rating from 1 to 5")
    return value


def rating_set(values: list[int], field: str = "ratings") -> frozenset[int]:
    """A non-empty set of ratings 1 to 5 (repeats collapse)."""
    if not values:
        raise InvalidInput(field, "give at least one rating, or leave the filter out for all")
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
    style: RatingStyle = RATING_STYLE

    def encode(self, value: frozenset[int]) -> str:
        ordered = sorted(rating(r, "ratings") for r in value)
        if not ordered:
            raise InvalidInput("ratings", "a rating set is not empty")
        if self.style == "dotted":
            return ".".join(map(str, ordered))
        return str(sum(1 << (r - 1) for r in ordered))

    def decode(self, segment: str) -> frozenset[int]:
        if self.style == "dotted":
            parts = segment.split(".")
            if not all(p.isascii() and p.isdigit() for p in parts):
                raise InvalidInput("ratings", f"{segment!r} is not a rating set")
            values = frozenset(int(p) for p in parts)
        else:
            if not (segment.isascii() and segment.isdigit()) or not 1 <= int(segment) <= 31:
                raise InvalidInput("ratings", f"{segment!r} is not a rating set")
            values = frozenset(r for r in RATINGS if int(segment) >> (r - 1) & 1)
        if self.encode(values) != segment:
            raise InvalidInput("ratings", f"{segment!r} is not a canonical rating set")
        return values


COMMENT = KeyTemplate("COMMENT", (Segment("comment_id", KsuidCodec()),))
COMMENT_BY_TIME = KeyTemplate(
    "COMMENT", (Segment("created_at", TimestampCodec()), Segment("comment_id", KsuidCodec()))
)


@dataclass(frozen=True)
class Layout:
    """The copy and list templates for one rating-set style."""

    copy: KeyTemplate
    listing: KeyTemplate

    @classmethod
    def of(cls, style: RatingStyle) -> Layout:
        language_segment = Segment("language", LanguageCodec())
        ratings_segment = Segment("ratings", RatingSetCodec(style))
        return cls(
            copy=KeyTemplate("COPY", (language_segment, ratings_segment)),
            listing=KeyTemplate(
                PRODUCT.label, (*PRODUCT.segments, language_segment, ratings_segment)
            ),
        )


LAYOUTS: dict[RatingStyle, Layout] = {style: Layout.of(style) for style in ("bitmask", "dotted")}


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


def copy_key(
    comment_id: str, copy: CopyFilter, style: RatingStyle = RATING_STYLE
) -> dict[str, str]:
    layout = LAYOUTS[style]
    return {
        TABLE.partition_key: COMMENT.render(comment_id=comment_id),
        TABLE.sort_key: layout.copy.render(language=copy.language, ratings=copy.ratings),
    }


def copy_attributes(
    product_id: str,
    comment_id: str,
    created_at: datetime,
    copy: CopyFilter,
    style: RatingStyle = RATING_STYLE,
) -> dict[str, str]:
    """Keys of one copy: its place in the comment's partition and in its list on GSI1."""
    layout = LAYOUTS[style]
    return {
        **copy_key(comment_id, copy, style),
        GSI1.partition_key: layout.listing.render(
            product_id=product_id, language=copy.language, ratings=copy.ratings
        ),
        GSI1.sort_key: COMMENT_BY_TIME.render(created_at=created_at, comment_id=comment_id),
    }


def parse_copy_sort_key(sort_key: str, style: RatingStyle = RATING_STYLE) -> CopyFilter | None:
    """The filter a copy's sort key stands for, or None if it is not a copy's key."""
    try:
        values = LAYOUTS[style].copy.parse(sort_key)
    except ValueError:
        return None
    return CopyFilter(values["language"], values["ratings"])


def product_comments(
    product_id: str,
    language_code: str | None = None,
    ratings: frozenset[int] | None = None,
    style: RatingStyle = RATING_STYLE,
) -> KeyCondition:
    """The list holding a product's comments in `language_code` with a rating in `ratings`."""
    partition = LAYOUTS[style].listing.render(
        product_id=product_id,
        language=language_code,
        ratings=RATINGS if ratings is None else ratings,
    )
    return KeyCondition.prefix(GSI1, partition, COMMENT_BY_TIME.prefix())
