"""The walker: Sandström's machine in its plain form, one table node per clock.

``WalkerCore`` joins three parts, each built so that no long path ends in a
block RAM address or enable:

``PieceFeeder`` (:mod:`.feeder`)
    the side to move's pieces in ascending square order with their first node,
    two pieces ahead, so even a one-step walk is followed without a gap.

``Walker`` (successor prefetch)
    The next node depends on the content of the square the ROM just returned.
    Rather than deciding and then addressing the ROM in the same cycle, the
    walker reads *both* successors of the current node through the node ROM's two
    ports: port A the nextpos successor, port B the nextdir successor (or, where
    that successor ends the chain, the next piece's head). Both addresses follow
    from the current word alone. Meanwhile the board decides which successor
    applies (target empty -> nextpos), and the decision is stored in
    ``took_pos``; next cycle it simply selects port A's or port B's word. The
    price is the second read port: one more copy of the node ROM on iCE40 (ECP5
    block RAM is dual-port).

``PromotionFifo`` (:mod:`.fifo`)
    moves out as a stream; a promotion node leaves as four moves while the walk
    goes on.

Measured cost (``hwmovegen synth``): the critical path is the walk's recurrence,
node ROM output -> taken word -> 64:1 lookup of the target in the square masks ->
emit/follow decision -> FIFO count. Deciding a node in the cycle its word leaves
the ROM caps fmax there; the fast core (:mod:`.fast`) decides whole pieces instead.

Cycle budget with ``ready`` held high (:func:`hwmovegen.sim.model.cycle_bound`):
the cycle that samples ``start`` fills the feeder's first stage, one cycle reads
the first head, one presents it to the node ROM, then one cycle per node; the
last move leaves the FIFO in the cycle after the walk, and each emitting
promotion node can cost up to three cycles more.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import Layout, NodeKind
from ..tables.contracts import core_contract
from .core import CoreSignature
from .counters import PerfCounters
from .board import BoardView
from .decode import NodeDecoder
from .feeder import PieceFeeder, PieceSignature
from .fifo import FifoEntry, FifoWriteSignature, PromotionFifo
from .options import Options
from .rom import RomSignature
from .types import BoardState

__all__ = ["Walker", "WalkerCore"]


class Walker(wiring.Component):
    """The walk's control: successor prefetch, node decision, start/done."""

    def __init__(self, layout):
        self.layout = layout
        aw = layout.addr_width
        super().__init__({
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),     # a pulse at the end of a generation
            "planes": In(data.ArrayLayout(64, 4)),
            "state": In(BoardState),
            "node_a_addr": Out(aw), "node_a_data": In(layout.word_width),
            "node_b_addr": Out(aw), "node_b_data": In(layout.word_width),
            "feed": In(PieceSignature(aw)),
            "fifo": Out(FifoWriteSignature(FifoEntry)),
            "step": Out(1),
            "promotion": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self.layout.addr_width
        busy, done = Signal(1), Signal(1)
        m.d.comb += [self.busy.eq(busy), self.done.eq(done)]
        m.d.sync += done.eq(0)
        starting = ~busy & self.start

        m.submodules.decoder = node = NodeDecoder(self.layout)
        took_pos = Signal(1, reset_less=True)
        addr_a, addr_b = Signal(aw, reset_less=True), Signal(aw, reset_less=True)   # the ports' words
        a_head, b_head = Signal(1, reset_less=True), Signal(1, reset_less=True)     # ... a piece's head
        a_head_valid = Signal(1, reset_less=True)                                   # ... and a piece
        b_head_valid = Signal(1, reset_less=True)
        cur_from, cur_queen = Signal(6, reset_less=True), Signal(1, reset_less=True)

        taken_head = Mux(took_pos, a_head, b_head)
        taken_valid = Mux(took_pos, a_head_valid, b_head_valid)
        launched = Signal(1)
        finishing = Signal(1)
        frm = Signal(6)
        first = self.feed.first
        m.d.comb += [
            launched.eq(taken_head & taken_valid),
            finishing.eq(taken_head & ~taken_valid),
            frm.eq(Mux(launched, first.square, cur_from)),
            node.addr.eq(Mux(took_pos, addr_a, addr_b)),
            node.word.eq(Mux(took_pos, self.node_a_data, self.node_b_data)),
            node.is_queen.eq(Mux(launched, first.queen, cur_queen)),
        ]
        # the piece after the one being walked, offered where a successor ends the chain
        next_valid = Mux(launched, self.feed.second_valid, self.feed.first_valid)
        next_addr = Mux(launched, self.feed.second_word, self.feed.first_word)

        # Per-position square masks, latched at start (the board does not change while
        # busy), so each test below is one 64:1 mux of a register.
        view = BoardView(self.planes, self.state)
        state = self.state
        empty_mask, opponent_mask, capturable_mask = (Signal(64, reset_less=True) for _ in range(3))
        opponents = view.opponent
        ep_mask = Mux(state.ep_valid, Const(1, 64) << state.ep_square, 0)
        with m.If(starting):
            m.d.sync += [empty_mask.eq(view.empty), opponent_mask.eq(opponents),
                         capturable_mask.eq(opponents | ep_mask)]
        empty = empty_mask.bit_select(node.to, 1)
        opponent = opponent_mask.bit_select(node.to, 1)
        capturable = capturable_mask.bit_select(node.to, 1)    # an opponent or the en-passant square
        kind = node.kind
        is_normal = kind == NodeKind.NORMAL
        is_push = (kind == NodeKind.PUSH) | (kind == NodeKind.DOUBLE) | (kind == NodeKind.PROMO_PUSH)
        is_capture = (kind == NodeKind.CAPTURE) | (kind == NodeKind.PROMO_CAPTURE)
        is_castling = (kind == NodeKind.CASTLE_PATH) | (kind == NodeKind.CASTLE)
        is_promotion = (kind == NodeKind.PROMO_PUSH) | (kind == NodeKind.PROMO_CAPTURE)
        # castling right from the target: rank 8 is black (to[5]), files e-h kingside (to[2])
        right_held = (state.castling.bit_select(Cat(~node.to[2], node.to[5]), 1)
                      & (node.to[5] != state.white_to_move))
        ep_hit = is_capture & capturable & empty    # the en-passant square is the only empty capturable one
        follow_pos = Signal(1)
        emit = Signal(1)
        entry = self.fifo.entry
        m.d.comb += [
            follow_pos.eq(empty & (~is_castling | right_held)),
            emit.eq((is_normal & (empty | opponent)) | (is_push & empty) | (is_capture & capturable)
                    | ((kind == NodeKind.CASTLE) & empty & right_held)),
            entry.frm.eq(frm),
            entry.to.eq(node.to),
            entry.capture.eq(opponent | ep_hit),
            entry.double.eq(kind == NodeKind.DOUBLE),
            entry.en_passant.eq(ep_hit),
            entry.castle.eq(kind == NodeKind.CASTLE),
            entry.promotes.eq(is_promotion),
        ]

        def present(pos_addr, pos_head, dir_addr, dir_head, valid_if_head):
            """Put both successors on the ROM ports for the next cycle."""
            m.d.comb += [self.node_a_addr.eq(pos_addr), self.node_b_addr.eq(dir_addr)]
            m.d.sync += [addr_a.eq(pos_addr), addr_b.eq(dir_addr),
                         a_head.eq(pos_head), b_head.eq(dir_head),
                         a_head_valid.eq(valid_if_head), b_head_valid.eq(valid_if_head)]

        # the ports show the words at addr_a/addr_b again unless new successors are presented
        # (the ROM has no read enable: on iCE40 that would cost a hold mux after the block RAM)
        m.d.comb += [self.node_a_addr.eq(addr_a), self.node_b_addr.eq(addr_b)]

        def finish():
            m.d.sync += [done.eq(1), busy.eq(0)]
            m.next = "IDLE"

        with m.FSM(init="IDLE"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += busy.eq(1)
                    m.next = "FILL"
            with m.State("FILL"):           # the head ROM reads the first piece's head
                m.next = "LAUNCH"
            with m.State("LAUNCH"):         # offer the first piece's head on both ports
                present(self.feed.first_word, 1, self.feed.first_word, 1, self.feed.first_valid)
                m.d.sync += took_pos.eq(1)
                m.next = "RUN"
            with m.State("RUN"):
                with m.If(finishing):
                    with m.If(self.fifo.empty_next):
                        finish()
                    with m.Else():
                        m.next = "DRAIN"
                with m.Elif(~self.fifo.almost_full):
                    m.d.comb += [self.fifo.write.eq(1), self.fifo.commit.eq(emit),
                                 self.feed.consume.eq(launched), self.step.eq(1),
                                 self.promotion.eq(emit & is_promotion)]
                    present(Mux(node.pos_end, next_addr, node.pos_addr), node.pos_end,
                            Mux(node.dir_end, next_addr, node.dir_addr), node.dir_end, next_valid)
                    m.d.sync += [took_pos.eq(follow_pos), cur_from.eq(frm), cur_queen.eq(node.is_queen)]
            with m.State("DRAIN"):
                with m.If(self.fifo.empty_next):
                    finish()
        return m


class WalkerCore(wiring.Component):
    """Piece feeder, walker, promotion FIFO and counters: the walker core.

    Parameters
    ----------
    layout : Layout
        The ROM layout it walks (its ``rom`` port's address and word widths).

    Members
    -------
    The :class:`~.core.CoreSignature`'s, with a ``rom`` port for the layout's
    :class:`~.rom.MoveTableROM`.
    """
    contract = core_contract("walker")      # its timing terms and protocol id

    def __init__(self, *, layout):
        options = Options("WalkerCore")
        options.check(isinstance(layout, Layout), f"layout must be a Layout, not {layout!r}")
        options.done()
        self.layout = layout
        super().__init__(CoreSignature(RomSignature(layout)))

    def elaborate(self, platform):
        m = Module()
        m.submodules.feeder = feeder = PieceFeeder(self.layout.addr_width)
        m.submodules.walker = walker = Walker(self.layout)
        m.submodules.fifo = fifo = PromotionFifo()
        m.submodules.perf = counters = PerfCounters()
        starting = ~walker.busy & self.start
        planes, state = self.planes, self.state
        view = BoardView(planes, state)
        own = view.own
        rom = self.rom
        m.d.comb += [
            walker.start.eq(self.start),
            walker.planes.eq(planes), walker.state.eq(state),
            self.busy.eq(walker.busy), self.done.eq(walker.done), self.start_ready.eq(~walker.busy),
            # feeder
            feeder.start.eq(starting), feeder.run.eq(walker.busy), feeder.pieces.eq(own),
            feeder.types.eq(view.types), feeder.white_to_move.eq(state.white_to_move),
            rom.head_index.eq(feeder.rom_index), rom.head_en.eq(feeder.rom_en),
            feeder.rom_data.eq(rom.head_addr),
            # node ROM
            rom.node_a_addr.eq(walker.node_a_addr), walker.node_a_data.eq(rom.node_a_data),
            rom.node_b_addr.eq(walker.node_b_addr), walker.node_b_data.eq(rom.node_b_data),
            # counters
            counters.start.eq(starting), counters.busy.eq(walker.busy),
            counters.valid.eq(fifo.moves.valid), counters.ready.eq(self.moves.ready),
            counters.step.eq(walker.step), counters.promotion.eq(walker.promotion),
            self.counters.eq(counters.counters),
        ]
        wiring.connect(m, feeder.offer, walker.feed)
        wiring.connect(m, walker.fifo, fifo.write_port)
        wiring.connect(m, wiring.flipped(self.moves), fifo.moves)
        return m
