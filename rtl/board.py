"""Board RAM: the chess board as four 64-bit bitplanes, plus the state registers.

The squares are flip-flops rather than block RAM: a core needs the occupancy and
colour of an arbitrary square in the cycle it names it, and all 64 squares at
once to find the next piece without spending cycles on empty squares. Bit k of
every square's piece code lives in plane k, which gives those bitmaps for free,
and byte r of a plane is rank r, which is how the board is written.
"""

from amaranth import Module, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .core import PLANES
from .types import PLANES as PLANE_COUNT, BoardState

__all__ = ["LoadSignature", "EditSignature", "BoardRAM"]


class LoadSignature(wiring.Signature):
    """How a host writes the position.

    ``clear`` empties all 64 squares in one cycle; ``rank_en`` writes the eight
    squares of rank ``rank`` from ``rank_planes`` (byte k: plane k's bits of that
    rank, as in the position image) and wins over ``clear`` for them; ``state_en``
    writes the state registers. A position loads in at most nine cycles.
    """

    def __init__(self):
        super().__init__({
            "clear": Out(1),
            "rank_en": Out(1),
            "rank": Out(3),
            "rank_planes": Out(data.ArrayLayout(8, PLANE_COUNT)),
            "state_en": Out(1),
            "state": Out(BoardState),
        })


class EditSignature(wiring.Signature):
    """How a move is applied to the board (:class:`~.apply.MoveApplier`): ``square_en``
    writes piece ``code`` onto ``square``; ``state_en`` writes the state registers. The
    load port wins over it."""

    def __init__(self):
        super().__init__({
            "square_en": Out(1),
            "square": Out(6),
            "code": Out(PLANE_COUNT),
            "state_en": Out(1),
            "state": Out(BoardState),
        })


class BoardRAM(wiring.Component):
    load: In(LoadSignature())
    edit: In(EditSignature())
    planes: Out(PLANES)
    state: Out(BoardState)

    def elaborate(self, platform):
        m = Module()
        load = self.load
        planes = [Signal(64, name=f"plane_{bit}") for bit in range(PLANE_COUNT)]
        state = Signal(BoardState)
        edit = self.edit
        for bit, plane in enumerate(planes):
            for rank in range(8):
                byte = plane[8 * rank:8 * rank + 8]
                with m.If(load.rank_en & (load.rank == rank)):
                    m.d.sync += byte.eq(load.rank_planes[bit])
                with m.Elif(load.clear):
                    m.d.sync += byte.eq(0)
                with m.Elif(edit.square_en & (edit.square[3:] == rank)):
                    m.d.sync += byte.bit_select(edit.square[:3], 1).eq(edit.code[bit])
        with m.If(load.state_en):
            m.d.sync += state.eq(load.state)
        with m.Elif(edit.state_en):
            m.d.sync += state.eq(edit.state)
        m.d.comb += [self.state.eq(state)] + [self.planes[bit].eq(plane) for bit, plane in enumerate(planes)]
        return m
