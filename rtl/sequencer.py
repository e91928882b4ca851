"""The sequencer: walks the Sandström tables one node per clock and streams moves.

Three parts, each built so that no long path ends in a block RAM address or enable:

Walker (successor prefetch)
    The next node depends on the content of the square the ROM just returned.
    Rather than deciding and then addressing the ROM in the same cycle, the
    walker reads *both* successors of the current node through the node ROM's two
    ports: port A the nextpos successor, port B the nextdir successor (or, where
    that successor ends the chain, the next piece's head). Both addresses follow
    from the current word alone. Meanwhile the board decides which successor
    applies (target empty -> nextpos), and the decision is stored in
    ``took_pos``; next cycle it simply selects port A's or port B's word. The
    loop through the board is thus ROM output -> 64:1 occupancy mux -> decision ->
    flip-flop, and the loop through the ROM is ROM output -> word select ->
    successor address (an adder) -> ROM address. The price is the second read
    port: one more copy of the node ROM on iCE40 (ECP5 block RAM is dual-port).

Piece feeder (two pieces ahead)
    ``queue`` holds the side to move's pieces not yet fetched. Stage 1 isolates
    its lowest bit with a carry chain (``q & -q``) into a one-hot register; the
    one-hot selects the piece's code on the board (AND-OR) and its square index,
    which address the head ROM; the head ROM's output and a holding register
    keep the next two pieces' heads ready. So a walk of a single step (a corner
    bishop blocked at once) can be followed by the next piece without a gap.
    The stages advance when the walker starts a piece, a flag read from
    registers.

Output FIFO (four entries)
    Moves go into a small FIFO whose head drives the move stream. A promotion
    node pushes one entry that the FIFO's output expands into four moves (q, r,
    b, n). The walker waits only while the FIFO is almost full (a registered
    count), so neither ``ready`` nor promotions reach the walker's enables, and
    no move is ever lost or repeated.

Measured cost (``hwmovegen synth``): the critical path is the walk's recurrence,
node ROM output -> taken word -> 64:1 lookup of the target in the square masks ->
emit/follow decision -> FIFO count (14 LUT levels on the iCE40 UP5K: about 19.5 MHz;
about 10 on the ECP5-85F, where the block RAM's 5.8 ns clock-to-output is a third of
it: about 60 MHz).
Deciding a node in the cycle its word leaves the ROM caps fmax there; going
further needs a registered ROM output and two interleaved walks (see README).

Cycle budget with ``ready`` held high: the cycle that samples ``start`` fills
stage 1, one cycle reads the first head, one presents it to the node ROM, then
one cycle per node; the last move leaves the FIFO in the cycle after the walk,
and each emitting promotion node can cost up to three cycles more:
``cycles <= steps + 3 * promotions + 4``.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables import NodeKind, TableKind
from .decode import decoder_for
from .rom import RomSignature
from .types import BoardState, Counters, Move, COUNTER_WIDTH

__all__ = ["Sequencer", "FIFO_DEPTH"]

FIFO_DEPTH = 4


class FifoEntry(data.Struct):
    """A move in the output FIFO; a promotion entry leaves it as four moves."""
    frm: 6
    to: 6
    capture: 1
    double: 1
    en_passant: 1
    castle: 1
    promotes: 1


def _one_hot_index(m, one_hot):
    """Binary index of a one-hot 64-bit value (an OR tree per bit)."""
    index = Signal(6)
    for bit in range(6):
        mask = sum(1 << i for i in range(64) if i >> bit & 1)
        m.d.comb += index[bit].eq((one_hot & mask).any())
    return index


class Sequencer(wiring.Component):
    def __init__(self, layout):
        self.layout = layout
        super().__init__({
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),     # high from the end of a generation until the next start
            "rom": Out(RomSignature(layout)),
            "occupied": In(64),
            "black": In(64),
            "state": In(BoardState),
            "rd_select": Out(64),
            "rd_code": In(4),
            "moves": Out(stream.Signature(Move)),
            "counters": Out(Counters),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self.layout.addr_width
        # one register per counter, the port driven whole from them (a port whose bits
        # mix flip-flops and logic costs CXXRTL a second eval per clock)
        cycles, steps, moves_out, stalls, promotions = (
            Signal(COUNTER_WIDTH, name=name) for name in ("cycles", "steps", "moves_out", "stalls", "promotions"))
        m.d.comb += self.counters.eq(Cat(cycles, steps, moves_out, stalls, promotions))
        busy = Signal(1)
        done = Signal(1)
        m.d.comb += [self.busy.eq(busy), self.done.eq(done)]

        own = Signal(64)
        m.d.comb += own.eq(self.occupied & Mux(self.state.white_to_move, ~self.black, self.black))

        # ---------------------------------------------------------------- feeder
        starting = Signal(1)
        m.d.comb += starting.eq(~busy & self.start)
        queue = Signal(64)
        # Data registers that mean nothing while idle are reset_less, so abort (a
        # synchronous reset) adds no logic in front of them; valid bits are reset.
        s1_valid, s1_one_hot = Signal(1), Signal(64, reset_less=True)   # stage 1: the next piece
        s3_valid = Signal(1)                                            # beside the head ROM's output
        s3_square, s3_queen = Signal(6, reset_less=True), Signal(1, reset_less=True)
        hold_valid = Signal(1)
        hold_square, hold_queen = Signal(6, reset_less=True), Signal(1, reset_less=True)
        hold_addr = Signal(aw, reset_less=True)
        consume = Signal(1)         # the walker starts the first upcoming piece this cycle

        hold_load = ~hold_valid | consume
        s3_advance = ~s3_valid | hold_load
        s1_advance = ~s1_valid | s3_advance

        # stage 1: lowest set bit of the queue (of the own pieces on start), by a carry chain
        source = Mux(starting, own, queue)
        lowest = Signal(64)
        m.d.comb += lowest.eq(source & (~source + 1)[:64])
        with m.If(starting | (busy & s1_advance)):
            m.d.sync += [s1_valid.eq(source != 0), s1_one_hot.eq(lowest), queue.eq(source & ~lowest)]

        # stage 2 (into the head ROM): square index and table kind of the one-hot piece
        s1_square = _one_hot_index(m, s1_one_hot)
        code = self.rd_code
        s1_kind = Signal(3)
        m.d.comb += [
            self.rd_select.eq(s1_one_hot),
            s1_kind.eq(Mux(code[0:3] == 1, code[3], code[0:3])),
            self.rom.head_index.eq(Cat(s1_square, s1_kind)),
            self.rom.head_en.eq(busy & s3_advance),
        ]
        with m.If(busy & s3_advance):
            m.d.sync += [s3_valid.eq(s1_valid), s3_square.eq(s1_square),
                         s3_queen.eq(s1_kind == TableKind.QUEEN)]
        with m.If(busy & hold_load):
            m.d.sync += [hold_valid.eq(s3_valid), hold_square.eq(s3_square),
                         hold_queen.eq(s3_queen), hold_addr.eq(self.rom.head_addr)]

        # the next two pieces in order: the holding register first, then the head ROM's output
        first_valid = hold_valid | s3_valid
        first_square = Mux(hold_valid, hold_square, s3_square)
        first_queen = Mux(hold_valid, hold_queen, s3_queen)
        first_addr = Mux(hold_valid, hold_addr, self.rom.head_addr)
        second_valid = hold_valid & s3_valid
        second_addr = self.rom.head_addr

        # ---------------------------------------------------------------- output FIFO
        # Separate registers and an explicit read mux, each entry without the promotion
        # field (the output fills it in): no flip-flop bit is constant, which keeps
        # the CXXRTL model at one eval per clock.
        entries = [Signal(FifoEntry, name=f"fifo_{i}", reset_less=True) for i in range(FIFO_DEPTH)]
        write_ptr, read_ptr = Signal(2), Signal(2)
        count = Signal(range(FIFO_DEPTH + 1))
        promo_index = Signal(2)     # which of q, r, b, n the head entry emits now
        almost_full = count >= FIFO_DEPTH - 1
        head = Signal(FifoEntry)
        with m.Switch(read_ptr):
            for i in range(FIFO_DEPTH):
                with m.Case(i):
                    m.d.comb += head.eq(entries[i])
        head_promotes = head.promotes
        out_valid = count != 0
        payload = self.moves.payload
        m.d.comb += [
            self.moves.valid.eq(out_valid),
            payload.frm.eq(head.frm), payload.to.eq(head.to), payload.capture.eq(head.capture),
            payload.double.eq(head.double), payload.en_passant.eq(head.en_passant),
            payload.castle.eq(head.castle),
            payload.promotion.eq(Mux(head_promotes, 5 - promo_index, 0)),
        ]
        transfer = out_valid & self.moves.ready
        pop = transfer & (~head_promotes | (promo_index == 3))
        push = Signal(1)
        push_move = Signal(FifoEntry)
        with m.If(transfer):
            m.d.sync += promo_index.eq(Mux(pop, 0, promo_index + 1))
        with m.If(pop):
            m.d.sync += read_ptr.eq(read_ptr + 1)
        advancing = Signal(1)       # the walker decides a node this cycle
        # The free slot at write_ptr takes the current node's move whether or not it
        # emits; only the pointer waits for the decision, which keeps `emit` off the
        # FIFO's data and enables.
        with m.If(advancing):
            with m.Switch(write_ptr):
                for i in range(FIFO_DEPTH):
                    with m.Case(i):
                        m.d.sync += entries[i].eq(push_move)
        with m.If(push):
            m.d.sync += write_ptr.eq(write_ptr + 1)
        m.d.sync += count.eq(count + push - pop)

        # ---------------------------------------------------------------- walker
        m.submodules.decoder = node = decoder_for(self.layout)
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
        m.d.comb += [
            launched.eq(taken_head & taken_valid),
            finishing.eq(taken_head & ~taken_valid),
            frm.eq(Mux(launched, first_square, cur_from)),
            node.addr.eq(Mux(took_pos, addr_a, addr_b)),
            node.word.eq(Mux(took_pos, self.rom.node_a_data, self.rom.node_b_data)),
            node.is_queen.eq(Mux(launched, first_queen, cur_queen)),
        ]
        # the piece after the one being walked, offered where a successor ends the chain
        next_valid = Mux(launched, second_valid, first_valid)
        next_addr = Mux(launched, second_addr, first_addr)

        # Per-position square masks, latched at start (the board does not change while
        # busy), so each test below is one 64:1 mux of a register.
        empty_mask, opponent_mask, capturable_mask = (Signal(64, reset_less=True) for _ in range(3))
        opponents = self.occupied & Mux(self.state.white_to_move, self.black, ~self.black)
        ep_mask = Mux(self.state.ep_valid, Const(1, 64) << self.state.ep_square, 0)
        with m.If(starting):
            m.d.sync += [empty_mask.eq(~self.occupied), opponent_mask.eq(opponents),
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
        right_held = (self.state.castling.bit_select(Cat(~node.to[2], node.to[5]), 1)
                      & (node.to[5] != self.state.white_to_move))
        ep_hit = is_capture & capturable & empty    # the en-passant square is the only empty capturable one
        follow_pos = Signal(1)
        emit = Signal(1)
        m.d.comb += [
            follow_pos.eq(empty & (~is_castling | right_held)),
            emit.eq((is_normal & (empty | opponent)) | (is_push & empty) | (is_capture & capturable)
                    | ((kind == NodeKind.CASTLE) & empty & right_held)),
            push_move.frm.eq(frm),
            push_move.to.eq(node.to),
            push_move.capture.eq(opponent | ep_hit),
            push_move.double.eq(kind == NodeKind.DOUBLE),
            push_move.en_passant.eq(ep_hit),
            push_move.castle.eq(kind == NodeKind.CASTLE),
            push_move.promotes.eq(is_promotion),
        ]

        def present(pos_addr, pos_head, dir_addr, dir_head, valid_if_head):
            """Put both successors on the ROM ports for the next cycle."""
            m.d.comb += [self.rom.node_a_addr.eq(pos_addr), self.rom.node_b_addr.eq(dir_addr)]
            m.d.sync += [addr_a.eq(pos_addr), addr_b.eq(dir_addr),
                         a_head.eq(pos_head), b_head.eq(dir_head),
                         a_head_valid.eq(valid_if_head), b_head_valid.eq(valid_if_head)]

        # the ports show the words at addr_a/addr_b again unless new successors are presented
        # (the ROM has no read enable: on iCE40 that would cost a hold mux after the block RAM)
        m.d.comb += [self.rom.node_a_addr.eq(addr_a), self.rom.node_b_addr.eq(addr_b)]

        with m.If(busy & ~self.moves.ready & out_valid):
            m.d.sync += stalls.eq(stalls + 1)
        with m.If(busy & transfer):
            m.d.sync += moves_out.eq(moves_out + 1)
        with m.If(busy):
            m.d.sync += cycles.eq(cycles + 1)
        # a promotion node's count lands a cycle later (a 1-bit register, not a deep
        # enable on a 32-bit counter), still before done rises
        promoted = Signal(1)
        with m.If(promoted):
            m.d.sync += [promotions.eq(promotions + 1), promoted.eq(0)]

        with m.FSM(init="IDLE"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [done.eq(0), busy.eq(1), cycles.eq(1), steps.eq(0), moves_out.eq(0),
                                 stalls.eq(0), promotions.eq(0), hold_valid.eq(0), s3_valid.eq(0)]
                    m.next = "FILL"
            with m.State("FILL"):           # the head ROM reads the first piece's head
                m.next = "LAUNCH"
            with m.State("LAUNCH"):         # offer the first piece's head on both ports
                present(first_addr, 1, first_addr, 1, first_valid)
                m.d.sync += took_pos.eq(1)
                m.next = "RUN"
            with m.State("RUN"):
                with m.If(finishing):
                    with m.If((count == 0) | ((count == 1) & pop)):
                        m.d.sync += [done.eq(1), busy.eq(0)]
                        m.next = "IDLE"
                    with m.Else():
                        m.next = "DRAIN"
                with m.Elif(~almost_full):
                    m.d.comb += [advancing.eq(1), push.eq(emit), consume.eq(launched)]
                    present(Mux(node.pos_end, next_addr, node.pos_addr), node.pos_end,
                            Mux(node.dir_end, next_addr, node.dir_addr), node.dir_end, next_valid)
                    m.d.sync += [
                        took_pos.eq(follow_pos),
                        cur_from.eq(frm),
                        cur_queen.eq(node.is_queen),
                        steps.eq(steps + 1),
                    ]
                    m.d.sync += promoted.eq(emit & is_promotion)
            with m.State("DRAIN"):
                with m.If((count == 0) | ((count == 1) & pop)):
                    m.d.sync += [done.eq(1), busy.eq(0)]
                    m.next = "IDLE"
        return m
