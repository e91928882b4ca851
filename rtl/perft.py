"""Perft in hardware: a depth-first walk of the legal move tree on one board.

:class:`PerftEngine` owns a legal generator (either core, the legality stage behind
it) whose board it edits through a :class:`~.apply.MoveApplier`. At each ply above
the last it generates the legal moves into that ply's move list (block RAM), then
makes each in turn, walks below it and unmakes it. At the last ply it does not make
the moves: it counts them (bulk counting), which is where most of a perft's nodes are.
"""

from amaranth import Module, Signal, Array, Cat
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .apply import MoveApplier
from .board import LoadSignature
from .movegen import MoveGenerator
from .types import Move, PerftCounters

__all__ = ["PerftEngine", "MAX_MOVES"]

MAX_MOVES = 256         # a move list per ply (no position has more than 218 legal moves)


class PerftEngine(wiring.Component):
    """Counts the leaves of the legal move tree of the loaded position to ``depth`` plies.

    Ports
    -----
    load : In(LoadSignature)
        The root position, as for :class:`~.movegen.MoveGenerator`.
    depth : In
        Plies to walk, 1 to ``max_depth``; sampled with ``start``.
    start : In(1)
        Taken when idle.
    busy, done : Out(1)
        ``done`` pulses once the walk is over (the board holds the root again);
        ``counters`` hold its figures from then on.
    counters : Out(PerftCounters)
    """

    def __init__(self, layout="dense", core="walker", max_depth=8):
        self.layout, self.core, self.max_depth = layout, core, max_depth
        # built here, so that a testbench can watch the board and the stack
        self.generator = MoveGenerator(layout, core, legal=True, editable=True)
        self.applier = MoveApplier(max_depth)
        super().__init__({
            "load": In(LoadSignature()),
            "depth": In(range(max_depth + 1)),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "counters": Out(PerftCounters),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.generator = gen = self.generator
        m.submodules.applier = applier = self.applier
        m.submodules.lists = lists = Memory(shape=Move, depth=self.max_depth * MAX_MOVES, init=[])
        store, fetch = lists.write_port(), lists.read_port(transparent_for=())
        wiring.connect(m, wiring.flipped(self.load), gen.load)
        wiring.connect(m, applier.edit, gen.edit)
        m.d.comb += [applier.planes.eq(gen.planes), applier.state.eq(gen.board_state)]

        ply_bits = range(self.max_depth)
        ply, last_ply = Signal(ply_bits), Signal(ply_bits)
        counts = Array(Signal(range(MAX_MOVES + 1), name=f"count{p}") for p in range(self.max_depth))
        indices = Array(Signal(range(MAX_MOVES + 1), name=f"index{p}") for p in range(self.max_depth))
        written = Signal(range(MAX_MOVES + 1))
        counters = Signal(PerftCounters)
        m.d.comb += self.counters.eq(counters)

        idle = Signal(1)
        leaf = ply == last_ply              # the last ply: count, do not store
        moves = gen.moves
        m.d.comb += [
            moves.ready.eq(1),
            store.addr.eq(Cat(written[:8], ply)), store.data.eq(moves.payload),
            fetch.addr.eq(Cat(indices[ply][:8], ply)),
            applier.commands.payload.move.eq(fetch.data),
        ]

        with m.FSM(name="perft"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(self.start):
                    m.d.sync += [ply.eq(0), last_ply.eq(self.depth - 1), counters.eq(0), counters.cycles.eq(1)]
                    m.next = "EXPAND"
            with m.State("EXPAND"):         # generate at this ply
                m.d.comb += gen.start.eq(gen.start_ready)
                m.d.sync += [written.eq(0), counters.generate_cycles.eq(counters.generate_cycles + 1)]
                with m.If(gen.start_ready):
                    m.next = "GENERATE"
            with m.State("GENERATE"):
                m.d.sync += counters.generate_cycles.eq(counters.generate_cycles + 1)
                with m.If(moves.valid & ~leaf):
                    m.d.comb += store.en.eq(1)
                    m.d.sync += written.eq(written + 1)
                with m.If(gen.done):
                    with m.If(leaf):
                        m.d.sync += counters.nodes.eq(counters.nodes + gen.counters.moves)
                        m.next = "BACK"
                    with m.Else():
                        m.d.sync += [counts[ply].eq(gen.counters.moves), indices[ply].eq(0),
                                     counters.interior.eq(counters.interior + 1)]
                        m.next = "NEXT"
            with m.State("NEXT"):           # the next move of this ply, read from its list
                with m.If(indices[ply] == counts[ply]):
                    m.next = "BACK"
                with m.Else():
                    m.next = "MAKE"
            with m.State("MAKE"):           # the list's word has arrived: make it, go down
                m.d.comb += [applier.commands.valid.eq(1), applier.commands.payload.unmake.eq(0)]
                m.d.sync += counters.apply_cycles.eq(counters.apply_cycles + 1)
                with m.If(applier.commands.ready):
                    m.d.sync += [indices[ply].eq(indices[ply] + 1), ply.eq(ply + 1)]
                    m.next = "MAKING"
            with m.State("MAKING"):
                m.d.sync += counters.apply_cycles.eq(counters.apply_cycles + 1)
                with m.If(~applier.busy):
                    m.next = "EXPAND"
            with m.State("BACK"):           # this ply is done: unmake the move that led here
                with m.If(ply == 0):
                    m.next = "DONE"
                with m.Else():
                    m.d.comb += [applier.commands.valid.eq(1), applier.commands.payload.unmake.eq(1)]
                    m.d.sync += counters.apply_cycles.eq(counters.apply_cycles + 1)
                    with m.If(applier.commands.ready):
                        m.d.sync += ply.eq(ply - 1)
                        m.next = "UNMAKING"
            with m.State("UNMAKING"):
                m.d.sync += counters.apply_cycles.eq(counters.apply_cycles + 1)
                with m.If(~applier.busy):
                    m.next = "NEXT"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        m.d.comb += self.busy.eq(~idle)
        with m.If(~idle):
            m.d.sync += counters.cycles.eq(counters.cycles + 1)
        return m
