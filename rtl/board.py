"""Board RAM: 64 x 4-bit piece codes plus the side-to-move, castling and en-passant registers.

The squares are flip-flops rather than block RAM: the sequencer needs the
occupancy and colour of an arbitrary square in the same cycle the ROM names it
(the walk's one-cycle loop), and the occupancy of all 64 squares at once to find
the next piece without spending cycles on empty squares. They are stored as four
64-bit bitplanes (bit k of every square's code in plane k), which gives those
bitmaps for free and is the form an attack/legality stage will want.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .types import BoardState

__all__ = ["LoadSignature", "BoardRAM"]


class LoadSignature(wiring.Signature):
    """How a host (or, later, a make/unmake unit) writes the position.

    ``clear`` empties all 64 squares in one cycle; ``wr_en`` writes one square
    (``wr_square`` <- ``wr_code``) per cycle and wins over ``clear`` for that
    square; ``state_en`` writes the state registers.
    """

    def __init__(self):
        super().__init__({
            "clear": Out(1),
            "wr_en": Out(1),
            "wr_square": Out(6),
            "wr_code": Out(4),
            "state_en": Out(1),
            "state": Out(BoardState),
        })


class BoardRAM(wiring.Component):
    load: In(LoadSignature())
    state: Out(BoardState)
    occupied: Out(64)       # bit per square: a piece stands there
    black: Out(64)          # bit per square: the piece there is black
    rd_select: In(64)       # combinational read port: one-hot square select
    rd_code: Out(4)         # code of the selected square (0 if none is selected)

    def elaborate(self, platform):
        m = Module()
        # Four bitplanes: plane k holds bit k of every square's piece code. A square
        # write is a one-hot mask per plane; occupancy is the OR of the type planes
        # and colour is plane 3, with no 64-input reduction per square.
        planes = [Signal(64, name=f"plane_{bit}") for bit in range(4)]
        state = Signal(BoardState)

        mask = Signal(64)
        m.d.comb += mask.eq(Mux(self.load.wr_en, Const(1, 64) << self.load.wr_square, 0))
        for bit, plane in enumerate(planes):
            kept = Mux(self.load.clear, 0, plane) & ~mask
            with m.If(self.load.clear | self.load.wr_en):
                m.d.sync += plane.eq(kept | Mux(self.load.wr_code[bit], mask, 0))
        with m.If(self.load.state_en):
            m.d.sync += state.eq(self.load.state)

        m.d.comb += [
            self.state.eq(state),
            self.occupied.eq(planes[0] | planes[1] | planes[2]),
            self.black.eq(planes[3]),
            self.rd_code.eq(Cat((plane & self.rd_select).any() for plane in planes)),
        ]
        return m
