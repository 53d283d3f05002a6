"""The tests' library model as it was before it grew (`tests/model/library.py` is now):
books listed by shelf only, no loans, reviews in one list of the shelf without copies.
Migrating its table to the library model adds GSI3, gives each book its by-genre key on
GSI2 and its `loan` (AVAILABLE, so it stays out of the sparse GSI3), and moves each
review's list from GSI2 into 16 copies on GSI1.

    book    GSI1  SHELF#<shelfId> / #BOOK#<updatedAt>#<ksuid>
    review  GSI2  SHELF#<shelfId> / REVIEW#<postedAt>#<ksuid>
"""

from __future__ import annotations

from dataclasses import replace

import model as m
from keys.table import GSI1, GSI2
from tests.model.library import BOOK, REVIEW, SHELF

SHELF_V1 = replace(SHELF)
BOOK_V1 = replace(
    BOOK,
    attributes={name: a for name, a in BOOK.attributes.items() if name != "loan"},
    indexes={GSI1: BOOK.indexes[GSI1]},
    sparse={},
)
REVIEW_V1 = replace(
    REVIEW,
    indexes={GSI2: m.Keys(m.key("SHELF", "shelfId"), m.key("REVIEW", "postedAt", "id"))},
    copies=None,
)
MODEL = m.Model(
    (SHELF_V1, BOOK_V1, REVIEW_V1),
    (
        m.Lookup(SHELF_V1, "shelf", access="anyone"),
        m.Lookup(BOOK_V1, "book", access="anyone"),
        m.ListOf(BOOK_V1, GSI1, "books", descending=True),
        m.Create(SHELF_V1, "createShelf", access="admins"),
        m.Create(BOOK_V1, "addBook", done="added"),
        m.Update(BOOK_V1, "updateBook", ("title", "genre", "year", "note")),
        m.Lookup(REVIEW_V1, "review", access="anyone"),
        m.ListOf(REVIEW_V1, GSI2, "reviews", descending=True),
        m.Create(REVIEW_V1, "postReview", done="posted"),
    ),
)
