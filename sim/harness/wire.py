"""Model objects to and from the hardware's wire formats (defined in :mod:`hwmovegen.rtl.types`)."""

from functools import lru_cache

import chess

from ...rtl.types import Counters, Move as MoveLayout, COUNTER_NAMES, pack, position_image, unpack
from ..model import Move, Position, castling_bits

__all__ = ["move_from_word", "word_from_move", "to_position", "position_bytes", "counters_from_word",
           "COUNTER_NAMES"]


@lru_cache(maxsize=65536)
def move_from_word(word):
    """The model Move a Move payload's bits stand for."""
    f = unpack(MoveLayout, word)
    return Move(f["frm"], f["to"], f["promotion"], bool(f["capture"]), bool(f["double"]),
                bool(f["en_passant"]), bool(f["castle"]), bool(f["check"]))


def word_from_move(move):
    return pack(MoveLayout, {"frm": move.frm, "to": move.to, "promotion": move.promotion,
                             "capture": move.capture, "double": move.double,
                             "en_passant": move.en_passant, "castle": move.castle, "check": move.check})


def to_position(position):
    """A model :class:`Position` from a FEN string, a python-chess Board or a Position."""
    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        return Position.from_fen(position)
    if isinstance(position, chess.Board):
        return Position.from_board(position)
    raise TypeError(f"cannot load {type(position).__name__} as a position")


def position_bytes(position):
    """The position image (``rtl.types.position_image``: host-link GENERATE and PERFT payload,
    CXXRTL and pysim load) of a model Position, a FEN string or a python-chess Board. A Board's
    bitplanes come straight from its bitboards (the bulk sweeps' fast path, equal to its
    Position's: tests/rtl/test_types.py)."""
    if not isinstance(position, chess.Board):
        position = to_position(position)
        return position_image(position.planes(), position.state())
    board = position
    planes = (board.pawns | board.bishops | board.queens,     # piece type bit 0: 1, 3, 5
              board.knights | board.bishops | board.kings,    # bit 1: 2, 3, 6
              board.rooks | board.queens | board.kings,       # bit 2: 4, 5, 6
              board.occupied_co[chess.BLACK])
    ep = board.ep_square
    return position_image(planes, {"white_to_move": int(board.turn), "castling": castling_bits(board),
                                   "ep_valid": int(ep is not None), "ep_square": ep or 0})


def counters_from_word(word):
    """The Counters bits as a dict, in the struct's field order."""
    return unpack(Counters, word)
