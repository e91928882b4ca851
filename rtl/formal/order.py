"""The ordering stage's check flag is exact: :class:`CheckHarness`."""

from amaranth import Signal, Const, Mux
from amaranth.asserts import AnyConst     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assume

from ...tables import PieceType
from ..order import CheckFlag
from .harness import (Harness, between_mask, free_legal_position,
                      free_sound_move, signed_delta, square_file, square_rank)

__all__ = ["CheckHarness"]


class CheckHarness(Harness):
    """The ordering stage's check flag (:class:`~.order.CheckFlag`) on a free legal position and a
    free move satisfying the generator's soundness conditions (:func:`move_checks`, exact paths).
    Checked: the flag says exactly whether the moved piece (the promoted piece, the castling
    rook) on its destination attacks the opponent's king on the board after the move, reckoned
    here square by square; unless the piece attacked that king already before it moved, which a
    position the generator accepts rules out (the side not to move is never in check)."""

    def __init__(self, prop="check"):
        super().__init__()
        self.prop = prop
        self.flag = CheckFlag()

    def elaborate(self, platform):
        m, checks = self.module()
        m.submodules.flag = flag = self.flag
        view = free_legal_position(m)
        move = free_sound_move(m, view)
        m.d.comb += Assume(~move.check)
        mover = view.type_at(move.frm)
        m.d.comb += [flag.move.eq(move), flag.planes.eq(view.planes), flag.state.eq(view.state),
                     flag.mover.eq(mover)]
        king = Signal(6, name="king")
        m.d.comb += [king.eq(AnyConst(6)), Assume((view.opponent & view.of_type(PieceType.KING)).bit_select(king, 1))]

        def bit(square):
            return (Const(1, 64) << square)[:64]

        white = view.state.white_to_move
        east = square_file(move.to) > square_file(move.frm)
        rook_from = Mux(east, move.frm + 3, move.frm + 60)[:6]      # h1/h8, a1/a8 (frm - 4 mod 64)
        rook_to = Mux(east, move.frm + 1, move.frm + 63)[:6]
        victim = Mux(white, move.to + 56, move.to + 8)[:6]           # behind the en-passant square
        after = Signal(64, name="after")
        m.d.comb += after.eq(Mux(move.castle,
                                 (view.occupied & ~bit(move.frm) & ~bit(rook_from)) | bit(move.to) | bit(rook_to),
                                 (view.occupied & ~bit(move.frm) & ~Mux(move.en_passant, bit(victim), 0))
                                 | bit(move.to)))
        dest = Mux(move.castle, rook_to, move.to)
        piece = Mux(move.castle, PieceType.ROOK, Mux(move.promotion != 0, move.promotion, mover))

        def attacks(kind, square, occupied):
            """Whether a piece of type ``kind`` of the side to move on ``square`` attacks the king."""
            df, dr = signed_delta(square_file(square), square_file(king)), signed_delta(square_rank(square), square_rank(king))
            adf, adr = Mux(df < 0, -df, df)[:4], Mux(dr < 0, -dr, dr)[:4]
            clear = (between_mask(square, king) & occupied) == 0
            straight = ((df == 0) | (dr == 0)) & (square != king) & clear
            diagonal = (adf == adr) & (adf != 0) & clear
            return Mux(kind == PieceType.PAWN, (adf == 1) & (Mux(white, dr, -dr) == 1),
                   Mux(kind == PieceType.KNIGHT, ((adf == 1) & (adr == 2)) | ((adf == 2) & (adr == 1)),
                   Mux(kind == PieceType.BISHOP, diagonal,
                   Mux(kind == PieceType.ROOK, straight,
                   Mux(kind == PieceType.QUEEN, straight | diagonal, 0)))))

        gives = attacks(piece, dest, after)
        checking_already = attacks(mover, move.frm, view.occupied)
        other = Signal(6, name="other")         # another piece of the mover's side, for the covers
        m.d.comb += other.eq(AnyConst(6))
        discovered = (view.own.bit_select(other, 1) & (other != move.frm) & (other != dest)
                      & attacks(view.type_at(other), other, after))
        if self.prop == "check":
            checks.check("the check flag is exact", checking_already | (flag.check == gives))
        else:
            for name, condition in (("a promotion checks along the file it leaves",
                                     ~move.capture & (move.promotion == PieceType.QUEEN) & flag.check
                                     & (square_file(king) == square_file(move.frm))),
                                    ("a capture-promotion checks back along its diagonal",
                                     move.capture & (move.promotion == PieceType.BISHOP) & flag.check
                                     & (between_mask(move.to, king).bit_select(move.frm, 1))),
                                    ("castling checks along the rank the king left",
                                     move.castle & flag.check & (square_rank(king) == square_rank(move.frm))),
                                    ("a knight checks", (mover == PieceType.KNIGHT) & flag.check),
                                    ("a discovered check is not flagged", ~flag.check & discovered)):
                checks.cover(name, condition & ~checking_already)
        return m
