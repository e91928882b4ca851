"""Board RAM: 64 x 4-bit piece codes plus the side-to-move, castling and en-passant registers.

The squares are a register file rather than block RAM: the sequencer needs the
occupancy and colour of an arbitrary square in the same cycle the ROM names it
(the walk's one-cycle loop), and the occupancy of all 64 squares at once to find
the next piece without spending cycles on empty squares.
"""

from amaranth import Module, Signal, Cat
from amaranth.lib import data, wiring
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
    rd_square: In(6)        # combinational read port
    rd_code: Out(4)

    def elaborate(self, platform):
        m = Module()
        squares = Signal(data.ArrayLayout(4, 64))
        state = Signal(BoardState)

        with m.If(self.load.clear):
            m.d.sync += squares.eq(0)
        with m.If(self.load.wr_en):
            m.d.sync += squares[self.load.wr_square].eq(self.load.wr_code)
        with m.If(self.load.state_en):
            m.d.sync += state.eq(self.load.state)

        m.d.comb += [
            self.state.eq(state),
            self.occupied.eq(Cat(squares[i] != 0 for i in range(64))),
            self.black.eq(Cat(squares[i][3] for i in range(64))),
            self.rd_code.eq(squares[self.rd_square]),
        ]
        return m
