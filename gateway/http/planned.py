"""The short way through the view (docs/performance.md#plans): a query whose document has a
plan (`gateway/plans/`) is bounded as `DemandControl` bounds it, run by its plan and written
straight to JSON, without Strawberry's request handling, extensions or executor. Whatever
the plan cannot answer exactly as the executor would — a refusal, an error, a document it
has no plan for, an answer kept in the read cache — the executor answers instead, from
nothing read (what the plan read is counted no more).

With `DYNAGATE_PLANS=checked` every planned answer is made both ways, the executor's on
the very DynamoDB answers the plan had (`store/tape.py`), and any difference is an error
in the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson
from graphql import GraphQLError
from graphql.execution.values import VariableValues, get_variable_values
from starlette.requests import Request
from starlette.responses import Response

from errors.vocabulary import Code, DynagateError
from gateway.demand.control import bound_of
from gateway.documents.persisted import DOCUMENT_ID, PersistedDocuments, requested_hash
from gateway.operation_context import OperationContext
from gateway.plans.cache import Plans
from gateway.plans.compiler import Plan
from gateway.plans.run import run
from gateway.schema.build import Schema
from resolvers.context import Reads
from resolvers.strawberry_internals import core_schema
from store.client import Store
from store.tape import Tape

logger = logging.getLogger("dynagate.plans")
_KEYS = frozenset({"query", "variables", "operationName", "extensions", DOCUMENT_ID})
JSON = "application/json"


@dataclass(frozen=True)
class Asked:
    """A request as sent: its document's text, or the hash it names it by."""

    query: str | None
    variables: Mapping[str, Any] | None
    operation_name: str | None
    sha256: str | None = None


@dataclass
class Planner:
    plans: Plans
    schema: Schema
    documents: PersistedDocuments
    checked: bool
    cost_report: bool

    async def answer(
        self,
        request: Request,
        context: OperationContext,
        executor: Callable[[], Awaitable[Response]],
    ) -> Response:
        """The plan's answer to `request`, or the executor's."""
        asked = await _asked(request)
        # The read cache may hold the whole answer: the executor's extension knows.
        if asked is None or context.store.cache is not None:
            return await executor()
        try:
            # Read before the operation, and remembered, refused or not: the executor finds
            # it (or its refusal) in memory, and its read counts once.
            query = await self._document(asked, context)
        except DynagateError:
            return await executor()
        # The plan reads on a store of its own: what it read counts only once it answered
        # (a read it gave up may still be finishing), and the executor, should it answer
        # instead, hears what the plan heard (`tape`) and counts it as its own.
        tape = Tape()
        trial = _trial(context)
        trial.store.tape = tape
        try:
            plan = None if query is None else self.plans.get(query, asked.operation_name)
            if plan is None or query is None:
                return await self._executor(context, tape, executor)
            asked = replace(asked, query=query)
            variables = _variables(self.schema, plan, asked.variables)
            if variables is None or not self._bounded(trial, plan, asked):
                # Refused: worded and coded by the executor.
                return await self._executor(context, tape, executor)
            data = await run(plan, trial, variables if isinstance(variables, tuple) else None)
        except Exception:
            return await self._executor(context, tape, executor)
        _noted(context, plan, asked)
        answered = context.cost.copied()
        answered.add(trial.cost)
        body: dict[str, Any] = {"data": data}
        if self.cost_report:
            counted = replace(trial, reads=_reads(context, context.store.sibling(answered)))
            body["extensions"] = {"cost": counted.cost_report()}
        if self.checked:
            return _compared(body, await self._executor(context, tape, executor), tape)
        context.cost.add(trial.cost)
        return Response(orjson.dumps(body), media_type=JSON)

    async def _executor(
        self,
        context: OperationContext,
        tape: Tape,
        executor: Callable[[], Awaitable[Response]],
    ) -> Response:
        tape.playing = True
        context.store.tape = tape
        return await executor()

    async def _document(self, asked: Asked, context: OperationContext) -> str | None:
        """The text of the document, admitted as `resolved` admits it; None: the executor's
        (a document sent with its hash is registered once it ran)."""
        store, caller = context.store, context.caller
        if asked.sha256 is None:
            if asked.query is None or self.plans.get(asked.query, asked.operation_name) is None:
                return None
            await self.documents.admit(store, asked.query, caller)
            return asked.query
        if asked.query is not None:
            return None
        return await self.documents.document(store, asked.sha256, None, caller)

    def _bounded(self, context: OperationContext, plan: Plan, asked: Asked) -> bool:
        """What `DemandControl` does before execution; False: over a limit."""
        schema = self.schema
        assert asked.query is not None
        operation = (asked.query, asked.operation_name, asked.variables)
        bound = bound_of(
            core_schema(schema), plan.document, operation, schema.limits, schema.bounds
        )
        if schema.limits.exceeded(bound):
            return False
        context.reads.chosen.update(bound.chosen)
        # Calls made before the operation (reading a persisted document) are not its own.
        context.store.budget = bound.total_requests + context.cost.requests
        context.operation.estimated = bound.as_dict()
        return True


async def _asked(request: Request) -> Asked | None:
    """The document (or its hash), variables and operation name of a plain GraphQL request
    over JSON or a GET; None for anything else (a batch, an upload) or anything malformed,
    which the executor words."""
    if request.method == "GET":
        if "text/html" in request.headers.get("accept", ""):
            return None
        sent: Any = dict(request.query_params)
        if set(sent) - _KEYS:
            return None
        try:
            for field in ("variables", "extensions"):
                if field in sent:
                    sent[field] = orjson.loads(sent[field])
        except orjson.JSONDecodeError:
            return None
    elif request.method == "POST" and _media_type(request) == JSON:
        try:
            sent = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return None
    else:
        return None
    if not isinstance(sent, dict) or set(sent) - _KEYS:
        return None
    query, variables, name = sent.get("query"), sent.get("variables"), sent.get("operationName")
    extensions = sent.get("extensions")
    if (
        not isinstance(query, str | None)
        or not isinstance(variables, dict | None)
        or not isinstance(name, str | None)
        or not isinstance(extensions, dict | None)
    ):
        return None
    try:
        sha256 = requested_hash(sent.get(DOCUMENT_ID) if query is None else None, extensions)
    except DynagateError:
        return None
    if extensions and set(extensions) != {"persistedQuery"}:
        return None  # extensions the executor reads
    return Asked(query, variables, name, sha256)


def _trial(context: OperationContext) -> OperationContext:
    """`context` on a store of its own, sharing what the bound chose."""
    return replace(context, reads=_reads(context, context.store.sibling()))


def _reads(context: OperationContext, store: Store) -> Reads:
    reads = Reads.on(store, context.pages.cursors)
    reads.chosen = context.reads.chosen
    return reads


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").partition(";")[0].strip().lower()


def _variables(
    schema: Schema, plan: Plan, given: Mapping[str, Any] | None
) -> VariableValues | bool | None:
    """The variables coerced (True: the operation has none), or None: they are refused."""
    definitions = plan.operation.variable_definitions
    if not definitions:
        return True
    coerced = get_variable_values(core_schema(schema), definitions, dict(given or {}))
    return None if isinstance(coerced, list) else coerced


def _noted(context: OperationContext, plan: Plan, asked: Asked) -> None:
    """What the request log tells of the operation (as `CodedMaskErrors` notes it)."""
    request = context.request
    name = plan.operation.name
    request.operation_name = asked.operation_name or (None if name is None else name.value)
    request.operation_type = "query"
    request.codes = []


def _compared(planned: dict[str, Any], executed: Response, tape: Tape) -> Response:
    """The executor's answer; with an error added when the plan's differs from it."""
    answer = orjson.loads(bytes(executed.body))
    differences = []
    if answer != planned:
        differences.append(f"the plan answered {planned}, the executor {answer}")
    if tape.missed or tape.unplayed():
        differences.append(f"the plan called {tape.made}; the executor missed {tape.missed}")
    if not differences:
        return executed
    logger.error("a plan differs from the executor: %s", "; ".join(differences))
    error = GraphQLError(
        "the plan's answer differs from the executor's: " + "; ".join(differences),
        extensions={"code": Code.INTERNAL_SERVER_ERROR},
    ).formatted
    answer["errors"] = [*answer.get("errors", []), error]
    return Response(orjson.dumps(answer), status_code=executed.status_code, media_type=JSON)
