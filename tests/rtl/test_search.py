"""The search engine in pysim against the golden model's search: best move, score, bound, PV and
every counter but cycles, node for node (few positions, small depths: a compiled sweep of hundreds
is the next step)."""

import functools
import threading

import chess
import chess.polyglot
import pytest

from hwmovegen.sim.backends import HardwareSearch
from hwmovegen.sim.harness.search import PysimSearch
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.search import SearchRequest, search, split_search
from hwmovegen.tables.contracts import GeneratorConfig
from hwmovegen.tables.eval import taper
from hwmovegen.tables.search import MATE

from ..helpers import CPW_POSITION_4

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


@functools.cache
def engine(core="fast", engines=1):
    """One simulated engine per configuration for the module's searches (each resets it)."""
    return PysimSearch(GeneratorConfig(core=core, search_engines=engines))


def fresh_scores(dut, reads):
    """A monitor: in every cycle the engine acts on the stand-pat score, that score is the taper of
    the terms as they stand (not a registered score a make or unmake behind), and in every cycle it
    acts on its registered check flag or key, they are the board's as it stands; in every cycle its
    registered frame flags are its frame's; ``reads`` counts the scores read."""
    def watch(ctx):
        if ctx.get(dut.check_read):
            assert ctx.get(dut.checked) == ctx.get(dut.in_check.check)
        if ctx.get(dut.key_read):
            assert ctx.get(dut.key) == ctx.get(dut.terms.key)
        assert ctx.get(dut.frame_agrees), "the registered frame flags differ from the frame"
        if ctx.get(dut.score_read):
            white = taper(ctx.get(dut.terms.mg), ctx.get(dut.terms.eg), ctx.get(dut.terms.phase))
            assert ctx.get(dut.terms.score) == (white if ctx.get(dut.generator.board_state.white_to_move) else -white)
            reads.append(1)
    return watch


def exact(request, core="fast", reads=None):
    """The engine's answer to ``request``, checked equal to the model's, its stand-pat scores
    checked fresh (counted into ``reads``); returned."""
    model = search(request)
    simulated = engine(core)
    # (a hung engine fails here, not by the suite's time-out: 200 cycles a node is five times the bench's)
    hardware = simulated.search(request, watch=fresh_scores(simulated.dut, [] if reads is None else reads),
                                max_cycles=200 * model.nodes + 1000)
    assert hardware.as_dict() == {**model.as_dict(), "cycles": hardware.cycles}
    assert hardware.pv == model.pv          # the moves' flags too
    counters = hardware.hardware
    assert counters["first_move_cycles"] <= counters["generate_cycles"]
    assert counters["generate_cycles"] + counters["apply_cycles"] + counters["pv_cycles"] < counters["cycles"]
    return hardware


@pytest.mark.parametrize("fen, depth, core", [
    (MATE_IN_ONE, 1, "fast"),
    (chess.STARTING_FEN, 2, "fast"),
    ("r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1", 2, "walker"),        # checks at the horizon: evasions searched
    ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", 1, "fast"),             # stalemate at the root
    ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 1, "fast"),         # mated at the root
    ("7k/5K2/6Q1/8/8/8/8/8 w - - 0 1", 1, "fast"),            # stalemates in quiescence (Kf8), mates (Qg7)
    # after Kc8 no capture and no king step, yet d3: the captures core's whole generation again
    ("k7/2K5/1P6/7p/3p3P/8/8/8 w - - 0 1", 1, "fast"),
    # 13 of the 32 moves stalemate white, whose king's last attacks come after the core is done
    ("3r1r2/8/8/8/8/2n5/8/4K2k b - - 0 1", 1, "fast"),
    # lists filled beside the search (a first move made before its generation's end): a generation
    # started in the cycle the list before it ends (a first version queued it behind that list,
    # never to be collected, and hung), and a queued one whose first move comes in the cycle of
    # that end's done (it went into the list before: another first move was made)
    (CPW_POSITION_4, 2, "fast"),
])
def test_search_matches_the_model(fen, depth, core):
    request = SearchRequest(Position.from_fen(fen), depth)
    reads = []
    result = exact(request, core, reads)
    assert reads or result.qnodes == 0      # quiescence stood pat on a fresh score
    board = chess.Board(fen)
    if not any(board.legal_moves):
        assert result.best is None and result.score == (-MATE if board.is_check() else 0)
    else:
        assert chess.Move.from_uci(result.best.uci()) in board.legal_moves
    if result.score >= MATE - 256:          # python-chess referees: the line mates
        for move in result.pv:
            board.push_uci(move.uci())
        assert board.is_checkmate()


def test_a_search_after_another_is_a_fresh_engines():
    """The simulator is reset between searches: a search after another (which left moves, scores
    and a PV in the engine's memories) is a new engine's to the cycle."""
    request = SearchRequest(Position.from_fen(MATE_IN_ONE), 1)
    used = PysimSearch(GeneratorConfig(core="fast"))
    used.search(SearchRequest(Position.from_fen("7k/5K2/6Q1/8/8/8/8/8 w - - 0 1"), 1))
    again, fresh = used.search(request), PysimSearch(GeneratorConfig(core="fast")).search(request)
    assert again.as_dict() == fresh.as_dict() and again.hardware == fresh.hardware and again.pv == fresh.pv


def test_window_hint_node_limit_and_history():
    position = Position.from_fen("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    board.push_uci("e1f1")
    child = chess.polyglot.zobrist_hash(board)          # a history key one root move reaches: a draw
    hardware = exact(SearchRequest(position, 2, hint="e1f1", history=(12345, child), halfmove=7))
    assert hardware.hardware["draw_cycles"] > 0         # the filter sent the child's key to the scan
    assert search(SearchRequest(position, 2, hint="e1f1", halfmove=7)).nodes != hardware.nodes
    assert exact(SearchRequest(position, 2, alpha=-50, beta=50, hint="e1f2")).bound == "lower"
    assert exact(SearchRequest(position, 2, alpha=900, beta=1000)).bound == "upper"
    aborted = exact(SearchRequest(position, 2, node_limit=25, hint="d2d5"))
    assert aborted.aborted and aborted.nodes == 25
    # the fifty-move rule: every child of a root at 99 plies a draw
    exact(SearchRequest(position, 1, halfmove=99))


@pytest.mark.parametrize("after", ["stop", 150])
def test_abort_stops_before_the_next_make(after):
    """``abort`` right after the start stops the search before the root's first make: the model's
    search with a node limit of 1 (here raised by the search backend's stop signal, set before the
    run, through the stop flag the simulation reads every cycle). Later, it stops as a node limit
    of the nodes counted then would have, if no move was made between (the engine checks before
    each make)."""
    request = SearchRequest(Position.from_fen(MATE_IN_ONE), 1)
    if after == "stop":
        stop = threading.Event()
        stop.set()
        after = 0
        hardware = HardwareSearch(PysimSearch, GeneratorConfig(core="fast")).run(request, stop=stop)
    else:
        hardware = engine().search(request, abort_after=after)
    assert hardware.aborted
    model = search(SearchRequest(Position.from_fen(MATE_IN_ONE), 1, node_limit=hardware.nodes))
    assert model.aborted and hardware.best == model.best and hardware.score == model.score
    if after == 0:
        assert hardware.nodes == 1 and hardware.as_dict() == {**model.as_dict(), "cycles": hardware.cycles}


def split_exact(request, engines=2):
    """The search array's answer to ``request``, checked equal to the model's split over as many
    engines on best move, score, bound, PV and every counter (the sums over every run); with the
    model's split returned."""
    model = split_search(request, engines)
    hardware = engine(engines=engines).search(request)
    assert hardware.as_dict() == {**model.as_dict(), "cycles": hardware.cycles}
    assert hardware.pv == model.pv
    counters = hardware.hardware
    assert counters["first_move_cycles"] <= counters["generate_cycles"]
    return hardware, model


@pytest.mark.parametrize("fen, depth, engines, winner", [
    (MATE_IN_ONE, 1, 2, 1),                                 # engine 1's move mates: its PV is read
    (MATE_IN_ONE, 1, 3, 2),
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 2, 2, None),         # stalemated root: phase 1 alone
])       # (pysim: a few searches; the compiled sweep, tests/sim/test_hwsplit.py, has more)
def test_search_array_matches_the_models_split(fen, depth, engines, winner):
    hardware, model = split_exact(SearchRequest(Position.from_fen(fen), depth), engines)
    assert model.winner == winner
    if depth == 1 and model.engines:        # the split's cost: every engine generates the root
        assert model.nodes != search(SearchRequest(Position.from_fen(fen), depth)).nodes


def test_search_array_hint_and_node_limit():
    position = Position.from_fen(MATE_IN_ONE)
    _, model = split_exact(SearchRequest(position, 1, hint="a1a8", node_limit=4))
    assert model.winner is None and model.score == MATE - 1 and model.aborted      # the hint's mate stands
    assert model.engines and all(run.nodes <= 4 for run in model.engines)
