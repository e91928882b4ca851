"""A match through UCI: our engine against an opponent, from balanced openings, both colours.

python-chess drives both engines (``chess.engine``), referees the games (its game-over rules) and
writes the PGN; it decides nothing for our engine. Adjudication, the score's error bars and the
Elo difference follow the rules stated on ``docs/play.md``.
"""

import math
from dataclasses import dataclass, field
from importlib import resources

import chess
import chess.engine
import chess.pgn

__all__ = ["Opening", "Adjudication", "Player", "GameRecord", "MatchError", "load_openings", "play_game",
           "score_summary", "elo", "OPENINGS"]

OPENINGS = "openings.txt"       # in this package's data folder


class MatchError(RuntimeError):
    """An engine failed (exited, timed out, answered an illegal move): one line."""


@dataclass(frozen=True)
class Opening:
    eco: str
    name: str
    moves: tuple        # SAN

    def board(self):
        board = chess.Board()
        for san in self.moves:
            board.push_san(san)
        return board


def load_openings(text=None):
    """The openings shipped with the project (or those in ``text``): ``ECO | name | SAN moves``
    a line, ``#`` comments. Each line is replayed with python-chess (a bad line raises)."""
    if text is None:
        text = resources.files(__package__).joinpath("data", OPENINGS).read_text()
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            eco, name, moves = (part.strip() for part in line.split("|"))
            opening = Opening(eco, name, tuple(moves.split()))
            opening.board()
        except ValueError as error:
            raise ValueError(f"openings line {number}: {error}") from None
        openings.append(opening)
    return openings


@dataclass(frozen=True)
class Adjudication:
    """A game ends (besides python-chess's rules: mate, stalemate, insufficient material, a
    threefold repetition or the fifty-move rule claimed at once, fivefold and 75 moves) as a draw
    after ``max_plies`` plies played by the engines, or as a win when the engines' own scores
    agree: ``decisive_moves`` consecutive moves of each side, every one scoring the same side at
    least ``decisive_cp`` ahead (mate scores included)."""
    max_plies: int = 200
    decisive_cp: int = 1000
    decisive_moves: int = 4


@dataclass
class Player:
    """An engine in the match: its name, its command, its limit per move, its options."""
    name: str
    command: list
    limit: chess.engine.Limit
    options: dict = field(default_factory=dict)
    engine: object = None
    nodes: int = 0
    seconds: float = 0.0
    moves: int = 0
    cycles: int = 0
    cycle_nodes: int = 0

    def open(self, timeout=60.0):
        try:
            self.engine = chess.engine.SimpleEngine.popen_uci(self.command, timeout=timeout)
            if self.options:
                self.engine.configure(self.options)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError, TimeoutError) as error:
            raise MatchError(f"cannot start {self.name} ({' '.join(self.command)}): {error}") from None
        return self

    def close(self):
        if self.engine is not None:
            try:
                self.engine.quit()
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
                self.engine.close()
            self.engine = None

    def play(self, board, game_id):
        try:
            result = self.engine.play(board, self.limit, info=chess.engine.INFO_ALL, game=game_id)
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError) as error:
            raise MatchError(f"{self.name} failed at {board.fen()}: {error}") from None
        if result.move is None or result.move not in board.legal_moves:
            raise MatchError(f"{self.name} answered an illegal move {result.move} at {board.fen()}")
        info = result.info
        self.moves += 1
        self.nodes += info.get("nodes", 0)
        self.seconds += info.get("time", 0.0)
        text = info.get("string", "")
        if text.startswith("cycles "):      # our hardware backends: "cycles C nodes N" of the last iteration
            words = text.split()
            self.cycles += int(words[1])
            self.cycle_nodes += int(words[3])
        return result


@dataclass
class GameRecord:
    opening: Opening
    ours_white: bool
    result: str         # "1-0", "0-1", "1/2-1/2"
    reason: str
    plies: int
    pgn: chess.pgn.Game

    @property
    def points(self):
        """Our points: 1, 0.5 or 0."""
        if self.result == "1/2-1/2":
            return 0.5
        return float((self.result == "1-0") == self.ours_white)


def _white_cp(result):
    score = result.info.get("score")
    if score is None:
        return None
    return score.white().score(mate_score=100_000)


def play_game(ours, theirs, opening, ours_white, adjudication=Adjudication(), round_number=1, event="match"):
    """One game from ``opening`` (our engine white when ``ours_white``): a :class:`GameRecord`."""
    board = opening.board()
    game = chess.pgn.Game()
    white, black = (ours, theirs) if ours_white else (theirs, ours)
    game.headers.update({"Event": event, "Round": str(round_number), "White": white.name, "Black": black.name,
                         "Opening": opening.name, "ECO": opening.eco})
    node = game
    for move in opening.board().move_stack:
        node = node.add_variation(move)
    node.comment = "book"
    game_id = object()
    scores = []         # the mover's score, from white's side, a ply each
    plies, reason, result = 0, None, None
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result, reason = outcome.result(), outcome.termination.name.lower().replace("_", " ")
            break
        if plies >= adjudication.max_plies:
            result, reason = "1/2-1/2", f"adjudicated: {adjudication.max_plies} plies played"
            break
        mover = white if board.turn == chess.WHITE else black
        answer = mover.play(board, game_id)
        cp = _white_cp(answer)
        scores.append(cp)
        node = node.add_variation(answer.move)
        if cp is not None:
            node.comment = f"{answer.info['score'].white()} d{answer.info.get('depth', '?')}"
        board.push(answer.move)
        plies += 1
        window = scores[-2 * adjudication.decisive_moves:]
        if len(window) == 2 * adjudication.decisive_moves and None not in window:
            if all(cp >= adjudication.decisive_cp for cp in window):
                result, reason = "1-0", f"adjudicated: both engines scored white {adjudication.decisive_cp}+ cp ahead"
                break
            if all(cp <= -adjudication.decisive_cp for cp in window):
                result, reason = "0-1", f"adjudicated: both engines scored black {adjudication.decisive_cp}+ cp ahead"
                break
    game.headers["Result"] = result
    game.headers["Termination"] = reason
    return GameRecord(opening, ours_white, result, reason, plies, game)


def elo(score):
    """The Elo difference a score (0 < score < 1) stands for: -400 log10(1 / score - 1)."""
    return -400 * math.log10(1 / score - 1) + 0.0     # + 0.0: no "-0" for an even score


def score_summary(wins, draws, losses):
    """The score and its 95% error bars, the Elo difference and its range (a dict).

    The score is (wins + draws / 2) / games; its standard error comes from the games' own
    spread (each game 1, 1/2 or 0), the bars are 1.96 standard errors. The Elo range is that of
    the score's bars (unbounded where a bar reaches 0 or 1). Where the score is 0% or 100%, the
    Elo is unbounded; the bound given is the one-sided 97.5% Clopper-Pearson bound of the score
    (0.025^(1/n) for n wins out of n), as an Elo bound."""
    games = wins + draws + losses
    if not games:
        raise ValueError("no games")
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / games
    margin = 1.96 * math.sqrt(variance / games)
    out = {"games": games, "wins": wins, "draws": draws, "losses": losses, "score": score, "margin": margin}
    if score in (0.0, 1.0):
        edge = 0.025 ** (1 / games)
        out["elo"] = None
        out["elo_bound"] = (">", elo(edge)) if score == 1.0 else ("<", elo(1 - edge))
        return out
    low, high = score - margin, score + margin
    out["elo"] = elo(score)
    out["elo_low"] = elo(low) if low > 0 else -math.inf
    out["elo_high"] = elo(high) if high < 1 else math.inf
    return out
