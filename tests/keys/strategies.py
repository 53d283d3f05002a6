"""Hypothesis settings and strategies shared by the segment codec tests."""

from __future__ import annotations

import string
from datetime import UTC, timedelta, timezone

from hypothesis import settings
from hypothesis import strategies as st

from keys.codecs import KSUID_EPOCH
from keys.codecs import ksuid as make_ksuid

FAST = settings(max_examples=100, deadline=None, database=None)
FEWER = settings(max_examples=50, deadline=None, database=None)  # costly examples
QUICK = settings(max_examples=30, deadline=None, database=None)  # simple refusals

# ---- strategies ------------------------------------------------------------------------

IDENTIFIER_REGEX = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
IDENTIFIER_START = string.ascii_letters + string.digits
IDENTIFIER_REST = IDENTIFIER_START + "._-"

identifiers = st.from_regex(IDENTIFIER_REGEX, fullmatch=True)
# Text that is often almost an identifier: its alphabet, delimiters, white space, non-ASCII
# letters and digits (`é`, `İ`, Arabic-Indic `٣`), and the odd newline a `$` would let by.
near_identifiers = st.text(
    alphabet=st.sampled_from(IDENTIFIER_REST + "#/~ \t\n\r\x00éİK٣²"), max_size=70
)
any_text = st.one_of(near_identifiers, st.text(max_size=70), identifiers.map(lambda s: s + "\n"))

offsets = st.builds(
    timezone,
    st.timedeltas(
        min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)
    ),
)
any_zone = st.one_of(st.just(UTC), offsets)

# Any KSUID: any second of its range, any payload.
ksuids = st.builds(
    make_ksuid,
    st.integers(KSUID_EPOCH, KSUID_EPOCH + (1 << 32) - 1),
    st.binary(min_size=16, max_size=16),
)
