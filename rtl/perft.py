"""Perft in hardware: depth-first walks of the legal move tree, one or many engines.

:class:`PerftEngine` owns a legal generator (either core, the legality stage behind
it) whose board it edits through a :class:`~.apply.MoveApplier`. At each ply above
the last two it generates the legal moves into that ply's move list (:class:`MoveLists`),
then makes each in turn, walks below it and unmakes it. The last two plies, where nearly
all of a perft's nodes are, are a :class:`~.leafcount.LeafCounter`'s: the ply above the
leaf-parents streams its pseudo-legal moves into it, and it counts each one's legal replies
whole (without it, on the UP5K, the last ply's legal moves are counted as they stream). With
the fast core the walk does not wait for the stream either: once the generator has read the
board (``board_free``), it unmakes and makes the next move while the moves still pass.

:class:`PerftArray` runs ``engines`` of them on the same root. The work is shared
at the *split ply* (2 unless the depth is smaller): its nodes, numbered in the walk's
order, are the tasks. Every engine walks the plies above it (a few dozen
generations, the same order everywhere, so a task's number names the same node in
every engine) and descends only into the nodes whose numbers it took from the
array's dispatcher, one counter handing out the next number. An engine takes a new
task as soon as it finishes one, so the engines stay busy until the last tasks.
"""

from amaranth import Module, Signal, Array, Cat, Const, Mux, Shape, Instance, ClockSignal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables.contracts import MAX_LEGAL_MOVES, MAX_MOVES, MAX_PLIES
from .apply import MoveApplier
from .board import LoadSignature
from .leafcount import LeafCounter
from .movegen import MoveGenerator
from .options import Options
from .ports import group
from .types import Move, PERFT_COUNTER_NAMES, PerftCounters

__all__ = ["MoveLists", "PerftEngine", "PerftArray", "PerftControlSignature", "TaskSignature", "TaskDispatcher",
           "MAX_MOVES", "SPLIT_PLY", "task_bits"]

LIST_BITS = (MAX_MOVES - 1).bit_length()     # a move's index in its ply's list: the list address's low bits
assert MAX_MOVES == 1 << LIST_BITS, "the lists are addressed as Cat(index, ply)"
# the array sums every engine counter but ``cycles``, which it counts itself
SUMMED = tuple(name for name in PERFT_COUNTER_NAMES if name != "cycles")
SPLIT_PLY = 2           # the tasks: the nodes two plies below the root (400 from the start position)


def task_bits(split_ply):
    """Bits of a task number: the nodes at the split ply, with room to run past the last."""
    return (MAX_LEGAL_MOVES ** split_ply + MAX_MOVES).bit_length()


class PerftControlSignature(wiring.Signature):
    """Perft control, from the engine's (or the array's) side: ``depth`` (plies, 1 to ``max_depth``)
    is sampled with ``start``, taken when idle; ``done`` pulses once the walk is over, and
    ``counters`` hold its figures from then on; ``busy`` until then."""

    def __init__(self, max_depth):
        super().__init__({
            "depth": In(range(max_depth + 1)),
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "counters": Out(PerftCounters),
        })


class TaskSignature(wiring.Signature):
    """How an engine takes its next task from the dispatcher: ``request`` until ``grant``,
    in whose cycle ``index`` is the task's number."""

    def __init__(self, split_ply):
        super().__init__({
            "request": Out(1),
            "grant": In(1),
            "index": In(task_bits(split_ply)),
        })


class TaskDispatcher(wiring.Component):
    """Hands out the task numbers, from registers: the lowest-numbered engine asking on ``tasks``
    gets the next number a cycle later (the engine granted in a cycle is still asking in it: left
    out). ``restart`` numbers from 0 again."""

    def __init__(self, engines, split_ply):
        self.split_ply = split_ply
        super().__init__({
            "restart": In(1),
            "tasks": In(TaskSignature(split_ply)).array(engines),
        })

    def elaborate(self, platform):
        m = Module()
        tasks = self.tasks
        next_task, number = Signal(task_bits(self.split_ply)), Signal(task_bits(self.split_ply))
        grant = Signal(len(tasks))
        asking = Signal(len(tasks))
        m.d.comb += asking.eq(Cat(task.request for task in tasks) & ~grant)
        m.d.sync += grant.eq(asking & (~asking + 1)[:len(tasks)])
        with m.If(asking.any()):
            m.d.sync += [number.eq(next_task), next_task.eq(next_task + 1)]
        with m.If(self.restart):
            m.d.sync += next_task.eq(0)
        for index, task in enumerate(tasks):
            m.d.comb += [task.grant.eq(grant[index]), task.index.eq(number)]
        return m


def _check_options(owner, *, max_depth, split_ply, count_leaves, engines=1):
    """An engine's or an array's own options (the generator checks the layout and the core)."""
    options = Options(owner)
    options.count("engines", engines, 1)
    options.count("max_depth", max_depth, 1, MAX_PLIES)
    options.count("split_ply", split_ply, 0, MAX_PLIES)
    options.flag("count_leaves", count_leaves)
    options.done()


class MoveLists(wiring.Component):
    """The engine's move lists: one port, a word written or read each cycle (the read word
    the next cycle). A ply's list is written while it generates and read while it is walked,
    never both at once, so one port serves.

    On an iCE40 UltraPlus the lists are its single-port RAMs (SPRAM): the walker's ROMs fill
    the block RAMs, and Yosys maps no memory with an initial value to SPRAM. Elsewhere, and
    in simulation, a :class:`~amaranth.lib.memory.Memory`.

    With ``read_addr`` (the search engine, which walks one ply's list while the next moves of
    another still arrive) the read has its own address, read every cycle, and ``addr`` is the
    write's: a block RAM's two ports (no SPRAM).
    """

    SPRAM_WIDTH, SPRAM_ADDR_BITS = 16, 14     # SB_SPRAM256KA: 16384 words of 16 bits

    def __init__(self, depth, *, read_addr=False):
        self.depth, self.two_ports = depth, read_addr
        super().__init__({
            "addr": In(range(depth)),
            "write": In(1),
            "write_data": In(Move),
            "read_data": Out(Move),
            **({"read_addr": In(range(depth))} if read_addr else {}),
        })

    def elaborate(self, platform):
        m = Module()
        if getattr(platform, "device", "").startswith("iCE40UP") and self.depth <= 1 << self.SPRAM_ADDR_BITS \
                and not self.two_ports:
            width = Shape.cast(Move).width
            words = -(-width // self.SPRAM_WIDTH)
            data_in, data_out = Signal(words * self.SPRAM_WIDTH), Signal(words * self.SPRAM_WIDTH)
            m.d.comb += [data_in.eq(self.write_data), self.read_data.eq(data_out[:width])]
            for word in range(words):
                part = slice(word * self.SPRAM_WIDTH, (word + 1) * self.SPRAM_WIDTH)
                m.submodules[f"spram{word}"] = Instance(
                    "SB_SPRAM256KA",
                    i_ADDRESS=Cat(self.addr, Const(0, self.SPRAM_ADDR_BITS - len(self.addr))),
                    i_DATAIN=data_in[part], i_MASKWREN=Const(0b1111, 4), i_WREN=self.write,
                    i_CHIPSELECT=1, i_CLOCK=ClockSignal(), i_STANDBY=0, i_SLEEP=0, i_POWEROFF=1,
                    o_DATAOUT=data_out[part])
            return m
        m.submodules.memory = memory = Memory(shape=Move, depth=self.depth, init=[])
        store, fetch = memory.write_port(), memory.read_port(transparent_for=())
        m.d.comb += [store.addr.eq(self.addr), store.data.eq(self.write_data), store.en.eq(self.write)]
        if self.two_ports:
            m.d.comb += fetch.addr.eq(self.read_addr)
        else:
            m.d.comb += [fetch.addr.eq(self.addr), fetch.en.eq(~self.write)]
        m.d.comb += self.read_data.eq(fetch.data)
        return m


class PerftEngine(wiring.Component):
    """Counts the leaves of its tasks' subtrees of the loaded position to ``depth`` plies.

    With ``count_leaves`` (the default) the last two plies are a :class:`~.leafcount.LeafCounter`'s:
    the *frontier* ply (the one above the leaf-parents) generates its pseudo-legal moves, back to
    back as the core allows, and each goes straight into the counter with the position it was
    generated from; the counter counts the legal moves of the position it leads to (none if the
    move was illegal). Nothing at the last ply is generated or made, and the frontier's moves
    are not stored: the walk goes on as soon as the core has copied the board. Without it (the
    UP5K, where the counter does not fit), the last ply's legal moves are generated and counted
    as they stream.

    Parameters
    ----------
    layout : str or Layout
        The generator's ROM layout.
    core : str
        The generator's core.
    max_depth : int
        The deepest walk, 1 to :data:`MAX_PLIES` (the move lists and the applier's stack).
    split_ply : int
        The ply whose nodes are the tasks shared with other engines (:class:`TaskDispatcher`).
    count_leaves : bool
        The last two plies counted by a :class:`~.leafcount.LeafCounter`.

    Members
    -------
    load : In(LoadSignature)
        The root position, as for :class:`~.movegen.MoveGenerator`.
    depth : In
        Plies to walk, 1 to ``max_depth``; sampled with ``start``.
    start : In(1)
        Taken when idle.
    task : Out(TaskSignature)
        To the dispatcher (:class:`TaskDispatcher`, in :class:`PerftArray`).
    busy, done : Out(1)
        ``done`` pulses once the walk is over (the board holds the root again);
        ``counters`` hold its figures from then on.
    counters : Out(PerftCounters)
    """

    def __init__(self, *, layout="dense", core="walker", max_depth=MAX_PLIES, split_ply=SPLIT_PLY, count_leaves=True):
        _check_options("PerftEngine", max_depth=max_depth, split_ply=split_ply, count_leaves=count_leaves)
        self.layout, self.core, self.max_depth, self.split_ply = layout, core, max_depth, split_ply
        self.count_leaves = count_leaves
        # built here, so that a testbench can watch the board and the stack (it checks the
        # layout and the core)
        self.generator = MoveGenerator(layout=layout, core=core, legal=True, editable=True, positions=count_leaves)
        self.applier = MoveApplier(max_depth)
        self.counter = LeafCounter() if count_leaves else None
        super().__init__({
            "load": In(LoadSignature()),
            **PerftControlSignature(max_depth).members,
            "task": Out(TaskSignature(split_ply)),
        })

    @property
    def control(self):
        """The perft control as one interface, for ``wiring.connect``."""
        return group(self, PerftControlSignature(self.max_depth))

    def elaborate(self, platform):
        m = Module()
        m.submodules.generator = gen = self.generator
        m.submodules.applier = applier = self.applier
        m.submodules.lists = lists = MoveLists(self.max_depth * MAX_MOVES)
        wiring.connect(m, wiring.flipped(self.load), gen.load)
        wiring.connect(m, applier.edit, gen.edit)
        m.d.comb += [applier.planes.eq(gen.planes), applier.state.eq(gen.board_state)]

        ply_bits = range(self.max_depth)
        # `bottom`: the ply whose moves are not stored (the frontier, or the last ply without the
        # counter); `split`: the ply of the tasks; `root`: depth 1 with the counter, the root counted
        ply, bottom, split = Signal(ply_bits), Signal(ply_bits), Signal(ply_bits)
        root = Signal(1)
        counts = Array(Signal(range(MAX_MOVES + 1), name=f"count{p}") for p in range(self.max_depth))
        indices = Array(Signal(range(MAX_MOVES + 1), name=f"index{p}") for p in range(self.max_depth))
        written = Signal(range(MAX_MOVES + 1))
        left = Signal(range(MAX_MOVES + 1))    # the moves of the ply not yet walked (SKIP)
        counters = Signal(PerftCounters)
        m.d.comb += [self.counters.eq(counters), self.counters.engine_cycles.eq(counters.cycles)]

        # the tasks: `passed` counts the split ply's nodes this walk has reached (taken or
        # not), `task` is the number held (valid with `holding`)
        task = self.task
        passed, held, holding = Signal(len(task.index)), Signal(len(task.index)), Signal(1)
        with m.If(task.request & task.grant):
            m.d.sync += [held.eq(task.index), holding.eq(1)]

        # EXPAND's decisions, from registers: each is its comparison a cycle late, exact in EXPAND
        # because EXPAND is entered from IDLE (set there) or after MAKING (ply, split and passed
        # settled), and a grant in EXPAND is compared as it comes. In a large array the comparisons
        # fed the generator's start and the legality stage behind it (24 logic levels).
        at_split, elsewhere, at_bottom = Signal(1), Signal(1), Signal(1)
        m.d.sync += [at_split.eq(ply == split), at_bottom.eq(ply == bottom),
                     elsewhere.eq(passed != Mux(task.request & task.grant, task.index, held))]

        idle = Signal(1)
        moves = gen.moves
        # The bottom ply's moves are counted as they stream, in any state: the walk goes on as
        # soon as the generator's board is free, and the next start waits for the generator.
        streaming = Signal(1)               # the positions under way are at the bottom ply
        with m.If(gen.start & gen.start_ready):
            m.d.sync += streaming.eq(at_bottom)
        counter_busy = Const(0, 1)
        if self.count_leaves:
            m.submodules.counter = counter = self.counter
            counter_busy = counter.busy
            rooting = Signal(1)             # depth 1: the root itself, counted
            m.d.comb += [
                counter.valid.eq((moves.valid & streaming) | rooting), counter.null.eq(rooting),
                counter.move.eq(moves.payload),
                counter.planes.eq(Mux(rooting, gen.planes, gen.move_planes)),
                counter.state.eq(Mux(rooting, gen.board_state, gen.move_state)),
                gen.all_moves.eq(at_bottom),
            ]
            with m.If(counter.out_valid):
                m.d.sync += [counters.nodes.eq(counters.nodes + counter.count),
                             counters.leaf_parents.eq(counters.leaf_parents + counter.legal)]
        else:
            with m.If(streaming & moves.valid):
                m.d.sync += counters.nodes.eq(counters.nodes + 1)
        m.d.comb += [
            moves.ready.eq(1),
            lists.addr.eq(Mux(lists.write, Cat(written[:LIST_BITS], ply), Cat(indices[ply][:LIST_BITS], ply))),
            lists.write_data.eq(moves.payload),
            applier.commands.payload.move.eq(lists.read_data),
        ]

        with m.FSM(name="perft"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(self.start):
                    below = self.depth - (2 if self.count_leaves else 1)   # the bottom ply
                    shallow = self.depth == 1 if self.count_leaves else 0
                    bottom_now = Mux(shallow, 0, below)
                    split_now = Mux(shallow, 0, Mux(below < self.split_ply, below, self.split_ply))
                    m.d.sync += [ply.eq(0), root.eq(shallow), bottom.eq(bottom_now), split.eq(split_now),
                                 at_split.eq(split_now == 0), at_bottom.eq(bottom_now == 0), elsewhere.eq(0),
                                 passed.eq(0), holding.eq(0),
                                 counters.eq(0), counters.cycles.eq(1)]
                    m.next = "EXPAND"
            with m.State("EXPAND"):         # generate at this ply
                with m.If(at_split & ~holding):
                    m.d.comb += task.request.eq(1)
                with m.Elif(at_split & elsewhere):      # another engine's node
                    m.d.sync += passed.eq(passed + 1)
                    m.next = "BACK"
                with m.Elif(root):
                    m.d.sync += [passed.eq(passed + 1), holding.eq(0)]
                    m.next = "ROOT"
                with m.Else():
                    m.d.comb += gen.start.eq(gen.start_ready)
                    m.d.sync += [written.eq(0), counters.generate_cycles.eq(counters.generate_cycles + 1)]
                    with m.If(gen.start_ready):
                        with m.If(at_split):
                            m.d.sync += [passed.eq(passed + 1), holding.eq(0)]
                        with m.If(at_bottom):
                            m.next = "LEAVE"
                        with m.Else():
                            m.next = "GENERATE"
            with m.State("ROOT"):           # depth 1: the root's own moves, counted at once
                if self.count_leaves:
                    m.d.comb += rooting.eq(1)
                m.next = "BACK"
            with m.State("GENERATE"):       # a ply above the bottom: its legal moves into its list
                m.d.sync += counters.generate_cycles.eq(counters.generate_cycles + 1)
                with m.If(moves.valid):
                    m.d.comb += lists.write.eq(1)
                    m.d.sync += written.eq(written + 1)
                with m.If(gen.done):
                    m.d.sync += [counts[ply].eq(gen.counters.moves), indices[ply].eq(0),
                                 counters.interior.eq(counters.interior + 1)]
                    m.next = "NEXT"
            with m.State("LEAVE"):          # the bottom ply: go on once the generator holds the board
                m.d.sync += counters.generate_cycles.eq(counters.generate_cycles + 1)
                with m.If(gen.board_free):
                    m.next = "BACK"
            with m.State("NEXT"):           # the next move of this ply, read from its list
                remaining = counts[ply] - indices[ply]
                with m.If(remaining == 0):
                    m.next = "BACK"
                with m.Elif(ply + 1 == split):
                    m.d.sync += left.eq(remaining)
                    m.next = "SKIP"
                with m.Else():
                    m.next = "MAKE"
            with m.State("SKIP"):
                # above the split ply: pass over the moves that lead to others' nodes. A state
                # of its own, from registered counts: in a large array this arithmetic was the
                # critical path (27 logic levels in NEXT).
                ahead = held - passed       # split-ply nodes before the one held
                with m.If(~holding):
                    m.d.comb += task.request.eq(1)
                with m.Elif(ahead >= left):
                    m.d.sync += [passed.eq(passed + left), indices[ply].eq(counts[ply])]
                    m.next = "BACK"
                with m.Elif(ahead != 0):
                    m.d.sync += [passed.eq(held), indices[ply].eq(indices[ply] + ahead)]
                    m.next = "NEXT"
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
            with m.State("DONE"):           # the last moves counted
                with m.If(~gen.busy & ~counter_busy):
                    m.d.comb += self.done.eq(1)
                    m.next = "IDLE"
        m.d.comb += self.busy.eq(~idle)
        with m.If(~idle):
            m.d.sync += counters.cycles.eq(counters.cycles + 1)
        return m


class PerftArray(wiring.Component):
    """``engines`` perft engines on one root position, sharing its tree.

    Parameters
    ----------
    engines : int
        The engines, at least one.
    layout, core, max_depth, split_ply, count_leaves
        Every engine's, as for :class:`PerftEngine`.

    Members
    -------
    As :class:`PerftEngine`'s, without ``task``. ``counters`` sum the engines'
    (``engine_cycles``: their busy cycles), except ``cycles``: from the cycle that takes
    ``start`` to ``done``, which comes once the last engine is done and the sums are
    made (one cycle per engine).
    """

    @classmethod
    def from_config(cls, config, **options):
        """The array a :class:`~hwmovegen.tables.contracts.GeneratorConfig` names: its
        ``perft_engines`` engines (at least one), ``max_plies`` and ``count_leaves``."""
        return cls(layout=config.layout, core=config.core, engines=config.perft_engines, max_depth=config.max_plies,
                   count_leaves=config.count_leaves, **options)

    def __init__(self, *, layout="dense", core="walker", engines=1, max_depth=MAX_PLIES, split_ply=SPLIT_PLY,
                 count_leaves=True):
        _check_options("PerftArray", engines=engines, max_depth=max_depth, split_ply=split_ply,
                       count_leaves=count_leaves)
        self.layout, self.core, self.max_depth, self.split_ply = layout, core, max_depth, split_ply
        self.count_leaves = count_leaves
        self.engines = [PerftEngine(layout=layout, core=core, max_depth=max_depth, split_ply=split_ply,
                                    count_leaves=count_leaves) for _ in range(engines)]
        super().__init__({
            "load": In(LoadSignature()),
            **PerftControlSignature(max_depth).members,
        })

    control = PerftEngine.control

    def elaborate(self, platform):
        m = Module()
        engines = self.engines
        for index, engine in enumerate(engines):
            m.submodules[f"engine{index}"] = engine
        wiring.connect(m, wiring.flipped(self.load), *[engine.load for engine in engines])

        m.submodules.dispatcher = dispatcher = TaskDispatcher(len(engines), self.split_ply)
        for task, engine in zip(dispatcher.tasks, engines):
            wiring.connect(m, task, engine.task)

        idle = Signal(1)
        m.d.comb += [self.busy.eq(~idle), dispatcher.restart.eq(self.start & idle)]
        if len(engines) == 1:               # nothing to sum
            engine, = engines
            # the engine takes start only when idle, as the array does
            wiring.connect(m, wiring.flipped(self.control), engine.control)
            m.d.comb += idle.eq(~engine.busy)
            return m

        finished = Signal(len(engines))
        summing = Signal(range(len(engines)))
        counters = Signal(PerftCounters)
        m.d.comb += self.counters.eq(counters)
        # the engines start a cycle after the array, from a register: each engine's start fans out
        # to its whole walk, and in a large array the engines lie far apart
        go, depth = Signal(1), Signal.like(self.depth)
        m.d.sync += go.eq(self.start & idle)
        with m.If(self.start & idle):
            m.d.sync += depth.eq(self.depth)
        for index, engine in enumerate(engines):
            m.d.comb += [engine.depth.eq(depth), engine.start.eq(go)]
            with m.If(engine.done):
                m.d.sync += finished[index].eq(1)
        addend = Array(engine.counters for engine in engines)[summing]
        with m.FSM(name="array"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(self.start):
                    m.d.sync += [finished.eq(0), summing.eq(0),
                                 counters.eq(0), counters.cycles.eq(1)]
                    m.next = "WALK"
            with m.State("WALK"):
                with m.If(finished.all() & ~go):
                    m.next = "SUM"
            with m.State("SUM"):            # one engine's counters a cycle
                for name in SUMMED:
                    m.d.sync += counters[name].eq(counters[name] + addend[name])
                m.d.sync += summing.eq(summing + 1)
                with m.If(summing == len(engines) - 1):
                    m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        with m.If(~idle):
            m.d.sync += counters.cycles.eq(counters.cycles + 1)
        return m
