"""What a model's `seed` hook writes its demo data through: the served model's own
mutations, so the data takes the API's code paths (checks, keys, copies, counts).

A model module may define (docs/model.md, "Demo data"):

    def add_seed_arguments(parser: argparse.ArgumentParser) -> None: ...
    async def seed(api: Seeding, args: argparse.Namespace) -> str: ...

`dynagate seed` calls `seed` with a `Seeding` on the table and prints what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from data.callers import Caller
from errors.vocabulary import Code
from gateway.cli.errors import CommandFailed
from gateway.schema.build import build_schema
from gateway.served_model import declared, served
from gateway.settings import DEFAULT_MODEL
from resolvers.context import Context, Reads
from store.client import Store
from store.cursors import CursorCodec

if TYPE_CHECKING:
    from strawberry import Schema

    from store.client import DynamoDBClient

# The admin the seed signs in as where no other user is named.
SEED_USER = "seed"


class SeedFailed(CommandFailed):
    """A demo mutation failed for a reason other than the data being there already."""


@dataclass
class Seeding:
    """Runs GraphQL operations on the model's schema, signed in as an admin."""

    client: DynamoDBClient
    table: str
    model: str = DEFAULT_MODEL
    _schema: Schema = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._schema = build_schema(cost_report=False, roots=served(self.model))
        self._cursors = CursorCodec(b"seed")

    async def execute(
        self, query: str, variables: dict[str, Any] | None = None, *, as_user: str = SEED_USER
    ) -> dict[str, Any] | None:
        """Run `query` signed in as an admin (every rule lets an admin in) named `as_user`,
        so what it writes names that user as its author. None when it was refused as a
        CONFLICT (the item is there already: seeding twice adds nothing); any other error
        is `SeedFailed` with the API's messages."""
        store = Store(self.client, self.table, layout=declared(self.model).table_layout)
        context = Context(Reads.on(store, self._cursors), Caller(as_user, admin=True))
        result = await self._schema.execute(query, variable_values=variables, context_value=context)
        if result.errors:
            codes = {(e.extensions or {}).get("code") for e in result.errors}
            if codes == {Code.CONFLICT}:
                return None
            raise SeedFailed("; ".join(e.message for e in result.errors))
        return result.data
