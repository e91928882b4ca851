"""The output FIFO of a core: moves in, the move stream out, promotions expanded to four moves;
and :class:`Queue`, a FIFO typed by its payload."""

from amaranth import Module, Shape, Signal, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from ..tables import PieceType
from ..tables.contracts import PROMOTION_ORDER
from .options import Options
from .ports import group
from .types import Move

__all__ = ["FifoEntry", "PositionEntry", "FifoWriteSignature", "PromotionFifo", "RECORDS", "Queue"]

PROMOTION_PIECES = len(PROMOTION_ORDER)
# the head's n-th promotion move is the queen's type minus n (q, r, b, n)
assert PROMOTION_ORDER == tuple(PieceType.QUEEN - n for n in range(PROMOTION_PIECES))


class FifoEntry(data.Struct):
    """A move in the FIFO; an entry with ``promotes`` leaves as four moves (q, r, b, n)."""
    frm: 6
    to: 6
    capture: 1
    double: 1
    en_passant: 1
    castle: 1
    promotes: 1


RECORDS = 4             # positions a core streams back to back may have in flight


class PositionEntry(data.Struct):
    """A FifoEntry that also says whether it is its position's last move (for a core that
    streams positions back to back: ``last_transfer`` pulses as it leaves) and which position
    it belongs to (its record, numbered in start order modulo ``RECORDS``)."""
    move: FifoEntry
    last: 1
    position: range(RECORDS)


class FifoWriteSignature(wiring.Signature):
    """A producer's side of a :class:`PromotionFifo`'s write port (``entry_shape``: its entries)."""

    def __init__(self, entry_shape):
        super().__init__({
            "write": Out(1),
            "commit": Out(1),
            "entry": Out(entry_shape),
            "almost_full": In(1),
            "empty_next": In(1),
        })


class PromotionFifo(wiring.Component):
    """A small FIFO whose head drives the move stream.

    A producer writes ``entry`` into the free slot whenever it likes (``write``) and
    decides later in the same cycle whether to keep it (``commit``): only the write
    pointer waits for that decision, which keeps a late ``commit`` off the entries'
    data and enables. ``almost_full`` (registered count) tells the producer to wait;
    neither ``ready`` nor promotions reach the producer otherwise. ``empty_next`` says
    the FIFO is empty after this cycle.

    Hand-written rather than ``amaranth.lib.fifo.SyncFIFOBuffered``: the expansion of
    a promotion entry and the write-before-commit split are what keep the walker's
    decision out of the FIFO's enables (measured: 55.7 -> 60.6 MHz on the ECP5).
    """

    def __init__(self, depth=4, positions=False):
        if depth & (depth - 1) or depth < 2:
            raise ValueError("the FIFO depth must be a power of two, at least 2")
        self.depth = depth
        self.entry_shape = PositionEntry if positions else FifoEntry
        super().__init__({
            **FifoWriteSignature(self.entry_shape).flip().members,
            "last_transfer": Out(1),
            "position": Out(range(RECORDS)),    # the record of the move on the stream (PositionEntry)
            "moves": Out(stream.Signature(Move)),
        })

    @property
    def write_port(self):
        """The write port as one interface, for ``wiring.connect`` to a producer's ``fifo``."""
        return group(self, FifoWriteSignature(self.entry_shape).flip())

    def elaborate(self, platform):
        m = Module()
        depth = self.depth
        # Separate registers and an explicit read mux, each entry without the promotion
        # field (the output fills it in): no flip-flop bit is constant, which keeps the
        # CXXRTL model at one eval per clock.
        entries = [Signal(self.entry_shape, name=f"entry_{i}", reset_less=True) for i in range(depth)]
        write_ptr, read_ptr = Signal(range(depth), name="write_ptr"), Signal(range(depth), name="read_ptr")
        count = Signal(range(depth + 1))
        promo_index = Signal(range(PROMOTION_PIECES))   # which of q, r, b, n the head emits now

        stored = Signal(self.entry_shape)
        with m.Switch(read_ptr):
            for i in range(depth):
                with m.Case(i):
                    m.d.comb += stored.eq(entries[i])
        head = stored.move if self.entry_shape is PositionEntry else stored
        valid = count != 0
        payload = self.moves.payload
        m.d.comb += [
            self.moves.valid.eq(valid),
            payload.frm.eq(head.frm), payload.to.eq(head.to), payload.capture.eq(head.capture),
            payload.double.eq(head.double), payload.en_passant.eq(head.en_passant),
            payload.castle.eq(head.castle),
            payload.promotion.eq(Mux(head.promotes, PieceType.QUEEN - promo_index, 0)),
        ]
        transfer = valid & self.moves.ready
        pop = transfer & (~head.promotes | (promo_index == PROMOTION_PIECES - 1))
        with m.If(transfer):
            m.d.sync += promo_index.eq(Mux(pop, 0, promo_index + 1))
        with m.If(pop):
            m.d.sync += read_ptr.eq(read_ptr + 1)
        with m.If(self.write):
            with m.Switch(write_ptr):
                for i in range(depth):
                    with m.Case(i):
                        m.d.sync += entries[i].eq(self.entry)
        with m.If(self.commit):
            m.d.sync += write_ptr.eq(write_ptr + 1)
        # commit is the producer's late decision: let it pick between two counts made without it
        after_pop = Signal.like(count)
        m.d.comb += after_pop.eq(count - pop)
        m.d.sync += count.eq(Mux(self.commit, after_pop + 1, after_pop))
        m.d.comb += [
            self.almost_full.eq(count >= depth - 1),
            self.empty_next.eq((count == 0) | ((count == 1) & pop)),
            self.last_transfer.eq(pop & stored.last if self.entry_shape is PositionEntry else 0),
            self.position.eq(stored.position if self.entry_shape is PositionEntry else 0),
        ]
        return m


class Queue(wiring.Component):
    """A FIFO typed by its payload: a stream of ``shape`` in, the same stream out
    (:class:`amaranth.lib.fifo.SyncFIFOBuffered` inside, its data packed and unpacked here).

    Parameters
    ----------
    shape : ShapeLike
        The payload (a :class:`~amaranth.lib.data.Struct`, a layout, a width).
    depth : int
        The entries, at least 1.

    Members
    -------
    i : In(stream.Signature(shape))
        Taken while there is room.
    o : Out(stream.Signature(shape))
        The oldest entry.
    level : Out(range(depth + 1))
        The entries held.
    """

    def __init__(self, *, shape, depth):
        options = Options("Queue")
        try:
            Shape.cast(shape)
        except TypeError:
            options.check(False, f"shape must be a shape, not {shape!r}")
        options.count("depth", depth, 1)
        options.done()
        self.shape, self.depth = shape, depth
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
            "level": Out(range(depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.fifo = fifo = SyncFIFOBuffered(width=Shape.cast(self.shape).width, depth=self.depth)
        m.d.comb += [
            fifo.w_data.eq(self.i.payload), fifo.w_en.eq(self.i.valid), self.i.ready.eq(fifo.w_rdy),
            self.o.payload.eq(fifo.r_data), self.o.valid.eq(fifo.r_rdy), fifo.r_en.eq(self.o.ready),
            self.level.eq(fifo.level),
        ]
        return m
