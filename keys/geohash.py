"""Standard geohashes: encoding, cell boxes, and the cells of a length that meet a box.

The base32 alphabet is in ASCII order, so byte order of geohash strings is Z-order and a
cell's descendants are exactly the strings it prefixes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz"
_INDEX = {c: i for i, c in enumerate(ALPHABET)}
# A character's bits 4, 2, 0 and bits 3, 1, each read as a number.
_SPLIT = {
    c: ((i >> 2 & 4) | (i >> 1 & 2) | (i & 1), (i >> 2 & 2) | (i >> 1 & 1))
    for c, i in _INDEX.items()
}


@dataclass(frozen=True)
class Box:
    """A latitude/longitude box with edges included; never crosses the antimeridian."""

    south: float
    north: float
    west: float
    east: float

    def contains(self, lat: float, lon: float) -> bool:
        return self.south <= lat <= self.north and self.west <= lon <= self.east

    def intersects(self, other: Box) -> bool:
        return (
            self.south <= other.north
            and other.south <= self.north
            and self.west <= other.east
            and other.west <= self.east
        )

    def within(self, other: Box) -> bool:
        return (
            other.south <= self.south
            and self.north <= other.north
            and other.west <= self.west
            and self.east <= other.east
        )


def cell_size(length: int) -> tuple[float, float]:
    """(degrees of latitude, degrees of longitude) of a cell of `length` characters."""
    lon_bits = (5 * length + 1) // 2
    lat_bits = 5 * length // 2
    return 180.0 / (1 << lat_bits), 360.0 / (1 << lon_bits)


def encode(lat: float, lon: float, length: int) -> str:
    """The geohash of a point; the edges 90 and 180 fall in the last cell."""
    lat_range, lon_range = [-90.0, 90.0], [-180.0, 180.0]
    chars: list[str] = []
    bits, value, even = 0, 0, True
    while len(chars) < length:
        interval, coordinate = (lon_range, lon) if even else (lat_range, lat)
        middle = (interval[0] + interval[1]) / 2
        value <<= 1
        if coordinate >= middle:
            value |= 1
            interval[0] = middle
        else:
            interval[1] = middle
        even = not even
        bits += 1
        if bits == 5:
            chars.append(ALPHABET[value])
            bits, value = 0, 0
    return "".join(chars)


def ordinal(geohash: str) -> int:
    """The geohash's rank among all geohashes of its length, in geohash order."""
    rank = 0
    for char in geohash:
        rank = rank * len(ALPHABET) + _INDEX[char]
    return rank


def from_ordinal(rank: int, length: int) -> str:
    """The geohash of `length` characters whose rank is `rank` (`ordinal`'s inverse)."""
    chars = []
    for _ in range(length):
        rank, value = divmod(rank, len(ALPHABET))
        chars.append(ALPHABET[value])
    return "".join(reversed(chars))


@lru_cache(maxsize=1 << 16)
def cell_box(geohash: str) -> Box:
    """The cell's bounds, kept for the cells read lately (a heatmap reads the same ones).
    A character's five bits alternate between longitude and latitude,
    longitude first at even positions: its column and row bits are read from a table, and
    the edges are whole multiples of the cell's size from the origin, exact in binary."""
    row = col = 0
    even = True
    for char in geohash:
        three, two = _SPLIT[char]
        if even:
            col, row = col << 3 | three, row << 2 | two
        else:
            row, col = row << 3 | three, col << 2 | two
        even = not even
    dlat, dlon = cell_size(len(geohash))
    south, west = -90.0 + row * dlat, -180.0 + col * dlon
    return Box(south, south + dlat, west, west + dlon)


def grid_span(box: Box, length: int) -> tuple[range, range]:
    """Row and column indices of the cells of `length` that meet `box` (edges included)."""
    dlat, dlon = cell_size(length)
    rows = (1 << (5 * length // 2)) - 1
    cols = (1 << ((5 * length + 1) // 2)) - 1
    return (
        _span(box.south, box.north, -90.0, dlat, rows),
        _span(box.west, box.east, -180.0, dlon, cols),
    )


def _span(low: float, high: float, origin: float, size: float, last: int) -> range:
    """Indices of the cells `origin + i * size .. origin + (i + 1) * size` meeting low..high."""
    # ceil - 1: an edge lying on a cell boundary also meets the cell below or west of it.
    first = min(last, max(0, math.ceil((low - origin) / size) - 1))
    end = min(last, max(0, math.floor((high - origin) / size)))
    # `low - origin` can round onto a boundary (45 - 1e-15 + 90 == 135.0), taking in one cell
    # too many; the boundaries themselves are exact, so compare with them.
    if first < last and origin + (first + 1) * size < low:
        first += 1
    if end > 0 and origin + end * size > high:
        end -= 1
    return range(first, end + 1)


def cell_count(box: Box, length: int) -> int:
    rows, cols = grid_span(box, length)
    return len(rows) * len(cols)


def cell_numbers(box: Box, length: int) -> list[int]:
    """The cells of `length` that meet `box` as geohash integers (`ordinal`), ascending.

    A geohash interleaves the column's bits (longitude first) with the row's, so a cell's
    number is its column's bits in their places OR its row's: one placement per row and
    per column instead of encoding every cell.
    """
    rows, cols = grid_span(box, length)
    total = 5 * length
    lat_bits, lon_bits = total // 2, (total + 1) // 2
    row_parts = [_placed(row, lat_bits, total, 1) for row in rows]
    col_parts = [_placed(col, lon_bits, total, 0) for col in cols]
    return sorted(r | c for r in row_parts for c in col_parts)


def _placed(value: int, bits: int, total: int, parity: int) -> int:
    """`value`'s bits at every other place of a `total`-bit geohash, from the `parity`th."""
    placed = 0
    for i in range(bits):  # i-th bit of `value` from its most significant
        if value >> (bits - 1 - i) & 1:
            placed |= 1 << (total - 1 - 2 * i - parity)
    return placed


def cells_meeting(box: Box, length: int) -> list[str]:
    """Every cell of `length` characters that meets `box`, in geohash (Z) order."""
    if length == 0:
        return [""]
    dlat, dlon = cell_size(length)
    rows, cols = grid_span(box, length)
    cells = {
        encode(-90.0 + (row + 0.5) * dlat, -180.0 + (col + 0.5) * dlon, length)
        for row in rows
        for col in cols
    }
    return sorted(c for c in cells if cell_box(c).intersects(box))
