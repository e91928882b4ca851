"""The perft engine in pysim: whole trees walked in hardware against the published counts."""

import chess
import pytest

from hwmovegen.sim.drivers.hwperft import PysimPerft
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import KIWIPETE


def perft_in_pysim(fen, depth, core="walker", engines=1, count_leaves=True):
    array = PysimPerft(GeneratorConfig(core=core, perft_engines=engines, max_plies=4, count_leaves=count_leaves))
    dut = array.dut
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

    counters = array.run(chess.Board(fen), depth, watchers=[watch_unmakes])
    result = dict(counters, apply=counters["apply_cycles"], generate=counters["generate_cycles"])
    result.update(restored=len(restored), makes=len(makes))
    return result


@pytest.mark.parametrize("fen, depth, nodes, leaf_parents, core", [
    (chess.STARTING_FEN, 1, 20, 1, "walker"),
    (chess.STARTING_FEN, 2, 400, 20, "walker"),
    (KIWIPETE, 2, 2039, 48, "fast"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812, 191, "walker"),
    (KIWIPETE, 3, 97862, 2039, "fast"),
])
def test_perft_in_hardware_matches_the_published_counts(fen, depth, nodes, leaf_parents, core):
    result = perft_in_pysim(fen, depth, core=core)
    assert result["nodes"] == nodes
    assert result["leaf_parents"] == leaf_parents       # the nodes one ply above the leaves
    # every make undone, checked; with the leaf counter, moves are made above the frontier only
    assert result["restored"] == result["makes"]
    assert (result["makes"] > 0) == (depth >= 3)
    assert result["generate"] + result["apply"] < result["cycles"]


@pytest.mark.parametrize("fen, depth, nodes", [
    (chess.STARTING_FEN, 2, 400),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 3, 2812),
])
def test_perft_without_the_leaf_counter(fen, depth, nodes):
    """The engine that streams the last ply (the UP5K's, where the counter does not fit)."""
    result = perft_in_pysim(fen, depth, count_leaves=False)
    assert result["nodes"] == nodes and result["leaf_parents"] == 0
    assert result["restored"] == result["makes"] > 0


# Deeper trees on three engines (position 3 to depth 4 among them, 43,238 nodes: 84 s in pysim) are
# tests/sim/test_hwperft.py's, compiled: every suite position under 60,000 nodes at depth 4.
@pytest.mark.parametrize("fen, depth, nodes", [
    (chess.STARTING_FEN, 1, 20),            # below the split ply: one task, the root
    (chess.STARTING_FEN, 3, 8902),          # the split ply is the last: its tasks are counted
])
def test_engines_share_the_tree(fen, depth, nodes):
    result = perft_in_pysim(fen, depth, engines=3)
    assert result["nodes"] == nodes
    # every engine worked and the array waited for the last
    assert result["cycles"] <= result["engine_cycles"] <= 3 * result["cycles"]
