"""The product's one error vocabulary: the codes of docs/http.md#errors and the exceptions
that carry them. It sits on the bottom floor so that every floor raises its refusals where
it decides them, each with its code.

    DynagateError                          `extensions.code`
     ├── BadUserInput      BAD_USER_INPUT    an argument is invalid; the message says which
     │                                       (also a ValueError; `field` names the argument)
     ├── BadCursor         BAD_CURSOR        a cursor was altered or taken from elsewhere
     ├── NotFound          NOT_FOUND         a mutation names a missing entity
     ├── Conflict          CONFLICT          it exists already, or a concurrent write won
     ├── Unauthenticated   UNAUTHENTICATED   a bad token, or no token where one is needed
     ├── Forbidden         FORBIDDEN         the caller may not do this
     ├── Unavailable       UNAVAILABLE       DynamoDB unreachable, throttling or failing
     │                                       (5xx) past retries, or the request out of time
     └── UnknownDocument   PERSISTED_QUERY_NOT_FOUND
                                             a document named by a hash no one registered

The other codes are answers the gateway writes itself, with `Code` in their extensions:
QUERY_TOO_COMPLEX (a document limit or the bound), RATE_LIMITED,
and INTERNAL_SERVER_ERROR for anything else raised while resolving (its message masked).
The store turns botocore's errors into these in one place (`store/errors.py`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar


class Code(StrEnum):
    """`extensions.code` of every error a client receives."""

    BAD_USER_INPUT = "BAD_USER_INPUT"
    BAD_CURSOR = "BAD_CURSOR"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    RATE_LIMITED = "RATE_LIMITED"
    PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"


class DynagateError(Exception):
    """An error a client receives with its code: each kind names it where it is declared
    (`class NotFound(DynagateError, code=Code.NOT_FOUND)`)."""

    code: ClassVar[Code]

    def __init_subclass__(cls, *, code: Code, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.code = code

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # graphql-core copies `extensions` of the original error into the response.
        self.extensions = {"code": self.code}


class BadUserInput(DynagateError, ValueError, code=Code.BAD_USER_INPUT):
    """A value a client sent cannot be used. With `field`, the message is prefixed with it
    (`lat: 91 is outside -90 to 90`); a ValueError, so parsers may treat it as one."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message if field is None else f"{field}: {message}")
        self.field = field


# The other kinds differ by their code alone (the module's text says when each is raised).


class BadCursor(DynagateError, code=Code.BAD_CURSOR): ...


class NotFound(DynagateError, code=Code.NOT_FOUND): ...


class Conflict(DynagateError, code=Code.CONFLICT): ...


class Unauthenticated(DynagateError, code=Code.UNAUTHENTICATED): ...


class Forbidden(DynagateError, code=Code.FORBIDDEN): ...


class Unavailable(DynagateError, code=Code.UNAVAILABLE): ...


class UnknownDocument(DynagateError, code=Code.PERSISTED_QUERY_NOT_FOUND): ...
