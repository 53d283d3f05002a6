"""The observation of a client's calls: each one the SDK makes, whichever code made it,
told to an observer (the metrics count them so); and the hooks of tracing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol

# Told of each call a client made: the operation ("Query") and its outcome ("ok",
# DynamoDB's error code, or "unreachable").
CallObserver = Callable[[str, str], None]
# A client method such as `client.query`: keyword arguments in, a response dict out.
Method = Callable[..., Awaitable[Any]]


def observe_calls(client: Any, observer: CallObserver) -> Callable[[], None]:
    """Tell `observer` of each of `client`'s calls as the SDK makes it, whichever code made
    it, failed ones included (retries inside the SDK are one call); the function returned
    stops it. `client` is the table's client or the stream's (`open_streams_client`)."""
    events = client.meta.events
    # "dynamodb", or "dynamodb-streams": the events botocore emits name the service so.
    service = client.meta.service_model.service_id.hyphenize()
    answered_event, failed_event = f"after-call.{service}", f"after-call-error.{service}"
    # One registration per observer (the closures hold it, so its id stays its own).
    answered_id = f"dynagate-observer-{id(observer)}"
    failed_id = answered_id + "-error"

    def answered(*, model: Any, http_response: Any, parsed: Mapping[str, Any], **_: Any) -> None:
        outcome = "ok"
        if http_response.status_code >= 300:
            outcome = str((parsed.get("Error") or {}).get("Code") or "error")
        observer(model.name, outcome)

    def unreachable(*, event_name: str, **_: Any) -> None:
        # The event is "after-call-error.<service>.<Operation>".
        observer(event_name.rsplit(".", 1)[-1], "unreachable")

    events.register(answered_event, answered, unique_id=answered_id)
    events.register(failed_event, unreachable, unique_id=failed_id)

    def stop() -> None:
        events.unregister(answered_event, unique_id=answered_id)
        events.unregister(failed_event, unique_id=failed_id)

    return stop


class Tracing(Protocol):
    """What the store, the change feed and the subscriptions ask of tracing when it is on
    (`gateway/traces/`); None where it is off, so that no tracing code runs then."""

    def traced(self, method: Method, request: Mapping[str, Any]) -> Method:
        """`method` (a client method about to be called with `request`), in a span of its
        own when the request being answered is traced."""
        ...

    def cause(self) -> str | None:
        """The W3C traceparent of the span a write is made in, when it is traced: written
        on the item (`store/trace_marks.py`), it crosses the stream to the events it
        causes. None: the item is to carry none."""
        ...

    def delivery(self, topic: str, cause: str | None) -> AbstractContextManager[None]:
        """Around the delivery of one subscription event of `topic`: its span, linked to
        the span of the write that caused it (`cause`), the current one while it lasts."""
        ...
