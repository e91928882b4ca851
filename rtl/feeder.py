"""The piece feeder: the side to move's pieces in ascending square order, two ahead."""

from amaranth import Module, Signal, Cat, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import TableKind

__all__ = ["PieceFeeder", "one_hot_index", "HEAD_INDEX_WIDTH"]

HEAD_INDEX_WIDTH = 9    # table kind (3 bits) * 64 + square (6 bits)


def one_hot_index(m, one_hot):
    """Binary index of a one-hot 64-bit value, as an OR tree per bit.

    (``amaranth.lib.coding.Encoder`` compares the input against all 64 one-hot
    values, which synthesizes to far more logic than six 32-input ORs.)
    """
    index = Signal(6)
    for bit in range(6):
        mask = sum(1 << i for i in range(64) if i >> bit & 1)
        m.d.comb += index[bit].eq((one_hot & mask).any())
    return index


class Piece(data.Struct):
    """A piece offered to a core: its square and whether it walks the queen's table."""
    valid: 1
    square: 6
    queen: 1


class PieceFeeder(wiring.Component):
    """Stages: ``queue`` -> one-hot of its lowest piece (carry chain ``q & -q``) -> square
    index and table kind (AND-OR over the board's bitplanes) -> a ROM indexed by
    ``kind * 64 + square`` -> a holding register. ``first`` is the next piece,
    ``second`` the one after it, so a core can start a new piece every cycle.

    ``start`` (one cycle, while not ``run``) loads the queue from ``pieces``; the
    stages advance while ``run``, and ``consume`` takes ``first``. ``first.addr`` and
    ``second_addr`` are the ROM's words for the two pieces.
    """

    def __init__(self, addr_width):
        self.addr_width = addr_width
        super().__init__({
            "start": In(1),
            "run": In(1),
            "pieces": In(64),
            "planes": In(data.ArrayLayout(64, 4)),
            "rom_index": Out(HEAD_INDEX_WIDTH),
            "rom_en": Out(1),
            "rom_data": In(addr_width),
            "consume": In(1),
            "first": Out(Piece),
            "first_addr": Out(addr_width),
            "second_valid": Out(1),
            "second_addr": Out(addr_width),
        })

    def elaborate(self, platform):
        m = Module()
        run = self.run
        queue = Signal(64)
        # Data registers that mean nothing while their valid bit is low are reset_less,
        # so a synchronous reset (abort) adds no logic in front of them.
        s1_valid, s1_one_hot = Signal(1), Signal(64, reset_less=True)   # stage 1: the next piece
        s3_valid = Signal(1)                                            # beside the ROM's output
        s3_square, s3_queen = Signal(6, reset_less=True), Signal(1, reset_less=True)
        hold_valid = Signal(1)
        hold_square, hold_queen = Signal(6, reset_less=True), Signal(1, reset_less=True)
        hold_addr = Signal(self.addr_width, reset_less=True)

        hold_load = ~hold_valid | self.consume
        s3_advance = ~s3_valid | hold_load
        s1_advance = ~s1_valid | s3_advance

        # stage 1: lowest set bit of the queue (of the pieces on start), by a carry chain
        source = Mux(self.start, self.pieces, queue)
        lowest = Signal(64)
        m.d.comb += lowest.eq(source & (~source + 1)[:64])
        with m.If(self.start | (run & s1_advance)):
            m.d.sync += [s1_valid.eq(source != 0), s1_one_hot.eq(lowest), queue.eq(source & ~lowest)]
        with m.If(self.start):
            m.d.sync += [s3_valid.eq(0), hold_valid.eq(0)]

        # stage 2 (into the ROM): square index and table kind of the one-hot piece
        s1_square = one_hot_index(m, s1_one_hot)
        code = Cat((plane & s1_one_hot).any() for plane in self.planes)
        s1_kind = Signal(3)
        m.d.comb += [
            s1_kind.eq(Mux(code[0:3] == 1, code[3], code[0:3])),
            self.rom_index.eq(Cat(s1_square, s1_kind)),
            self.rom_en.eq(run & s3_advance),
        ]
        with m.If(run & s3_advance):
            m.d.sync += [s3_valid.eq(s1_valid), s3_square.eq(s1_square),
                         s3_queen.eq(s1_kind == TableKind.QUEEN)]
        with m.If(run & hold_load):
            # a piece consumed straight from stage 3 (the holding register still empty) is gone
            m.d.sync += [hold_valid.eq(s3_valid & (hold_valid | ~self.consume)), hold_square.eq(s3_square),
                         hold_queen.eq(s3_queen), hold_addr.eq(self.rom_data)]

        # the next two pieces in order: the holding register first, then the ROM's output
        m.d.comb += [
            self.first.valid.eq(hold_valid | s3_valid),
            self.first.square.eq(Mux(hold_valid, hold_square, s3_square)),
            self.first.queen.eq(Mux(hold_valid, hold_queen, s3_queen)),
            self.first_addr.eq(Mux(hold_valid, hold_addr, self.rom_data)),
            self.second_valid.eq(hold_valid & s3_valid),
            self.second_addr.eq(self.rom_data),
        ]
        return m
