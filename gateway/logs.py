"""The log format: plain text, or one JSON object a line for log collectors
(`DYNAGATE_LOG_FORMAT=json`)."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from gateway.request_scope import request_id

TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
# The formats DYNAGATE_LOG_FORMAT names, its default first (the settings table reads them).
FORMATS = ("text", "json")


class JsonFormatter(logging.Formatter):
    """Each record as one JSON object: time, level, logger, message, the id of the request
    being answered, the record's `fields` (the request log's), and any traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        current = request_id()
        if current is not None:
            entry["requestId"] = current
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


# The AWS SDK's loggers whose INFO records are notes, not events: they are left out.
_SDK_NOTES = ("aiobotocore.credentials", "botocore.credentials")


def logging_config(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A `logging.config.dictConfig` schema that sends every record of the process, ours and
    uvicorn's, to one stderr handler in the format `DYNAGATE_LOG_FORMAT` names (`text` by
    default). uvicorn's access log is left out: the request log is the line per request."""
    env = os.environ if env is None else env
    value = env.get("DYNAGATE_LOG_FORMAT") or FORMATS[0]
    name = value.lower()
    if name not in FORMATS:
        # Logging is not configured yet, and a bad format must not keep the gateway down.
        print(
            f"dynagate: DYNAGATE_LOG_FORMAT={value!r}: use text or json; logging as text",
            file=sys.stderr,
        )
    formatter = {"()": JsonFormatter} if name == "json" else {"format": TEXT_FORMAT}
    # uvicorn's loggers lose the handlers its own default configuration gives them and
    # propagate to the root's; `uvicorn.access` has none, so uvicorn writes no access line.
    through_root = {"handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"dynagate": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "dynagate",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": "INFO", "handlers": ["stderr"]},
        "loggers": {
            "uvicorn": {"level": "INFO", **through_root},
            "uvicorn.error": {"level": "INFO", **through_root},
            "uvicorn.access": {"handlers": [], "propagate": False},
            # The SDK says where it found credentials at INFO, on every client it opens.
            **{name: {"level": "WARNING"} for name in _SDK_NOTES},
        },
    }
