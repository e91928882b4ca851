"""The golden model's legality: make each pseudo-legal move, then ask whether the mover's king
is attacked, by walking the tables' rays outwards from the king (the same geometry the ROMs
hold). Deliberately the plainest rule there is, and a different one from the hardware's
(checkers, pins and an attack map computed once per position), so the two check each other.

The hardware's setup is counted here too (:func:`setup_cycles`): ``LEGAL_SETUP_CYCLES`` (:mod:`hwmovegen.tables.contracts`) cycles for
every position: the cycle that takes ``start``, then the board's ranks one a cycle, up from the
first to the eighth and back down from the seventh (:mod:`hwmovegen.rtl.legality`); en passant
costs nothing extra.
"""

from functools import lru_cache

from ...tables import BLACK, PieceType, TableKind, code_type, piece_code, rays as table_rays
from ...tables.contracts import LEGAL_SETUP_CYCLES

__all__ = ["attacked", "king_safe_after", "legal_moves", "setup_cycles", "make_squares", "rays",
           "no_moves_verdict"]


@lru_cache(maxsize=None)
def rays(kind, square):
    """:func:`hwmovegen.tables.rays`, built once per (kind, square) as tuples: the model asks
    for the same rays at every node (a search asks millions of times)."""
    return tuple(tuple(ray) for ray in table_rays(kind, square))

# the rays of a rook and a bishop from the square in question, and who attacks along them
_SLIDERS = ((TableKind.ROOK, (PieceType.ROOK, PieceType.QUEEN)),
            (TableKind.BISHOP, (PieceType.BISHOP, PieceType.QUEEN)))


def attacked(squares, square, by_black):
    """Whether a piece of colour ``by_black`` attacks ``square`` on ``squares`` (piece codes)."""
    colour = BLACK if by_black else 0

    def holds(target, types):
        code = squares[target]
        return code and (code & BLACK) == colour and code_type(code) in types

    for kind, types in _SLIDERS:
        for ray in rays(kind, square):
            for node in ray:
                if squares[node.to]:
                    if holds(node.to, types):
                        return True
                    break
    for kind, piece in ((TableKind.KNIGHT, PieceType.KNIGHT), (TableKind.KING, PieceType.KING)):
        if any(holds(ray[0].to, (piece,)) for ray in rays(kind, square)[:8]):
            return True
    # a pawn attacks the two squares diagonally ahead of it (down the board for black)
    behind = square + (8 if by_black else -8)
    if not 0 <= behind < 64:
        return False
    return any(holds(behind + side, (PieceType.PAWN,)) for side in (-1, 1) if 0 <= (square & 7) + side < 8)


def make_squares(squares, move, black):
    """The squares after ``move`` by the side ``black`` (castling moves the rook too)."""
    after = list(squares)
    piece = after[move.frm]
    after[move.frm] = 0
    if move.en_passant:
        after[move.to - 8 if not black else move.to + 8] = 0
    if move.promotion:
        piece = move.promotion | (piece & BLACK)
    after[move.to] = piece
    if move.castle:
        rook_from, rook_to = (move.to + 1, move.to - 1) if move.to & 7 == 6 else (move.to - 2, move.to + 1)
        after[rook_to], after[rook_from] = after[rook_from], 0
    return after


def king_safe_after(position, move):
    """Whether ``move`` leaves the mover's king unattacked (and, castling, passes no attack)."""
    black = not position.white_to_move
    squares = position.squares
    if move.castle:
        path = (move.frm, (move.frm + move.to) // 2)    # not from check, not through an attack
        if any(attacked(squares, square, not black) for square in path):
            return False
    after = make_squares(squares, move, black)
    king = next(s for s, code in enumerate(after) if code == piece_code(PieceType.KING, black))
    return not attacked(after, king, not black)


def legal_moves(position, moves):
    """The legal subset of the pseudo-legal ``moves`` of ``position``, in their order."""
    return [move for move in moves if king_safe_after(position, move)]


def no_moves_verdict(position):
    """Of a position without legal moves: ``checkmate`` if the side to move's king is attacked,
    else ``stalemate``."""
    black = not position.white_to_move
    king = position.squares.index(piece_code(PieceType.KING, black))
    return "checkmate" if attacked(position.squares, king, not black) else "stalemate"


def setup_cycles(moves):
    """The legality stage's setup cycles for a position whose pseudo-legal stream is ``moves``:
    the same for every position (en passant included), the sweeps reading every rank twice."""
    return LEGAL_SETUP_CYCLES
