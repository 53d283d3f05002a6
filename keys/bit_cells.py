"""Geohash cells of any number of bits, not only whole characters, as key ranges of the
place partitions (`keys/map.py`): a nearest-first search (`keys/nearest.py`) reads a cell
and, when it holds more than one read takes, its quarters, each one bit finer in latitude
and in longitude.

A geohash is bits alternating longitude and latitude, longitude first, five to a
character. A cell of `bits` bits is a number below `2 ** bits`; from its sixteenth bit on
it lies in one place partition (its first 3 characters), and its places are the sort keys
from its first character value to its last: one Query. Bits are Z-order, so a cell's
quarters are four consecutive ranges of it, in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from keys.codecs import KEY_MAX
from keys.conditions import KeyCondition
from keys.geohash import ALPHABET, Box, from_ordinal
from keys.map import PLACE_GEOHASH_LENGTH, PLACE_PARTITION_LENGTH, Places

# The bits of a place partition's cell, and of a place's whole geohash.
PARTITION_BITS = 5 * PLACE_PARTITION_LENGTH
PLACE_BITS = 5 * PLACE_GEOHASH_LENGTH


@dataclass(frozen=True, order=True)
class BitCell:
    """The cell of the geohash bits `number` (`bits` of them, at least a partition's)."""

    bits: int
    number: int

    @property
    def box(self) -> Box:
        column, row = _split(self.number, self.bits)
        lat_bits, lon_bits = self.bits // 2, (self.bits + 1) // 2
        height, width = 180.0 / (1 << lat_bits), 360.0 / (1 << lon_bits)
        south, west = -90.0 + row * height, -180.0 + column * width
        return Box(south, south + height, west, west + width)

    @property
    def partition(self) -> str:
        """The 3 characters of its place partition."""
        return from_ordinal(self.number >> (self.bits - PARTITION_BITS), PLACE_PARTITION_LENGTH)

    def condition(self, places: Places) -> KeyCondition:
        """Its places: the sort keys from its first character value to its last."""
        table = places.table
        partition = f"{places.places}#{self.partition}"
        whole, rest = divmod(self.bits - PARTITION_BITS, 5)
        below = self.number >> rest  # the bits of whole characters
        prefix = from_ordinal(below, whole + PLACE_PARTITION_LENGTH)[PLACE_PARTITION_LENGTH:]
        if rest == 0:
            if not prefix:
                return KeyCondition(table, partition)
            return KeyCondition.prefix(table, partition, prefix)
        value = self.number & ((1 << rest) - 1)
        first = ALPHABET[value << (5 - rest)]
        last = ALPHABET[((value + 1) << (5 - rest)) - 1]
        return KeyCondition(table, partition, prefix + first, prefix + last + KEY_MAX)

    def quarters(self) -> list[BitCell]:
        """Its cells one bit finer in each axis (one bit, a bit from the end), in order."""
        finer = min(2, PLACE_BITS - self.bits)
        return [BitCell(self.bits + finer, self.number << finer | q) for q in range(1 << finer)]

    def holding(self, geohash: str) -> BitCell:
        """Its quarter that holds the place of `geohash` (12 characters)."""
        finer = min(2, PLACE_BITS - self.bits)
        bits = self.bits + finer
        return BitCell(bits, of_geohash(geohash) >> (PLACE_BITS - bits))


def of_geohash(geohash: str) -> int:
    number = 0
    for char in geohash:
        number = number << 5 | ALPHABET.index(char)
    return number


def cells_meeting(boxes: list[Box], bits: int) -> list[BitCell]:
    """Every cell of `bits` bits meeting any of `boxes` (and perhaps a neighbour or two on
    their edges: callers keep cells by their exact distance)."""
    numbers = {
        _join(column, row, bits)
        for box in boxes
        for row in _span(box.south, box.north, -90.0, 180.0, bits // 2)
        for column in _span(box.west, box.east, -180.0, 360.0, (bits + 1) // 2)
    }
    return [BitCell(bits, n) for n in sorted(numbers)]


def count_meeting(boxes: list[Box], bits: int) -> int:
    """At least as many as `cells_meeting` lists, counted without listing them."""
    return sum(
        len(_span(box.south, box.north, -90.0, 180.0, bits // 2))
        * len(_span(box.west, box.east, -180.0, 360.0, (bits + 1) // 2))
        for box in boxes
    )


def _span(low: float, high: float, origin: float, extent: float, bits: int) -> range:
    """Indices of the `2 ** bits` slices of `origin .. origin + extent` meeting low..high,
    one more on each side where rounding might have left it out."""
    size = extent / (1 << bits)
    last = (1 << bits) - 1
    first = max(0, math.floor((low - origin) / size) - 1)
    end = min(last, math.floor((high - origin) / size) + 1)
    return range(first, end + 1)


def _split(number: int, bits: int) -> tuple[int, int]:
    """The column (longitude) and row (latitude) of a cell's bits."""
    column = row = 0
    for position in range(bits):
        bit = number >> (bits - 1 - position) & 1
        if position % 2 == 0:
            column = column << 1 | bit
        else:
            row = row << 1 | bit
    return column, row


def _join(column: int, row: int, bits: int) -> int:
    lon_bits, lat_bits = (bits + 1) // 2, bits // 2
    number = 0
    for position in range(bits):
        if position % 2 == 0:
            bit = column >> (lon_bits - 1 - position // 2) & 1
        else:
            bit = row >> (lat_bits - 1 - position // 2) & 1
        number = number << 1 | bit
    return number
