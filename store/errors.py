"""The one place botocore's errors become the product's (`errors/vocabulary.py`), and the
store's own signals to the access patterns above it.

    ConditionFailed        a conditional write found the item in another state
    TransactionCanceled    a transaction was cancelled; one reason per action
    DynamoDBFailure        any other botocore error, for the command line to print

`mapped` turns a refused call into Unavailable (throttling, DynamoDB's own failures, a
missing table), ConditionFailed or TransactionCanceled. The access patterns turn the last
two into the product's errors, since only they know what a condition meant. Anything else
raised while resolving is masked as INTERNAL_SERVER_ERROR.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError, NoCredentialsError
from botocore.exceptions import ConnectionError as BotoConnectionError

from errors.vocabulary import Conflict, DynagateError, Unavailable
from store.requests import WRITE_TOKEN, Item, from_attributes

logger = logging.getLogger("dynagate.store")

_THROTTLING = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "LimitExceededException",
    # The same transaction (same ClientRequestToken) is still being applied: botocore
    # retries it as throttling; past that, its outcome is not known yet.
    "TransactionInProgressException",
}
# DynamoDB's own failures; any answer with an HTTP status of 500 or more is one too.
_SERVER_FAULTS = {"InternalServerError", "InternalFailure", "ServiceUnavailable"}
_THROTTLED_ACTIONS = {"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}
# Botocore's errors for a DynamoDB that cannot be reached (connection refused, timeouts).
UNREACHABLE = (BotoConnectionError, HTTPClientError)
# Botocore's error when AWS was used and no credentials were found (the CLI names the fix).
NO_CREDENTIALS = NoCredentialsError


class ConditionFailed(Exception):
    """A conditional write found the item in another state than it required; `item` is the
    stored item when the write asked for it (None also when nothing is stored)."""

    def __init__(self, item: Item | None = None) -> None:
        super().__init__("the conditional request failed")
        self.item = item

    def written_by(self, token: str) -> Item | None:
        """The stored item if the call holding `token` wrote it last: an earlier attempt
        of this very write was applied and its answer lost, so the resend was refused."""
        if self.item is None or self.item.get(WRITE_TOKEN) != token:
            return None
        return self.item


class TransactionCanceled(Exception):
    """A transaction was cancelled; `reasons` holds one code per action ("None" = fine),
    `items` the item an action found when it asked for it on a failed condition."""

    def __init__(self, reasons: list[str], items: list[Item | None] | None = None) -> None:
        super().__init__(", ".join(reasons))
        self.reasons = reasons
        self.items = items or [None] * len(reasons)

    @property
    def only_conflicts(self) -> bool:
        """Nothing failed its condition; another transaction merely held an item."""
        return "TransactionConflict" in self.reasons and set(self.reasons) <= {
            "None",
            "TransactionConflict",
        }

    def failed(self, action: int) -> bool:
        """The action at index `action` failed its condition."""
        return self.reasons[action : action + 1] == ["ConditionalCheckFailed"]

    def explained(self, refusals: Mapping[int, DynagateError], retry: str) -> DynagateError:
        """What a client hears: the refusal of the first listed action that failed its
        condition (in the order listed), else busy or a conflict saying `retry`."""
        for action, error in refusals.items():
            if self.failed(action):
                return error
        return self.as_error(retry)

    def as_error(self, conflict_message: str) -> DynagateError:
        """What a client hears when no reason is the caller's to explain."""
        if any(reason in _THROTTLED_ACTIONS for reason in self.reasons):
            return Unavailable("the database is busy; try again shortly")
        return Conflict(conflict_message)


class DynamoDBFailure(Exception):
    """DynamoDB refused a call of an admin command, or could not be reached."""


class BoundExceeded(Exception):
    """A request was about to make more DynamoDB calls than the bound computed before it
    ran: a cost model is too low. A bug of ours, so clients hear INTERNAL_SERVER_ERROR."""


def error_code(exc: ClientError) -> str:
    code: str = exc.response.get("Error", {}).get("Code", "")
    return code


def mapped(exc: ClientError) -> Exception | None:
    """The product's error for a refused call, or None when it is a bug of ours."""
    code = error_code(exc)
    if code == "ConditionalCheckFailedException":
        response: Mapping[str, Any] = exc.response  # `Item`: what ALL_OLD asked for
        stored = response.get("Item")
        return ConditionFailed(None if stored is None else from_attributes(stored))
    if code == "TransactionCanceledException":
        reasons = exc.response.get("CancellationReasons") or []
        return TransactionCanceled(
            [r.get("Code", "None") for r in reasons],
            [None if "Item" not in r else from_attributes(r["Item"]) for r in reasons],
        )
    if code in _THROTTLING:
        return Unavailable("the database is busy; try again shortly")
    status: int = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    if code in _SERVER_FAULTS or status >= 500:
        logger.warning("DynamoDB failed past retries: HTTP %s %s", status, code)
        return Unavailable("the database is failing; try again shortly")
    if code == "ResourceNotFoundException":
        # The fix is the operator's, so only the log names it; clients cannot run it.
        logger.error(
            "table missing (run `dynagate create-table`): %s",
            exc.response.get("Error", {}).get("Message"),
        )
        return Unavailable("the table is not available")
    message = str(exc.response.get("Error", {}).get("Message", ""))
    if code == "ValidationException" and "does not have the specified index" in message:
        # A model served before `dynagate migrate apply` added its new index.
        logger.error("an index the model reads is missing (run `dynagate migrate apply`)")
        return Unavailable("this list is not available yet")
    return None


@contextmanager
def admin_failures() -> Iterator[None]:
    """Botocore's errors raised inside, as `DynamoDBFailure` with botocore's message."""
    try:
        yield
    except (BotoCoreError, ClientError) as exc:
        raise DynamoDBFailure(str(exc)) from exc
