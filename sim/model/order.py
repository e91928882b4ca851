"""The golden model's move order for a search, and its check flag (part of the specification:
the ordered hardware stream is compared with :func:`order_moves` move for move).

Check flag (``Move.check``): direct checks only. A move gives check when the piece it moves,
standing on its destination in the position after the move, attacks the opponent's king; that
piece is the promoted piece for a promotion and the rook (on its own destination) for castling.
"The position after the move" is :func:`.legality.make_squares`: the from-square emptied, the
en-passant victim removed, the castling rook moved. So the from-square may open the line the
piece checks along: a pawn pushing to e8=Q (or =R) with the king on e1 and e2..e6 empty gives
check; so does the rook of O-O on f1 with the king on c1 and d1 empty, along the first rank
through the square the king left. A king never gives check. A discovered check (a line that
the move opens for another piece onto the king) is not flagged. The attack is found by the
model's own method: the rays of :func:`hwmovegen.tables.rays` walked outwards from the
destination until the first occupied square; a pawn attacks the two squares diagonally ahead.

Order: every move has a bin, 0..31, and an order is a stable sort by bin (ties keep the
emission order of :func:`.model.generate`):

* a capture (en passant and capture-promotions included), bins 0..29:
  ``(5 - victim) * 6 + (attacker - 1)``, with python-chess piece types (P=1 N=2 B=3 R=4 Q=5
  K=6); ``victim`` is the piece on the destination (a pawn for en passant), ``attacker`` the
  moving piece before promotion (a pawn for every promotion). So the most valuable victim
  first (Q, R, B, N, P), and for one victim the least valuable attacker first (P, N, B, R, Q,
  K). There are no king victims: a position whose side not to move is in check is refused;
* bin 30 (``PROMOTION_BIN``): a promotion without capture;
* bin 31 (``QUIET_BIN``): every other move (quiet moves, double pushes, castling).

The orders (``ORDERS``): ``square``, the emission order unchanged; ``mvv-lva``, every move
sorted by bin; ``captures``, only the captures (bins below ``CAPTURE_BINS``) sorted by bin, the
list a quiescence search wants. Every order sets the check flags.

Only :mod:`hwmovegen.tables` and :mod:`.legality` are used here (the model imports this
module): a position is anything with ``squares`` (piece codes), ``white_to_move`` and
``ep_square``, a move anything :func:`dataclasses.replace` can give a ``check``.
"""

from dataclasses import replace

from ...tables import PieceType, TableKind, castle_rook_move, code_type, piece_code, table_kind
from ...tables.contracts import CAPTURE_BINS, ORDERS, PROMOTION_BIN, QUIET_BIN, capture_bin
from .legality import king_safe_after, make_squares, rays

__all__ = ["gives_check", "order_bin", "order_moves", "first_bin", "first_capture"]


def gives_check(position, move):
    """Whether ``move`` (a move of ``position``'s side to move) gives direct check: see the
    module's docstring."""
    black = not position.white_to_move
    after = make_squares(position.squares, move, black)
    square = castle_rook_move(move.to)[1] if move.castle else move.to
    code = after[square]
    if code_type(code) == PieceType.KING:
        return False
    king = piece_code(PieceType.KING, not black)
    kind = table_kind(code)
    if kind in (TableKind.WPAWN, TableKind.BPAWN):
        # the capture rays of a pawn on its square: the two squares diagonally ahead
        return any(after[ray[0].to] == king for ray in rays(kind, square)[1:])
    if kind == TableKind.KNIGHT:
        return any(after[ray[0].to] == king for ray in rays(kind, square))
    for ray in rays(kind, square):          # a bishop, rook or queen
        for node in ray:
            if after[node.to]:
                if after[node.to] == king:
                    return True
                break
    return False


def order_bin(position, move):
    """The bin of ``move`` (a move of ``position``), 0..31: see the module's docstring."""
    if move.capture:
        victim = PieceType.PAWN if move.en_passant else code_type(position.squares[move.to])
        attacker = code_type(position.squares[move.frm])
        return capture_bin(victim, attacker)
    return PROMOTION_BIN if move.promotion else QUIET_BIN


def first_bin(position, moves):
    """The lowest bin ``moves`` (``position``'s pseudo-legal moves) fill, the quiet bin if none
    lower: what the hardware forecasts from the attack maps (``hwmovegen.rtl.order.FirstBin``) so
    that a position's first ordered move, the first legal one to arrive in the lowest bin its
    legal moves fill, may leave as it arrives when that bin is this one."""
    return min((order_bin(position, move) for move in moves), default=QUIET_BIN)


def first_capture(position, moves):
    """The first move of ``position``'s ``captures`` order when the board alone tells it, else None:
    the first of ``moves`` (its pseudo-legal moves, in emission order) in :func:`first_bin`'s bin
    when that bin is a capture's and the move is legal, with its check flag. No legal move can be in
    a lower bin, and none of the bin before it in emission order, so it heads the ordered captures.
    What ``hwmovegen.rtl.order.FirstCapture`` computes from the attack maps, so that a quiescence
    node searches its first capture without a generation (:mod:`hwmovegen.sim.model.search`)."""
    bin_ = first_bin(position, moves)
    if bin_ >= CAPTURE_BINS:
        return None
    move = next(move for move in moves if order_bin(position, move) == bin_)
    if not king_safe_after(position, move):
        return None
    return replace(move, check=gives_check(position, move))


def order_moves(position, moves, order):
    """``moves`` (a stream of ``position`` in emission order) with their check flags set, in
    ``order`` (one of ``ORDERS``): a new list."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r} (choose from {', '.join(ORDERS)})")
    flagged = [replace(move, check=gives_check(position, move)) for move in moves]
    if order == "square":
        return flagged
    binned = [(order_bin(position, move), move) for move in flagged]
    if order == "captures":
        binned = [(bin_, move) for bin_, move in binned if bin_ < CAPTURE_BINS]
    return [move for _, move in sorted(binned, key=lambda pair: pair[0])]
