"""The core's contracts (:class:`~hwmovegen.rtl.core.CoreSignature`), for either core.

:class:`GeneratorHarness` checks one property of one core; the core reads the free board
directly, as :class:`~hwmovegen.rtl.movegen.MoveGenerator` hands it the board RAM:

``stream``
    the move stream's rules (``amaranth.lib.stream``): ``valid`` never drops and the payload
    never changes before the transfer. ``start``, ``ready`` and ``abort`` are free.
``positions``
    the control protocol around the stream: no ``valid`` without a started position; ``done``
    once per start and never before the position's last transfer; ``busy`` exactly while a
    started position is not done. ``start``, ``ready`` and ``abort`` are free.
``soundness``
    every move on the stream is a pseudo-legal move of the position: :func:`.move_checks`.
``termination``
    with ``ready`` held high, ``done`` within the documented cycle bound
    (:func:`hwmovegen.sim.model.cycle_bound`), the counters agreeing with the harness.
``abort``
    one cycle after ``abort`` the generator is idle: not busy, no move, no done, ready.
``cover``
    every node kind emits, and a promotion waits under backpressure (reachability).
"""

from amaranth import Elaboratable, Module, ResetInserter, Signal, Cat, Const, Mux
from amaranth.asserts import AnyConst, AnySeq     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assume
from amaranth.lib import wiring

from ...tables import PieceType, TableKind, chain, get_layout
from ..movegen import CORES
from .harness import Harness, elaborated, free_legal_position, in_state, internal, known_state, move_checks

__all__ = ["GENERATOR_PROPERTIES", "GeneratorHarness", "walk_limit"]


def _chain_length_tables():
    """Per square, the chain length of every table kind (the queen: rook and bishop blocks)."""
    tables = {kind: [len(chain(kind, s)) for s in range(64)] for kind in TableKind}
    tables[TableKind.QUEEN] = [tables[TableKind.ROOK][s] + tables[TableKind.BISHOP][s] for s in range(64)]
    return tables


def walk_limit(view):
    """The most table nodes a walk of ``view``'s side to move can visit, and the most
    promotion nodes that can emit: every node of its pieces' chains (a walk visits a node
    at most once), three promotion nodes per pawn on the seventh rank."""
    tables = _chain_length_tables()
    white = view.state.white_to_move
    nodes = 0
    for square in range(64):
        piece = view.type_at(Const(square, 6))
        length = Mux(white, tables[TableKind.WPAWN][square], tables[TableKind.BPAWN][square])
        for kind in (TableKind.KNIGHT, TableKind.BISHOP, TableKind.ROOK, TableKind.QUEEN, TableKind.KING):
            length = Mux(piece == int(kind), tables[kind][square], length)
        nodes = nodes + Mux(view.own[square], length, 0)
    pawns = view.own & view.of_type(PieceType.PAWN)
    seventh = Mux(white, pawns[48:56], pawns[8:16])
    promotion_nodes = 3 * sum(seventh[i] for i in range(8))
    return nodes, promotion_nodes


GENERATOR_PROPERTIES = ("stream", "positions", "soundness", "termination", "abort", "cover")


class _FreeBoardGenerator(Elaboratable):
    """A core, its ROM and a board: what MoveGenerator builds without the legality stage
    (which wires the core's ports straight through), with the board RAM replaced by the
    harness's free position."""

    def __init__(self, core_class, rom_class, layout):
        self.core = core_class(layout=layout)
        self.rom = rom_class(layout)
        self.abort = Signal(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = ResetInserter(self.abort)(self.core)
        m.submodules.rom = self.rom
        wiring.connect(m, self.core.rom, self.rom.bus)
        return m


class GeneratorHarness(Harness):
    """A core with a free position, free control inputs and one property's checks.

    ``core_class`` replaces the core (a copy with an injected bug, in the tests). The
    termination bound's terms are the core's contract's (:mod:`hwmovegen.tables.contracts`:
    ``fixed`` and ``per_promotion`` for a core that walks table nodes, ``latency`` and ``empty``
    for one that streams a move a cycle), those of :func:`hwmovegen.sim.model.cycle_bound`.
    ``positions``: the board is one of these (packed planes, packed
    state), for the covers.
    """

    def __init__(self, prop, core="walker", layout="dense", core_class=None, positions=None):
        if prop not in GENERATOR_PROPERTIES:
            raise KeyError(f"unknown generator property {prop!r}")
        if core not in CORES:
            raise KeyError(f"unknown core {core!r}")
        super().__init__()
        self.prop, self.core, self.terms = prop, core, CORES[core].contract
        self.positions = positions
        default_core, rom_class = CORES[core]
        self.generator = _FreeBoardGenerator(core_class or default_core, rom_class, get_layout(layout))

    def elaborate(self, platform):
        m, checks = self.module()
        generator = elaborated(m, "generator", self.generator, platform)
        dut = self.generator.core
        prop = self.prop

        view = free_legal_position(m)
        m.d.comb += [dut.planes.eq(view.planes), dut.state.eq(view.state)]
        if self.positions:
            # the board is one of these: a cover needs a witness, not every board, and a few
            # concrete boards keep the deep steps cheap (the assertions keep the free board)
            image = Cat(view.planes.as_value(), view.state.as_value())
            m.d.comb += Assume(Cat(*[image == (planes | state << len(view.planes.as_value()))
                                     for planes, state in self.positions]).any())
        start, abort, ready = Signal(1), Signal(1), Signal(1)
        m.d.comb += [start.eq(AnySeq(1)), ready.eq(AnySeq(1)), dut.start.eq(start), dut.moves.ready.eq(ready)]
        m.d.comb += self.generator.abort.eq(abort)
        if prop in ("stream", "positions"):
            m.d.comb += abort.eq(AnySeq(1))     # else never

        moves, payload = dut.moves, dut.moves.payload
        transfer = moves.valid & moves.ready
        starting = start & dut.start_ready

        # positions started and not yet done
        outstanding = Signal(range(16))
        with m.If(abort):
            m.d.sync += outstanding.eq(0)
        with m.Else():
            m.d.sync += outstanding.eq(outstanding + starting - dut.done)

        if prop in ("soundness", "termination", "cover"):
            m.d.comb += Assume(~start | (outstanding == 0))     # one position at a time
        if prop == "termination":
            m.d.comb += Assume(ready)

        if prop == "stream":
            stalled = Signal(1)
            held = Signal.like(payload)
            # abort is the core's reset: it may drop a waiting move (the abort property checks it)
            m.d.sync += [stalled.eq(moves.valid & ~moves.ready & ~abort), held.eq(payload)]
            checks.check("valid never drops before the transfer", moves.valid, stalled)
            checks.check("the payload holds until the transfer", payload.as_value() == held.as_value(), stalled)
            fifo_invariants(checks, _core_fragment(generator))

        elif prop == "positions":
            checks.check("no valid without a started position", outstanding != 0, moves.valid)
            checks.check("done only for a started position", outstanding != 0, dut.done)
            checks.check("done only after the last transfer of its position", ~moves.valid,
                         dut.done & (outstanding == 1))
            checks.check("busy exactly while a started position is not done",
                         dut.busy == ((outstanding - dut.done) != 0))
            if self.core == "walker":
                walker_invariants(checks, _core_fragment(generator), outstanding)

        elif prop == "soundness":
            between = AnyConst(6)
            for name, condition in move_checks(view, payload, between):
                checks.check(name, condition, moves.valid)

        elif prop == "termination":
            elapsed = Signal(16)        # cycles since the start cycle, counted as the counters do
            transfers = Signal(16)
            running = outstanding != 0
            with m.If(starting):
                m.d.sync += [elapsed.eq(1), transfers.eq(0)]
            with m.Elif(running):
                m.d.sync += [elapsed.eq(elapsed + 1), transfers.eq(transfers + transfer)]
            finished = running & dut.done
            counters = dut.counters
            checks.check("the cycle counter counts from start to done", counters.cycles == elapsed, finished)
            checks.check("the move counter counts the transfers", counters.moves == transfers, finished)
            checks.check("no stalls with ready held high", counters.stalls == 0, finished)
            if self.terms.latency is None:        # a core that walks table nodes
                nodes, promotion_nodes = walk_limit(view)
                fixed, per_promotion = self.terms.fixed, self.terms.per_promotion
                checks.check("done within the cycle bound of the counted nodes",
                             counters.cycles <= counters.steps + per_promotion * counters.promotion_nodes + fixed,
                             finished)
                checks.check("the walk visits only nodes of its pieces' chains", counters.steps <= nodes, finished)
                checks.check("only pawns on the seventh rank promote",
                             counters.promotion_nodes <= promotion_nodes, finished)
                checks.check("done within the cycle bound of the board",
                             elapsed <= nodes + per_promotion * promotion_nodes + fixed, running)
            else:
                latency, empty = self.terms.latency, self.terms.empty
                checks.check("done within a cycle per move and the latency", elapsed <= transfers + latency, running)
                # checked at done: while it runs, a position with moves has none out before
                # step 18 either; the bound above makes every position done, so a position
                # done without a move was done within ``empty`` cycles
                checks.check("a position without moves is done within its bound",
                             (transfers != 0) | (elapsed <= empty), finished)

        elif prop == "abort":
            aborted = Signal(1)
            m.d.sync += aborted.eq(abort)
            checks.check("one cycle after abort the generator is idle",
                         ~dut.busy & ~moves.valid & ~dut.done & dut.start_ready, aborted)

        elif prop == "cover":
            piece = view.type_at(payload.frm)
            quiet = ~payload.capture & ~payload.double & ~payload.castle & (payload.promotion == 0)
            pawn_capture = payload.capture & ~payload.en_passant & (payload.promotion == 0)
            kinds = {
                "a piece move onto an empty square": (piece != PieceType.PAWN) & quiet,
                "a piece move capturing": (piece != PieceType.PAWN) & payload.capture,
                "a pawn push": (piece == PieceType.PAWN) & quiet,
                "a double push": payload.double,
                "a pawn capture": (piece == PieceType.PAWN) & pawn_capture,
                "an en-passant capture": payload.en_passant,
                "a promotion by a push": (payload.promotion != 0) & ~payload.capture,
                "a promotion by a capture": (payload.promotion != 0) & payload.capture,
                "castling kingside": payload.castle & payload.to[2],
                "castling queenside": payload.castle & ~payload.to[2],
            }
            stalled = Signal(1)
            m.d.sync += stalled.eq(moves.valid & ~moves.ready)
            kinds["a promotion taken after waiting under backpressure"] = stalled & (payload.promotion != 0)
            for name, condition in kinds.items():
                checks.cover(name, transfer & condition)
        return m


def fifo_invariants(checks, core):
    """What k-induction needs for the stream's rules, on either core: its output FIFO
    (:class:`~hwmovegen.rtl.fifo.PromotionFifo`, whose head is the stream) consistent. Without
    them the induction step starts from a full FIFO whose next write lands on the waiting move."""
    count, promo_index = internal(core, "fifo.count"), internal(core, "fifo.promo_index")
    read_ptr, write_ptr = internal(core, "fifo.read_ptr"), internal(core, "fifo.write_ptr")
    # both cores write below almost full (3): at most 3 entries, so a write never hits the head
    checks.check("invariant: the FIFO holds at most three moves", count <= 3)
    checks.check("invariant: the FIFO's pointers differ by its count", (write_ptr - read_ptr)[:2] == count[:2])
    # a promotion's four moves start at the queen: no expansion left in an empty FIFO
    checks.check("invariant: no promotion under way in an empty FIFO", (count != 0) | (promo_index == 0))


def walker_invariants(checks, core, outstanding):
    """What k-induction needs for the walker's control protocol: its walk's registers tied to
    each other, to its FIFO and to the harness's count of open positions. Without them the
    induction step starts from states reset never reaches (a FIFO holding moves of no position,
    a done pulse beside a busy walk)."""
    fifo_invariants(checks, core)
    walker_state = internal(core, "walker.fsm_state")
    busy, done = internal(core, "walker.busy"), internal(core, "walker.done")
    count = internal(core, "fifo.count")
    idle = in_state(walker_state, "IDLE")
    # the FSM's register has values that name no state: none is reachable
    checks.check("invariant: the walker is in one of its states", known_state(walker_state))
    # the walk's busy flag is its FSM's: set leaving IDLE, cleared entering it
    checks.check("invariant: the walker is busy exactly outside IDLE", busy == ~idle)
    # a position is open from its start until the cycle of its done pulse, one at a time
    checks.check("invariant: one position open, while busy or done", outstanding == (busy | done))
    checks.check("invariant: done only in IDLE", ~done | idle)
    # moves enter the FIFO only while the walker runs, and it drains before IDLE
    checks.check("invariant: the FIFO is empty before the walk runs",
                 (count == 0) | ~(idle | in_state(walker_state, "FILL") | in_state(walker_state, "LAUNCH")))


def _core_fragment(generator):
    """The core's elaborated fragment: the tests' copies with injected bugs wrap the real core
    as their submodule ``inner``."""
    core = [sub for sub, name, _ in generator.subfragments if name == "core"][0]
    while True:
        inner = [sub for sub, name, _ in core.subfragments if name == "inner"]
        if not inner:
            return core
        core = inner[0]
