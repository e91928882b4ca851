"""cocotb coroutines for an exported :class:`~hwmovegen.rtl.MoveGenerator` (``hwmovegen export``),
the cocotb twin of :mod:`.testbench`: the same cycles, through the netlist's plain ports.

Use them from a cocotb test (``examples/cocotb/test_movegen.py`` is one)::

    import cocotb
    from cocotb.clock import Clock
    from hwmovegen.sim.verilator import cocotb_testbench as tb
    from hwmovegen.sim.model import Position, generate

    KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

    @cocotb.test()
    async def kiwipete(dut):
        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        await tb.reset(dut)
        result = await tb.generate(dut, KIWIPETE, ready=tb.random_ready(seed=1, probability=0.5))
        assert result.moves == generate(Position.from_fen(KIWIPETE)).moves

``load`` writes the position image (:func:`~hwmovegen.rtl.types.position_image`, made by
:mod:`.wire`) through the load port: a cycle that clears the board and writes the state,
then a cycle per rank that holds a piece, as the CXXRTL driver and the pysim testbench do.
``run`` raises ``start`` until it is taken and collects the stream until ``done``, driving
``moves__ready`` from an optional pattern; it samples the outputs where the design's
counters count (after the inputs settle, before the clock edge), so a recorded ``trace``
holds the same :class:`~hwmovegen.rtl.types.CycleSample` dicts as the other simulators'.
Results are :class:`~hwmovegen.sim.model.Generation` objects, as theirs are; a ``moves``
counter that disagrees with the stream raises, as in the CXXRTL backend.
"""

from cocotb.triggers import ReadOnly, RisingEdge

from ...rtl.board import load_writes
from ..model import Generation
from ..harness.pysim import GenerationTimeout, random_ready
from ..harness.wire import counters_from_word, move_from_word, position_bytes

__all__ = ["reset", "load", "run", "generate", "random_ready", "load_cycles", "GenerationTimeout"]

INPUTS = ("load__clear", "load__rank_en", "load__state_en", "start", "abort", "moves__ready")


def load_cycles(image):
    """The load port's values, one dict per cycle, for a position image (bytes)."""
    return [{f"load__{name}": value for name, value in cycle.items()} for cycle in load_writes(image)]


def _idle(dut):
    for name in ("load__clear", "load__rank_en", "load__state_en"):
        getattr(dut, name).value = 0


async def reset(dut, cycles=2):
    """Hold ``rst`` for ``cycles`` clock cycles with every control input low."""
    for name in INPUTS:
        getattr(dut, name).value = 0
    if hasattr(dut, "all_moves"):
        dut.all_moves.value = 0
    dut.rst.value = 1
    for _ in range(cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0


async def load(dut, position):
    """Write ``position`` (FEN, python-chess Board, model Position, or a position image)."""
    image = position if isinstance(position, (bytes, bytearray)) else position_bytes(position)
    for settings in load_cycles(image):
        for name, value in settings.items():
            getattr(dut, name).value = value
        await RisingEdge(dut.clk)
    _idle(dut)


async def run(dut, ready=None, max_cycles=100_000, trace=None, all_moves=False):
    """Start the loaded position and collect its moves until ``done``; return a Generation.

    ``ready`` is None (always ready) or ``ready(cycle) -> bool``, cycle 0 being the one that
    takes ``start``. ``trace``: a list to which a sample is appended per cycle from that one
    to ``done``. ``all_moves``: the legal generator's bypass (its pseudo-legal moves).
    """
    clk, start, start_ready, busy, done = dut.clk, dut.start, dut.start_ready, dut.busy, dut.done
    valid, taking_port, payload = dut.moves__valid, dut.moves__ready, dut.moves__payload
    if hasattr(dut, "all_moves"):
        dut.all_moves.value = int(all_moves)
    moves, cycle = [], None         # cycle: since start was taken (None: not yet)
    for _ in range(max_cycles):
        taking = ready is None or bool(ready(cycle or 0))
        start.value = int(cycle is None)
        taking_port.value = int(taking)
        await ReadOnly()
        if cycle is None and start_ready.value:
            cycle = 0
        if cycle is not None:
            sample = {"start": int(cycle == 0), "start_ready": int(start_ready.value), "busy": int(busy.value),
                      "moves_valid": int(valid.value), "moves_ready": int(taking), "done": int(done.value)}
            if trace is not None:
                trace.append(sample)
            if sample["moves_valid"] and taking:
                moves.append(move_from_word(payload.value.to_unsigned()))
            if sample["done"]:
                counters = counters_from_word(dut.counters.value.to_unsigned())
                if counters["moves"] != len(moves):
                    raise RuntimeError(f"hardware move counter ({counters['moves']}) disagrees with the "
                                       f"stream ({len(moves)} moves by its done)")
                await RisingEdge(clk)
                taking_port.value = 0
                return Generation(moves=moves, steps=counters["steps"], promotion_nodes=counters["promotion_nodes"],
                                  cycles=counters["cycles"], stalls=counters["stalls"])
            cycle += 1
        await RisingEdge(clk)
    raise GenerationTimeout(f"no done after {max_cycles} cycles")


async def generate(dut, position, ready=None, max_cycles=100_000, trace=None, all_moves=False):
    """``load`` then ``run``."""
    await load(dut, position)
    return await run(dut, ready=ready, max_cycles=max_cycles, trace=trace, all_moves=all_moves)
