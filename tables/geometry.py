"""Chess geometry: the ordered rays of every piece kind on every square.

This module is the single source of truth for move geometry. The ROM layouts
(:mod:`hwmovegen.tables.layouts`) are built from it, and the golden model walks
those ROM images, so the hardware and the model cannot disagree on geometry.

Squares are numbered as in python-chess: a1 = 0, b1 = 1, ..., h8 = 63.

A *chain* is everything a piece on a square may visit: a list of *rays*, each an
ordered list of :class:`Node`. Sandström's walk (GNU Chess 1.55) visits the
first node of the first ray; at every node it reads the target square, and

* if the square is empty it follows *nextpos* (the next node of the same ray,
  or the first node of the next ray when this ray is finished);
* if the square is occupied it follows *nextdir* (the first node of the next
  ray), since a piece in the way blocks the rest of the ray.

The walk ends after the last node of the last ray. Whether a node *emits* a move
depends on its :class:`NodeKind` and the square's content (see ``NodeKind``).
"""

from dataclasses import dataclass
from enum import IntEnum, IntFlag

__all__ = [
    "PieceType", "Direction", "TableKind", "NodeKind", "Node", "CastleRight",
    "chain", "rays", "square_name", "castle_right_for", "castle_rook_move", "rights_kept",
    "table_kind",
    "EMPTY", "BLACK", "piece_code", "code_type", "code_is_black",
]


class PieceType(IntEnum):
    """A piece's type, numbered as python-chess numbers them (0 is an empty square): the low
    three bits of a board code, a promotion's piece on the move stream."""
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6


class Direction(IntEnum):
    """The eight king directions, clockwise from north: indices into ``KING_DIRECTIONS``
    (and the first eight of :data:`hwmovegen.tables.slots.DIRECTIONS`)."""
    N = 0
    NE = 1
    E = 2
    SE = 3
    S = 4
    SW = 5
    W = 6
    NW = 7


class TableKind(IntEnum):
    """Which table a piece walks. Non-pawn values equal the piece types (:class:`PieceType`),
    so hardware derives the kind as ``color if type == PAWN else type``."""
    WPAWN = 0
    BPAWN = 1
    KNIGHT = PieceType.KNIGHT
    BISHOP = PieceType.BISHOP
    ROOK = PieceType.ROOK
    QUEEN = PieceType.QUEEN
    KING = PieceType.KING


class NodeKind(IntEnum):
    """What a node does with the square it points at.

    ========================  ==========================================================
    ``NORMAL``                piece move: emit onto an empty or opponent square
    ``PUSH``                  pawn single push: emit only onto an empty square
    ``DOUBLE``                pawn double push: emit only onto an empty square; it is
                              the second node of the push ray, so it is reached only
                              when the single-push square was empty
    ``CAPTURE``               pawn capture: emit only onto an opponent piece, or onto
                              the en-passant square (flagged en passant)
    ``PROMO_PUSH``            push onto the last rank: emits four moves (q, r, b, n)
    ``PROMO_CAPTURE``         capture onto the last rank: emits four moves (q, r, b, n)
    ``CASTLE_PATH``           a square that must be empty for castling; emits nothing.
                              The walk goes on along the castling ray only if the square
                              is empty *and* the castling right is held
    ``CASTLE``                the king's castling destination (g1, c1, g8, c8): emits
                              the castling move if the square is empty and the right held
    ========================  ==========================================================

    The castling right a ``CASTLE_PATH``/``CASTLE`` node tests follows from its target
    square alone: rank 1 is white, rank 8 black; files e-h kingside, a-d queenside.
    Attack tests on the king's path belong to the legality stage, not to generation.
    """
    NORMAL = 0
    PUSH = 1
    DOUBLE = 2
    CAPTURE = 3
    PROMO_PUSH = 4
    PROMO_CAPTURE = 5
    CASTLE_PATH = 6
    CASTLE = 7

    @property
    def is_promotion(self):
        return self in (NodeKind.PROMO_PUSH, NodeKind.PROMO_CAPTURE)


class CastleRight(IntFlag):
    """Bits of the 4-bit castling-rights register (``BoardState.castling``): white's two, then
    black's, each kingside then queenside."""
    WHITE_KINGSIDE = 1
    WHITE_QUEENSIDE = 2
    BLACK_KINGSIDE = 4
    BLACK_QUEENSIDE = 8


def castle_right_for(to):
    """The castling right a castling node with target ``to`` tests."""
    black = to >= 56
    kingside = (to & 7) >= 4
    return CastleRight(1 << (2 * black + (0 if kingside else 1)))


def castle_rook_move(king_to):
    """(from, to) of the rook when the king castles onto ``king_to`` (g1, c1, g8 or c8)."""
    rank = king_to & 56
    return (rank + 7, rank + 5) if (king_to & 7) >= 4 else (rank, rank + 3)


_ALL_RIGHTS = CastleRight(0b1111)
# the rights a piece leaving or reaching a square takes away: its king's or rook's home
_RIGHTS_LOST = {4: CastleRight.WHITE_KINGSIDE | CastleRight.WHITE_QUEENSIDE, 7: CastleRight.WHITE_KINGSIDE,
                0: CastleRight.WHITE_QUEENSIDE, 60: CastleRight.BLACK_KINGSIDE | CastleRight.BLACK_QUEENSIDE,
                63: CastleRight.BLACK_KINGSIDE, 56: CastleRight.BLACK_QUEENSIDE}


def rights_kept(square):
    """The castling-rights bits that survive a move from or onto ``square`` (with the rights
    held only while king and rook stand at home, a move there can only be theirs, or a capture
    of the rook)."""
    return int(_ALL_RIGHTS & ~_RIGHTS_LOST.get(square, 0))


@dataclass(frozen=True)
class Node:
    to: int
    kind: NodeKind = NodeKind.NORMAL


# Piece codes in the board RAM: python-chess piece type in bits 2..0 (0 = empty),
# colour in bit 3 (1 = black).
EMPTY = 0


BLACK = 8      # the colour bit of a board code


def piece_code(piece_type, black):
    return piece_type | (BLACK if black else 0)


def code_type(code):
    return code & 7


def code_is_black(code):
    return bool(code & BLACK)


def table_kind(code):
    """The table a piece with board code ``code`` walks."""
    piece_type = code_type(code)
    if piece_type == PieceType.PAWN:
        return TableKind.BPAWN if code_is_black(code) else TableKind.WPAWN
    return TableKind(piece_type)


def square_name(square):
    return "abcdefgh"[square & 7] + str(square // 8 + 1)


# Directions as (file step, rank step), in the fixed order that defines the
# emission order of the generator.
KING_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))     # by Direction
ROOK_DIRECTIONS = tuple(KING_DIRECTIONS[d] for d in (Direction.N, Direction.E, Direction.S, Direction.W))
BISHOP_DIRECTIONS = tuple(KING_DIRECTIONS[d] for d in (Direction.NE, Direction.SE, Direction.SW, Direction.NW))
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


def _step(square, file_step, rank_step):
    file, rank = (square & 7) + file_step, (square >> 3) + rank_step
    if 0 <= file < 8 and 0 <= rank < 8:
        return rank * 8 + file
    return None


def _slider_rays(square, directions):
    result = []
    for file_step, rank_step in directions:
        ray, target = [], _step(square, file_step, rank_step)
        while target is not None:
            ray.append(Node(target))
            target = _step(target, file_step, rank_step)
        if ray:
            result.append(ray)
    return result


def _leaper_rays(square, jumps):
    targets = (_step(square, f, r) for f, r in jumps)
    return [[Node(t)] for t in targets if t is not None]


def _pawn_rays(square, black):
    forward = -1 if black else 1
    start_rank, last_rank = (6, 0) if black else (1, 7)
    rank = square >> 3
    if rank == last_rank or rank == (7 - last_rank):
        return []  # pawns never stand on the first or last rank
    single = _step(square, 0, forward)
    promotes = (single >> 3) == last_rank
    push_ray = [Node(single, NodeKind.PROMO_PUSH if promotes else NodeKind.PUSH)]
    if rank == start_rank:
        push_ray.append(Node(_step(square, 0, 2 * forward), NodeKind.DOUBLE))
    result = [push_ray]
    for file_step in (-1, 1):
        target = _step(square, file_step, forward)
        if target is not None:
            result.append([Node(target, NodeKind.PROMO_CAPTURE if promotes else NodeKind.CAPTURE)])
    return result


# King's castling rays, appended after the eight king steps on e1 and e8.
# The queenside path visits d, b, then the destination c: all three must be empty.
_CASTLE_RAYS = {
    4: [[Node(5, NodeKind.CASTLE_PATH), Node(6, NodeKind.CASTLE)],
        [Node(3, NodeKind.CASTLE_PATH), Node(1, NodeKind.CASTLE_PATH), Node(2, NodeKind.CASTLE)]],
}
_CASTLE_RAYS[60] = [[Node(n.to + 56, n.kind) for n in ray] for ray in _CASTLE_RAYS[4]]


def castle_rays(square):
    """The castling rays of a king on ``square`` (only e1 and e8 have any)."""
    return _CASTLE_RAYS.get(square, [])


def rays(kind, square):
    """The ordered rays of a piece of table kind ``kind`` on ``square``.

    Order (this is the emission order within one piece):

    * rook N, E, S, W; bishop NE, SE, SW, NW; queen = rook rays then bishop rays;
    * knight jumps clockwise from (+1 file, +2 ranks); king steps clockwise from N,
      then on e1/e8 the kingside and queenside castling rays;
    * pawn: push ray (single push, then double push from the start rank), capture
      towards the a-file, capture towards the h-file.
    """
    kind = TableKind(kind)
    if kind == TableKind.ROOK:
        return _slider_rays(square, ROOK_DIRECTIONS)
    if kind == TableKind.BISHOP:
        return _slider_rays(square, BISHOP_DIRECTIONS)
    if kind == TableKind.QUEEN:
        return _slider_rays(square, ROOK_DIRECTIONS) + _slider_rays(square, BISHOP_DIRECTIONS)
    if kind == TableKind.KNIGHT:
        return _leaper_rays(square, KNIGHT_JUMPS)
    if kind == TableKind.KING:
        return _leaper_rays(square, KING_DIRECTIONS) + castle_rays(square)
    return _pawn_rays(square, black=(kind == TableKind.BPAWN))


def chain(kind, square):
    """All nodes of a piece on ``square`` in walk order (the rays concatenated)."""
    return [node for ray in rays(kind, square) for node in ray]
