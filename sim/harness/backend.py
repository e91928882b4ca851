"""The simulators' interfaces, and their implementations that need no compiler.

A generator backend (:class:`Backend`) turns python-chess Boards into
:class:`~hwmovegen.sim.model.Generation` results (moves plus counters): ``model`` walks the tables
in Python; the hardware backends simulate the RTL and add ``cycles`` and ``stalls``. A perft
simulator (:class:`PerftSimulator`) walks whole trees in a simulated
:class:`~hwmovegen.rtl.perft.PerftArray`. What each can do is declared on the class, never probed;
the registry that picks one by name is :mod:`hwmovegen.sim.backends`.
"""

import abc

from amaranth.sim import Simulator

from ...rtl import MoveGenerator
from ...rtl.perft import PerftArray
from ...rtl.types import PERFT_COUNTER_NAMES
from ...tables.contracts import GeneratorConfig
from ..model import Position, generate
from . import pysim as tb
from . import trace as cycle_trace

__all__ = ["Backend", "ModelBackend", "PysimBackend", "PerftSimulator", "PysimPerft"]


class Backend(abc.ABC):
    """A move generator of one :class:`~hwmovegen.tables.contracts.GeneratorConfig` (its layout,
    core, legality stage and order read through), simulated or modelled. ``name`` is the backend
    that actually runs.

    What a backend can do is declared here, as class attributes its subclasses override:

    ``hardware``
        Its cycles and stalls are the simulated RTL's.
    ``traces``
        :meth:`trace` records every cycle of a position.
    ``backpressure``
        Random ``ready`` on the move stream (``ready_probability`` < 1).
    ``waveforms``
        ``vcd_path`` set, :meth:`run` writes the waveform.
    ``compiled``
        A compiled model: ``clock_cycles`` counts every simulated cycle and ``core_seconds`` the
        wall time inside the simulator (what ``bench`` measures).

    And what its last work measured: ``overlap`` (a batch runs back to back, the next position
    loaded while one generates), ``last_span`` (then the cycles from the last batch's first start
    to its last done, else 0), ``clock_cycles`` and ``core_seconds`` (0 where not ``compiled``).
    """
    name = None
    hardware = False
    traces = False
    backpressure = False
    waveforms = False
    compiled = False

    config = GeneratorConfig()
    ready_probability = 1.0
    seed = 1
    overlap = False
    last_span = 0
    clock_cycles = 0
    core_seconds = 0.0

    layout = property(lambda self: self.config.layout)
    core = property(lambda self: self.config.core)
    legal = property(lambda self: self.config.legal)
    order = property(lambda self: self.config.order)

    def __init__(self, config=GeneratorConfig(), ready_probability=1.0, seed=1, log=None):
        self.config, self.ready_probability, self.seed, self.log = config, ready_probability, seed, log

    @property
    def settings(self):
        """What builds this backend again elsewhere (a worker process):
        ``get_backend(**settings)`` (:mod:`hwmovegen.sim.backends`)."""
        return {"name": self.name, "config": self.config, "ready_probability": self.ready_probability,
                "seed": self.seed}

    def prepare(self):
        """Build or find what the backend needs (a compiled model) now rather than on first use."""

    def reseed(self, seed):
        """Start again from a fresh simulator whose backpressure draws from ``seed`` (a compare's
        batches each have their own, so that results do not depend on where a batch runs);
        ``seed`` itself, the backend's setting, stays. Nothing to do without backpressure."""

    @abc.abstractmethod
    def run(self, boards):
        """The :class:`~hwmovegen.sim.model.Generation` of each python-chess Board, in order."""

    def generate(self, board):
        """One board's Generation."""
        return self.run([board])[0]

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle trace
        (:mod:`.trace`), checked against its counters. Only where ``traces``."""
        raise NotImplementedError(f"the {self.name} backend records no cycle trace")


class ModelBackend(Backend):
    name = "model"

    def generate(self, board):
        return generate(Position.from_board(board, check=False), self.layout, legal=self.legal, order=self.order)

    def run(self, boards):
        return [self.generate(board) for board in boards]


class PysimBackend(Backend):
    """The RTL in Amaranth's Python simulator (a few thousand cycles/s: tests and waveforms)."""
    name = "pysim"
    hardware = True
    traces = True
    waveforms = True

    def __init__(self, config=GeneratorConfig(), ready_probability=1.0, seed=1, log=None):
        super().__init__(config, ready_probability, seed, log)
        self.vcd_path = None
        self._session = None

    def run(self, boards):
        positions = [Position.from_board(board, check=False) for board in boards]
        return tb.simulate(positions, self.config, vcd=self.vcd_path)

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle
        trace from the cycle that takes ``start`` to its ``done`` (:mod:`.trace`), checked
        against its counters."""
        traces = []
        result = tb.simulate([Position.from_board(board, check=False)], self.config, traces=traces)[0]
        samples = cycle_trace.window(traces[0])
        cycle_trace.check(result, samples)
        return result, samples

    def generate(self, board):
        """One position on a simulator kept alive between calls (perft calls this per node)."""
        if self.vcd_path:
            return self.run([board])[0]
        if self._session is None:
            self._session = _PysimSession(self.config)
        return self._session.generate(Position.from_board(board, check=False))


class _PysimSession:
    def __init__(self, config):
        self.request = self.result = None
        dut = MoveGenerator.from_config(config)

        async def serve(ctx):
            while True:
                if self.request is None:
                    await ctx.tick()
                    continue
                position, self.request = self.request, None
                self.result = await tb.generate(ctx, dut, position)

        self.sim = Simulator(dut)
        self.sim.add_clock(1e-8)
        self.sim.add_testbench(serve, background=True)

    def generate(self, position):
        self.request, self.result = position, None
        while self.result is None:
            self.sim.advance()
        return self.result


class PerftSimulator(abc.ABC):
    """A simulated :class:`~hwmovegen.rtl.perft.PerftArray` of one
    :class:`~hwmovegen.tables.contracts.GeneratorConfig` (its ``perft_engines``, ``max_plies``,
    ``count_leaves``): the host loads a root, starts the array and reads its counters. ``name``
    is the simulator's backend name."""
    name = None

    def __init__(self, config, log=None):
        self.config = config
        self.log = log

    def prepare(self):
        """Build or find what the simulator needs (a compiled model) now rather than on first use."""

    @abc.abstractmethod
    def run(self, board, depth, progress=None):
        """The PerftCounters (a dict by :data:`~hwmovegen.rtl.types.PERFT_COUNTER_NAMES`) of a walk
        of ``depth`` plies below the python-chess ``board``; ``progress(n)`` as simulated cycles
        pass (where the simulator counts them)."""


class PysimPerft(PerftSimulator):
    """A PerftArray in Amaranth's simulator (``dut``; small trees); ``run`` takes extra background
    testbenches (``watchers``, ``async def watcher(ctx)``) that observe the walk."""
    name = "pysim"

    def __init__(self, config=GeneratorConfig(perft_engines=1), log=None):
        super().__init__(config, log)
        self.dut = PerftArray.from_config(config)

    def run(self, board, depth, progress=None, watchers=()):
        dut, result = self.dut, {}

        async def bench(ctx):
            await tb.load(ctx, dut, board)
            ctx.set(dut.depth, depth)
            ctx.set(dut.start, 1)
            await ctx.tick()
            ctx.set(dut.start, 0)
            while not ctx.get(dut.done):
                await ctx.tick()
            counters = ctx.get(dut.counters)
            result.update({name: getattr(counters, name) for name in PERFT_COUNTER_NAMES})

        sim = Simulator(dut)
        sim.add_clock(1e-8)
        sim.add_testbench(bench)
        for watcher in watchers:
            sim.add_testbench(watcher, background=True)
        sim.run()
        return result
