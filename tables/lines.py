"""Bitboard geometry: the board's lines along each direction, and the squares a step leads to.

Logic that works on all 64 squares at once (the leaf counter, :mod:`hwmovegen.rtl.leafcount`)
needs the geometry as wiring: which square a step from each square reaches, and for every
direction the lines of squares in the order a slider moves along them. Both come from the
same directions as the node tables (:mod:`.slots`), so the two views cannot disagree.
"""

from .geometry import _step
from .slots import DIRECTIONS

__all__ = ["KING_STEPS", "KNIGHT_STEPS", "opposite", "axis", "is_diagonal", "step", "lines", "square_mask"]

KING_STEPS = range(8)           # direction indices 0-7: N, NE, E, SE, S, SW, W, NW (:data:`.slots.DIRECTIONS`)
KNIGHT_STEPS = range(8, 16)     # the knight's jumps


def opposite(direction):
    """The king direction pointing the other way."""
    return (direction + 4) % 8


def axis(direction):
    """The line a king direction runs along: 0 file, 1 NE-SW diagonal, 2 rank, 3 NW-SE diagonal."""
    return direction % 4


def is_diagonal(direction):
    return direction % 2 == 1


def step(square, direction):
    """The square one step of ``direction`` (a :data:`.slots.DIRECTIONS` index) from ``square``,
    or None off the board."""
    return _step(square, *DIRECTIONS[direction])


def lines(direction):
    """The board cut into lines along a king direction: lists of squares, each in the order a
    slider moving that way passes them. Every square is in exactly one line."""
    result = []
    for square in range(64):
        back = (DIRECTIONS[direction][0] * -1, DIRECTIONS[direction][1] * -1)
        if _step(square, *back) is not None:
            continue                    # not the start of its line
        line = [square]
        while (nxt := step(line[-1], direction)) is not None:
            line.append(nxt)
        result.append(line)
    return result


def square_mask(squares):
    """A 64-bit integer with the bits of ``squares`` set."""
    return sum(1 << square for square in set(squares))
