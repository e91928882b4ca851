"""``hwmovegen uci`` and ``hwmovegen match``: a GUI's session through python-chess, the model's
answers exactly, malformed input, and a short match."""

import json
import random
import subprocess
import sys
import threading
import time
from dataclasses import replace

import chess
import chess.engine
import pytest

from hwmovegen.cli import main
from hwmovegen.sim.backends import ModelSearch
from hwmovegen.sim.drivers.match import load_openings, score_summary
from hwmovegen.sim.drivers.uci import Game, UciEngine, parse_go, time_budget
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.search import SearchRequest, search

from ..helpers import KIWIPETE

UCI = [sys.executable, "-m", "hwmovegen", "uci"]
BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
MATED = "7k/5KQ1/8/8/8/8/8/8 b - - 0 1"


@pytest.fixture(scope="module")
def engine():
    process = chess.engine.SimpleEngine.popen_uci(UCI, timeout=30)
    yield process
    process.quit()


class Session:
    """An engine in this process: ``send`` a line, read what it wrote."""

    def __init__(self, backend=None):
        self.lines = []
        self.written = threading.Condition()
        self.engine = UciEngine(backend or ModelSearch(), self._write)

    def _write(self, line):
        with self.written:
            self.lines.append(line)
            self.written.notify_all()

    def send(self, *lines):
        for line in lines:
            self.engine.handle(line)

    def wait_for(self, prefix, timeout=20.0):
        """The first line written since the last wait that starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        with self.written:
            while True:
                for index, line in enumerate(self.lines):
                    if line.startswith(prefix):
                        del self.lines[:index + 1]
                        return line
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no {prefix!r} within {timeout} s: {self.lines}"
                self.written.wait(remaining)


def hinted_search(game, depth, history=True):
    """The requests the host sends for ``go depth N`` in ``game`` (a FEN or a :class:`Game`:
    depth 1, 2, ..., the last best move as the hint, the game's keys), run on the model: the
    last result and the nodes of all."""
    game = Game.start(game) if isinstance(game, str) else game
    hint, nodes = None, 0
    for level in range(1, depth + 1):
        request = game.request(level, hint=hint)
        result = search(request if history else replace(request, history=()))
        nodes += result.nodes
        hint = result.best.uci()
    return result, nodes


def test_go_depth_is_the_models_search(engine):
    for fen, depth in ((chess.STARTING_FEN, 3), (KIWIPETE, 2), (BACK_RANK, 3)):
        board = chess.Board(fen)
        played = engine.play(board, chess.engine.Limit(depth=depth), info=chess.engine.INFO_ALL)
        expected, nodes = hinted_search(fen, depth)
        assert played.move.uci() == expected.best.uci(), fen
        assert played.info["depth"] == depth
        assert played.info["score"].relative.score(mate_score=32000) == (
            expected.score if abs(expected.score) < 31000 else 32000 - (32000 - abs(expected.score) + 1) // 2)
        assert [move.uci() for move in played.info["pv"]] == [move.uci() for move in expected.pv]
        assert played.info["nodes"] == nodes
        # the hint changes the order, never the score: the plain search agrees
        assert search(SearchRequest(Position.from_board(board), depth)).score == expected.score


def test_a_game_against_itself(engine):
    board = chess.Board()
    while not board.is_game_over() and board.ply() < 16:
        result = engine.play(board, chess.engine.Limit(depth=1 + board.ply() % 2), game="self")
        assert result.move in board.legal_moves
        board.push(result.move)
    # the game's keys reach the search: after the knights went out and back twice, repetitions
    # along the search's lines are draws, and the search's nodes are those of the game's request
    moves = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1".split()
    board, game = chess.Board(), Game.start()
    for move in moves:
        board.push_uci(move)
        game = game.play(game.find(move))
    info = engine.analyse(board, chess.engine.Limit(depth=2), game="repeat")
    expected, nodes = hinted_search(game, 2)
    assert len(game.history) == 7 and nodes != hinted_search(game, 2, history=False)[1]
    assert info["nodes"] == nodes and info["pv"] == [move.to_chess() for move in expected.pv]


def test_analyse_and_stop_during_infinite(engine):
    info = engine.analyse(chess.Board(KIWIPETE), chess.engine.Limit(depth=2))
    assert info["depth"] == 2 and info["pv"][0] == chess.Move.from_uci("e2a6")
    with engine.analysis(chess.Board()) as analysis:
        for line in analysis:
            if line.get("depth", 0) >= 2:
                break
        start = time.monotonic()
        analysis.stop()
        best = analysis.wait()
        assert time.monotonic() - start < 2.0
    assert best.move in chess.Board().legal_moves


@pytest.fixture(scope="module")
def hardware(search_engine):
    """``hwmovegen uci`` on the compiled search engine: the model the session's ``search_engine``
    built, loaded from the same cache."""
    process = chess.engine.SimpleEngine.popen_uci(UCI + ["--backend", "verilator", "--core", "fast"], timeout=30)
    yield process
    process.quit()


def _cycles(text):
    """(cycles, nodes, aborted) of the hardware's ``info string cycles C nodes N [aborted]``."""
    words = text.split()
    assert words[0] == "cycles" and words[2] == "nodes" and words[4:] in ([], ["aborted"]), text
    return int(words[1]), int(words[3]), words[4:] == ["aborted"]


def test_compiled_backend_plays_analyses_and_stops(hardware, search_engine):
    """The compiled search engine behind ``uci --backend verilator``: ``go depth 2`` and ``analyse``
    are the model's search exactly (move, score, PV, nodes; the cycles the engine's own); ``stop``
    during ``go infinite`` aborts the running simulated iteration where it is, and what it answers
    is the model's search with a node limit of the nodes the hardware had counted."""
    board = chess.Board(KIWIPETE)
    played = hardware.play(board, chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
    expected, nodes = hinted_search(KIWIPETE, 2)
    assert played.move == expected.best.to_chess() and played.info["nodes"] == nodes
    assert played.info["score"].relative.score() == expected.score
    assert played.info["pv"] == [move.to_chess() for move in expected.pv]
    last = Game.start(KIWIPETE).request(2, hint=hinted_search(KIWIPETE, 1)[0].best.uci())
    assert _cycles(played.info["string"]) == (search_engine.run(last).cycles, expected.nodes, False)
    info = hardware.analyse(chess.Board(BACK_RANK), chess.engine.Limit(depth=2))
    expected, nodes = hinted_search(BACK_RANK, 2)
    assert info["pv"] == [move.to_chess() for move in expected.pv] and info["nodes"] == nodes
    assert info["score"].relative == chess.engine.Mate(1)
    # go infinite: stopped while the hardware searches depth 4 (depth 3's cycles came, then a while)
    lines = []
    with hardware.analysis(chess.Board(), game="infinite") as analysis:
        for line in analysis:
            lines.append(line)
            if "string" in line and any(seen.get("depth") == 3 for seen in lines):
                break
        time.sleep(0.2)
        analysis.stop()
        stopped = time.monotonic()
        lines.extend(analysis)
        best = analysis.wait()
    assert time.monotonic() - stopped < 2.0
    texts = [line["string"] for line in lines if "string" in line]
    assert len(texts) == 4 and not any(_cycles(text)[2] for text in texts[:3])
    cycles, aborted_nodes, aborted = _cycles(texts[3])
    assert aborted
    hint = [line for line in lines if line.get("depth") == 3][0]["pv"][0].uci()
    request = Game.start().request(4, hint=hint, node_limit=aborted_nodes)
    model, again = search(request), search_engine.run(request)
    assert model.aborted and again.cycles == cycles and again.nodes == model.nodes == aborted_nodes
    completed = [line for line in lines if line.get("depth") == 4]
    if model.pv:        # a completed root move raised alpha: the aborted iteration's line is played
        assert completed[0]["pv"] == [move.to_chess() for move in model.pv] and best.move == model.best.to_chess()
    else:
        assert not completed and best.move.uci() == hint


def test_mated_and_illegal_input(engine):
    assert engine.play(chess.Board(MATED), chess.engine.Limit(depth=2)).move == chess.Move.null()     # bestmove 0000
    session = Session()
    session.send("position startpos moves e2e4 e7e5", "position startpos moves e2e4 e7e5 e1e3 b8c6")
    assert "'e1e3'" in session.wait_for("info string position: move 3")
    assert session.engine.game == Game.start().play(Game.start().find("e2e4")).play(
        Game.start().play(Game.start().find("e2e4")).find("e7e5"))
    session.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1")
    assert "kept" in session.wait_for("info string position:")
    session.send("setoption name Hash value 64", "setoption name MultiPV value 3")
    assert "Hash" in session.wait_for("info string") and "MultiPV" in session.wait_for("info string")


def test_clock_ponder_and_searchmoves():
    session = Session()
    session.send("position fen " + KIWIPETE, "go wtime 300 btime 300")
    start = time.monotonic()
    move = session.wait_for("bestmove").split()[1]
    assert time.monotonic() - start < 1.0 and chess.Move.from_uci(move) in chess.Board(KIWIPETE).legal_moves
    # searchmoves: only the listed moves, the best of them by the host's split
    session.send("position fen " + BACK_RANK, "go depth 2 searchmoves g2g3 h2h3")
    assert session.wait_for("bestmove").split()[1] in ("g2g3", "h2h3")
    session.send("go depth 2 searchmoves a1a8 g2g3")
    assert "score mate 1" in session.wait_for("info depth 2")
    assert session.wait_for("bestmove").startswith("bestmove a1a8")
    # ponder: searching until ponderhit, then on the clock
    session.send("position startpos moves e2e4", "go ponder wtime 500 btime 500")
    time.sleep(0.2)
    assert not any(line.startswith("bestmove") for line in session.lines)
    session.send("isready")
    session.wait_for("readyok", timeout=1.0)
    session.send("ponderhit")
    assert session.wait_for("bestmove", timeout=2.0)
    # time budget rule
    limits, notes = parse_go("wtime 60000 btime 1000 winc 1000 movestogo 20 bogus".split())
    assert notes == ["go: unknown token 'bogus' ignored"]
    assert time_budget(limits, True, 10) == pytest.approx((3.74, 7.49))
    assert time_budget(parse_go(["movetime", "500"])[0], False, 10) == (None, 0.49)


def _fuzz_lines(rng):
    words = ["uci", "isready", "ucinewgame", "position", "startpos", "fen", "moves", "go", "depth", "movetime",
             "nodes", "wtime", "btime", "winc", "binc", "movestogo", "infinite", "ponder", "searchmoves",
             "ponderhit", "stop", "setoption", "name", "value", "Max Depth", "Move Overhead", "Engines",
             "Quiescence", "Ponder", "Hash", "MultiPV", "debug", "on", "e2e4", "e7e5", "g1f3", "a7a8q", "0000",
             "-1", "0", "2", "99999999999999999999", "x", "\x00", "é", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
             "w", "b", "KQkq", "-", "8/8/8/8/8/8/8/8", KIWIPETE]
    valid = ["position startpos moves e2e4 e7e5", f"position fen {KIWIPETE}", "go depth 1", "go nodes 50",
             "go movetime 20", "go wtime 100 btime 100", "go infinite", "stop", "isready",
             "setoption name Max Depth value 2", "go ponder", "ponderhit", "ucinewgame"]
    for _ in range(400):
        kind = rng.random()
        if kind < 0.4:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(0, 8)))
        elif kind < 0.8:
            line = rng.choice(valid)
            line = line[:rng.randint(0, len(line))]         # truncated
        else:
            line = rng.choice(valid)
        yield line
    yield "stop"


def test_fuzz_never_crashes():
    rng = random.Random(38)
    lines = ["setoption name Max Depth value 2"] + list(_fuzz_lines(rng))
    lines = [line if "Max Depth" not in line else "setoption name Max Depth value 2" for line in lines]
    script = "\n".join(lines) + "\nstop\nisready\nquit\n"
    done = subprocess.run(UCI, input=script, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stdout
    out = done.stdout.splitlines()
    assert "readyok" in out[-3:]
    assert sum(line.startswith("info string") for line in out) > 100      # the malformed lines were answered
    for line in out:
        if line.startswith("bestmove"):
            assert len(line.split()) in (2, 4)


def test_match_plays_two_games(tmp_path, capsys):
    pgn = tmp_path / "games.pgn"
    code = main(["match", "--games", "2", "--depth", "1", "--opponent", "model", "--opponent-depth", "1",
                 "--max-plies", "6", "--pgn", str(pgn), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["games"] == 2 and out["wins"] + out["draws"] + out["losses"] == 2
    assert [result["white"] for result in out["results"]] == [True, False]
    assert out["nodes"] > 0 and out["simulated_hardware"] is False
    games = pgn.read_text().count("[Event ")
    assert games == 2


def test_score_summary_and_openings():
    even = score_summary(3, 4, 3)
    assert even["score"] == 0.5 and even["elo"] == 0 and even["elo_low"] == pytest.approx(-even["elo_high"])
    assert 0.2 < even["margin"] < 0.3
    perfect = score_summary(10, 0, 0)
    # 10 wins of 10: the score is at least 0.025 ** (1 / 10) = 69.2% (97.5%), so Elo > +140
    assert perfect["elo"] is None and perfect["elo_bound"] == (">", pytest.approx(140.2, abs=0.1))
    assert score_summary(0, 0, 10)["elo_bound"][0] == "<"
    openings = load_openings()
    assert len(openings) >= 10 and len({opening.board().fen() for opening in openings}) == len(openings)
    with pytest.raises(ValueError, match="line 1"):
        load_openings("C00 | bad | e4 e4")


@pytest.mark.parametrize("argv, message", [
    (["uci", "--backend", "nope"], "invalid choice"),
    (["match", "--games", "0"], "at least 1"),
    (["match", "--depth", "2", "--nodes", "100"], "not allowed with"),
    (["match", "--opponent-depth", "9"], "at most 8"),
    (["uci", "--engines", "0"], "at least 1"),
    (["uci", "--engines", "2", "--sim"], "one search engine"),
])
def test_bad_options_are_one_line(capsys, argv, message):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_engines_option_splits_the_root():
    """``setoption name Engines value 2`` (and ``uci --engines 2``): each iteration is the model's
    split over two engines (``split_search``), not its plain search."""
    from hwmovegen.sim.model.search import split_search
    for argv, options in ((UCI, {"Engines": 2}), (UCI + ["--engines", "2"], {})):
        process = chess.engine.SimpleEngine.popen_uci(argv, timeout=30)
        try:
            assert process.options["Engines"].default == (2 if not options else 1)
            process.configure(options)
            played = process.play(chess.Board(KIWIPETE), chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        finally:
            process.quit()
        game, hint, nodes = Game.start(KIWIPETE), None, 0
        for level in (1, 2):
            result = split_search(game.request(level, hint=hint), 2)
            nodes, hint = nodes + result.nodes, result.best.uci()
        assert played.move.uci() == result.best.uci() and played.info["nodes"] == nodes
        assert [move.uci() for move in played.info["pv"]] == [move.uci() for move in result.pv]
        assert nodes != hinted_search(KIWIPETE, 2)[1]
