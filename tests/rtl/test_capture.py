"""FirstCapture: a position's first capture from the board alone, against the model's."""

import chess

from hwmovegen.rtl.capture import FIRST_CAPTURE_DELAY, FirstCapture
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.model.order import first_capture, order_moves
from hwmovegen.sim.model.positions import random_boards

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTION_CAPTURE, PROMOTIONS, read_each_board

# where the rule's corner cases occur: an en-passant capture (legal, and illegal along the rank),
# capture-promotions, a pinned first attacker, captures in check (the first one not an evasion), a
# king's capture, a slider's capture behind another of its rays, a capture that checks
CORNERS = [
    EN_PASSANT, PROMOTION_CAPTURE, PROMOTIONS, KIWIPETE,
    "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 1",
    "8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1",
    "4k3/8/8/8/8/2q5/3B4/4K3 w - - 0 1",
    "4k3/4r3/8/8/8/8/4N3/4K1n1 w - - 0 1",
    "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",
    "3rk3/8/8/8/3Q4/8/8/3RK2b w - - 0 1",
    "4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
]


def _run(boards):
    dut = FirstCapture()

    def read(ctx):
        move = ctx.get(dut.move)
        return (move.frm, move.to, move.promotion, move.en_passant, move.check) if ctx.get(dut.found) else None
    return read_each_board(dut, boards, FIRST_CAPTURE_DELAY, read)


def test_the_first_capture_is_the_models(suite):
    """The hardware's first capture (or none) against the model's over the corner cases and random
    positions; where there is one, it heads the model's ordered captures."""
    boards = [r.board for r in suite] + [chess.Board(f) for f in CORNERS] + random_boards(400, seed=55)
    got = _run(boards)
    expected = []
    for board in boards:
        position = Position.from_board(board)
        pseudo = generate(position).moves
        move = first_capture(position, pseudo)
        if move is not None:
            first = order_moves(position, generate(position, legal=True).moves, "captures")[0]
            assert first == move, board.fen()
        expected.append(None if move is None else (move.frm, move.to, move.promotion, int(move.en_passant),
                                                    int(move.check)))
    mismatches = [(b.fen(), g, e) for b, g, e in zip(boards, got, expected) if g != e]
    assert not mismatches, mismatches[:5]
    found = [e for e in expected if e]
    # the corners are there: none found, en passant, promotions, check flags
    assert len(found) > 100 and len(found) < len(expected)
    assert any(e[3] for e in found) and any(e[2] for e in found) and any(e[4] for e in found)
