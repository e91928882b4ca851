"""The search engine compiled (Verilator: it builds faster than CXXRTL; tests/sim/test_verilator_backend.py
has the two equal) against the golden model's search: hundreds of searches with
quiescence, equal on best move, score, bound, PV and every counter but cycles. The model's Python
search is the slow side (a few hundred nodes a second): the depths are chosen so that the sweep
stays within a few minutes."""

import random
import threading
import time
from dataclasses import replace

import chess
import chess.polyglot
import pytest

from hwmovegen.sim.drivers.bench import SEARCH_BENCH, search_rows
from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.model.search import SearchRequest, search

from ..helpers import KIWIPETE


@pytest.fixture(scope="module")
def engine(search_engine):
    return search_engine


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


def _reproduced(engine, request, aborted):
    """An aborted search's answer is the engine's and the model's with a node limit of the nodes it
    had counted: node for node, the engine's cycles included (the same walk, the same unwinding)."""
    assert aborted.aborted
    limited = replace(request, node_limit=aborted.nodes)
    again, model = engine.run(limited), search(limited)
    assert aborted.as_dict() == again.as_dict() and aborted.pv == again.pv
    assert aborted.as_dict() == {**model.as_dict(), "cycles": aborted.cycles} and aborted.pv == model.pv


def test_abort_at_a_given_cycle(engine):
    """The engine's ``abort`` raised at a chosen cycle of the compiled search stops it before its
    next make: the search with a node limit of the nodes counted then."""
    request = SearchRequest(Position.from_board(chess.Board(KIWIPETE)), 2)
    full = engine.run(request)
    simulator = engine._sim
    stopped = [simulator.search(request, abort_after=cycle) for cycle in (0, 500, 5_000, full.cycles // 2)]
    assert stopped[0].nodes == 1 and not stopped[0].pv
    assert len({result.nodes for result in stopped}) == len(stopped) and stopped[-1].pv
    for result in stopped:
        _reproduced(engine, request, result)
    # raised after the last make (or never), it changes nothing
    assert simulator.search(request, abort_after=full.cycles + 10).as_dict() == full.as_dict()


def test_stop_from_another_thread_aborts_the_running_search(engine):
    """``run(request, stop)``: a stop set by another thread while the compiled search runs (as the
    UCI host's ``stop`` and clock) aborts it where it is, at whatever node; set before, at the root."""
    request = SearchRequest(Position.from_board(chess.Board()), 5)
    for delay in (0.02, 0.05):
        stop = threading.Event()
        timer = threading.Timer(delay, stop.set)
        start = time.monotonic()
        timer.start()
        aborted = engine.run(request, stop=stop)
        assert time.monotonic() - start < delay + 1.0
        _reproduced(engine, request, aborted)
    stop = threading.Event()
    stop.set()
    assert engine.run(request, stop=stop).nodes == 1
