"""A model whose indexes hold numbers (`DYNAGATE_MODEL=tests.model.number_keys`): a game's
scores keyed in the player's partition, ranked on a global index whose sort key is the
points as a number (`N`), and in time order on a local index whose sort key is when the
game was played, in milliseconds since 1970 (`N`).
    score  pk = PLAYER#<player>   sk = GAME#<game>
           gsi1  BOARD#<board> / <points>        (N)
           lsi1                  <playedAt ms>   (N)
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
BY_POINTS = m.Index("gsi1", "gsi1pk", "gsi1sk", types=("S", "N"))
BY_TIME = m.local_index("lsi1", PK_SK, "lsi1sk", sort_type="N")
LAYOUT = m.Layout(PK_SK, (BY_POINTS, BY_TIME))

SCORE = m.Entity(
    "Score",
    {
        "player": m.Identifier(),
        "game": m.Identifier(),
        "board": m.Identifier(),
        "points": m.Number(low=0, high=1_000_000),
        "playedAt": m.Timestamp(stored_as="epoch_millis"),
    },
    key=m.Keys(m.template("PLAYER#${player}"), m.template("GAME#${game}")),
    indexes={
        BY_POINTS: m.Keys(m.template("BOARD#${board}"), m.template("${points}")),
        BY_TIME: m.Keys(m.template("PLAYER#${player}"), m.template("${playedAt}")),
    },
    table=PK_SK,
    discriminator=m.Discriminator("_type", "score"),
)
MODEL = m.Model(
    (SCORE,),
    (
        m.Lookup(SCORE, "score", access="anyone"),
        m.ListOf(
            SCORE,
            BY_POINTS,
            "leaderboard",
            root=True,
            descending=True,
            range=m.Range("points", "points"),
            access="anyone",
        ),
        m.ListOf(
            SCORE,
            BY_TIME,
            "gamesOf",
            root=True,
            range=m.Range("playedAt", "played"),
            access="anyone",
        ),
        m.Create(SCORE, "addScore", access="admins"),
        m.Update(SCORE, "rescore", ("points",), access="admins"),
    ),
    LAYOUT,
)
