"""Parsing and validation of a document, each cached, with the refusals of its size coded
QUERY_TOO_COMPLEX where they are made; graphql-core's other refusals are the client's
mistakes (BAD_USER_INPUT, given by `gateway/schema/extensions.py`).

A document is refused before it is read past its size in UTF-8 bytes (comments count:
a comment is one token, whatever its length), then past the token limit.

graphql-core words a document past the token limit, nested past its parser's recursion,
too costly to validate, or with introspection nested too deeply, as it words any other
syntax or validation error. Each is told apart here by how it arises: the lexer that
counts the tokens raises its own error, the parser's RecursionError is caught as it
leaves `Parser.parse_document`, the validation rule that bounds introspection codes what
it reports, and a validation abort is the document's cost unless graphql-core's error
limit made it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from graphql import (
    ASTValidationRule,
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    GraphQLSyntaxError,
    Lexer,
    MaxIntrospectionDepthRule,
    Source,
    Token,
    TokenKind,
)
from graphql.language.parser import Parser
from graphql.validation.validate import ValidationAbortedError
from strawberry.extensions import SchemaExtension

from errors.vocabulary import Code
from resolvers.strawberry_internals import core_schema

CACHE_SIZE = 256
# DYNAGATE_MAX_DOCUMENT_BYTES's default.
MAX_DOCUMENT_BYTES = 65_536
# The most UTF-8 bytes a character takes (a lone surrogate, which JSON can carry, takes 3).
_MOST_BYTES = 4
# graphql-core's own limit, which Strawberry's validation keeps: after this many errors it
# aborts with one more, which is the document's fault, not its cost.
MAX_VALIDATION_ERRORS = 100


def too_complex(error: GraphQLError) -> GraphQLError:
    error.extensions = {**(error.extensions or {}), "code": Code.QUERY_TOO_COMPLEX}
    return error


class _CountingLexer(Lexer):
    """A lexer that counts each token it reads, comments included (as graphql-core's
    `max_tokens` does), and refuses the document past `limit` before reading on."""

    def __init__(self, source: Source, limit: int) -> None:
        super().__init__(source)
        self.limit = limit
        self.count = 0

    def read_next_token(self, start: int) -> Token:
        token = super().read_next_token(start)
        if token.kind is not TokenKind.EOF:
            self.count += 1
            if self.count > self.limit:
                message = f"Document contains more than {self.limit} tokens. Parsing aborted."
                raise too_complex(GraphQLSyntaxError(self.source, token.start, message))
        return token


def oversized(query: str, max_bytes: int) -> bool:
    """Whether `query` takes more than `max_bytes` bytes in UTF-8 (counted only when its
    length in characters leaves it in doubt)."""
    if len(query) > max_bytes:
        return True
    if len(query) * _MOST_BYTES <= max_bytes:
        return False
    return len(query.encode("utf-8", "surrogatepass")) > max_bytes


@lru_cache(maxsize=CACHE_SIZE)
def parse(query: str, max_tokens: int, max_bytes: int = MAX_DOCUMENT_BYTES) -> DocumentNode:
    """The document `query` holds; QUERY_TOO_COMPLEX past `max_bytes` bytes, past
    `max_tokens` tokens or nested deeper than the parser recurses, a syntax error (uncoded)
    for any other mistake."""
    if oversized(query, max_bytes):
        message = f"Document is larger than {max_bytes} bytes. Parsing aborted."
        # The error keeps its source: its first character places it, not the whole text.
        raise too_complex(GraphQLSyntaxError(Source(query[:1]), 0, message))
    source = Source(query)
    lexer = _CountingLexer(source, max_tokens)
    try:
        return Parser(source, lexer=lexer).parse_document()
    except RecursionError:
        pass
    # Raised outside the handler, so that the error does not keep the recursion's frames.
    message = "Document is nested too deeply. Parsing aborted."
    raise too_complex(GraphQLSyntaxError(source, lexer.token.start, message))


class _IntrospectionDepth(MaxIntrospectionDepthRule):
    """graphql-core's bound on nested introspection, its refusal coded."""

    def report_error(self, error: GraphQLError) -> None:
        super().report_error(too_complex(error))


def coded(rules: Iterable[type[ASTValidationRule]]) -> tuple[type[ASTValidationRule], ...]:
    """`rules` with graphql-core's bound on introspection coding its refusal."""
    return tuple(_IntrospectionDepth if r is MaxIntrospectionDepthRule else r for r in rules)


@lru_cache(maxsize=CACHE_SIZE)
def validate(
    schema: GraphQLSchema, document: DocumentNode, rules: tuple[type[ASTValidationRule], ...]
) -> list[GraphQLError]:
    """Strawberry's validation with `rules`; an abort with fewer errors before it than the
    error limit is the cost of validating the document (QUERY_TOO_COMPLEX)."""
    # Strawberry's, for the rules it adds to every validation; imported as its own
    # ValidationCache imports it, late, for the import cycle within Strawberry.
    from strawberry.schema.schema import validate_document

    errors = validate_document(schema, document, rules)
    aborted = errors[-1] if errors else None
    if isinstance(aborted, ValidationAbortedError) and len(errors) <= MAX_VALIDATION_ERRORS:
        too_complex(aborted)
    return errors


class DocumentParser(SchemaExtension):
    """Parses with the size and token limits (Strawberry's MaxTokensLimiter and ParserCache
    in one), over HTTP and the WebSocket alike."""

    def __init__(self, max_tokens: int, max_bytes: int = MAX_DOCUMENT_BYTES) -> None:
        super().__init__()
        self.max_tokens = max_tokens
        self.max_bytes = max_bytes

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is None and context.query is not None:
            context.graphql_document = parse(context.query, self.max_tokens, self.max_bytes)
        yield


class DocumentValidation(SchemaExtension):
    """Validates with graphql-core's rules and `rules` (Strawberry's AddValidationRules and
    ValidationCache in one)."""

    def __init__(self, rules: Sequence[type[ASTValidationRule]]) -> None:
        super().__init__()
        self.rules = tuple(rules)

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        if context.graphql_document is not None and context.validation_rules:
            rules = coded(context.validation_rules) + self.rules
            schema = core_schema(context.schema)  # as Strawberry's own extensions reach it
            context.pre_execution_errors = validate(schema, context.graphql_document, rules)
        yield
