"""Perft walked in the compiled hardware (CXXRTL): the perft arrays against the published counts.

The arrays count the last ply with the leaf counter; the engine that streams it (the UP5K's) is
the one the UP5K's synthesis test compiles too."""

import chess
import pytest

from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.drivers.hwperft import projected_nodes_per_second

from ..helpers import KIWIPETE


@pytest.fixture(scope="module")
def three_engines(perft_array):
    return perft_array(engines=3)


@pytest.fixture(scope="module")
def streamed(perft_array):
    return perft_array(engines=1, count_leaves=False)


def test_every_suite_position_to_depth_3(three_engines):
    wrong = []
    for record in bundled_suites():
        run = three_engines.perft(record.board, 3)
        if run.nodes != record.depths[3]:
            wrong.append((record.fen, run.nodes, record.depths[3]))
        # the leaf-parents counted are the nodes at depth 2
        assert run.counters["leaf_parents"] == record.depths[2], record.fen
    assert wrong == []


def test_suite_positions_to_depth_4_on_three_engines(three_engines):
    records = [record for record in bundled_suites() if record.depths.get(4, 1 << 40) < 60_000]
    assert len(records) >= 30
    for record in records:
        run = three_engines.perft(record.board, 4)
        assert run.nodes == record.depths[4], record.fen
        # the generations that stored moves: each engine walks the root and its children to find its tasks
        assert run.counters["interior"] == 3 * (1 + record.depths[1]), record.fen
        # the engines shared the tree: together busy for more cycles than the array took
        assert run.cycles < run.counters["engine_cycles"] <= 3 * run.cycles


def test_the_streamed_last_ply(three_engines, streamed):
    """The UP5K's engine, which streams the last ply, counts the same trees, in many more cycles."""
    for record in bundled_suites()[:7]:
        run = streamed.perft(record.board, 3)
        assert run.nodes == record.depths[3] and run.counters["leaf_parents"] == 0, record.fen
    board = chess.Board(KIWIPETE)
    counted, walked = three_engines.perft(board, 3), streamed.perft(board, 3)
    assert counted.nodes == walked.nodes == 97862
    assert walked.counters["interior"] == 1 + 48 and counted.counters["interior"] == 3      # each engine: the root
    assert 3 * 10 * counted.cycles < walked.cycles


def test_divide_sums_to_perft(three_engines):
    board = chess.Board(KIWIPETE)
    roots = list(board.legal_moves)
    run = three_engines.divide(board, 3, roots)
    assert [move for move, _ in run.divide] == [move.uci() for move in roots]
    assert run.nodes == 97862 and run.cycles > 0


def test_depth_outside_the_stack_is_refused(three_engines):
    for depth in (0, 9):
        with pytest.raises(ValueError, match="1 to 8 plies"):
            three_engines.perft(chess.Board(), depth)


def test_projection():
    assert projected_nodes_per_second(1000, 500, 50.0) == 100e6
    assert projected_nodes_per_second(1000, 500, None) is None
