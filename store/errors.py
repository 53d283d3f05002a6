"""The product's errors, each with the `extensions.code` of API.md section 4.

    DynagateError
     ├── BadUserInput      BAD_USER_INPUT    an argument is invalid; the message says which
     ├── BadCursor         BAD_CURSOR        a cursor was altered or taken from elsewhere
     ├── NotFound          NOT_FOUND         a mutation names a missing entity
     ├── Conflict          CONFLICT          it exists already, or a concurrent write won
     └── Unavailable       UNAVAILABLE       DynamoDB unreachable or throttling past retries

Anything else raised while resolving is masked as INTERNAL_SERVER_ERROR.
"""

from __future__ import annotations

from typing import ClassVar

from keys.errors import InvalidInput


class DynagateError(Exception):
    code: ClassVar[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        # graphql-core copies `extensions` of the original error into the response.
        self.extensions = {"code": self.code}


class BadUserInput(DynagateError):
    code = "BAD_USER_INPUT"

    @classmethod
    def from_invalid(cls, error: InvalidInput) -> BadUserInput:
        return cls(str(error))


class BadCursor(DynagateError):
    code = "BAD_CURSOR"


class NotFound(DynagateError):
    code = "NOT_FOUND"


class Conflict(DynagateError):
    code = "CONFLICT"


class Unavailable(DynagateError):
    code = "UNAVAILABLE"


QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX"
INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR"
