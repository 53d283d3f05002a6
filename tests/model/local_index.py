"""A model whose list reads a local secondary index (`DYNAGATE_MODEL=tests.model.local_index`):
a board's cards live in the board's partition, sorted there by when they are due on the
table and by their title on `lsi1`, which shares the table's partition key.
    board  pk = sk = BOARD#<id>
    card   pk = BOARD#<boardId>   sk = CARD#<id>    lsi1sk = TITLE#<title>#<id>
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
BY_TITLE = m.local_index("lsi1", PK_SK, "lsi1sk")
LAYOUT = m.Layout(PK_SK, (BY_TITLE,))
TITLE = m.Code(pattern=r"[a-z0-9-]+", described="a title's slug such as 'fix-login'", max_length=40)
BOARD = m.Entity(
    "Board",
    {"id": m.Identifier(), "name": m.Text(max_length=80)},
    key=m.same(m.template("BOARD#${id}")),
    table=PK_SK,
)
CARD = m.Entity(
    "Card",
    {"boardId": m.Identifier(shown=False), "id": m.Identifier(), "title": TITLE},
    key=m.Keys(m.template("BOARD#${boardId}"), m.template("CARD#${id}")),
    indexes={BY_TITLE: m.Keys(m.template("BOARD#${boardId}"), m.template("TITLE#${title}#${id}"))},
    parent=m.Parent("Board", {"boardId": "id"}),
    table=PK_SK,
)
MODEL = m.Model(
    (BOARD, CARD),
    (
        m.Lookup(BOARD, "board", access="anyone"),
        m.ListOf(CARD, BY_TITLE, "cardsByTitle"),
        m.Create(BOARD, "addBoard", access="admins"),
        m.Create(CARD, "addCard", access="admins"),
    ),
    LAYOUT,
)
