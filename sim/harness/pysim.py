"""Async testbench helpers for driving a :class:`~hwmovegen.rtl.MoveGenerator` in Amaranth's simulator.

Use them from your own testbenches::

    from amaranth.sim import Simulator
    from hwmovegen.rtl import MoveGenerator
    from hwmovegen.sim.harness import pysim as tb

    dut = MoveGenerator()
    sim = Simulator(dut)
    sim.add_clock(1e-8)

    async def bench(ctx):
        result = await tb.generate(ctx, dut, "4k3/8/8/8/8/4p3/8/2B1K3 w - - 0 1",
                                   ready=tb.random_ready(seed=1, probability=0.7))
        print([m.uci() for m in result.moves], result.cycles, result.stalls)

    sim.add_testbench(bench)
    sim.run()

``load`` writes a position (FEN, python-chess Board or model Position) into the
board RAM; ``run`` pulses ``start`` and collects the stream until ``done``,
driving ``ready`` from an optional backpressure pattern; ``generate`` does both.
Results are :class:`~hwmovegen.sim.model.Generation` objects carrying the
hardware counters, directly comparable with the golden model's.
"""

import random
from pathlib import Path

from amaranth import Value
from amaranth.sim import Simulator

from ...rtl import MoveGenerator
from ...rtl.board import load_writes
from ...tables.contracts import GeneratorConfig
from ..model import Generation
from .wire import move_from_word, position_bytes, to_position

__all__ = ["to_position", "load", "run", "generate", "back_to_back", "random_ready", "move_from_payload",
           "simulate", "GenerationTimeout"]


class GenerationTimeout(RuntimeError):
    """The generator did not reach ``done`` within the cycle limit."""


def move_from_payload(payload):
    """A model :class:`Move` from a sampled Move payload."""
    return move_from_word(payload.as_value().value)


def _load_cycles(dut, position):
    """The load port's settings, one list per cycle (:func:`~hwmovegen.rtl.board.load_writes` of
    the position's image)."""
    return [[(Value.cast(getattr(dut.load, name)), value) for name, value in cycle.items()]
            for cycle in load_writes(position_bytes(position))]


def _load_idle(ctx, dut):
    for signal in (dut.load.clear, dut.load.state_en, dut.load.rank_en):
        ctx.set(signal, 0)


async def load(ctx, dut, position):
    """Write ``position`` into the board RAM and state registers."""
    for settings in _load_cycles(dut, position):
        for signal, value in settings:
            ctx.set(signal, value)
        await ctx.tick()
    _load_idle(ctx, dut)


def random_ready(seed=1, probability=0.5):
    """A backpressure pattern: ``ready`` high with the given probability each cycle."""
    rng = random.Random(seed)
    return lambda cycle: rng.random() < probability


async def run(ctx, dut, ready=None, max_cycles=100_000, trace=None):
    """Start the loaded position, collect moves until ``done``; return a Generation.

    ``ready`` is None (always ready) or ``ready(cycle) -> bool``. ``trace``: a list to
    which a sample (:mod:`.trace`) is appended per cycle, from the start cycle to ``done``.
    """
    moves = []
    for _ in range(max_cycles):     # (a generator with ``early`` lets the board settle after a load)
        if ctx.get(dut.start_ready):
            break
        await ctx.tick()
    for cycle in range(max_cycles):
        taking = ready is None or bool(ready(cycle))
        ctx.set(dut.start, cycle == 0)
        ctx.set(dut.moves.ready, taking)
        _, _, start_ready, busy, valid, payload, done = await ctx.tick().sample(
            dut.start_ready, dut.busy, dut.moves.valid, dut.moves.payload, dut.done)
        if trace is not None:
            trace.append({"start": int(cycle == 0), "start_ready": start_ready, "busy": busy,
                          "moves_valid": valid, "moves_ready": int(taking), "done": done})
        if cycle == 0:
            continue
        if valid and taking:
            moves.append(move_from_payload(payload))
        if done:
            break
    else:
        raise GenerationTimeout(f"no done after {max_cycles} cycles")
    ctx.set(dut.moves.ready, 0)
    counters = ctx.get(dut.counters)
    return Generation(moves=moves, steps=counters.steps, promotion_nodes=counters.promotion_nodes,
                      cycles=counters.cycles, stalls=counters.stalls)


async def back_to_back(ctx, dut, positions, ready=None, max_cycles=100_000):
    """Generate ``positions`` back to back on a core that copies the board at start
    (``dut.load_while_busy``): each is loaded as soon as the previous one has been taken and
    started as soon as ``start_ready``, while earlier ones still stream. The stream is split
    by each done's ``moves`` counter. Returns the Generations and the span, the cycles from
    the first start to the last done (counted as a position's ``cycles`` are: the start
    cycle in, the done cycle out)."""
    if not dut.load_while_busy:
        raise ValueError(f"the {dut.core} core reads the board while it generates: load after done")
    positions = list(positions)
    moves, results = [], []
    loading, loaded, waiting = [], False, iter(positions)
    cycle, first_start, idle = 0, None, 0
    while len(results) < len(positions):
        idle += 1
        if idle > max_cycles:
            raise GenerationTimeout(f"no done after {max_cycles} cycles")
        if not loading and not loaded:
            position = next(waiting, None)
            loading = [] if position is None else _load_cycles(dut, position)
        _load_idle(ctx, dut)
        completed = False
        if loading:
            for signal, value in loading.pop(0):
                ctx.set(signal, value)
            completed = not loading         # loaded at this edge: may start from the next cycle
        taking = ready is None or bool(ready(cycle))
        ctx.set(dut.start, loaded)
        ctx.set(dut.moves.ready, taking)
        _, _, start_ready, valid, payload, done, counters = await ctx.tick().sample(
            dut.start_ready, dut.moves.valid, dut.moves.payload, dut.done, dut.counters)
        if loaded and start_ready:
            first_start = cycle if first_start is None else first_start
            loaded = False
        loaded = loaded or completed
        if valid and taking:
            moves.append(move_from_payload(payload))
        if done:
            taken = sum(len(r.moves) for r in results)
            results.append(Generation(moves=moves[taken:taken + counters.moves], steps=counters.steps,
                                      promotion_nodes=counters.promotion_nodes, cycles=counters.cycles,
                                      stalls=counters.stalls))
            idle, last_done = 0, cycle
        cycle += 1
    _load_idle(ctx, dut)
    ctx.set(dut.start, 0)
    ctx.set(dut.moves.ready, 0)
    if sum(len(r.moves) for r in results) != len(moves):
        raise RuntimeError(f"the counters hold {sum(len(r.moves) for r in results)} moves, the stream {len(moves)}")
    return results, last_done - first_start


async def generate(ctx, dut, position, ready=None, max_cycles=100_000, trace=None):
    """``load`` then ``run``."""
    await load(ctx, dut, position)
    return await run(ctx, dut, ready=ready, max_cycles=max_cycles, trace=trace)


def simulate(positions, config=GeneratorConfig(), ready=None, vcd=None, traces=None):
    """Generate every position in one pysim run on the generator ``config`` names; return their
    Generations.

    ``ready`` as for :func:`run`, one pattern for the whole run (see :func:`random_ready`).
    ``vcd``: path of a waveform to write (with a ``.gtkw`` save file beside it).
    ``traces``: a list to which each position's cycle trace is appended (see :func:`run`).
    """
    dut = MoveGenerator.from_config(config)
    positions = [to_position(p) for p in positions]
    results = []

    async def bench(ctx):
        for position in positions:
            trace = None if traces is None else []
            results.append(await generate(ctx, dut, position, ready=ready, trace=trace))
            if traces is not None:
                traces.append(trace)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    if vcd:
        vcd = Path(vcd)
        traces = [dut.start, dut.busy, dut.done, dut.moves.valid, dut.moves.ready, dut.moves.payload,
                  dut.counters]
        with sim.write_vcd(str(vcd), gtkw_file=str(vcd.with_suffix(".gtkw")), traces=traces):
            sim.run()
    else:
        sim.run()
    return results
