"""Two search engines splitting the root moves (a SearchArray compiled with Verilator) against the
golden model's split over two engines (``split_search``): best move, score, bound, PV and every
counter but cycles (the sums over every run), on the CPW positions to depth 3, random positions
and windows, hints and node limits. The model's Python search is the slow side."""

import random
import threading

from hwmovegen.sim.model import Position
from hwmovegen.sim.model.epd import cpw_records
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.model.search import SearchRequest, search, split_search

from .test_hwsearch import _history


def _differences(array, requests):
    wrong = []
    for request in requests:
        model, hardware = split_search(request, 2), array.run(request)
        if hardware.as_dict() != {**model.as_dict(), "cycles": hardware.cycles} or hardware.pv != model.pv:
            wrong.append((request, model.as_dict(), hardware.as_dict()))
    return wrong


def test_cpw_positions_to_depth_3(search_array):
    requests = [SearchRequest(Position.from_board(record.board), depth) for record in cpw_records()
                for depth in (1, 2, 3)]
    assert len(requests) == 21
    assert _differences(search_array, requests) == []


def test_random_positions(search_array):
    """Positions from random games (mates, stalemates, promotions among them), with history keys
    the search meets and a halfmove clock near fifty moves."""
    rng = random.Random(37)
    requests = []
    for index, board in enumerate(random_boards(80, seed=37, max_plies=400)):
        depth = 3 if len(board.piece_map()) <= 8 else 2 if len(board.piece_map()) <= 20 else 1
        requests.append(SearchRequest(Position.from_board(board), depth, halfmove=(0, 98, 99)[index % 3],
                                      history=_history(board, rng)))
    assert _differences(search_array, requests) == []


def test_windows_hints_and_node_limits(search_array):
    requests = []
    for index, record in enumerate(cpw_records()):
        board = record.board
        moves = list(board.legal_moves)
        position = Position.from_board(board)
        requests.append(SearchRequest(position, 2, alpha=-60 + 20 * index, beta=40 + 30 * index,
                                      hint=moves[index % len(moves)].uci()))
        requests.append(SearchRequest(position, 2, node_limit=5 + 9 * index))
    models = [split_search(request, 2) for request in requests]
    assert any(model.aborted for model in models) and any(model.bound != "exact" for model in models)
    assert _differences(search_array, requests) == []


def test_the_split_is_not_the_plain_search(search_array):
    """The array's nodes are the split's, not one engine's: the comparison above can fail."""
    request = SearchRequest(Position.from_board(cpw_records()[3].board), 2)
    split, plain = search_array.run(request), search(request)
    assert split.score == plain.score and split.nodes != plain.nodes


def test_stop_reaches_the_engines(search_array):
    """A stop set before the start: phase 1 stops before its first make and phase 2 never starts,
    as in the model's split with the same stop."""
    stop = threading.Event()
    stop.set()
    request = SearchRequest(Position.from_board(cpw_records()[1].board), 2)
    hardware = search_array.run(request, stop=stop)
    assert hardware.as_dict() == {**split_search(request, 2, stop=stop).as_dict(), "cycles": hardware.cycles}
    assert hardware.aborted and hardware.nodes == 1
