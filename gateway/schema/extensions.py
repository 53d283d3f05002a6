"""Schema extensions: error codes on every error, and the cost report."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import suppress
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode
from strawberry.extensions import MaskErrors, SchemaExtension
from strawberry.types import ExecutionContext

from errors.vocabulary import Code, DynagateError
from gateway.operation_context import OperationContext
from gateway.request_scope import request_id

logger = logging.getLogger("dynagate.errors")


def is_expected(error: GraphQLError) -> bool:
    """Errors that speak to the client; everything else is masked."""
    # Without a path the error came before execution: the document or its variables.
    return (
        error.path is None
        or error.original_error is None
        or isinstance(error.original_error, DynagateError)
    )


def error_code(error: GraphQLError) -> Code:
    """The code of an error that came without one; the document's own limits, the bound and
    the product's errors carry theirs from where they were raised."""
    original = error.original_error
    if isinstance(original, DynagateError):
        return original.code
    if error.path is None:
        # Raised before execution: a syntax, validation or variable coercion error.
        return Code.BAD_USER_INPUT
    return Code.INTERNAL_SERVER_ERROR


class CodedMaskErrors(MaskErrors):
    """MaskErrors that logs what it hides and gives every error an `extensions.code`."""

    def __init__(self) -> None:
        super().__init__(
            should_mask_error=lambda e: not is_expected(e), error_message="Internal server error."
        )

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        logger.error(
            "unexpected error at %s (request %s)",
            error.path,
            request_id(),
            exc_info=error.original_error,
        )
        masked = super().anonymise_error(error)
        masked.extensions = {"code": Code.INTERNAL_SERVER_ERROR}
        return masked

    def on_operation(self) -> Iterator[None]:
        yield from super().on_operation()
        _add_codes(getattr(self.execution_context.result, "errors", None) or [])
        # The one extension every schema has: it tells the request log what ran.
        _note_operation(self.execution_context)

    def get_results(self) -> dict[str, Any]:
        # A syntax error raised by the parse hook (`DocumentParser`) escapes the operation
        # hooks and becomes the result only after `on_operation` has run; this one sees it.
        _add_codes(self.execution_context.pre_execution_errors or [])
        return {}


def _note_operation(context: ExecutionContext) -> None:
    operation = context.context
    if not isinstance(operation, OperationContext):
        return
    request = operation.request
    request.operation_name = context.operation_name
    if context.graphql_document is not None:
        # RuntimeError: operationName names no operation of the document.
        with suppress(RuntimeError):
            request.operation_type = context.operation_type.value


def _add_codes(errors: list[GraphQLError]) -> None:
    for error in errors:
        if "code" not in (error.extensions or {}):
            error.extensions = {**(error.extensions or {}), "code": error_code(error)}


class OperationChoice(SchemaExtension):
    """A document of several operations runs the one `operationName` names, or none.

    Strawberry would run the first; a client that forgot the name hears of it instead.
    """

    named = False

    def on_operation(self) -> Iterator[None]:
        # Until the document is parsed, `operation_name` is the name the request gave;
        # after, Strawberry answers with the first operation's when none was given.
        self.named = self.execution_context.operation_name is not None
        yield

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        document = context.graphql_document
        definitions = document.definitions if document is not None else ()
        names = [
            d.name.value for d in definitions if isinstance(d, OperationDefinitionNode) and d.name
        ]
        if not self.named and len(names) > 1:
            message = f"the document holds operations {', '.join(names)}: name one in operationName"
            context.pre_execution_errors = [
                *(context.pre_execution_errors or []),
                GraphQLError(message, extensions={"code": Code.BAD_USER_INPUT}),
            ]
        yield


class CostReport(SchemaExtension):
    """Adds `extensions.cost`: what the DynamoDB calls behind the response consumed."""

    def get_results(self) -> dict[str, Any]:
        context = self.execution_context.context
        if not isinstance(context, OperationContext):
            return {}
        return {"cost": context.cost_report()}
