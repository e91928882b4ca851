"""A UCI engine on a search backend: the protocol, the game, iterative deepening and the clock.

The host owns everything but the search: it parses the GUI's commands, keeps the game (the
position, the halfmove clock and the keys since the last irreversible move, so a search sees
repetitions and the fifty-move rule), deepens one request at a time (depth 1, 2, ..., the last
best move as the next request's hint), keeps the clock and answers ``stop`` and ``isready`` at
once while a worker thread searches. The backend only runs requests (``run(request, stop)``,
:mod:`..backends`); ``stop`` aborts the running one. Every ``bestmove`` is checked against the
model's own legal moves before it is sent. ``docs/play.md`` describes the commands and the rules.
"""

import threading
import time
from dataclasses import dataclass, field

from ...tables.search import (DEFAULT_QUIESCENCE, INF, MATE, MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE,
                              MAX_SEARCH_ENGINES, is_mate)
from ..model import Position, PositionError, generate, parse_fen
from ..model.order import order_moves
from ..model.search import SearchRequest, SearchResult, format_score, halfmove_after, key

__all__ = ["Game", "GoLimits", "UciEngine", "parse_go", "time_budget", "OPTIONS", "REFUSED_OPTIONS",
           "ENGINE_NAME", "ENGINE_AUTHOR", "DEFAULT_MOVES_TO_GO", "MAX_ENGINES"]

ENGINE_NAME = "hwmovegen"
ENGINE_AUTHOR = "the hwmovegen authors"
DEFAULT_MOVES_TO_GO = 30    # the moves a clock without movestogo is shared over
MAX_ENGINES = MAX_SEARCH_ENGINES     # the Engines option: search engines splitting the root moves

# name: (type, default, min, max); spins are whole numbers
OPTIONS = {
    "Move Overhead": ("spin", 10, 0, 5000),
    "Max Depth": ("spin", MAX_DEPTH, 1, MAX_DEPTH),
    "Quiescence": ("spin", DEFAULT_QUIESCENCE, 0, MAX_QUIESCENCE),
    "Engines": ("spin", 1, 1, MAX_ENGINES),
    "Ponder": ("check", False, None, None),
}
REFUSED_OPTIONS = {
    "multipv": "MultiPV is not supported: the search returns one principal variation",
    "hash": "Hash is not supported: the search keeps no transposition table",
}
_GO_NUMBERS = ("depth", "movetime", "nodes", "wtime", "btime", "winc", "binc", "movestogo", "mate")
_GO_FLAGS = ("infinite", "ponder")
_COMMANDS = ("uci", "debug", "isready", "setoption", "register", "ucinewgame", "position", "go", "stop",
             "ponderhit", "quit")


class UciInputError(ValueError):
    """A command the engine cannot use: reported as an ``info string``, the state unchanged."""


@dataclass(frozen=True)
class Game:
    """A game as the searches need it: the position, its halfmove clock and the keys of the
    positions before it since the last irreversible move (oldest first)."""
    position: Position
    halfmove: int = 0
    history: tuple = ()

    @classmethod
    def start(cls, fen=None):
        board = parse_fen(fen or "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        return cls(Position.from_board(board, check=False), board.halfmove_clock)

    def legal(self):
        """The model's legal moves (its own generator and legality rule)."""
        return generate(self.position, legal=True).moves

    def find(self, text):
        """The legal move written ``text`` in UCI, or None."""
        return next((move for move in self.legal() if move.uci() == text), None)

    def play(self, move):
        clock = halfmove_after(self.position, move, self.halfmove)
        history = () if clock == 0 else (*self.history, key(self.position))
        return Game(self.position.make(move), clock, history)

    def request(self, depth, **fields):
        """A search request from this game (the most recent ``MAX_HISTORY`` keys)."""
        return SearchRequest(self.position, depth, halfmove=self.halfmove,
                             history=self.history[-MAX_HISTORY:], **fields)


@dataclass
class GoLimits:
    """A ``go`` command's limits (milliseconds for times)."""
    depth: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    mate: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list = field(default_factory=list)


def parse_go(tokens):
    """(GoLimits, notes) from the tokens after ``go``; notes name what was ignored."""
    limits, notes, index = GoLimits(), [], 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token in _GO_NUMBERS:
            if index >= len(tokens):
                notes.append(f"go {token}: a number is missing")
                continue
            try:
                value = int(tokens[index])
            except ValueError:
                notes.append(f"go {token}: {tokens[index]!r} is not a whole number")
                index += 1
                continue
            index += 1
            if token in ("wtime", "btime"):
                value = max(value, 0)       # some GUIs send a negative clock when a flag has fallen
            elif value < 0 or value == 0 and token in ("depth", "nodes", "movestogo", "mate"):
                notes.append(f"go {token} {value}: out of range")
                continue
            setattr(limits, token, value)
        elif token in _GO_FLAGS:
            setattr(limits, token, True)
        elif token == "searchmoves":
            while index < len(tokens) and tokens[index] not in _GO_NUMBERS + _GO_FLAGS:
                limits.searchmoves.append(tokens[index])
                index += 1
        else:
            notes.append(f"go: unknown token {token!r} ignored")
    if limits.mate is not None:
        notes.append("go mate: searched as depth 2 * mate - 1")
        limits.depth = min(limits.depth or MAX_DEPTH, 2 * limits.mate - 1)
    return limits, notes


def time_budget(limits, white, overhead_ms):
    """(soft, hard) in seconds for a move, or (None, None) without a clock. The rule:

    * ``movetime T``: hard = T - overhead; no soft limit (iterations go on until hard).
    * ``wtime/btime`` (ours T, increment I, ``movestogo`` M or ``DEFAULT_MOVES_TO_GO``):
      share = T / M + 3 I / 4; hard = min(2 share, T / 2) - overhead; soft = share - overhead.
      No new iteration starts after soft / 2 (the next one takes several times the last).
    Times never go below zero; the running iteration is aborted at hard."""
    if limits.movetime is not None:
        return None, max(limits.movetime - overhead_ms, 0) / 1000
    ours = limits.wtime if white else limits.btime
    if ours is None:
        return None, None
    increment = limits.winc if white else limits.binc
    share = ours / (limits.movestogo or DEFAULT_MOVES_TO_GO) + 0.75 * increment
    hard = max(min(2 * share, ours / 2) - overhead_ms, 0)
    soft = max(share - overhead_ms, 0)
    return soft / 1000, hard / 1000


class _Stop:
    """The stop signal a backend reads before each make: ``stop``, or the clock's hard limit."""

    def __init__(self):
        self._event = threading.Event()
        self.deadline = None

    def set(self):
        self._event.set()

    def is_set(self):
        return self._event.is_set() or self.deadline is not None and time.monotonic() >= self.deadline


def _mate_one_ply_further(score):
    """A child's score seen from its parent: negated, a mate one ply further from the root."""
    score = -score
    if is_mate(score):
        score += -1 if score > 0 else 1
    return score


def _mate_one_ply_nearer(score):
    """A parent's score seen from its child (the inverse of :func:`_mate_one_ply_further`)."""
    score = -score
    if is_mate(score):
        score += 1 if score > 0 else -1
    return score


class _Worker(threading.Thread):
    """One ``go``: iterative deepening on the backend, then ``bestmove``."""

    def __init__(self, engine, game, limits, options):
        super().__init__(daemon=True)
        self.engine, self.game, self.limits = engine, game, limits
        self.overhead = options["Move Overhead"]
        self.cap = options["Max Depth"]
        self.quiescence = options["Quiescence"]
        self.stop_signal = _Stop()
        self.released = threading.Event()        # stop, or ponderhit after the last iteration
        self.lock = threading.Lock()
        self.waiting = limits.infinite or limits.ponder
        self.soft = None
        self.start_time = time.monotonic()
        if not limits.ponder:
            self._start_clock()

    def _start_clock(self):
        self.start_time = time.monotonic()
        soft, hard = time_budget(self.limits, self.game.position.white_to_move, self.overhead)
        self.soft = soft
        if hard is not None:
            self.stop_signal.deadline = self.start_time + hard

    def stop(self):
        self.stop_signal.set()
        self.released.set()

    def ponderhit(self):
        with self.lock:
            if not self.limits.ponder:
                return
            self.limits.ponder = False
            self.waiting = self.limits.infinite
            self._start_clock()
            if not self.waiting:
                self.released.set()

    # -- searching

    def run(self):
        try:
            best = self._search()
        except Exception as error:      # noqa: BLE001 (a backend failure must not leave the GUI waiting)
            self.engine.say(f"internal error in the search: {type(error).__name__}: {error}")
            best = None
        line = self._bestmove_line(best)
        # the engine is free before bestmove is sent: the GUI's next go may follow it at once
        self.engine.searching_done(self)
        self.engine.send(line)

    def _search(self):
        game, limits = self.game, self.limits
        legal = game.legal()
        root_moves = legal
        if limits.searchmoves:
            named = {move.uci(): move for move in legal}
            chosen = [named[text] for text in dict.fromkeys(limits.searchmoves) if text in named]
            ignored = [text for text in limits.searchmoves if text not in named]
            if ignored:
                self.engine.say(f"searchmoves: not legal here, ignored: {' '.join(ignored)}")
            if chosen:
                root_moves = chosen
        best = None                             # the SearchResult whose move is played
        if root_moves:
            # the move played if even depth 1 is stopped before a root move completes: the first
            # the search would try (the ordering stage's first), legal by construction
            fallback = order_moves(game.position, root_moves, "mvv-lva")[0]
            best = SearchResult(fallback, -INF, "upper", [])
            best = self._deepen(root_moves, len(root_moves) < len(legal), best)
        self._wait_for_release()
        return best

    def _deepen(self, root_moves, split, best):
        limits = self.limits
        depth_limit = min(self.cap, limits.depth or MAX_DEPTH)
        first_depth = 2 if split else 1     # a split root searches each move's reply to depth - 1
        nodes = 0
        for depth in range(first_depth, max(depth_limit, first_depth) + 1):
            if depth > first_depth:
                elapsed = time.monotonic() - self.start_time
                if self.soft is not None and elapsed >= self.soft / 2 and not self.waiting:
                    break
                if limits.nodes is not None and nodes >= limits.nodes:
                    break
                if self.stop_signal.is_set():
                    break
            budget = limits.nodes - nodes if limits.nodes is not None else 0
            hint = best.best.uci() if best.pv else None
            if split:
                result = self._split(root_moves, depth, budget, hint)
            else:
                result = self.engine.backend.run(
                    self.game.request(depth, node_limit=budget, hint=hint, quiescence=self.quiescence),
                    stop=self.stop_signal)
            nodes += result.nodes
            if result.pv:
                # a completed iteration, or an aborted one whose completed root moves (the last
                # best move first, by the hint) raised alpha: its move was searched to this depth
                best = result
                self._info(depth, result, nodes)
            elif result.best is not None and not best.pv:
                best = result
            if result.cycles is not None:       # the simulated hardware's own count, aborted or not
                self.engine.say(f"cycles {result.cycles} nodes {result.nodes}"
                                + (" aborted" if result.aborted else ""))
            if result.aborted or self.stop_signal.is_set():
                break
            if (is_mate(result.score) and MATE - abs(result.score) <= depth and not self.waiting
                    and limits.depth is None):
                break       # on the clock: a mate within the full-width depth, no deeper iteration finds a shorter one
        return best

    def _split(self, root_moves, depth, budget, hint):
        """``searchmoves``: the host searches each listed root move's position to ``depth - 1``
        (the request's window narrowed to beat the best so far) and keeps the best."""
        game = self.game
        moves = sorted(root_moves, key=lambda move: move.uci() != hint)
        alpha, pv, nodes, aborted = -INF, [], 1, False
        counters = {"qnodes": 0, "cutoffs": 0, "generations": 1}
        root_key = key(game.position)
        for move in moves:
            if budget and nodes >= budget or self.stop_signal.is_set():
                aborted = True
                break
            child = game.play(move)
            nodes += 1
            if child.halfmove >= 100 or key(child.position) in (*game.history, root_key):
                score, line = 0, []
            else:
                request = child.request(depth - 1, beta=_mate_one_ply_nearer(alpha) if alpha > -INF else INF,
                                        node_limit=budget - nodes + 1 if budget else 0, quiescence=self.quiescence)
                result = self.engine.backend.run(request, stop=self.stop_signal)
                nodes += result.nodes - 1
                for name in counters:
                    counters[name] += getattr(result, name)
                if result.aborted:
                    aborted = True
                    break
                score, line = _mate_one_ply_further(result.score), result.pv
            if score > alpha:
                alpha, pv = score, [move, *line]
        best = pv[0] if pv else moves[0]
        return SearchResult(best, alpha, "exact", pv, nodes, aborted=aborted, **counters)

    def _wait_for_release(self):
        with self.lock:
            waiting = self.waiting or self.limits.ponder
        if waiting:
            self.released.wait()

    def _info(self, depth, result, nodes):
        elapsed = time.monotonic() - self.start_time
        milliseconds = int(elapsed * 1000)
        nps = int(nodes / elapsed) if elapsed > 0 else 0
        bound = {"lower": " lowerbound", "upper": " upperbound"}.get(result.bound, "")
        seldepth = max(depth, len(result.pv))
        pv = " ".join(move.uci() for move in result.pv)
        self.engine.send(f"info depth {depth} seldepth {seldepth} score {format_score(result.score)}{bound} "
                         f"nodes {nodes} nps {nps} time {milliseconds} pv {pv}")

    def _bestmove_line(self, best):
        """``bestmove`` (with ``ponder`` when the PV has a legal second move), the move checked
        against the model's legal moves; ``bestmove 0000`` without one."""
        legal = {move.uci(): move for move in self.game.legal()}
        if not legal:
            return "bestmove 0000"
        move = best.best if best is not None else None
        if move is None or move.uci() not in legal:
            if move is not None:
                self.engine.say(f"the search answered {move.uci()}, not a legal move here: playing the first "
                                "legal move instead")
            return f"bestmove {next(iter(legal))}"
        line = f"bestmove {move.uci()}"
        if len(best.pv) > 1 and best.pv[0] == move:
            reply = self.game.play(legal[move.uci()]).find(best.pv[1].uci())
            if reply is not None:
                line += f" ponder {reply.uci()}"
        return line


class UciEngine:
    """The protocol: ``handle(line)`` for each line from the GUI, ``write(text)`` for each line
    sent. ``backend``: a search backend (``run(request, stop)``) of ``engines`` engines;
    ``split(n)``: the same backend with ``n`` engines splitting the root moves (the
    ``Engines`` option; None: the backend has the one engine it has, and says so)."""

    def __init__(self, backend, write, backend_name=None, split=None, engines=1):
        self.backend = backend
        self.split = split
        self.backend_name = backend_name or backend.name
        self._write = write
        self._out = threading.Lock()
        self._state = threading.Lock()
        self.options = {name: spec[1] for name, spec in OPTIONS.items()}
        self.options["Engines"] = self.engines = engines      # (uci --engines N: its default)
        self.game = Game.start()
        self.worker = None
        self.done = False
        self.debug = False

    # -- output

    def send(self, line):
        with self._out:
            self._write(line)

    def say(self, text):
        self.send(f"info string {' '.join(str(text).split())}")

    # -- input

    def handle(self, line):
        """One line from the GUI; False once ``quit`` has been handled."""
        tokens = line.split()
        # unknown leading tokens are skipped, as the protocol asks
        while tokens and tokens[0] not in _COMMANDS:
            self.say(f"unknown command {tokens[0]!r} skipped")
            tokens = tokens[1:]
        if not tokens:
            return not self.done
        command, rest = tokens[0], tokens[1:]
        try:
            getattr(self, f"_{command}")(rest)
        except UciInputError as error:
            self.say(str(error))
        except Exception as error:      # noqa: BLE001 (malformed input must never end the engine)
            self.say(f"internal error on {command!r}: {type(error).__name__}: {error}")
        return not self.done

    def _uci(self, rest):
        self.send(f"id name {ENGINE_NAME} ({self.backend_name})")
        self.send(f"id author {ENGINE_AUTHOR}")
        for name, (kind, default, low, high) in OPTIONS.items():
            if kind == "spin":
                default = self.engines if name == "Engines" else default
                self.send(f"option name {name} type spin default {default} min {low} max {high}")
            else:
                self.send(f"option name {name} type check default {str(default).lower()}")
        self.send("uciok")

    def _debug(self, rest):
        self.debug = rest[:1] == ["on"]

    def _isready(self, rest):
        self.send("readyok")

    def _register(self, rest):
        pass

    def _setoption(self, rest):
        if not rest or rest[0] != "name":
            raise UciInputError("setoption: expected 'setoption name NAME [value VALUE]'")
        words = rest[1:]
        cut = words.index("value") if "value" in words else len(words)
        name, value = " ".join(words[:cut]), " ".join(words[cut + 1:])
        if name.lower() in REFUSED_OPTIONS:
            raise UciInputError(REFUSED_OPTIONS[name.lower()])
        match = next((known for known in OPTIONS if known.lower() == name.lower()), None)
        if match is None:
            raise UciInputError(f"setoption: no option {name!r}")
        kind, _, low, high = OPTIONS[match]
        if kind == "check":
            if value.lower() not in ("true", "false"):
                raise UciInputError(f"setoption {match}: expected true or false, not {value!r}")
            self.options[match] = value.lower() == "true"
            return
        try:
            number = int(value)
        except ValueError:
            raise UciInputError(f"setoption {match}: expected a whole number, not {value!r}") from None
        if not low <= number <= high:
            raise UciInputError(f"setoption {match}: {number} is outside {low} to {high}")
        if match == "Engines" and number != self.options[match]:
            if self.split is None:
                self.say(f"Engines {number}: the {self.backend_name} backend searches with "
                         f"{self.options[match]} engine{'s' if self.options[match] > 1 else ''}")
                return
            self._stop_and_join()
            self.backend = self.split(number)
        self.options[match] = number

    def _ucinewgame(self, rest):
        self._stop_and_join()
        self.game = Game.start()

    def _position(self, rest):
        if not rest:
            raise UciInputError("position: expected 'startpos' or 'fen FEN', then 'moves ...'")
        cut = rest.index("moves") if "moves" in rest else len(rest)
        head, moves = rest[:cut], rest[cut + 1:]
        if head == ["startpos"]:
            game = Game.start()
        elif head[:1] == ["fen"] and len(head) > 1:
            fen = " ".join(head[1:])
            try:
                game = Game.start(fen)
            except PositionError as error:
                raise UciInputError(f"position: {error}; the position is kept") from None
        else:
            raise UciInputError(f"position: expected 'startpos' or 'fen FEN', not {' '.join(head)!r}; "
                                "the position is kept")
        for number, text in enumerate(moves, 1):
            move = game.find(text)
            if move is None:
                raise UciInputError(f"position: move {number}, {text!r}, is not legal; the position is kept")
            game = game.play(move)
        self.game = game

    def _go(self, rest):
        with self._state:
            if self.worker is not None:
                raise UciInputError("go: already searching; send stop first")
            limits, notes = parse_go(rest)
            for note in notes:
                self.say(note)
            self.worker = _Worker(self, self.game, limits, dict(self.options))
            self.worker.start()

    def _stop(self, rest):
        worker = self.worker
        if worker is not None:
            worker.stop()

    def _ponderhit(self, rest):
        worker = self.worker
        if worker is not None:
            worker.ponderhit()

    def _quit(self, rest):
        self._stop_and_join()
        self.done = True

    def searching_done(self, worker):
        with self._state:
            if self.worker is worker:
                self.worker = None

    def _stop_and_join(self):
        worker = self.worker
        if worker is not None:
            worker.stop()
            worker.join()

    def close(self):
        """End of input: a search with a limit runs to its end, an infinite or pondering one is
        stopped; its bestmove is sent either way."""
        worker = self.worker
        if worker is not None:
            if worker.waiting or worker.limits.ponder:
                worker.stop()
            worker.join()
