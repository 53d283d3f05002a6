"""The tests' own model: shelves, books, reviews (`DYNAGATE_MODEL=tests.model.library`).
    shelf   PK = SK = SHELF#<id>     GSI1, GSI2  SHELF#<id> / SHELF#<id>
    book    PK = SK = BOOK#<ksuid>
            GSI1  SHELF#<shelfId> / #BOOK#<updatedAt>#<ksuid>    a collection, changing sort
            GSI2  SHELF#<shelfId> / BOOK#<genre>#<year>#<ksuid>  composite: genre, then years
            GSI3  LOANS / BOOK#<updatedAt>#<ksuid>               sparse: while ON_LOAN
    review  PK = SK = REVIEW#<ksuid>, 16 copies  GSI1  SHELF#<shelfId>#<form|~>#<stars> / …
    branch  PK = SK = BRANCH#<id>, its place LbBr#<cell[0:3]> / …, its cells counted LbCe#…;
            found by viewport, and nearest first within a radius of a point
A book is lent only while available, and given back only while on loan."""

from __future__ import annotations

from enum import StrEnum

import model as m
from keys.table import GSI1, GSI2, GSI3

Genre = StrEnum("Genre", {"ESSAY": "ESSAY", "NOVEL": "NOVEL", "POETRY": "POETRY"})
Loan = StrEnum("Loan", {"AVAILABLE": "AVAILABLE", "ON_LOAN": "ON_LOAN"})
Form = StrEnum("Form", {"PRINT": "PRINT", "AUDIO": "AUDIO"})
SHELF = m.Entity(
    "Shelf",
    {"id": m.Identifier(), "label": m.Text(max_length=40)},
    key=m.same(m.key("SHELF", "id")),
    indexes={GSI1: m.same(m.key("SHELF", "id")), GSI2: m.same(m.key("SHELF", "id"))},
)
BOOK = m.Entity(
    "Book",
    {
        "id": m.GeneratedId(),
        "shelfId": m.Identifier(shown=False),
        "title": m.Text(),
        "genre": m.Choice(values=Genre),
        "year": m.Number(low=0, high=9999),
        "loan": m.Choice(values=Loan, initial=Loan.AVAILABLE),
        "note": m.Text(max_length=500, multiline=True, optional=True),
        "addedAt": m.Timestamp(stamped="create"),
        "updatedAt": m.Timestamp(stamped="write"),
        "addedBy": m.Author(verb="added", role="librarian"),
    },
    key=m.same(m.key("BOOK", "id")),
    indexes={
        GSI1: m.Keys(m.key("SHELF", "shelfId"), m.key("#BOOK", "updatedAt", "id")),
        GSI2: m.Keys(m.key("SHELF", "shelfId"), m.key("BOOK", "genre", "year", "id")),
        GSI3: m.Keys(m.key("LOANS"), m.key("BOOK", "updatedAt", "id")),
    },
    parent=m.Parent("Shelf", {"shelfId": "id"}),
    sparse={GSI3: m.only("loan", Loan.ON_LOAN)},
)
REVIEW = m.Entity(
    "Review",
    {
        "id": m.GeneratedId(),
        "shelfId": m.Identifier(shown=False),
        "stars": m.Number(low=1, high=4),
        "form": m.Choice(values=Form),
        "text": m.Text(max_length=2000, multiline=True),
        "postedAt": m.Timestamp(stamped="create", imported=True),
        "by": m.Author(verb="posted", role="reviewer"),
    },
    key=m.same(m.key("REVIEW", "id")),
    parent=m.Parent("Shelf", {"shelfId": "id"}, field="shelf"),
    copies=m.Copies(
        GSI1,
        m.key("SHELF", "shelfId"),
        m.key("REVIEW", "postedAt", "id"),
        ("form",),
        {"stars": "stars"},
    ),
)
BRANCH = m.Entity(
    "Branch",
    {
        "id": m.Identifier(),
        "lat": m.Coordinate(axis="lat"),
        "lon": m.Coordinate(axis="lon"),
        "cell": m.Geohash(),
        "name": m.Text(max_length=60),
    },
    key=m.same(m.key("BRANCH", "id")),
    places=m.Places("LbBr", "LbCe"),
)
LENDING = m.moves("loan", {Loan.AVAILABLE: [Loan.ON_LOAN], Loan.ON_LOAN: [Loan.AVAILABLE]})
MODEL = m.Model(
    (SHELF, BOOK, REVIEW, BRANCH),
    (
        m.Lookup(SHELF, "shelf", access="anyone"),
        m.Lookup(BOOK, "book", access="anyone"),
        m.ListOf(
            BOOK, GSI1, "books", descending=True, filtered=("loan",), subscription="bookChanges"
        ),
        m.ListOf(
            BOOK,
            GSI2,
            "byGenre",
            equal=("genre",),
            range=m.Range("year", "years"),
            direction=True,
            subscription="genreChanges",
        ),
        m.ListOf(BOOK, GSI3, "onLoan", descending=True, root=True, subscription="loanChanges"),
        m.Create(SHELF, "createShelf", access="admins"),
        m.Delete(SHELF, "removeShelf", access="admins"),
        m.Create(BOOK, "addBook", done="added"),
        m.Update(BOOK, "updateBook", ("title", "genre", "year", "loan", "note"), moves=(LENDING,)),
        m.Delete(BOOK, "removeBook"),
        m.Lookup(REVIEW, "review", access="anyone"),
        m.ListOf(REVIEW, GSI1, "reviews", descending=True, subscription="reviewChanges"),
        m.Create(REVIEW, "postReview", done="posted"),
        m.Update(REVIEW, "editReview", ("stars", "form", "text")),
        m.Delete(REVIEW, "removeReview"),
        m.Near(BRANCH, "branches", subscription="branchChanges"),
        m.Heatmap(BRANCH, "branchMap"),
        m.Nearest(BRANCH, "branchesNearby"),
        m.Create(BRANCH, "openBranch", access="admins"),
        m.Delete(BRANCH, "closeBranch", access="admins"),
    ),
)
