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
from dataclasses import dataclass
from typing import Any

import orjson
from graphql import GraphQLError
from graphql.execution.values import VariableValues, get_variable_values
from starlette.requests import Request
from starlette.responses import Response

from errors.vocabulary import Code
from gateway.demand.bound import bound_operation
from gateway.operation_context import OperationContext
from gateway.plans.cache import Plans
from gateway.plans.compiler import Plan
from gateway.plans.run import run
from gateway.schema.build import Schema
from resolvers.strawberry_internals import core_schema
from store.tape import Tape

logger = logging.getLogger("dynagate.plans")
_KEYS = frozenset({"query", "variables", "operationName"})
JSON = "application/json"


@dataclass(frozen=True)
class Asked:
    query: str
    variables: Mapping[str, Any] | None
    operation_name: str | None


@dataclass
class Planner:
    plans: Plans
    schema: Schema
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
        plan = None if asked is None else self.plans.get(asked.query, asked.operation_name)
        if asked is None or plan is None or context.store.cache is not None:
            # The read cache may hold the whole answer: the executor's extension knows.
            return await executor()
        variables = _variables(self.schema, plan, asked.variables)
        if variables is None or not self._bounded(context, asked):
            return await executor()  # its refusal, worded and coded by the executor
        earlier = context.cost.copied()
        tape = context.store.tape = Tape() if self.checked else None
        try:
            data = await run(plan, context, variables if isinstance(variables, tuple) else None)
        except Exception:
            context.reads.again(earlier)
            if tape is not None:
                tape.playing = True
            return await executor()
        _noted(context, plan, asked)
        body: dict[str, Any] = {"data": data}
        if self.cost_report:
            body["extensions"] = {"cost": context.cost_report()}
        if tape is not None:
            tape.playing = True
            context.reads.again(earlier)
            return _compared(body, await executor(), tape)
        return Response(orjson.dumps(body), media_type=JSON)

    def _bounded(self, context: OperationContext, asked: Asked) -> bool:
        """What `DemandControl` does before execution; False: over a limit."""
        schema = self.schema
        key = schema.bounds.key(asked.query, asked.operation_name, asked.variables)
        bound = None if key is None else schema.bounds.get(key)
        if bound is None:
            document = self.plans.get(asked.query, asked.operation_name)
            assert document is not None
            bound = bound_operation(
                core_schema(schema),
                document.document,
                asked.operation_name,
                asked.variables,
                lambda b: not schema.limits.exceeded(b),
            )
            if key is not None:
                schema.bounds.put(key, bound)
        if schema.limits.exceeded(bound):
            return False
        context.reads.chosen.update(bound.chosen)
        context.store.budget = bound.total_requests + context.cost.requests
        context.operation.estimated = bound.as_dict()
        return True


async def _asked(request: Request) -> Asked | None:
    """The document, variables and operation name of a plain GraphQL request over JSON or
    a GET; None for anything else (a batch, a document named by hash, an upload)."""
    if request.method == "GET":
        params = request.query_params
        if "text/html" in request.headers.get("accept", "") or set(params) - _KEYS:
            return None
        try:
            variables = orjson.loads(params["variables"]) if "variables" in params else None
        except orjson.JSONDecodeError:
            return None
        sent: Any = {**params, "variables": variables}
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
    if (
        not isinstance(query, str)
        or not isinstance(variables, dict | None)
        or not isinstance(name, str | None)
    ):
        return None
    return Asked(query, variables, name)


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
