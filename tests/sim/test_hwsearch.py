"""The search engine compiled (Verilator: it builds faster than CXXRTL; tests/sim/test_verilator_backend.py
has the two equal) against the golden model's search: hundreds of searches with
quiescence, equal on best move, score, bound, PV and every counter but cycles. The model's Python
search is the slow side (a few hundred nodes a second): the depths are chosen so that the sweep
stays within a few minutes."""

import random

import chess
import chess.polyglot
import pytest

from hwmovegen.sim.drivers.bench import SEARCH_BENCH, search_rows
from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.backends import HardwareSearch
from hwmovegen.sim.cxxrtl import VerilatorSearch
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.model.search import SearchRequest, search
from hwmovegen.tables.contracts import GeneratorConfig


@pytest.fixture(scope="module")
def engine():
    hardware = HardwareSearch(VerilatorSearch, GeneratorConfig(core="fast"))
    hardware.prepare()
    return hardware


def _differences(engine, requests):
    wrong = []
    for request in requests:
        model, hardware = search(request), engine.run(request)
        if hardware.as_dict() != {**model.as_dict(), "cycles": hardware.cycles} or hardware.pv != model.pv:
            wrong.append((request, model.as_dict(), hardware.as_dict()))
    return wrong


def test_suite_positions_to_depth_2(engine):
    """Every bundled perft position at depths 1 and 2 (266 searches)."""
    requests = [SearchRequest(Position.from_board(record.board), depth)
                for record in bundled_suites() for depth in (1, 2)]
    assert len(requests) >= 250
    assert _differences(engine, requests) == []


def _history(board, rng):
    """Keys of a few positions two quiet plies below ``board``: a search meets them at ply 2 and
    scores them as repetitions (the request's history holds any keys the host gives)."""
    keys = []
    for _ in range(3):
        after = board.copy(stack=False)
        for _ in range(2):
            quiet = [move for move in after.legal_moves if not after.is_capture(move)]
            if not quiet:
                break
            after.push(rng.choice(quiet))
        keys.append(chess.polyglot.zobrist_hash(after))
    return tuple(keys)


def test_random_positions_to_depth_3(engine):
    """Positions from random games (checks, mates, stalemates, promotions among them), the small
    ones to depth 3, with history keys that the search meets and a halfmove clock near fifty moves."""
    rng = random.Random(36)
    requests = []
    for index, board in enumerate(random_boards(60, seed=36, max_plies=400)):
        pieces = len(board.piece_map())
        depth = 3 if pieces <= 12 else 2 if pieces <= 20 else 1
        requests.append(SearchRequest(Position.from_board(board), depth, halfmove=(0, 97, 98, 99)[index % 4],
                                      history=_history(board, rng)))
    assert sum(request.depth == 3 for request in requests) >= 10
    assert _differences(engine, requests) == []


def test_windows_hints_and_node_limits(engine):
    requests = []
    for index, record in enumerate(list(bundled_suites())[:40]):
        board = record.board
        moves = list(board.legal_moves)
        hint = moves[index % len(moves)].uci() if moves else None
        requests.append(SearchRequest(Position.from_board(board), 2, alpha=-60 + index, beta=40 + 3 * index, hint=hint))
        requests.append(SearchRequest(Position.from_board(board), 2, node_limit=5 + 7 * index))
    results = [engine.run(request) for request in requests]
    assert any(result.aborted for result in results) and any(result.bound != "exact" for result in results)
    assert _differences(engine, requests) == []


def test_bench_search_rows_are_the_engines(engine):
    """``bench search``'s rows: the engine's own answers (equal to the model's), its cycles split as
    its counters say."""
    rows = search_rows(engine, 1, fmax=50.0)
    assert [row["name"] for row in rows] == [name for name, _ in SEARCH_BENCH]
    for row, (_, fen) in zip(rows, SEARCH_BENCH):
        board = chess.Board(fen)
        model = search(SearchRequest(Position.from_board(board), 1, halfmove=board.halfmove_clock))
        assert {key: row[key] for key in model.as_dict()} == model.as_dict()
        parts = row["cycles_in"]
        assert parts["first_move"] <= parts["generate"] < row["cycles"]
        assert parts["generate"] + parts["apply"] + parts["pv"] + parts["draw"] <= row["cycles"]
        assert row["projected_nodes_per_s"] == round(row["nodes"] * 50e6 / row["cycles"])
