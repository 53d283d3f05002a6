"""A model of the tests' own, no demo entity in it: shelves of books, served by the engine
from these declarations alone (`DYNAGATE_MODEL=tests.model.library`).

    shelf   PK = SK = SHELF#<id>     GSI1, GSI2  SHELF#<id> / SHELF#<id>
    book    PK = SK = BOOK#<ksuid>
            GSI1  SHELF#<shelfId> / #BOOK#<updatedAt>#<ksuid>    a collection, changing sort
            GSI2  SHELF#<shelfId> / BOOK#<genre>#<year>#<ksuid>  composite: genre, then years
            GSI3  LOANS / BOOK#<updatedAt>#<ksuid>               sparse: while ON_LOAN
A book is lent only while available, and given back only while on loan.
"""

from __future__ import annotations

from enum import StrEnum

from keys.table import GSI1, GSI2, GSI3
from model import (
    Author,
    Choice,
    Create,
    Delete,
    Entity,
    GeneratedId,
    Identifier,
    Keys,
    ListOf,
    Lookup,
    Model,
    Number,
    Parent,
    Range,
    Text,
    Timestamp,
    Update,
    key,
    moves,
    only,
    same,
)


class Genre(StrEnum):
    ESSAY = "ESSAY"
    NOVEL = "NOVEL"
    POETRY = "POETRY"


class Loan(StrEnum):
    AVAILABLE = "AVAILABLE"
    ON_LOAN = "ON_LOAN"


SHELF = Entity(
    "Shelf",
    {"id": Identifier(), "label": Text(max_length=40)},
    key=same(key("SHELF", "id")),
    indexes={GSI1: same(key("SHELF", "id")), GSI2: same(key("SHELF", "id"))},
)
BOOK = Entity(
    "Book",
    {
        "id": GeneratedId(),
        "shelfId": Identifier(shown=False),
        "title": Text(),
        "genre": Choice(values=Genre),
        "year": Number(low=0, high=9999),
        "loan": Choice(values=Loan, initial=Loan.AVAILABLE),
        "note": Text(max_length=500, multiline=True, optional=True),
        "addedAt": Timestamp(stamped="create"),
        "updatedAt": Timestamp(stamped="write"),
        "addedBy": Author(verb="added", role="librarian"),
    },
    key=same(key("BOOK", "id")),
    indexes={
        GSI1: Keys(key("SHELF", "shelfId"), key("#BOOK", "updatedAt", "id")),
        GSI2: Keys(key("SHELF", "shelfId"), key("BOOK", "genre", "year", "id")),
        GSI3: Keys(key("LOANS"), key("BOOK", "updatedAt", "id")),
    },
    parent=Parent("Shelf", {"shelfId": "id"}),
    sparse={GSI3: only("loan", Loan.ON_LOAN)},
)
MODEL = Model(
    (SHELF, BOOK),
    (
        Lookup(SHELF, "shelf", access="anyone"),
        Lookup(BOOK, "book", access="anyone"),
        ListOf(
            BOOK, GSI1, "books", descending=True, filtered=("loan",), subscription="bookChanges"
        ),
        ListOf(
            BOOK,
            GSI2,
            "byGenre",
            equal=("genre",),
            range=Range("year", "years"),
            direction=True,
            subscription="genreChanges",
        ),
        ListOf(BOOK, GSI3, "onLoan", descending=True, root=True, subscription="loanChanges"),
        Create(SHELF, "createShelf", access="admins"),
        Create(BOOK, "addBook", done="added"),
        Update(
            BOOK,
            "updateBook",
            ("title", "genre", "year", "loan", "note"),
            moves=(
                moves("loan", {Loan.AVAILABLE: [Loan.ON_LOAN], Loan.ON_LOAN: [Loan.AVAILABLE]}),
            ),
        ),
        Delete(BOOK, "removeBook"),
    ),
)
