"""The plans of the documents asked lately, each compiled once from its text: parsed and
validated as the schema's extensions do (their caches), then compiled; a document that
has no plan is remembered as such, so it is not compiled again."""

from __future__ import annotations

import logging
from collections import OrderedDict

from graphql import GraphQLError, specified_rules

from gateway.documents.parsing import coded, parse, validate
from gateway.plans.compiler import NoPlan, Plan, compile_plan
from gateway.schema.build import MAX_TOKENS, Schema
from model import Model
from resolvers.strawberry_internals import core_schema

logger = logging.getLogger("dynagate.plans")
# Like the parser's and the bound's caches: the documents a deployment's clients send.
PLANS = 256


class Plans:
    """Plans by document text and operation name, the least recently asked dropped first."""

    def __init__(self, schema: Schema, model: Model, size: int = PLANS) -> None:
        self.schema = schema
        self.model = model
        self.size = size
        self.rules = coded(specified_rules) + schema.rules
        self._plans: OrderedDict[tuple[str, str | None], Plan | None] = OrderedDict()

    def get(self, query: str, operation_name: str | None) -> Plan | None:
        key = (query, operation_name)
        try:
            plan = self._plans[key]
        except KeyError:
            plan = self._plans[key] = self._compiled(query, operation_name)
            if len(self._plans) > self.size:
                self._plans.popitem(last=False)
            return plan
        self._plans.move_to_end(key)
        return plan

    def _compiled(self, query: str, operation_name: str | None) -> Plan | None:
        schema = self.schema
        try:
            document = parse(query, MAX_TOKENS, schema.max_document_bytes)
        except GraphQLError:
            return None  # the executor says what is wrong
        if validate(core_schema(schema), document, self.rules):
            return None
        try:
            return compile_plan(schema, self.model, document, operation_name)
        except NoPlan:
            return None
        except Exception:  # a document the compiler trips on is the executor's, and ours
            logger.exception("a valid document could not be compiled into a plan")
            return None
