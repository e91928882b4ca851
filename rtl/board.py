"""Board RAM: the chess board as four 64-bit bitplanes, plus the state registers.

The squares are flip-flops rather than block RAM: a core needs the occupancy and
colour of an arbitrary square in the cycle it names it, and all 64 squares at
once to find the next piece without spending cycles on empty squares. Bit k of
every square's piece code lives in plane k, which gives those bitmaps for free,
and byte r of a plane is rank r, which is how the board is written.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import PieceType
from .core import PLANES
from .types import PLANES as PLANE_COUNT, BoardState, PLANE_BYTES, byte_length

__all__ = ["LoadSignature", "EditSignature", "BoardRAM", "BoardView", "load_writes", "own_table_kind"]


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


def load_writes(image):
    """The load port's values for a position image (:func:`~.types.position_image`), one dict of
    member name to integer per cycle: clear the board and write the state, then write each rank
    that holds a piece. (The host link's executor writes every rank instead.)"""
    state_at = PLANE_COUNT * PLANE_BYTES
    state = int.from_bytes(image[state_at:state_at + byte_length(BoardState)], "little")
    cycles = [{"clear": 1, "state_en": 1, "state": state, "rank_en": 0}]
    for rank in range(8):
        planes = [image[plane * PLANE_BYTES + rank] for plane in range(PLANE_COUNT)]
        if any(planes):     # byte k of rank_planes: plane k
            cycles.append({"clear": 0, "state_en": 0, "rank_en": 1, "rank": rank,
                           "rank_planes": sum(byte << (8 * k) for k, byte in enumerate(planes))})
    return cycles


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


def own_table_kind(piece_type, white_to_move):
    """The :class:`~hwmovegen.tables.TableKind` a piece of the side to move walks: its type, a
    pawn white's or black's (``WPAWN`` is 0, ``BPAWN`` 1)."""
    return Mux(piece_type == PieceType.PAWN, ~white_to_move, piece_type)


class BoardView:
    """Bitboards of a position held as the board RAM's four planes and its state."""

    def __init__(self, planes, state):
        self.planes, self.state = planes, state
        p0, p1, p2, black = planes[0], planes[1], planes[2], planes[3]
        self.types = Cat(p0, p1, p2)       # the three type planes, plane k at bits 64k..64k+63
        self.occupied = p0 | p1 | p2
        self.black = black
        white = state.white_to_move
        self.own = self.occupied & Mux(white, ~black, black)
        self.opponent = self.occupied & ~self.own
        self.empty = ~self.occupied

    def of_type(self, piece_type):
        """The squares holding a piece of ``piece_type`` (either colour)."""
        p = self.planes
        return ((p[0] if piece_type & 1 else ~p[0]) & (p[1] if piece_type & 2 else ~p[1])
                & (p[2] if piece_type & 4 else ~p[2]))

    def type_at(self, square):
        """The piece type on ``square`` (3 bits)."""
        return Cat(self.planes[0].bit_select(square, 1), self.planes[1].bit_select(square, 1),
                   self.planes[2].bit_select(square, 1))

    def code_at(self, square):
        """The piece code on ``square`` (4 bits: the type, then black)."""
        return Cat(self.type_at(square), self.planes[3].bit_select(square, 1))
