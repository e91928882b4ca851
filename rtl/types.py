"""Payload and register layouts shared by the RTL components."""

from amaranth.lib import data

__all__ = ["Move", "BoardState", "Counters", "COUNTER_WIDTH"]

COUNTER_WIDTH = 32


class Move(data.Struct):
    """One generated move: the payload of the move stream."""
    frm: 6
    to: 6
    promotion: 3       # python-chess piece type: 5 q, 4 r, 3 b, 2 n; 0 none
    capture: 1
    double: 1
    en_passant: 1
    castle: 1


class BoardState(data.Struct):
    """The state registers beside the board RAM."""
    white_to_move: 1
    castling: 4        # hwmovegen.tables.CastleRight bits
    ep_valid: 1
    ep_square: 6


class Counters(data.Struct):
    """Per-position performance counters, cleared by ``start``."""
    cycles: COUNTER_WIDTH       # from the cycle start is sampled until done
    steps: COUNTER_WIDTH        # table nodes visited
    moves: COUNTER_WIDTH        # moves emitted
    stalls: COUNTER_WIDTH       # cycles held because the stream's consumer was not ready
    promotions: COUNTER_WIDTH   # promotion nodes that emitted (3 extra cycles each)
