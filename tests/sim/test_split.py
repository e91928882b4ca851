"""The model's split of a search over several engines (``split_search``): the first root move
alone, then the others shared out against its score. With the full window it finds the plain
search's minimax value (mates included); it changes the nodes, and its counters are the sums of
its runs, each run the plain search of its own root moves."""

import chess
import pytest

from hwmovegen.sim.model.search import SearchRequest, split_requests, split_search, search
from hwmovegen.tables.search import COUNTERS, MATE, is_mate

from .test_search import KIWI, MATES, SMALL, STALEMATES, play, request


@pytest.mark.parametrize("fen", SMALL)
def test_split_finds_the_plain_searchs_score(fen):
    for depth in (1, 2, 3):
        plain = search(request(fen, depth))
        for engines in (2, 3):
            split = split_search(request(fen, depth), engines)
            assert (split.score, split.bound) == (plain.score, plain.bound), (fen, depth, engines)
            assert split.best.to_chess() in chess.Board(fen).legal_moves
            play(fen, [move.uci() for move in split.pv])


@pytest.mark.parametrize("fen, depth, score", MATES)
def test_split_finds_the_mates(fen, depth, score):
    for engines in (2, 4):
        split = split_search(request(fen, depth), engines)
        assert split.score == score and is_mate(split.score)
        pv = [move.uci() for move in split.pv]
        assert len(pv) == MATE - abs(score) and split.best == split.pv[0]
        assert play(fen, pv).is_checkmate()


def test_mated_and_stalemated_roots_end_after_phase_one():
    for fen in ["8/8/8/8/8/2k5/1q6/K7 w - - 0 1", *STALEMATES]:
        split = split_search(request(fen, 2), 3)
        assert split.engines == [] and split.as_dict() == search(request(fen, 2)).as_dict()


def test_the_runs_share_out_the_root_moves():
    base = request(KIWI, 1, quiescence=0, hint="e2a6")      # Q 0: the nodes are the root and its children
    split = split_search(base, 3)
    first, engines = split.first, split.engines
    assert len(engines) == 3 and first.best.uci() == "e2a6"
    # every root move once: move 0 in phase 1, then 1 + k, 1 + k + 3, ... to engine k
    taken = [split_requests(base, 3)] + split_requests(base, 3, first.score)
    assert [(r.root_first, r.root_stride, r.root_count) for r in taken] == [(0, 1, 1), (1, 3, 0), (2, 3, 0), (3, 3, 0)]
    assert all(r.alpha == first.score for r in taken[1:])
    legal = chess.Board(KIWI).legal_moves.count()
    assert sum(run.nodes - 1 for run in [first, *engines]) == legal
    for name in COUNTERS:
        assert getattr(split, name) == sum(getattr(run, name) for run in [first, *engines])
    winner = engines[split.winner] if split.winner is not None else first
    assert (split.best, split.score, split.pv) == (winner.best, winner.score, winner.pv)
    assert split.score == search(base).score


def test_the_split_changes_the_nodes():
    """Not the plain search under another name: the runs' roots and windows cost nodes."""
    differ = [(fen, depth) for fen in SMALL[:5] for depth in (2, 3)
              if split_search(request(fen, depth), 2).nodes != search(request(fen, depth)).nodes]
    assert differ


def test_phase_one_failing_high_ends_the_search():
    fen = SMALL[4]
    exact = search(request(fen, 2)).score
    split = split_search(request(fen, 2, alpha=-INF_WINDOW, beta=-INF_WINDOW + 1), 2)
    assert split.engines == [] and split.bound == "lower" and split.score == -INF_WINDOW + 1
    inside = split_search(request(fen, 2, alpha=exact - 1, beta=exact + 1), 2)
    assert (inside.score, inside.bound) == (exact, "exact")


INF_WINDOW = 30000


def test_node_limit_per_run_and_stop():
    fen = SMALL[4]
    split = split_search(request(fen, 2, node_limit=6), 2)
    assert split.aborted and all(run.nodes <= 6 for run in [split.first, *split.engines])
    assert split_search(request(fen, 2, node_limit=1), 2).engines == []     # phase 1 aborted: the end

    class Set:
        def is_set(self):
            return True
    stopped = split_search(request(fen, 2), 2, stop=Set())
    assert stopped.aborted and stopped.nodes == 1 and stopped.engines == []


def test_bad_root_filters():
    position = request(SMALL[0], 1).position
    for fields in ({"root_first": -1}, {"root_stride": 0}, {"root_count": -1}):
        with pytest.raises(ValueError):
            SearchRequest(position, 1, **fields)
    with pytest.raises(ValueError):
        split_search(SearchRequest(position, 1), 0)
