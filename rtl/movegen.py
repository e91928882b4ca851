"""The top of the move generator: board RAM, a core and its ROMs."""

from typing import NamedTuple

from amaranth import Cat, Const, Module, Mux, ResetInserter, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables import Layout, get_layout
from ..tables.contracts import CORE_NAMES, LAYOUT_NAMES, SELECTABLE
from .counters import StreamCount
from .board import BoardRAM, EditSignature, LoadSignature
from .core import PLANES, ControlSignature
from .rom import MoveTableROM
from .fast import FastCore, NoRom
from .fifo import RECORDS
from .legality import LegalityStage
from .order import FIRST_BIN_DELAY, FirstBin, MoveOrderer, Order, order_named
from .options import Options
from .ports import group
from .types import COUNTER_WIDTH, BoardState, Counters
from .walker import WalkerCore

__all__ = ["MoveGenerator", "CORES", "CoreSpec", "generator_roms", "control_signature"]

class CoreSpec(NamedTuple):
    """A core in the registry: its component (whose ``contract`` holds its timing terms and
    protocol id, :mod:`hwmovegen.tables.contracts`) and the ROM component it reads."""
    component: type
    rom: type

    @property
    def contract(self):
        return self.component.contract


CORES = {spec.component.contract.name: spec for spec in (CoreSpec(WalkerCore, MoveTableROM), CoreSpec(FastCore, NoRom))}
assert tuple(CORES) == CORE_NAMES
# the contract's reads_rom (which keys models and reports by GeneratorConfig.canonical) is the registry's
assert all(bool(spec.rom.roms(get_layout(name))) == spec.contract.reads_rom
           for spec in CORES.values() for name in LAYOUT_NAMES)


def generator_roms(layout, core):
    """The ROMs a generator with this layout and core instantiates (``RomUse`` list),
    for a target to count its block RAMs."""
    if core not in CORES:
        raise KeyError(f"unknown core {core!r} (choose from {', '.join(CORES)})")
    layout = get_layout(layout) if isinstance(layout, str) else layout
    return CORES[core][1].roms(layout)


def control_signature(legal=False, order=False, abort=False):
    """The control of a generator built with ``legal`` (its ``all_moves``) and an order chosen per
    position (``order``, its ``order`` port): :class:`~.core.ControlSignature` from the
    generator's side."""
    return ControlSignature(abort=abort, **({"all_moves": In(1)} if legal else {}),
                            **({"order": In(Order)} if order else {}))


class MoveGenerator(wiring.Component):
    """Sandström's table-driven move generator.

    Parameters
    ----------
    layout : str or Layout
        The ROM layout (:data:`~hwmovegen.tables.LAYOUTS`), by name or built.
    core : str
        The core (:data:`CORES`).
    legal : bool
        The legality stage behind the core (:class:`~.legality.LegalityStage`).
    order : None, Order or ``"select"``
        None: no ordering stage. An :class:`~.order.Order`: the stage, its order fixed and no
        port (a simulation model per order). :data:`~hwmovegen.tables.contracts.SELECTABLE`:
        the stage with an ``order`` port, chosen per position.
    editable : bool
        The board's edit port and its view (for :class:`~.apply.MoveApplier`).
    positions : bool
        The position of the move on the stream (``move_planes``, ``move_state``).
    legal_count : bool
        ``legal_moves`` (with ``legal``).
    captures : bool
        ``captures_only`` and ``king_step`` (the fast core with ``legal``).

    Members
    -------
    Beside ``load`` and the optional ports, the members of a :func:`control_signature` (its
    :class:`~.core.ControlSignature`), flat, with ``abort``; ``control`` groups them for
    ``wiring.connect``.

    load : In(LoadSignature)
        Write the position: ``clear``, a rank per cycle, the state registers. The walker
        reads the board until ``done``; the fast core copies it at ``start``, so the next
        position may be written at once (its contract's ``load_while_busy``).
    start, start_ready : In(1), Out(1)
        ``start`` is taken in a cycle with ``start_ready``: generate the pseudo-legal moves
        of the loaded position. The walker is ready when idle; the fast core takes the next
        position while the previous one's moves still drain.
    abort : In(1)
        Synchronous reset of the core (the board keeps its contents).
    busy, done : Out(1)
        ``done`` pulses once per started position, in start order, after its last move
        has been taken; ``busy`` while a started position is not done.
    moves : Out(stream.Signature(Move))
        The move stream, in the golden model's emission order; honours ``ready``. With
        ``legal=True`` only the legal moves, the same order (:class:`~.legality.LegalityStage`).
    counters : Out(Counters)
        The counters of the current or last generation (:class:`~.types.Counters`). With
        ``legal=True``, ``moves``, ``stalls`` and ``cycles`` (the legality setup included)
        are counted at the legal stream; ``steps`` and ``promotion_nodes`` are the core's.
    all_moves : In(1), with ``legal=True`` only
        Sampled with ``start``: this position's pseudo-legal moves, the stage bypassed, with
        the stream, ``done`` and counters of the plain core, cycle for cycle (the host link's
        GENERATE without its ``legal`` flag). Low (the default), the legal moves. With the fast
        core such positions run back to back as without the stage; a legal one waits for them.
    edit, planes, board_state, board_free : with ``editable=True`` only
        The board's edit port (:class:`~.apply.MoveApplier` makes and unmakes moves through
        it between generations), the board as it stands, and whether it may be edited now:
        when idle, and with the fast core whenever the legality stage's setup is not reading
        it (the core copied the board at start, the stage keeps what it read), while moves
        still stream.
    order : In(Order), with ``order="select"`` only
        Sampled with ``start``: the order of this position's moves (:class:`~.order.MoveOrderer`),
        each with its ``check`` flag. The stream, ``done`` and the counters are then the ordered
        stream's; ``steps`` and ``promotion_nodes`` the core's. ``order=`` an :class:`~.order.Order`
        builds the orderer with that order fixed and no port (a simulation model per order).
        Without an orderer the flag is 0.
    legal_moves : Out, with ``legal=True`` and ``legal_count=True`` only
        The legal moves of the last legal position, counted before an order drops any (a
        quiescence search asks for the captures and must still tell a stalemate), valid from its
        ``done`` until the next ``start``.
    captures_only : In(1), with ``captures=True`` only (the fast core, ``legal``)
        Sampled with ``start``: the core streams the position's captures alone
        (:class:`~.fast.FastCore`), so a ``captures`` order's stream is the same, sooner, and
        ``legal_moves`` counts the legal captures.
    early : with an orderer only
        Each position's first ordered move leaves as it arrives, before the position is complete
        (:class:`~.order.FirstBin` forecasts its bin from the board, :class:`~.order.MoveOrderer`
        with ``early``): the same stream, its first move sooner, ``done`` a cycle sooner when it
        came so. ``start`` waits until the forecast has seen the board as it stands (two cycles
        after a load or an edit).
    king_step : Out(1), with ``captures=True`` only
        From the legality setup's end until the next ``start``: the king has a legal step, so
        the position is no stalemate whatever the captures.
    move_planes, move_state : with ``positions=True`` only
        The position the move on the stream was generated from, while ``moves.valid`` (with
        ``legal``, for the pseudo-legal moves of ``all_moves`` positions): the fast core keeps
        a copy of each position in flight, the walker's board holds it.
    """

    @classmethod
    def from_config(cls, config, **options):
        """The generator a :class:`~hwmovegen.tables.contracts.GeneratorConfig` names: its
        ``order`` fixed, or a port for :data:`~hwmovegen.tables.contracts.SELECTABLE`
        (``options``: ``editable``, ``positions``)."""
        order = config.order if config.order in (None, SELECTABLE) else order_named(config.order)
        return cls(layout=config.layout, core=config.core, legal=config.legal, order=order, **options)

    def __init__(self, *, layout="dense", core="walker", legal=False, order=None, editable=False, positions=False,
                 legal_count=False, captures=False, early=False):
        options = Options("MoveGenerator")
        options.check(isinstance(layout, Layout) or layout in LAYOUT_NAMES,
                      f"layout must be a Layout or one of {', '.join(LAYOUT_NAMES)}, not {layout!r}")
        options.choice("core", core, tuple(CORES))
        options.flag("legal", legal)
        options.check(order is None or order == SELECTABLE or isinstance(order, Order),
                      f"order must be None, an Order or {SELECTABLE!r}, not {order!r}")
        options.flag("editable", editable)
        options.flag("positions", positions)
        options.flag("legal_count", legal_count)
        options.check(not legal_count or legal, "legal_count needs the legality stage (legal=True)")
        options.flag("captures", captures)
        options.check(not captures or (core == "fast" and legal),
                      "captures needs the fast core and the legality stage (core='fast', legal=True)")
        options.flag("early", early)
        options.check(not early or order is not None, "early needs the ordering stage (an order)")
        options.done()
        self.early = early
        self.layout = get_layout(layout) if isinstance(layout, str) else layout
        self.core = core
        self.legal = legal
        self.editable = editable
        self.positions = positions
        self.legal_count = legal_count
        self.captures = captures
        self.ordered = order is not None
        self.fixed_order = order if isinstance(order, Order) else None
        super().__init__({
            "load": In(LoadSignature()),
            **control_signature(legal, order == SELECTABLE, abort=True).members,
            **({"edit": In(EditSignature()), "planes": Out(PLANES), "board_state": Out(BoardState),
                "board_free": Out(1)} if editable else {}),
            **({"move_planes": Out(PLANES), "move_state": Out(BoardState)} if positions else {}),
            **({"legal_moves": Out(COUNTER_WIDTH)} if legal_count else {}),
            **({"captures_only": In(1), "king_step": Out(1)} if captures else {}),
        })

    @property
    def control(self):
        """The generator's control as one interface (``abort`` left out), for ``wiring.connect``."""
        return group(self, control_signature(self.legal, self.ordered and self.fixed_order is None))

    @property
    def load_while_busy(self):
        """Whether the next position may be loaded while this one is generated (the
        legality stage reads the board during its setup: not with ``legal``)."""
        return CORES[self.core].contract.load_while_busy and not self.legal

    def roms(self):
        """The ROMs of this configuration (for block RAM accounting)."""
        return generator_roms(self.layout, self.core)

    def elaborate(self, platform):
        m = Module()
        core_class, rom_class = CORES[self.core]
        m.submodules.board = board = BoardRAM()
        m.submodules.rom = rom = rom_class(self.layout)
        core = core_class(layout=self.layout, **({"captures": True} if self.captures else {}))
        m.submodules.core = ResetInserter(self.abort)(core)
        wiring.connect(m, wiring.flipped(self.load), board.load)
        wiring.connect(m, core.rom, rom.bus)
        m.d.comb += [core.planes.eq(board.planes), core.state.eq(board.state)]
        if self.editable:
            wiring.connect(m, wiring.flipped(self.edit), board.edit)
            m.d.comb += [self.planes.eq(board.planes), self.board_state.eq(board.state)]
        # the position of the move on the core's stream: a copy of each position in flight (written
        # as it starts, read by the stream's record) for a core that runs them back to back
        move_planes, move_state = Signal(PLANES), Signal(BoardState)
        if (self.positions or self.ordered) and CORES[self.core].contract.load_while_busy:
            layout = data.StructLayout({"planes": PLANES, "state": BoardState})
            m.submodules.positions = copies = Memory(shape=layout, depth=RECORDS, init=[])
            write, read = copies.write_port(), copies.read_port(domain="comb")
            m.d.comb += [write.addr.eq(core.next_position), write.en.eq(core.start & core.start_ready),
                         write.data.planes.eq(board.planes), write.data.state.eq(board.state),
                         read.addr.eq(core.position),
                         move_planes.eq(read.data.planes), move_state.eq(read.data.state)]
        else:
            m.d.comb += [move_planes.eq(board.planes), move_state.eq(board.state)]
        if self.positions:
            m.d.comb += [self.move_planes.eq(move_planes), self.move_state.eq(move_state)]
        if self.editable and not self.legal:
            m.d.comb += self.board_free.eq(~self.busy)
        # what the core (and the legality stage) hand on: the ports themselves, or the orderer's input
        up = self.control if not self.ordered else ControlSignature().create(path=("up",))
        # with early, a copy of the board as it was at start, for the legality stage and the
        # orderer: the position's moves may be made on the board at once, while its moves still come
        started = None
        if self.early:
            started = Signal(PLANES, name="started_planes"), Signal(BoardState, name="started_state")
            with m.If(self.start & self.start_ready):
                m.d.sync += [started[0].eq(board.planes), started[1].eq(board.state)]
        tagged = self._generate(m, up, core, board, started)
        if self.ordered:
            # the legal stream's position is the board's (one at a time), a named one its copy
            planes, state = started if self.early else (board.planes, board.state)
            self._order(m, up, core, board, tagged, Mux(tagged, move_planes, planes), Mux(tagged, move_state, state))
        return m

    def _order(self, m, up, core, board, tagged, move_planes, move_state):
        """The orderer behind the generator: it takes the stream, ``done`` and the counters."""
        m.submodules.orderer = orderer = ResetInserter(self.abort)(MoveOrderer(early=self.early))
        wiring.connect(m, up.moves, orderer.moves_in)
        wiring.connect(m, orderer.moves, wiring.flipped(self.moves))
        ready = orderer.begin_ready
        if self.early:
            # the forecast of the board as it stands: no load or edit in the last FIRST_BIN_DELAY cycles
            m.submodules.first_bin = first_bin = FirstBin()
            m.d.comb += [first_bin.planes.eq(board.planes), first_bin.state.eq(board.state),
                         orderer.begin_bin.eq(first_bin.bin)]
            load = self.load
            wrote = load.clear | load.rank_en | load.state_en
            if self.editable:
                wrote = wrote | self.edit.square_en | self.edit.state_en
            calm = Signal(FIRST_BIN_DELAY)     # bit k: no write k + 1 cycles ago, nor since
            m.d.sync += calm.eq(Cat(~wrote, calm[:-1] & ~wrote))
            ready = ready & calm[-1]
        m.d.comb += [
            up.start.eq(self.start & ready),
            self.start_ready.eq(up.start_ready & ready),
            orderer.begin.eq(self.start & self.start_ready),
            orderer.order.eq(self.order if self.fixed_order is None else self.fixed_order),
            orderer.begin_position.eq(core.next_position),
            orderer.planes.eq(move_planes), orderer.state.eq(move_state),
            orderer.foreign.eq(tagged & (core.position != orderer.position)),
            orderer.end.eq(up.done), orderer.end_counters.eq(up.counters),
            self.busy.eq(up.busy | orderer.busy), self.done.eq(orderer.done), self.counters.eq(orderer.counters),
        ]

    def _generate(self, m, up, core, board, started=None):
        """The core's stream, filtered by the legality stage with ``legal``, onto ``up``. Returns
        whether the stream's moves are named by ``core.position`` (positions back to back).
        ``started``: the copy of the board taken at start (planes, state), which the stage's setup
        reads from the cycle after start (in that cycle, the first rank from the board)."""
        if not self.legal:
            wiring.connect(m, wiring.flipped(up), group(core, ControlSignature()))
            return Const(int(CORES[self.core].contract.load_while_busy), 1)

        # legal: the stage filters the core's stream; the counters follow the legal stream.
        # `bypass` (all_moves at start) hands the core's stream and counters out as they are.
        m.submodules.legality = stage = ResetInserter(self.abort)(LegalityStage(king_step=self.captures))
        pending, active = Signal(1), Signal(1)      # the core is done / a position is under way
        bypass = Signal(1)
        starting = up.start & up.start_ready
        with m.If(starting):
            m.d.sync += bypass.eq(self.all_moves)
        m.d.comb += [
            core.start.eq(starting),
            # a legal position alone, so that the stream's source never changes under a position;
            # pseudo-legal ones (the stage bypassed) back to back, as the core runs them
            up.start_ready.eq(core.start_ready & ~active & (~core.busy | (bypass & self.all_moves))),
            stage.start.eq(starting & ~self.all_moves),
            *([stage.planes.eq(board.planes)] if started is None else []), stage.state.eq(board.state),
        ]
        if started is not None:
            for k in range(len(board.planes)):
                m.d.comb += stage.planes[k].eq(Cat(Mux(starting, board.planes[k][:8], started[0][k][:8]),
                                                   started[0][k][8:]))
        out = up.moves
        with m.If(bypass):
            m.d.comb += [out.valid.eq(core.moves.valid), out.payload.eq(core.moves.payload),
                         core.moves.ready.eq(out.ready)]
        with m.Else():
            wiring.connect(m, core.moves, stage.moves_in)
            m.d.comb += [out.valid.eq(stage.moves_out.valid), out.payload.eq(stage.moves_out.payload),
                         stage.moves_out.ready.eq(out.ready)]
        finishing = (pending | core.done) & (~out.valid | out.ready)
        if self.captures:
            # a captures position is done with the setup (``king_step``), even if the core was sooner
            only = Signal(1)
            with m.If(starting):
                m.d.sync += only.eq(self.captures_only)
            finishing = finishing & (~only | stage.ready)
        # the legal stream's counters stop with the position's last cycle and hold until the
        # next start (no copy latched at done)
        legal_start = starting & ~self.all_moves
        count = StreamCount(m, out.valid, out.ready, restart=legal_start, cycle=active, watch=active, first_cycle=1)
        done = Signal(1)
        with m.If(legal_start):
            m.d.sync += [active.eq(1), pending.eq(0)]
        with m.Elif(active):
            with m.If(core.done):
                m.d.sync += pending.eq(1)
            with m.If(finishing):
                m.d.sync += [active.eq(0), pending.eq(0)]
        counted = Signal(Counters)
        m.d.comb += [counted.cycles.eq(count.cycles), counted.moves.eq(count.moves),
                     counted.stalls.eq(count.stalls),
                     counted.steps.eq(core.counters.steps),
                     counted.promotion_nodes.eq(core.counters.promotion_nodes)]
        m.d.sync += done.eq(active & ~starting & finishing)
        with m.If(self.abort):
            m.d.sync += [active.eq(0), pending.eq(0), done.eq(0)]
        if self.editable:
            if CORES[self.core].contract.load_while_busy:      # the core's copy and the stage's setup hold the position
                # (with early the stage reads its copy: the board is free)
                m.d.comb += self.board_free.eq(1 if started is not None else ~(active & ~stage.ready))
            else:
                m.d.comb += self.board_free.eq(~self.busy)
        if self.legal_count:
            m.d.comb += self.legal_moves.eq(count.moves)
        if self.captures:
            m.d.comb += [core.captures_only.eq(self.captures_only), self.king_step.eq(stage.king_step)]
        m.d.comb += [up.busy.eq(active | core.busy),
                     up.done.eq(Mux(bypass, core.done, done)),
                     up.counters.eq(Mux(bypass, core.counters, counted))]
        # the legal stream runs one position at a time; pseudo-legal ones back to back, named
        return bypass & Const(int(CORES[self.core].contract.load_while_busy), 1)
