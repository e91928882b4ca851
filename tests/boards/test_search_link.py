"""SEARCH, HISTORY and ABORT over the host link: the whole dev-board top with the search engine,
compiled (the pysim top is far too slow for a search), against the golden model's search exactly;
a board without the engine refuses them; an ABORT answers with a legal best move."""

import json
import subprocess
import sys
import threading

import chess
import chess.polyglot
import pytest

from hwmovegen.cli import main
from hwmovegen.boards.client import DeviceError, HostClient, SimulatedDevBoard
from hwmovegen.rtl.protocol import (ErrorCode, FrameType, SEARCH_REQUEST_BYTES, frame, history_payload,
                                    search_payload)
from hwmovegen.sim.harness.search import request_word
from hwmovegen.sim.harness.wire import position_bytes
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.drivers.uci import Game
from hwmovegen.sim.model.search import SearchRequest, search
from hwmovegen.tables.contracts import GeneratorConfig
from hwmovegen.tables.search import MAX_DEPTH, MAX_HISTORY

from ..helpers import KIWIPETE

START = chess.STARTING_FEN
TACTICAL = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"     # Qxf7# at depth 1


def _position(fen):
    return Position.from_board(chess.Board(fen), check=False)


def _same(answer, model):
    assert answer.as_dict() == {**model.as_dict(), "cycles": answer.cycles}
    assert answer.pv == model.pv and answer.cycles > 0


def _history(fen):
    """Keys of positions two quiet plies below ``fen``: the search meets them at ply 2 as repetitions."""
    board, keys = chess.Board(fen), []
    for first in list(board.legal_moves)[:3]:
        after = board.copy(stack=False)
        after.push(first)
        after.push(next(move for move in after.legal_moves if not after.is_capture(move)))
        keys.append(chess.polyglot.zobrist_hash(after))
    return tuple(keys)


@pytest.mark.parametrize("request_of", [
    lambda: SearchRequest(_position(START), 2),
    lambda: SearchRequest(_position(TACTICAL), 1, hint="e1e2"),
    lambda: SearchRequest(_position(KIWIPETE), 2, alpha=-50, beta=60, halfmove=7, history=_history(KIWIPETE)),
    lambda: SearchRequest(_position(START), 2, node_limit=40, quiescence=2),
], ids=["start-2", "mate-in-1-hinted", "kiwipete-window-history", "node-limit"])
def test_a_search_over_the_link_is_the_models(search_board, request_of):
    request = request_of()
    _same(search_board().search(request), search(request))


def test_requests_around_a_search_are_served(search_board):
    """PING, GENERATE and a second SEARCH after one: the link is back to serving."""
    client = search_board()
    info = client.ping()
    assert info.search and info.core == "fast"
    request = SearchRequest(_position(TACTICAL), 1)
    _same(client.search(request), search(request))
    moves, _ = client.generate(_position(START))
    assert len(moves) == 20
    _same(client.search(request), search(request))


def test_abort_answers_with_a_legal_best_move(search_board):
    """A search far too deep to finish, stopped: the board's best move so far, legal, and aborted."""
    client = search_board()
    stop = threading.Event()
    stop.set()          # the client sends ABORT as soon as the board searches
    position = _position(KIWIPETE)
    answer = client.search(SearchRequest(position, MAX_DEPTH), stop=stop, timeout=60)
    assert answer.aborted
    assert answer.best in generate(position, legal=True).moves
    request = SearchRequest(_position(START), 1)     # and the next search is whole
    _same(client.search(request), search(request))


def test_an_abort_with_no_search_running_is_dropped(search_board):
    client = search_board()
    client.abort()
    assert client.ping().search


@pytest.mark.parametrize("payload", [
    lambda: search_payload(position_bytes(_position(START)), request_word(SearchRequest(_position(START), 1)) & ~0xF),
    lambda: search_payload(position_bytes(_position(START)), request_word(SearchRequest(_position(START), 1))
                           | (MAX_DEPTH + 1)),
], ids=["depth-0", "depth-above-max"])
def test_a_search_the_engine_cannot_hold_is_refused(search_board, payload):
    client = search_board()
    client.send_raw(frame(FrameType.SEARCH, payload()))
    assert client.expect_error() == ErrorCode.BAD_SEARCH
    assert client.ping().search


def test_a_history_index_past_the_memory_is_refused(search_board):
    client = search_board()
    client.send_raw(frame(FrameType.HISTORY, history_payload(MAX_HISTORY, 1)))
    assert client.expect_error() == ErrorCode.BAD_SEARCH


@pytest.mark.parametrize("frame_type, payload", [
    (FrameType.SEARCH, bytes(len(position_bytes(_position(START))) + SEARCH_REQUEST_BYTES)),
    (FrameType.HISTORY, history_payload(0, 1)),
    (FrameType.ABORT, b""),
])
def test_a_board_without_the_engine_refuses_a_search(frame_type, payload):
    board = SimulatedDevBoard()
    client = HostClient(board, timeout=0.5)
    assert not client.ping().search
    client.send_raw(frame(frame_type, payload))
    assert client.expect_error() == ErrorCode.NO_SEARCH
    with pytest.raises(DeviceError, match="NO_SEARCH"):
        client.search(SearchRequest(_position(START), 1))
    assert len(client.generate(_position(START))[0]) == 20


def _uci(*lines, options=("--sim", "--core", "fast"), timeout=300):
    """``hwmovegen uci`` with ``options`` fed ``lines``: its output lines."""
    done = subprocess.run([sys.executable, "-m", "hwmovegen", "uci", *options],
                          input="".join(f"{line}\n" for line in lines), capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_uci_sim_answers_with_the_models_move(search_board):
    search_board()      # the compiled board, built once for the run (the engine's process finds it)
    # one search a process: input comes all at once, and a go while one searches is refused as UCI asks
    out = _uci("uci", "isready", f"position fen {TACTICAL}", "go depth 1")
    assert "id name hwmovegen (sim)" in out and "readyok" in out
    out += _uci("position startpos moves e2e4", "go depth 2")
    expected = [search(Game.start(TACTICAL).request(1)).best.uci()]
    game = Game.start()
    game = game.play(game.find("e2e4"))
    first = search(game.request(1))
    expected.append(search(game.request(2, hint=first.best.uci())).best.uci())
    assert [line.split()[1] for line in out if line.startswith("bestmove")] == expected


def test_uci_sim_stop_aborts_and_keeps_a_legal_move(search_board):
    search_board()
    process = subprocess.Popen([sys.executable, "-m", "hwmovegen", "uci", "--sim", "--core", "fast"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        process.stdin.write(f"position fen {KIWIPETE}\ngo infinite\n")
        process.stdin.flush()
        while not (line := process.stdout.readline()).startswith("info depth 2"):   # depth 2 done: 3 runs
            assert line, "the engine ended before its second iteration"
        process.stdin.write("stop\n")
        process.stdin.flush()
        while not (line := process.stdout.readline()).startswith("bestmove"):
            assert line, "no bestmove after stop"
        board = chess.Board(KIWIPETE)
        assert chess.Move.from_uci(line.split()[1]) in board.legal_moves
    finally:
        process.stdin.close()
        process.wait(timeout=120)


@pytest.mark.parametrize("argv", [
    ["uci", "--sim", "--port", "/dev/null"],
    ["uci", "--backend", "model", "--sim"],
    ["board", "--sim", "--search", "1", "--perft", "1"],
    ["board", "--sim", "--search", "9"],
    ["build", "--board", "icebreaker", "--search"],
])
def test_cli_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hwmovegen: error:") and len(err.strip().splitlines()) == 1, err


def test_cli_board_sim_search(search_board, capsys):
    search_board()
    assert main(["board", "--sim", "--core", "fast", "--search", "1", "--fen", TACTICAL, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    model = search(SearchRequest(_position(TACTICAL), 1, halfmove=4))
    assert out["matches_model"] and out["best"] == model.best.uci() == "h5f7" and out["pv"] == ["h5f7"]
    assert {name: out[name] for name in model.counters()} == model.counters()


def test_a_tiny_search_and_an_abort_on_the_pysim_top():
    """The whole top with the search engine in pysim (about 70 cycles a second: a depth-1 search of
    a bare ending, UART included, takes a minute and a half): the model's answer, history and
    halfmove clock included; then an ABORT right behind a SEARCH stops it before its first move."""
    client = HostClient(SimulatedDevBoard(GeneratorConfig(core="fast"), search=True), timeout=5.0)
    assert client.ping().search
    position = _position("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    request = SearchRequest(position, 1, quiescence=0, halfmove=3, history=(12345,))
    _same(client.search(request, timeout=100), search(request))
    stop = threading.Event()
    stop.set()
    answer = client.search(SearchRequest(position, 3, quiescence=0), stop=stop, timeout=100)
    assert answer.aborted and answer.nodes == 1 and answer.pv == []
    assert answer.best in generate(position, legal=True).moves
