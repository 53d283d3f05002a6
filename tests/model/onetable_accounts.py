"""A model of a table dynamodb-onetable writes (`tests/tools/onetable.mjs`): accounts and
their users in OneTable's value templates, its `_type` attribute and its timestamps
(`created`, `updated`), on its layout (`pk`/`sk`, `gs1`).
    account  pk = account#<id>          sk = account#
    user     pk = account#<accountId>   sk = user#<email>    gs1  user#<email> / user#
"""

from __future__ import annotations

import model as m

PK_SK = m.Index(None, "pk", "sk")
GS1 = m.Index("gs1", "gs1pk", "gs1sk")
LAYOUT = m.Layout(PK_SK, (GS1,))
EMAIL = m.Code(pattern=r"[a-z0-9._%+-]+@[a-z0-9.-]+", described="an e-mail address", max_length=100)
ACCOUNT = m.Entity(
    "Account",
    {
        "id": m.Identifier(),
        "name": m.Text(max_length=80),
        "created": m.Timestamp(stamped="create"),
        "updated": m.Timestamp(stamped="write"),
    },
    key=m.Keys(m.template("account#${id}"), m.template("account#")),
    table=PK_SK,
    discriminator=m.Discriminator("_type", "Account"),
)
USER = m.Entity(
    "User",
    {
        "accountId": m.Identifier(shown=False),
        "email": EMAIL,
        "name": m.Text(max_length=80),
        "created": m.Timestamp(stamped="create"),
        "updated": m.Timestamp(stamped="write"),
    },
    key=m.Keys(m.template("account#${accountId}"), m.template("user#${email}")),
    indexes={GS1: m.Keys(m.template("user#${email}"), m.template("user#"))},
    parent=m.Parent("Account", {"accountId": "id"}),
    table=PK_SK,
    discriminator=m.Discriminator("_type", "User"),
)
MODEL = m.Model(
    (ACCOUNT, USER),
    (
        m.Lookup(ACCOUNT, "account", access="anyone"),
        m.ListOf(USER, PK_SK, "users"),
        m.Lookup(USER, "user", access="anyone"),
        m.Create(USER, "addUser", access="admins"),
        m.Update(USER, "renameUser", ("name",), access="admins"),
    ),
    LAYOUT,
)
