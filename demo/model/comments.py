"""Product comments filtered by language and any set of ratings (seed 003), declared.

    product   PK = SK = PRODUCT#<id>
    comment   PK = SK = COMMENT#<ksuid>
    copy      PK = COMMENT#<ksuid>  SK = COPY#<language|~>#<ratings>            32 per comment
              GSI1  PRODUCT#<productId>#<language|~>#<ratings> / COMMENT#<createdAt>#<ksuid>

A comment with rating r is copied once for every set of ratings that holds r (16), under its
own language and under `~` (any): 32 copies, written with the comment in one transaction.
Asking for language L and ratings S is then one Query on the list `PRODUCT#<id>#L#S`,
newest first; no ratings filter is the set {1..5}, no language filter `~`. A set is a
bitmask (`{1, 2, 5}` -> `19`: docs/decisions/comments-layout.md).
"""

from __future__ import annotations

from dynagate import GSI1
from model import (
    Author,
    Code,
    Copies,
    Create,
    Delete,
    Entity,
    GeneratedId,
    Identifier,
    ListOf,
    Lookup,
    Number,
    Parent,
    Text,
    Timestamp,
    Update,
    key,
    same,
)

BODY_MAX = 10_000

PRODUCT = Entity(
    "Product",
    {"id": Identifier(), "name": Text(), "createdAt": Timestamp(stamped="create", shown=False)},
    key=same(key("PRODUCT", "id")),
)
COMMENT = Entity(
    "Comment",
    {
        "id": GeneratedId(),
        "productId": Identifier(shown=False),
        "language": Code(
            pattern="[A-Za-z]{2}", described="a two-letter language code such as 'en'"
        ),
        "rating": Number(low=1, high=5),
        "body": Text(max_length=BODY_MAX, multiline=True),
        "createdAt": Timestamp(stamped="create", imported=True),
        "updatedAt": Timestamp(stamped="write", shown=False),
        "author": Author(verb="posted", role="author"),
    },
    key=same(key("COMMENT", "id")),
    parent=Parent("Product", {"productId": "id"}, field="product"),
    copies=Copies(
        GSI1,
        key("PRODUCT", "productId"),
        key("COMMENT", "createdAt", "id"),
        either=("language",),
        sets={"rating": "ratings"},
    ),
)
ENTITIES = (PRODUCT, COMMENT)
PATTERNS = (
    Lookup(PRODUCT, "product", access="anyone"),
    Lookup(COMMENT, "comment", access="anyone"),
    ListOf(
        COMMENT,
        GSI1,
        "comments",
        descending=True,
        subscription="commentChanges",
        subscription_access="anyone",
    ),
    Create(PRODUCT, "createProduct", access="admins"),
    Create(COMMENT, "postComment", done="posted"),
    Update(COMMENT, "editComment", ("language", "rating", "body"), at_least_one=False),
    Delete(COMMENT, "deleteComment"),
)
