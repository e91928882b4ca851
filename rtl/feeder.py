"""The piece feeder: the side to move's pieces in ascending square order, two ahead."""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import TableKind
from .board import own_table_kind
from .ports import group

__all__ = ["PieceFeeder", "PieceSignature", "one_hot_index", "HEAD_INDEX_WIDTH"]

HEAD_INDEX_WIDTH = 9    # table kind (3 bits) * 64 + square (6 bits)


def lowest_one(bits, platform=None):
    """One-hot of the lowest set bit of a 64-bit value.

    ``x & -x`` on carry chains, two halves side by side, except on iCE40, whose carry chain
    is slow (about 0.3 ns a bit): there in two levels of eight, the lowest non-empty rank
    and the lowest bit in each rank, a few LUTs deep."""
    if not _slow_carry(platform):     # two 32-bit chains side by side, the upper one used if the lower is empty
        low, high = bits[:32], bits[32:]
        return Cat(low & (~low + 1)[:32], Mux(low.any(), 0, high & (~high + 1)[:32]))

    def first(values):
        return Cat(values[i] & ~values[:i].any() if i else values[0] for i in range(len(values)))
    ranks = [bits[8 * r:8 * r + 8] for r in range(8)]
    first_rank = first(Cat(rank.any() for rank in ranks))
    return Cat(Mux(first_rank[r], first(rank), 0) for r, rank in enumerate(ranks))


def _slow_carry(platform):
    return getattr(platform, "device", "").startswith("iCE40")


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
    """A piece offered to a core (``first_valid`` says there is one)."""
    square: 6
    kind: 3                 # its TableKind
    queen: 1                # it walks the queen's table
    diagonal: 3             # (file - rank) mod 8: the probe's index of its diagonal
    anti_diagonal: 3        # (file + rank) mod 8


class PieceSignature(wiring.Signature):
    """The pieces a feeder offers, from its side: ``first`` (valid with ``first_valid``; none
    follows it with ``first_last``) with its ROM word, the word of the one after it (valid with
    ``second_valid``), and ``consume`` that takes ``first``."""

    def __init__(self, word_width):
        super().__init__({
            "consume": In(1),
            "first_valid": Out(1),
            "first": Out(Piece),
            "first_word": Out(word_width),
            "first_last": Out(1),
            "second_valid": Out(1),
            "second_word": Out(word_width),
        })


class PieceFeeder(wiring.Component):
    """Stages: ``queue`` -> one-hot of its lowest piece (:func:`lowest_one`) -> square
    index and table kind (AND-OR over the board's bitplanes) -> a ROM indexed by
    ``kind * 64 + square`` -> a holding register. ``first`` is the next piece,
    ``second`` the one after it, so a core can start a new piece every cycle.

    ``start`` (one cycle, while not ``run``) loads the queue from ``pieces``; the
    stages advance while ``run``, and ``consume`` takes ``first``. ``first_word`` and
    ``second_word`` are the ROM's words for the two pieces (a core without a ROM gives
    ``word_width=0``). ``first_last`` says that no piece follows ``first``.
    """

    def __init__(self, word_width):
        self.word_width = word_width
        super().__init__({
            "start": In(1),
            "run": In(1),
            "pieces": In(64),                               # the side to move's pieces
            "types": In(data.ArrayLayout(64, 3)),           # the piece-type bitplanes
            "white_to_move": In(1),
            "rom_index": Out(HEAD_INDEX_WIDTH),
            "rom_en": Out(1),
            "rom_data": In(word_width),
            **PieceSignature(word_width).members,
            "busy": Out(1),         # a piece is queued or in a stage
        })

    @property
    def offer(self):
        """The pieces offered as one interface, for ``wiring.connect`` to a core's ``feed``."""
        return group(self, PieceSignature(self.word_width))

    def elaborate(self, platform):
        m = Module()
        run = self.run
        queue = Signal(64)
        # queue == 0, a cycle late (a 64-input test after the queue's own logic would be slow):
        # a piece reaches `first` at least a cycle after the queue emptied, so `first_last` is exact
        queue_empty = Signal(1, init=1)
        m.d.sync += queue_empty.eq(queue == 0)
        # Data registers that mean nothing while their valid bit is low are reset_less,
        # so a synchronous reset (abort) adds no logic in front of them.
        s1_valid, s1_one_hot = Signal(1), Signal(64, reset_less=True)   # stage 1: the next piece
        s3_valid = Signal(1)                                            # beside the ROM's output
        s3_piece = Signal(Piece, reset_less=True)
        hold_valid = Signal(1)
        hold_piece = Signal(Piece, reset_less=True)
        hold_word = Signal(self.word_width, reset_less=True)

        hold_load = ~hold_valid | self.consume
        s3_advance = ~s3_valid | hold_load
        s1_advance = ~s1_valid | s3_advance

        # stage 1: lowest set bit of the queue (of the pieces on start)
        source = Mux(self.start, self.pieces, queue)
        lowest = Signal(64)
        m.d.comb += lowest.eq(lowest_one(source, platform))
        with m.If(self.start | (run & s1_advance)):
            m.d.sync += [s1_valid.eq(source != 0), s1_one_hot.eq(lowest), queue.eq(source & ~lowest)]
        with m.If(self.start):
            m.d.sync += [s3_valid.eq(0), hold_valid.eq(0)]

        # stage 2 (into the ROM): square index and table kind of the one-hot piece (a pawn of
        # the side to move is white's or black's)
        s1_square = one_hot_index(m, s1_one_hot)
        piece_type = Cat((plane & s1_one_hot).any() for plane in self.types)
        s1_kind = Signal(3)
        m.d.comb += [
            s1_kind.eq(own_table_kind(piece_type, self.white_to_move)),
            self.rom_index.eq(Cat(s1_square, s1_kind)),
            self.rom_en.eq(run & s3_advance),
        ]
        diagonal, anti_diagonal = Signal(3), Signal(3)      # functions of the square: constant tables
        for bit in range(3):
            m.d.comb += [
                diagonal[bit].eq(Const(sum(1 << sq for sq in range(64) if ((sq & 7) - (sq >> 3)) % 8 >> bit & 1),
                                       64).bit_select(s1_square, 1)),
                anti_diagonal[bit].eq(Const(sum(1 << sq for sq in range(64) if ((sq & 7) + (sq >> 3)) % 8 >> bit & 1),
                                            64).bit_select(s1_square, 1)),
            ]
        with m.If(run & s3_advance):
            m.d.sync += [s3_valid.eq(s1_valid), s3_piece.square.eq(s1_square), s3_piece.kind.eq(s1_kind),
                         s3_piece.queen.eq(s1_kind == TableKind.QUEEN), s3_piece.diagonal.eq(diagonal),
                         s3_piece.anti_diagonal.eq(anti_diagonal)]
        with m.If(run & hold_load):
            # a piece consumed straight from stage 3 (the holding register still empty) is gone
            m.d.sync += [hold_valid.eq(s3_valid & (hold_valid | ~self.consume)), hold_piece.eq(s3_piece),
                         hold_word.eq(self.rom_data)]

        # the next two pieces in order: the holding register first, then the ROM's output
        m.d.comb += [
            self.first.eq(Mux(hold_valid, hold_piece, s3_piece)),
            self.first_valid.eq(hold_valid | s3_valid),
            self.first_word.eq(Mux(hold_valid, hold_word, self.rom_data)),
            self.first_last.eq((hold_valid ^ s3_valid) & ~s1_valid & queue_empty),
            self.second_valid.eq(hold_valid & s3_valid),
            self.second_word.eq(self.rom_data),
            self.busy.eq(~queue_empty | s1_valid | s3_valid | hold_valid),
        ]
        return m
