"""Spans of a GraphQL request's phases: parse, validate, bound and execute.

Each wraps the hook of the schema extension that does the phase's work (the schema builds
their traced kinds, `gateway/schema/build.py`), so that tracing adds no extension of its own:
Strawberry's cost per extension and hook is paid by every request, sampled or not.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from time import time_ns

from gateway.traces.spans import Traces, child_of, current, recorded


def phase(traces: Traces, name: str, hook: Iterator[None]) -> Iterator[None]:
    """`hook` (an extension's generator hook) in a span called `name`."""
    request = recorded()
    if request is None:
        yield from hook
        return
    context, start = child_of(request), time_ns()
    try:
        yield from hook
    finally:
        traces.ended(name, context, request, start)


def bound_then_execute(traces: Traces, hook: Iterator[None]) -> Iterator[None]:
    """The bound's hook (`DemandControl.on_execute`, which bounds the operation before it
    yields) in a span `bound` up to its yield, and the rest of the execution in a span
    `execute`, current while the operation runs so that its calls are its children."""
    request = recorded()
    if request is None:
        yield from hook
        return
    start = time_ns()
    try:
        next(hook)
    finally:
        traces.ended("bound", child_of(request), request, start)
    context, start = child_of(request), time_ns()
    try:
        with current(context):
            yield
        next(hook, None)
    finally:
        if isinstance(hook, Generator):
            hook.close()  # its own clean-up, had the execution failed
        traces.ended("execute", context, request, start)
