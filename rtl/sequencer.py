"""The sequencer: walks the Sandström tables one node per clock and streams moves.

Pipeline
--------
The node ROM reads synchronously: the word on ``rom.node_data`` in a cycle is
the node at ``addr``, the address presented in the cycle before. In that cycle
the sequencer decodes the word, reads the target square's occupancy and colour
from the board's register file, decides emission, and presents the next node
address to the ROM, so the loop ROM -> board -> decision -> ROM closes in one
cycle and a node is visited every clock.

Why this choice: the next address depends on the content of the square the ROM
just returned, so either the board is readable combinationally inside the loop
(chosen), or the sequencer speculates on both successors (two ROM reads per
cycle, twice the block RAM), or it spends a second cycle per node. The board is
a register file (256 flip-flops) whose occupancy and colour bitmaps feed 64:1
muxes indexed by the node's target; that mux (about three LUT levels) and the
next-address select after the block RAM's clock-to-output are the critical path.

The next piece is found without visiting empty squares, one piece ahead: the
head ROM's output register always holds the head of the piece to walk after the
current one (the *head stage*), and ``queue`` holds the side to move's pieces
not yet fetched into it. When a walk ends, its last cycle launches the head
stage's piece and, in the same cycle, a tree priority encoder picks the lowest
piece of ``queue`` and reads its head; the head ROM is enabled only then, so the
head stage holds until it is used. The walk thus goes from piece to piece with
no idle cycle, even when a walk is a single step (a corner bishop blocked at
once).

Cycle budget with ``ready`` held high: 1 cycle to sample ``start`` (the head of
the first piece is read in it), 1 launch cycle, one cycle per node, 3 extra
cycles per emitting promotion node (one move per cycle), 1 cycle to drain the
output register: ``cycles == steps + 3 * promotions + 3``.

Backpressure: the move stream is driven from an output register. While it holds
a move that the consumer does not take (``valid & ~ready``) the sequencer
freezes (the ROM's read enable drops, so its output holds) and counts a stall.
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables import NodeKind, TableKind
from .decode import decoder_for
from .rom import RomSignature
from .types import BoardState, Counters, Move

__all__ = ["Sequencer", "lowest_set_bit"]


def lowest_set_bit(m, bits):
    """(valid, index) of the lowest set bit of ``bits``, as a log-depth mux tree."""
    if len(bits) == 1:
        return bits[0], Const(0, 0)
    half = len(bits) // 2
    low_valid, low_index = lowest_set_bit(m, bits[:half])
    high_valid, high_index = lowest_set_bit(m, bits[half:])
    index = Signal(len(low_index) + 1, name=f"lsb{len(bits)}_index")
    m.d.comb += index.eq(Mux(low_valid, Cat(low_index, 0), Cat(high_index, 1)))
    return low_valid | high_valid, index


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
            "rd_square": Out(6),
            "rd_code": In(4),
            "moves": Out(stream.Signature(Move)),
            "counters": Out(Counters),
        })

    def elaborate(self, platform):
        m = Module()
        aw = self.layout.addr_width
        m.submodules.decoder = node = decoder_for(self.layout)

        own = Signal(64)
        m.d.comb += own.eq(self.occupied & Mux(self.state.white_to_move, ~self.black, self.black))

        queue = Signal(64)          # side to move's pieces not yet fetched into the head stage
        addr = Signal(aw)           # address of the node on rom.node_data
        cur_from = Signal(6)
        cur_queen = Signal(1)
        promo_index = Signal(2)     # which of q, r, b, n a promotion node emits now
        done = Signal(1)
        out_valid = Signal(1)
        out_move = Signal(Move)

        # -- head stage: priority encoder -> board read -> head ROM, advanced on demand --
        scan = Signal(64)
        starting = Signal(1)
        fetch = Signal(1)           # the head stage is consumed (or filled first) this cycle
        next_valid, next_square = lowest_set_bit(m, scan)
        next_code = self.rd_code
        next_kind = Signal(3)
        m.d.comb += [
            starting.eq(~self.busy & self.start),
            scan.eq(Mux(starting, own, queue)),
            self.rd_square.eq(next_square),
            next_kind.eq(Mux(next_code[0:3] == 1, next_code[3], next_code[0:3])),
            self.rom.head_index.eq(Cat(next_square, next_kind)),
            self.rom.head_en.eq(fetch | starting),
        ]
        head_valid = Signal(1)      # these three describe rom.head_addr
        head_square = Signal(6)
        head_queen = Signal(1)
        with m.If(fetch | starting):
            m.d.sync += [
                head_valid.eq(next_valid),
                head_square.eq(next_square),
                head_queen.eq(next_kind == TableKind.QUEEN),
                queue.eq(scan & ~(Const(1, 64) << next_square)),
            ]

        # -- the node on rom.node_data --
        m.d.comb += [node.addr.eq(addr), node.word.eq(self.rom.node_data), node.is_queen.eq(cur_queen)]
        target_occupied = self.occupied.bit_select(node.to, 1)
        target_black = self.black.bit_select(node.to, 1)
        empty = ~target_occupied
        opponent = target_occupied & (target_black == self.state.white_to_move)
        kind = node.kind
        ep_hit = (kind == NodeKind.CAPTURE) & empty & self.state.ep_valid & (node.to == self.state.ep_square)
        # castling right from the target: rank 8 is black (to[5]), files e-h kingside (to[2])
        right_held = (self.state.castling.bit_select(Cat(~node.to[2], node.to[5]), 1)
                      & (node.to[5] != self.state.white_to_move))
        is_castling = (kind == NodeKind.CASTLE_PATH) | (kind == NodeKind.CASTLE)
        follow_pos = Signal(1)
        emit = Signal(1)
        is_promotion = (kind == NodeKind.PROMO_PUSH) | (kind == NodeKind.PROMO_CAPTURE)
        m.d.comb += [
            follow_pos.eq(empty & (~is_castling | right_held)),
            emit.eq(Mux(kind == NodeKind.NORMAL, empty | opponent,
                    Mux((kind == NodeKind.PUSH) | (kind == NodeKind.DOUBLE) | (kind == NodeKind.PROMO_PUSH), empty,
                    Mux((kind == NodeKind.CAPTURE) | (kind == NodeKind.PROMO_CAPTURE), opponent | ep_hit,
                    Mux(kind == NodeKind.CASTLE, empty & right_held, 0))))),
        ]
        promoting = emit & is_promotion
        hold = promoting & (promo_index != 3)   # stay on a promotion node for its four moves
        chain_end = Mux(follow_pos, node.pos_end, node.dir_end)
        next_addr = Mux(follow_pos, node.pos_addr, node.dir_addr)

        # -- output register and stalls --
        can_load = ~out_valid | self.moves.ready
        m.d.comb += [self.moves.valid.eq(out_valid), self.moves.payload.eq(out_move)]
        with m.If(self.moves.ready):
            m.d.sync += out_valid.eq(0)

        counters = self.counters
        m.d.comb += [self.done.eq(done)]

        def launch():
            """Start the head stage's piece, and fetch the next one into the head stage."""
            m.d.comb += [self.rom.node_addr.eq(self.rom.head_addr), self.rom.node_en.eq(1), fetch.eq(1)]
            m.d.sync += [
                addr.eq(self.rom.head_addr),
                cur_from.eq(head_square),
                cur_queen.eq(head_queen),
            ]

        with m.FSM(init="IDLE"):
            with m.State("IDLE"):
                with m.If(self.start):
                    m.d.sync += [done.eq(0), counters.eq(0), counters.cycles.eq(1)]
                    m.next = "LAUNCH"
            with m.State("LAUNCH"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += counters.cycles.eq(counters.cycles + 1)
                with m.If(head_valid):
                    launch()
                    m.next = "RUN"
                with m.Else():
                    m.next = "DRAIN"
            with m.State("RUN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += counters.cycles.eq(counters.cycles + 1)
                with m.If(~can_load):
                    m.d.sync += counters.stalls.eq(counters.stalls + 1)
                with m.Else():
                    with m.If(emit):
                        m.d.sync += [
                            out_valid.eq(1),
                            out_move.frm.eq(cur_from),
                            out_move.to.eq(node.to),
                            out_move.promotion.eq(Mux(is_promotion, 5 - promo_index, 0)),
                            out_move.capture.eq(opponent | ep_hit),
                            out_move.double.eq(kind == NodeKind.DOUBLE),
                            out_move.en_passant.eq(ep_hit),
                            out_move.castle.eq(kind == NodeKind.CASTLE),
                            counters.moves.eq(counters.moves + 1),
                        ]
                    with m.If(hold):
                        m.d.sync += promo_index.eq(promo_index + 1)
                    with m.Else():
                        m.d.sync += [promo_index.eq(0), counters.steps.eq(counters.steps + 1)]
                        with m.If(promoting):
                            m.d.sync += counters.promotions.eq(counters.promotions + 1)
                        with m.If(~chain_end):
                            m.d.comb += [self.rom.node_addr.eq(next_addr), self.rom.node_en.eq(1)]
                            m.d.sync += addr.eq(next_addr)
                        with m.Elif(head_valid):
                            launch()
                        with m.Else():
                            m.next = "DRAIN"
            with m.State("DRAIN"):
                m.d.comb += self.busy.eq(1)
                m.d.sync += counters.cycles.eq(counters.cycles + 1)
                with m.If(can_load):
                    m.d.sync += done.eq(1)
                    m.next = "IDLE"
                with m.Else():
                    m.d.sync += counters.stalls.eq(counters.stalls + 1)
        return m
