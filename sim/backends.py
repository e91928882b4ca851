"""Move-generator backends behind one interface.

A backend turns python-chess Boards into :class:`~hwmovegen.sim.model.Generation`
results (moves plus counters). ``model`` walks the tables in Python; the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``. Every
backend's ``name`` is the one that actually runs (``cxxrtl`` falls back to
``pysim`` without a C++ compiler).
"""

from ..tables.contracts import GeneratorConfig
from .model import Position, generate

__all__ = ["ModelBackend", "PysimBackend", "BACKENDS", "HARDWARE_BACKENDS", "DEFAULT_BACKEND",
           "get_backend"]

BACKENDS = ("cxxrtl", "pysim", "model")
HARDWARE_BACKENDS = ("cxxrtl", "pysim")
DEFAULT_BACKEND = "cxxrtl"


class ConfiguredBackend:
    """A backend of one :class:`~hwmovegen.tables.contracts.GeneratorConfig` (its layout, core,
    legality stage and order read through)."""

    layout = property(lambda self: self.config.layout)
    core = property(lambda self: self.config.core)
    legal = property(lambda self: self.config.legal)
    order = property(lambda self: self.config.order)


class ModelBackend(ConfiguredBackend):
    name = "model"
    hardware = False

    def __init__(self, config=GeneratorConfig()):
        self.config = config

    def generate(self, board):
        return generate(Position.from_board(board, check=False), self.layout, legal=self.legal, order=self.order)

    def run(self, boards):
        return [self.generate(board) for board in boards]


class PysimBackend(ConfiguredBackend):
    """The RTL in Amaranth's Python simulator (a few thousand cycles/s: tests and waveforms)."""
    name = "pysim"
    hardware = True

    def __init__(self, config=GeneratorConfig()):
        self.config = config
        self.vcd_path = None
        self._session = None

    def run(self, boards):
        from .testbench import simulate
        positions = [Position.from_board(board, check=False) for board in boards]
        return simulate(positions, self.config, vcd=self.vcd_path)

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle
        trace from the cycle that takes ``start`` to its ``done`` (:mod:`.trace`), checked
        against its counters."""
        from . import trace as cycle_trace
        from .testbench import simulate
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
        from ..rtl import MoveGenerator
        from .testbench import generate as generate_on

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


def get_backend(name, config=GeneratorConfig(), log=None, ready_probability=1.0, seed=1):
    """A backend by name for the generator ``config`` names (its ``legal``: the legal moves
    only, the hardware's legality stage or the model's rule; its ``order``: the moves ordered
    and flagged for check, the hardware's :class:`~hwmovegen.rtl.order.MoveOrderer` or the
    model's rule). ``cxxrtl`` falls back to ``pysim`` (saying so through ``log``) when no C++
    compiler is found. ``ready_probability`` < 1 applies random backpressure on the hardware
    backends' move stream (cxxrtl only)."""
    if name == "model":
        return ModelBackend(config)
    if name == "pysim":
        if ready_probability < 1:
            raise KeyError("backpressure (--ready) needs the cxxrtl backend")
        return PysimBackend(config)
    if name == "cxxrtl":
        from .cxxrtl import CxxrtlBackend
        from .toolchain import cxx_compiler
        if cxx_compiler() is None:
            if log:
                log("no C++ compiler found (g++): falling back to the pysim backend")
            return get_backend("pysim", config, log, ready_probability, seed)
        return CxxrtlBackend(config, ready_probability=ready_probability, seed=seed, log=log)
    raise KeyError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")
