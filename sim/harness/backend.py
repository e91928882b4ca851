"""The move-generator backend interface, and the two backends without a compiler.

A backend turns python-chess Boards into :class:`~hwmovegen.sim.model.Generation` results
(moves plus counters). ``model`` walks the tables in Python; the hardware backends simulate the
RTL and add ``cycles`` and ``stalls``. The registry that picks one by name is
:mod:`hwmovegen.sim.backends`.
"""

import abc

from ...tables.contracts import GeneratorConfig
from ..model import Position, generate

__all__ = ["Backend", "ModelBackend", "PysimBackend"]


class Backend(abc.ABC):
    """A move generator of one :class:`~hwmovegen.tables.contracts.GeneratorConfig` (its layout,
    core, legality stage and order read through), simulated or modelled.

    What a backend can do is declared here, never probed: ``hardware`` (its cycles and stalls
    are the simulated RTL's), ``traces`` (:meth:`trace` records every cycle), ``backpressure``
    (random ``ready`` on the move stream). ``name`` is the backend that actually runs.
    """
    name = None
    hardware = False
    traces = False
    backpressure = False
    config = GeneratorConfig()

    layout = property(lambda self: self.config.layout)
    core = property(lambda self: self.config.core)
    legal = property(lambda self: self.config.legal)
    order = property(lambda self: self.config.order)

    def prepare(self):
        """Build or find what the backend needs (a compiled model) now rather than on first use."""

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
    hardware = False

    def __init__(self, config=GeneratorConfig()):
        self.config = config

    def generate(self, board):
        return generate(Position.from_board(board, check=False), self.layout, legal=self.legal, order=self.order)

    def run(self, boards):
        return [self.generate(board) for board in boards]


class PysimBackend(Backend):
    """The RTL in Amaranth's Python simulator (a few thousand cycles/s: tests and waveforms)."""
    name = "pysim"
    hardware = True
    traces = True

    def __init__(self, config=GeneratorConfig()):
        self.config = config
        self.vcd_path = None
        self._session = None

    def run(self, boards):
        from .pysim import simulate
        positions = [Position.from_board(board, check=False) for board in boards]
        return simulate(positions, self.config, vcd=self.vcd_path)

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle
        trace from the cycle that takes ``start`` to its ``done`` (:mod:`.trace`), checked
        against its counters."""
        from . import trace as cycle_trace
        from .pysim import simulate
        traces = []
        result = simulate([Position.from_board(board, check=False)], self.config, traces=traces)[0]
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
        from amaranth.sim import Simulator
        from ...rtl import MoveGenerator
        from .pysim import generate as generate_on

        self.request = self.result = None
        dut = MoveGenerator.from_config(config)

        async def serve(ctx):
            while True:
                if self.request is None:
                    await ctx.tick()
                    continue
                position, self.request = self.request, None
                self.result = await generate_on(ctx, dut, position)

        self.sim = Simulator(dut)
        self.sim.add_clock(1e-8)
        self.sim.add_testbench(serve, background=True)

    def generate(self, position):
        self.request, self.result = position, None
        while self.result is None:
            self.sim.advance()
        return self.result
