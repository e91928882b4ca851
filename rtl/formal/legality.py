"""The legality stage's pin rule: :class:`LegalityHarness`."""

from amaranth import Signal, Const, Mux
from amaranth.asserts import AnyConst, AnySeq, Initial     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assume

from ...tables import PieceType
from ..legality import LegalityStage
from .harness import (Harness, between_mask, free_legal_position,
                      line_mask, move_checks, signed_delta, square_file, square_rank)

__all__ = ["LegalityHarness"]


class LegalityHarness(Harness):
    """The legality stage on a free legal position, started in the first cycle, fed free
    moves that satisfy the generator's soundness conditions (:func:`move_checks`) but for
    the slider's path, with a free ready on its output. Checked: a move of a piece pinned to its king
    by an opponent slider (``pinner``, free) that leaves the line through king and slider
    is never passed."""

    def __init__(self):
        super().__init__()
        self.stage = LegalityStage()

    def elaborate(self, platform):
        m, checks = self.module()
        m.submodules.stage = stage = self.stage
        view = free_legal_position(m)
        m.d.comb += [stage.planes.eq(view.planes), stage.state.eq(view.state), stage.start.eq(Initial())]
        move_in = stage.moves_in.payload
        m.d.comb += [stage.moves_in.valid.eq(AnySeq(1)), move_in.eq(AnySeq(len(move_in.as_value()))),
                     stage.moves_out.ready.eq(AnySeq(1))]
        # the soundness conditions but the slider's path: the stage judges a pin by the move's
        # squares alone, so leaving the path free only widens what is checked (and is cheaper)
        for name, condition in move_checks(view, move_in, Const(0, 6)):
            if name != "a slider's path is empty":
                m.d.comb += Assume(~stage.moves_in.valid | condition)

        king = Signal(6, name="king")
        pinner = Signal(6, name="pinner")
        m.d.comb += [king.eq(AnyConst(6)), pinner.eq(AnyConst(6))]
        m.d.comb += Assume((view.own & view.of_type(PieceType.KING)).bit_select(king, 1))
        move = stage.moves_out.payload
        line = between_mask(king, pinner)
        df, dr = signed_delta(square_file(king), square_file(pinner)), signed_delta(square_rank(king), square_rank(pinner))
        straight = (df == 0) | (dr == 0)
        queens = view.of_type(PieceType.QUEEN)
        slider = Mux(straight, view.of_type(PieceType.ROOK) | queens, view.of_type(PieceType.BISHOP) | queens)
        pinned = (line.bit_select(move.frm, 1) & view.own.bit_select(move.frm, 1)
                  & (view.opponent & slider).bit_select(pinner, 1)
                  & ((line & view.occupied) == (Const(1, 64) << move.frm)))
        # the line through king and pinner, both ways: with the path left free the input may
        # slide past the pinner, which a clear path (the generator's moves) never does
        off_line = ~line_mask(king, pinner).bit_select(move.to, 1)
        checks.check("a pinned piece never leaves its line", ~(stage.moves_out.valid & pinned & off_line))
        return m
