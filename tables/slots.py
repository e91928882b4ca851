"""Ray slots: every chain as a fixed list of rays per piece kind, for cores that decide whole rays.

The walker follows a chain node by node. A core that decides a whole ray at once
needs each ray once, as a *slot*: what its nodes do (a :class:`RayType`) and the
direction it leaves the square in. Every kind has a fixed list of slots in chain
order (``KIND_SLOTS``); on a given square a slot's ray may be empty (off the
board), and ``rays(kind, square)`` of the node tables is exactly the non-empty
slots in order, each ray ``length`` steps of its direction from the square (checked
here when the table is built, and in the tests). So such a core may compute its
targets as ``from + k * step`` and skip empty slots, and still emit the chain order.

Directions are numbered 0-7 for the king's eight steps (N, NE, E, SE, S, SW, W,
NW: the king's own chain order) and 8-15 for the knight's jumps (the knight's
chain order). Ray types:

``SLIDE``    nodes that emit onto an empty square, and onto the first occupied one if
             it holds an opponent: slider rays, king steps, knight jumps
``PUSH``     a pawn's push ray: emits onto empty squares only; its second node (from
             the start rank) is the double push
``CAPTURE``  a pawn's capture: emits onto an opponent or the en-passant square
``CASTLE``   a castling ray of a king on e1 or e8: emits the castling move (two steps
             from the king) when the path is empty and the right is held
"""

from collections import namedtuple
from enum import IntEnum

from .geometry import (BISHOP_DIRECTIONS, KING_DIRECTIONS, KNIGHT_JUMPS, ROOK_DIRECTIONS, NodeKind,
                       TableKind, rays)

__all__ = ["RayType", "Slot", "KIND_SLOTS", "SLOTS", "DIRECTIONS", "direction_step", "slot_rays",
           "slot_report"]

DIRECTIONS = tuple(KING_DIRECTIONS) + tuple(KNIGHT_JUMPS)      # index -> (file step, rank step)


class RayType(IntEnum):
    SLIDE = 0
    PUSH = 1
    CAPTURE = 2
    CASTLE = 3


Slot = namedtuple("Slot", "type direction")


def _directions(steps):
    return [DIRECTIONS.index(step) for step in steps]


KIND_SLOTS = {
    TableKind.ROOK: [Slot(RayType.SLIDE, d) for d in _directions(ROOK_DIRECTIONS)],
    TableKind.BISHOP: [Slot(RayType.SLIDE, d) for d in _directions(BISHOP_DIRECTIONS)],
    TableKind.QUEEN: [Slot(RayType.SLIDE, d) for d in _directions(ROOK_DIRECTIONS + BISHOP_DIRECTIONS)],
    TableKind.KNIGHT: [Slot(RayType.SLIDE, d) for d in _directions(KNIGHT_JUMPS)],
    TableKind.KING: ([Slot(RayType.SLIDE, d) for d in _directions(KING_DIRECTIONS)]
                     + [Slot(RayType.CASTLE, d) for d in _directions(((1, 0), (-1, 0)))]),
    # push, then the capture towards the a-file, then towards the h-file
    TableKind.WPAWN: [Slot(RayType.PUSH, d) for d in _directions(((0, 1),))]
                     + [Slot(RayType.CAPTURE, d) for d in _directions(((-1, 1), (1, 1)))],
    TableKind.BPAWN: [Slot(RayType.PUSH, d) for d in _directions(((0, -1),))]
                     + [Slot(RayType.CAPTURE, d) for d in _directions(((-1, -1), (1, -1)))],
}
SLOTS = max(len(slots) for slots in KIND_SLOTS.values())


def direction_step(direction):
    """The square-index step of a direction (north is +8)."""
    file_step, rank_step = DIRECTIONS[direction]
    return file_step + 8 * rank_step


_TYPES = {RayType.SLIDE: {NodeKind.NORMAL}, RayType.PUSH: {NodeKind.PUSH, NodeKind.DOUBLE, NodeKind.PROMO_PUSH},
          RayType.CAPTURE: {NodeKind.CAPTURE, NodeKind.PROMO_CAPTURE},
          RayType.CASTLE: {NodeKind.CASTLE_PATH, NodeKind.CASTLE}}


def _slot_matches(slot, square, nodes):
    """Does a geometric ray leaving ``square`` belong to ``slot``?"""
    if {node.kind for node in nodes} - _TYPES[slot.type]:
        return False
    file_step, rank_step = DIRECTIONS[slot.direction]
    if slot.type == RayType.CASTLE:     # the path on the king's rank, the castle node two steps away
        castle = [node.to for node in nodes if node.kind == NodeKind.CASTLE]
        return (castle == [square + 2 * file_step]
                and all(node.to >> 3 == square >> 3 and ((node.to & 7) - (square & 7)) * file_step > 0
                        for node in nodes))
    step = direction_step(slot.direction)
    return [node.to for node in nodes] == [square + k * step for k in range(1, len(nodes) + 1)]


def slot_rays(kind, square):
    """The slots of ``kind`` on ``square`` with the length of each one's ray (0: empty), checked
    against the node tables' rays: they are the non-empty slots, in order."""
    geometric = list(rays(kind, square))
    out = []
    for slot in KIND_SLOTS[kind]:
        if geometric and _slot_matches(slot, square, geometric[0]):
            out.append((slot, len(geometric.pop(0))))
        else:
            out.append((slot, 0))
    if geometric:
        raise AssertionError(f"rays of {TableKind(kind).name} on {square} outside its slots: {geometric}")
    return out


def slot_report():
    """Size of the slot table (per kind: a direction and a type per slot) for ``hwmovegen tables``."""
    for kind in TableKind:              # every chain of the node tables is its slots
        for square in range(64):
            slot_rays(kind, square)
    entries = sum(len(slots) for slots in KIND_SLOTS.values())
    bits = entries * (2 + 4)
    return {"layout": "slots", "kinds": len(KIND_SLOTS), "slots_per_kind": SLOTS, "entries": entries,
            "entry_bits": 6, "total_bits": bits}
