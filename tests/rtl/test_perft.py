"""The perft engine in pysim: whole trees walked in hardware against the published counts."""

import chess
import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl.perft import PerftArray
from hwmovegen.sim import testbench as tb

from ..helpers import KIWIPETE


def perft_in_pysim(fen, depth, core="walker", engines=1):
    dut = PerftArray(core=core, engines=engines, max_depth=4)
    result = {}

    async def bench(ctx):
        await tb.load(ctx, dut, chess.Board(fen))
        ctx.set(dut.depth, depth)
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        while not ctx.get(dut.done):
            await ctx.tick()
        counters = ctx.get(dut.counters)
        result.update(nodes=counters.nodes, cycles=counters.cycles, interior=counters.interior,
                      apply=counters.apply_cycles, generate=counters.generate_cycles,
                      engine_cycles=counters.engine_cycles)

    board, applier = dut.engines[0].generator, dut.engines[0].applier
    restored, makes = [], []

    async def watch_unmakes(ctx):
        """After every unmake the board and state equal, bit for bit, what they were
        before the make it undoes."""
        saved, expected, before, level = [], None, None, 0
        async for _, _, new_level, busy, *planes, state in ctx.tick().sample(
                applier.level, applier.busy, *[board.planes[i] for i in range(4)], board.board_state):
            image = (tuple(planes), state.as_value().value)
            if new_level > level:
                saved.append(before)
                makes.append(new_level)
            elif new_level < level:
                expected = saved.pop()
            if expected is not None and not busy and new_level <= level:
                assert image == expected, "an unmake did not restore the board"
                restored.append(new_level)
                expected = None
            before, level = image, new_level

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.add_testbench(watch_unmakes, background=True)
    sim.run()
    result.update(restored=len(restored), makes=len(makes))
    return result


@pytest.mark.parametrize("fen, depth, nodes", [
    (chess.STARTING_FEN, 1, 20),
    (chess.STARTING_FEN, 2, 400),
    (KIWIPETE, 2, 2039),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812),
])
def test_perft_in_hardware_matches_the_published_counts(fen, depth, nodes):
    result = perft_in_pysim(fen, depth)
    assert result["nodes"] == nodes
    assert result["restored"] == result["makes"] > 0 or depth == 1      # every make undone, checked
    assert result["generate"] + result["apply"] < result["cycles"]


@pytest.mark.parametrize("fen, depth, nodes", [
    (chess.STARTING_FEN, 1, 20),            # below the split ply: one task, the root
    (chess.STARTING_FEN, 3, 8902),          # the split ply is the last: its tasks are counted
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
])
def test_engines_share_the_tree(fen, depth, nodes):
    result = perft_in_pysim(fen, depth, engines=3)
    assert result["nodes"] == nodes
    # every engine worked and the array waited for the last
    assert result["cycles"] <= result["engine_cycles"] <= 3 * result["cycles"]
