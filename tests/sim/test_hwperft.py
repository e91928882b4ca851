"""Perft walked in the compiled hardware (CXXRTL): the perft arrays against the published counts."""

import chess
import pytest

from hwmovegen.sim.epd import bundled_suites
from hwmovegen.sim.hwperft import HardwarePerft, projected_nodes_per_second

from ..helpers import KIWIPETE


@pytest.fixture(scope="module")
def one_engine():
    array = HardwarePerft("cxxrtl", engines=1)
    array.prepare()
    return array


@pytest.fixture(scope="module")
def three_engines():
    array = HardwarePerft("cxxrtl", engines=3)
    array.prepare()
    return array


def test_every_suite_position_to_depth_3(one_engine):
    wrong = []
    for record in bundled_suites():
        run = one_engine.perft(record.board, 3)
        if run.nodes != record.depths[3]:
            wrong.append((record.fen, run.nodes, record.depths[3]))
    assert wrong == []


def test_suite_positions_to_depth_4_on_three_engines(three_engines):
    records = [record for record in bundled_suites() if record.depths.get(4, 1 << 40) < 60_000]
    assert len(records) >= 30
    for record in records:
        run = three_engines.perft(record.board, 4)
        assert run.nodes == record.depths[4], record.fen
        # the engines shared the tree: together busy for more cycles than the array took
        assert run.cycles < run.counters["engine_cycles"] <= 3 * run.cycles


def test_kiwipete_depth_3_same_on_one_and_three_engines(one_engine, three_engines):
    board = chess.Board(KIWIPETE)
    one, three = one_engine.perft(board, 3), three_engines.perft(board, 3)
    assert one.nodes == three.nodes == 97862
    assert one.counters["interior"] == 1 + 48       # the root and its children generate lists
    assert three.cycles < one.cycles


def test_divide_sums_to_perft(one_engine):
    board = chess.Board(KIWIPETE)
    roots = list(board.legal_moves)
    run = one_engine.divide(board, 3, roots)
    assert [move for move, _ in run.divide] == [move.uci() for move in roots]
    assert run.nodes == 97862 and run.cycles > 0


def test_depth_outside_the_stack_is_refused(one_engine):
    for depth in (0, 9):
        with pytest.raises(ValueError, match="1 to 8 plies"):
            one_engine.perft(chess.Board(), depth)


def test_projection():
    assert projected_nodes_per_second(1000, 500, 50.0) == 100e6
    assert projected_nodes_per_second(1000, 500, None) is None
