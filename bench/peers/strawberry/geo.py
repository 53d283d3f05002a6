"""Geohash key planning for the demo table's map items, written for the Strawberry server.

The table's layout (dynagate's demo, `demo/model/markers.py`):

    place  PK = DgMa#<geohash[0:3]>      SK = <geohash[3:12]>#<id>
    cell   PK = DgCe#<geohash[0:L-3]>    SK = <geohash[L-3:L]>      count, L = 3..8
           PK = DgCe<L>#                 SK = <geohash[0:L]>        count, L = 1, 2

A team serving this table by hand needs the same planning the gateway does, or its Queries
(and answers) differ: the heatmap's precision and one BETWEEN per count partition, and the
marker search's cover of the view by geohash cells merged into at most 8 ranges. Same
rules, same float arithmetic, so the same Queries.
"""

from __future__ import annotations

import itertools
import math

ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz"
INDEX = {c: i for i, c in enumerate(ALPHABET)}
PLACES, CELLS = "DgMa", "DgCe"
KEY_MAX = "\uffff"
PLACE_PARTITION = 3
PLACE_LENGTH = 12
CELL_LENGTHS = range(1, 9)
SORT_KEY_LENGTH = 3
MAX_PLACE_SPAN = 0.5
DEFAULT_PARTITIONS = 4
MAX_PARTITIONS = 64
QUERY_BUDGET = 8
COVER_FRACTION = 8

# (south, north, west, east), edges included, never across the antimeridian.
Box = tuple[float, float, float, float]
# (PK, low SK, high SK) of one Query.
Range = tuple[str, str, str]


class BadInput(ValueError):
    pass


def cell_size(length: int) -> tuple[float, float]:
    return 180.0 / (1 << (5 * length // 2)), 360.0 / (1 << ((5 * length + 1) // 2))


def encode(lat: float, lon: float, length: int) -> str:
    lat_lo, lat_hi, lon_lo, lon_hi = -90.0, 90.0, -180.0, 180.0
    out: list[str] = []
    bits = value = 0
    even = True
    while len(out) < length:
        value <<= 1
        if even:
            mid = (lon_lo + lon_hi) / 2
            if lon >= mid:
                value |= 1
                lon_lo = mid
            else:
                lon_hi = mid
        else:
            mid = (lat_lo + lat_hi) / 2
            if lat >= mid:
                value |= 1
                lat_lo = mid
            else:
                lat_hi = mid
        even = not even
        bits += 1
        if bits == 5:
            out.append(ALPHABET[value])
            bits = value = 0
    return "".join(out)


def cell_box(geohash: str) -> Box:
    row = col = 0
    even = True
    for ch in geohash:
        i = INDEX[ch]
        three = (i >> 2 & 4) | (i >> 1 & 2) | (i & 1)
        two = (i >> 2 & 2) | (i >> 1 & 1)
        if even:
            col, row = col << 3 | three, row << 2 | two
        else:
            row, col = row << 3 | three, col << 2 | two
        even = not even
    dlat, dlon = cell_size(len(geohash))
    south, west = -90.0 + row * dlat, -180.0 + col * dlon
    return south, south + dlat, west, west + dlon


def intersects(a: Box, b: Box) -> bool:
    return a[0] <= b[1] and b[0] <= a[1] and a[2] <= b[3] and b[2] <= a[3]


def _span(low: float, high: float, origin: float, size: float, last: int) -> range:
    first = min(last, max(0, math.ceil((low - origin) / size) - 1))
    end = min(last, max(0, math.floor((high - origin) / size)))
    if first < last and origin + (first + 1) * size < low:
        first += 1
    if end > 0 and origin + end * size > high:
        end -= 1
    return range(first, end + 1)


def grid_span(box: Box, length: int) -> tuple[range, range]:
    dlat, dlon = cell_size(length)
    rows = (1 << (5 * length // 2)) - 1
    cols = (1 << ((5 * length + 1) // 2)) - 1
    return _span(box[0], box[1], -90.0, dlat, rows), _span(box[2], box[3], -180.0, dlon, cols)


def cells_meeting(box: Box, length: int) -> list[str]:
    if length == 0:
        return [""]
    dlat, dlon = cell_size(length)
    rows, cols = grid_span(box, length)
    found = {
        encode(-90.0 + (r + 0.5) * dlat, -180.0 + (c + 0.5) * dlon, length)
        for r in rows
        for c in cols
    }
    return sorted(c for c in found if intersects(cell_box(c), box))


class View:
    """A viewport; `west > east` crosses the antimeridian."""

    def __init__(self, north: float, south: float, east: float, west: float) -> None:
        for v in (north, south):
            if not -90.0 <= v <= 90.0:
                raise BadInput(f"{v} is outside -90 to 90")
        for v in (east, west):
            if not -180.0 <= v <= 180.0:
                raise BadInput(f"{v} is outside -180 to 180")
        if south > north:
            raise BadInput(f"south {south} is north of north {north}")
        self.north, self.south, self.east, self.west = north, south, east, west
        self.boxes: list[Box] = (
            [(south, north, west, east)]
            if west <= east
            else [(south, north, west, 180.0), (south, north, -180.0, east)]
        )

    @property
    def width(self) -> float:
        return self.east - self.west if self.west <= self.east else 360.0 - self.west + self.east

    @property
    def height(self) -> float:
        return self.north - self.south

    def contains(self, lat: float, lon: float) -> bool:
        return any(b[0] <= lat <= b[1] and b[2] <= lon <= b[3] for b in self.boxes)


# ---- heatmap ------------------------------------------------------------------------------


def _partition_length(length: int) -> int:
    return max(0, length - SORT_KEY_LENGTH)


def partitions_needed(view: View, length: int) -> int:
    spans = [grid_span(b, _partition_length(length)) for b in view.boxes]
    columns = {c for _, cols in spans for c in cols}
    return len(spans[0][0]) * len(columns)


def precision(view: View, asked: int | None) -> int:
    if asked is None:
        for length in reversed(CELL_LENGTHS):
            if partitions_needed(view, length) <= DEFAULT_PARTITIONS:
                return length
        return CELL_LENGTHS[0]
    if asked not in CELL_LENGTHS:
        raise BadInput(f"{asked} is outside 1 to 8")
    if partitions_needed(view, asked) > MAX_PARTITIONS:
        raise BadInput(f"precision {asked} needs too many partitions for this viewport")
    return asked


def cell_pk(cell: str) -> str:
    if len(cell) < SORT_KEY_LENGTH:
        return f"{CELLS}{len(cell)}#"
    return f"{CELLS}#{cell[: len(cell) - SORT_KEY_LENGTH]}"


def cell_sk(cell: str) -> str:
    return cell[max(0, len(cell) - SORT_KEY_LENGTH) :]


def _clip(a: Box, b: Box) -> Box:
    return max(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), min(a[3], b[3])


def _corners(box: Box, partition: str, length: int) -> tuple[str, str]:
    dlat, dlon = cell_size(length)
    p = cell_box(partition)
    own_rows = range(round((p[0] + 90.0) / dlat), round((p[1] + 90.0) / dlat))
    own_cols = range(round((p[2] + 180.0) / dlon), round((p[3] + 180.0) / dlon))
    span_rows, span_cols = grid_span(box, length)
    r0, r1 = max(span_rows[0], own_rows[0]), min(span_rows[-1], own_rows[-1])
    c0, c1 = max(span_cols[0], own_cols[0]), min(span_cols[-1], own_cols[-1])
    sw = encode(-90.0 + (r0 + 0.5) * dlat, -180.0 + (c0 + 0.5) * dlon, length)
    ne = encode(-90.0 + (r1 + 0.5) * dlat, -180.0 + (c1 + 0.5) * dlon, length)
    return sw, ne


def heatmap_plan(view: View, length: int) -> list[tuple[Range, list[Box]]]:
    """One Query per count partition, with the boxes of the view in that partition."""
    parts: dict[str, list[Box]] = {}
    for box in view.boxes:
        for partition in cells_meeting(box, _partition_length(length)):
            parts.setdefault(partition, []).append(_clip(cell_box(partition), box))
    plan = []
    for partition, boxes in sorted(parts.items()):
        corners = [_corners(b, partition, length) for b in boxes]
        first, last = min(c[0] for c in corners), max(c[1] for c in corners)
        plan.append(((cell_pk(first), cell_sk(first), cell_sk(last)), boxes))
    return plan


def cell_of(pk: str, sk: str) -> str:
    return pk.split("#", 1)[1] + sk


# ---- marker search ------------------------------------------------------------------------


def check_place_view(view: View) -> None:
    limit = MAX_PLACE_SPAN + 1e-9
    if view.width > limit or view.height > limit:
        raise BadInput(
            f"{view.width:g} by {view.height:g} degrees is more than {MAX_PLACE_SPAN}"
            " on a side: zoom in"
        )


def cover_depth(view: View) -> int:
    longer = max(view.height, view.width)
    vh, vw = max(view.height, longer / 8), max(view.width, longer / 8)
    for length in range(PLACE_PARTITION, PLACE_LENGTH + 1):
        h, w = cell_size(length)
        if h <= vh / COVER_FRACTION and w <= vw / COVER_FRACTION:
            return length
    return PLACE_LENGTH


def _placed(value: int, bits: int, total: int, parity: int) -> int:
    out = 0
    for i in range(bits):
        if value >> (bits - 1 - i) & 1:
            out |= 1 << (total - 1 - 2 * i - parity)
    return out


def cell_numbers(box: Box, length: int) -> list[int]:
    rows, cols = grid_span(box, length)
    total = 5 * length
    rs = [_placed(r, total // 2, total, 1) for r in rows]
    cs = [_placed(c, (total + 1) // 2, total, 0) for c in cols]
    return [r | c for r in rs for c in cs]


def _suffix(index: int, digits: int) -> str:
    out = []
    for _ in range(digits):
        index, v = divmod(index, 32)
        out.append(ALPHABET[v])
    return "".join(reversed(out))


def place_plan(view: View) -> list[Range]:
    """The Queries that together read every place in the view, in key order."""
    depth = cover_depth(view)
    numbers = sorted({n for b in view.boxes for n in cell_numbers(b, depth)})
    shift = 5 * (depth - PLACE_PARTITION)
    mask = (1 << shift) - 1
    ranges: list[tuple[int, int, int]] = []  # (partition number, low, high)
    low = prev = -2
    for n in [*numbers, -2]:
        if n != prev + 1 or n >> shift != prev >> shift:
            if prev >= 0:
                ranges.append((prev >> shift, low & mask, prev & mask))
            low = n
        prev = n
    while len(ranges) > QUERY_BUDGET:  # merge the closest two ranges of one partition
        pairs = enumerate(itertools.pairwise(ranges))
        gaps = [(b[1] - a[2], i) for i, (a, b) in pairs if a[0] == b[0]]
        if not gaps:
            break
        _, i = min(gaps)
        ranges[i : i + 2] = [(ranges[i][0], ranges[i][1], ranges[i + 1][2])]
    digits = depth - PLACE_PARTITION
    return [
        (
            f"{PLACES}#{_suffix(p, PLACE_PARTITION)}",
            _suffix(lo, digits),
            _suffix(hi, digits) + KEY_MAX,
        )
        for p, lo, hi in ranges
    ]
