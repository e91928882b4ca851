"""The golden model's search: fail-hard negamax alpha-beta over the model's own ordered legal
moves, quiescence at the horizon, PeSTO's tapered evaluation, draws by rule on Polyglot keys.
The hardware's search engine must give the same best move, score, principal variation and
counters (all but cycles), node for node; ``docs/search.md`` states the algorithm for both.

Only :mod:`hwmovegen.tables` and the model (:mod:`.model`, :mod:`.legality`, :mod:`.order`) are
used: python-chess is not consulted (it referees in the tests).

The rules this module fixes where the specification leaves a choice:

* Moves: the legal moves of :func:`.model.generate`, ordered by :func:`.order.order_moves`
  (``mvv-lva`` in the full-width search and for a side in check in quiescence, ``captures``
  otherwise); at the root a legal hint move first, then the others in ``mvv-lva`` order.
* No check extension: a side in check at the horizon goes into quiescence like any other node,
  where it never stands pat and all its evasions are searched (at most ``quiescence`` plies).
* Draws by rule at every node below the root, before anything else: the halfmove clock there at
  100 or more, or its key equal to a key of the request's history or of a position on the path
  from the root (the root included). The fifty-move rule wins over a mate on the same move (no
  "checkmate first" exception), and insufficient material is not scored as a draw.
* Mate and stalemate scores are returned as they are (``-(MATE - ply)``, 0), not clamped to the
  window; every other return is fail-hard (within ``[alpha, beta]``).
* The node limit (``node_limit``, 0 for none) is checked before each make, quiescence included:
  once ``nodes`` has reached it the search unwinds at once (``aborted``). A stop signal (any
  object with ``is_set()``, e.g. a :class:`threading.Event`) is read at the same place and
  aborts the same way; unset, it changes nothing (the same nodes, node for node). The root keeps what its
  completed moves gave: the score is the root's alpha (the request's alpha if no completed move
  raised it), the best move the principal variation's first move, or the first root move if no
  completed move raised alpha. The bound is reported against the window as for a finished search.
* The root's best move: the principal variation's first move if the root's alpha rose, else the
  first root move searched (so a legal move whenever one exists, None when there is none). The
  principal variation is the triangular table's root row as the search leaves it: empty when no
  root move raised alpha. A root failing high returns ``beta`` with its cut move not recorded (as
  at every node): its best move and PV are those of the moves before it.
"""

from dataclasses import dataclass, field, replace

from ...tables.eval import evaluate
from ...tables.search import BOUNDS, COUNTERS, DEFAULT_QUIESCENCE, INF, MATE, mate_in, is_mate
from ...tables.zobrist import position_key
from .legality import attacked
from .movegen import Position, generate
from .order import order_moves

__all__ = ["SearchRequest", "SearchResult", "SplitResult", "search", "split_search", "split_requests",
           "static_eval", "key", "in_check", "halfmove_after", "format_score"]

_PAWN, _KING = 1, 6


def static_eval(position):
    """The static evaluation of ``position`` in centipawns for its side to move
    (:func:`hwmovegen.tables.eval.evaluate`)."""
    return evaluate(position.squares, position.white_to_move)


def key(position):
    """The Polyglot key of ``position`` (:func:`hwmovegen.tables.zobrist.position_key`)."""
    return position_key(position.squares, position.white_to_move, position.castling, position.ep_square)


def in_check(position):
    """Whether the side to move's king is attacked."""
    king = _KING | (0 if position.white_to_move else 8)
    return attacked(position.squares, position.squares.index(king), position.white_to_move)


def halfmove_after(position, move, clock):
    """The halfmove clock after ``move``: 0 after a capture or a pawn move, else one more."""
    return 0 if move.capture or position.squares[move.frm] & 7 == _PAWN else clock + 1


def format_score(score):
    """``cp N`` or ``mate N`` (N moves, negative when the side to move is mated)."""
    return f"mate {mate_in(score)}" if is_mate(score) else f"cp {score}"


@dataclass(frozen=True)
class SearchRequest:
    """What a search is asked: the root, the full-width depth, the window, a node limit (0: none),
    a move to search first (UCI; ignored unless legal), the halfmove clock at the root, the keys of
    the game's earlier positions since the last irreversible move (the root's excluded), and the
    quiescence cap Q. ``root_first``, ``root_stride``, ``root_count``: the root moves this search
    takes, of the ordered root list (the hint first): moves ``root_first``, ``root_first +
    root_stride``, ... at most ``root_count`` of them (0: all); the others are skipped, counted
    nowhere (the defaults take every move: a plain search; :func:`split_search` sets them)."""
    position: Position
    depth: int
    alpha: int = -INF
    beta: int = INF
    node_limit: int = 0
    hint: str | None = None
    halfmove: int = 0
    history: tuple = ()
    quiescence: int = DEFAULT_QUIESCENCE
    root_first: int = 0
    root_stride: int = 1
    root_count: int = 0

    def __post_init__(self):
        if self.depth < 1:
            raise ValueError(f"depth must be at least 1, not {self.depth}")
        if not -INF <= self.alpha < self.beta <= INF:
            raise ValueError(f"the window needs -{INF} <= alpha < beta <= {INF}, not ({self.alpha}, {self.beta})")
        if self.node_limit < 0 or self.quiescence < 0 or self.halfmove < 0:
            raise ValueError("the node limit, the quiescence cap and the halfmove clock cannot be negative")
        if self.root_first < 0 or self.root_stride < 1 or self.root_count < 0:
            raise ValueError("the root filter needs root_first >= 0, root_stride >= 1, root_count >= 0")

    def root_moves(self, ordered):
        """The moves of the ordered root list ``ordered`` this search takes (the root filter)."""
        taken = ordered[self.root_first::self.root_stride]
        return taken[:self.root_count] if self.root_count else taken


@dataclass
class SearchResult:
    """A search's answer. ``best``: a :class:`~.model.Move` (None without legal moves); ``score``
    in centipawns for the side to move; ``bound``: one of ``BOUNDS`` against the request's window;
    ``pv``: the principal variation (moves). Counters: ``nodes``, the root and every position
    made, quiescence included; ``qnodes``, the nodes entered through quiescence; ``cutoffs``, beta
    cutoffs (stand pat included); ``generations``, the move generations started. ``cycles``:
    hardware backends only."""
    best: object
    score: int
    bound: str
    pv: list = field(default_factory=list)
    nodes: int = 0
    qnodes: int = 0
    cutoffs: int = 0
    generations: int = 0
    aborted: bool = False
    cycles: int | None = None

    def counters(self):
        out = {"nodes": self.nodes, "qnodes": self.qnodes, "cutoffs": self.cutoffs, "generations": self.generations}
        if self.cycles is not None:
            out["cycles"] = self.cycles
        return out

    def as_dict(self):
        """The result as JSON-ready values (moves in UCI)."""
        return {"best": self.best.uci() if self.best else None, "score": self.score,
                "score_text": format_score(self.score), "bound": self.bound, "pv": [m.uci() for m in self.pv],
                **self.counters(), "aborted": self.aborted}


class _Abort(Exception):
    """The node limit was reached or the search was stopped: unwind to the root."""


class _Search:
    def __init__(self, request, stop=None):
        self.request = request
        self.stop = stop
        self.history = set(request.history)
        self.path = []                  # the keys from the root to the current node's parent
        self.pv = {}
        self.nodes = 1                  # the root
        self.qnodes = self.cutoffs = self.generations = 0

    def _draw(self, position, ply, clock, node_key):
        return ply > 0 and (clock >= 100 or node_key in self.history or node_key in self.path)

    def _make(self):
        limit = self.request.node_limit
        if limit and self.nodes >= limit or self.stop is not None and self.stop.is_set():
            raise _Abort
        self.nodes += 1

    def _child(self, position, move, clock, node_key, depth, alpha, beta, ply, q):
        """Make ``move``, search the child with the negated window, unmake."""
        self._make()
        child = position.make(move)
        child_clock = halfmove_after(position, move, clock)
        self.path.append(node_key)
        try:
            if q is None and depth > 1:
                return -self.search(child, child_clock, depth - 1, -beta, -alpha, ply + 1)
            return -self.quiesce(child, child_clock, -beta, -alpha, ply + 1, 0 if q is None else q + 1)
        finally:
            self.path.pop()

    def _moves(self, position, ply, order):
        legal = generate(position, legal=True).moves
        self.generations += 1
        ordered = order_moves(position, legal, order)
        hint = self.request.hint
        if ply == 0 and hint is not None:
            first = [move for move in ordered if move.uci() == hint]
            ordered = first + [move for move in ordered if move.uci() != hint]
        return legal, ordered

    def search(self, position, clock, depth, alpha, beta, ply):
        self.pv[ply] = []
        node_key = key(position)
        if self._draw(position, ply, clock, node_key):
            return 0
        _, moves = self._moves(position, ply, "mvv-lva")
        if not moves:
            return -(MATE - ply) if in_check(position) else 0
        if ply == 0:
            self.root_order = moves
            moves = self.root_moves = self.request.root_moves(moves)
        return self._each(position, moves, clock, node_key, depth, alpha, beta, ply, None)

    def quiesce(self, position, clock, alpha, beta, ply, q):
        self.qnodes += 1
        self.pv[ply] = []
        node_key = key(position)
        if self._draw(position, ply, clock, node_key):
            return 0
        cap = self.request.quiescence
        if in_check(position):
            _, moves = self._moves(position, ply, "mvv-lva")
            if not moves:
                return -(MATE - ply)
            if q == cap:
                return min(max(static_eval(position), alpha), beta)
        else:
            stand = static_eval(position)
            if stand >= beta:
                self.cutoffs += 1
                return beta
            if stand > alpha:
                alpha = stand
            if q == cap:
                return alpha
            legal, moves = self._moves(position, ply, "captures")
            if not legal:
                return 0
        return self._each(position, moves, clock, node_key, 0, alpha, beta, ply, q)

    def _each(self, position, moves, clock, node_key, depth, alpha, beta, ply, q):
        """The moves of a node searched in turn (full width or quiescence, ``q`` None or its ply):
        a beta cutoff returns beta, a better score raises alpha and takes the child's line."""
        for move in moves:
            score = self._child(position, move, clock, node_key, depth, alpha, beta, ply, q)
            if score >= beta:
                self.cutoffs += 1
                return beta
            if score > alpha:
                alpha = score
                self.pv[ply] = [move] + self.pv[ply + 1]
            if ply == 0:
                self.root_alpha = alpha
        return alpha


def search(request, stop=None):
    """Run ``request`` (a :class:`SearchRequest`) on the model: a :class:`SearchResult`.
    ``stop``: read before each make (``stop.is_set()``); once set, the search aborts as at the
    node limit (for the UCI host's ``stop`` and its clock)."""
    run = _Search(request, stop)
    run.root_moves, run.root_order, run.root_alpha = [], [], request.alpha
    aborted = False
    try:
        score = run.search(request.position, request.halfmove, request.depth, request.alpha, request.beta, 0)
    except _Abort:
        aborted, score = True, run.root_alpha
    pv = run.pv.get(0, [])      # the root's row: empty unless a completed root move raised alpha
    best = pv[0] if pv else run.root_moves[0] if run.root_moves else None
    bound = BOUNDS[1] if score >= request.beta else BOUNDS[2] if score <= request.alpha else BOUNDS[0]
    result = SearchResult(best, score, bound, list(pv), run.nodes, run.qnodes, run.cutoffs, run.generations, aborted)
    # where the best move stands in the ordered root list (a split's tie-break)
    result.root_index = run.root_order.index(best) if best is not None else None
    return result


@dataclass
class SplitResult(SearchResult):
    """:func:`split_search`'s answer: the combined result, with the runs it combines: ``first``
    (phase 1, root move 0 alone) and ``engines`` (phase 2, engine by engine; empty when phase 1
    ended the search) and ``winner`` (the engine whose answer it is, None: phase 1's)."""
    first: SearchResult = None
    engines: list = field(default_factory=list)
    winner: int | None = None


def split_requests(request, engines, bound=None):
    """The requests of a split over ``engines`` engines: phase 1's (``bound`` None), or, given
    phase 1's score ``bound``, phase 2's, one per engine: engine ``k`` takes root moves ``1 + k``,
    ``1 + k + engines``, ... with alpha raised to ``bound``."""
    if bound is None:
        return replace(request, root_first=0, root_stride=1, root_count=1)
    return [replace(request, alpha=bound, root_first=1 + k, root_stride=engines, root_count=0)
            for k in range(engines)]


def split_search(request, engines, stop=None):
    """``request`` searched by ``engines`` engines side by side (``docs/search.md``, "Several
    engines"): phase 1 searches root move 0 alone with the request's window; unless it failed
    high, was aborted or the root has no move, phase 2 gives each engine its share of the other
    root moves (:func:`split_requests`) against phase 1's score. The answer is the engine's with
    the highest score above that bound (ties: the best move first in root order), else phase
    1's; the counters are the sums over every run; ``aborted`` if any run was. The node limit
    holds per run; ``stop`` reaches every run. A :class:`SplitResult`."""
    if engines < 1:
        raise ValueError(f"engines must be at least 1, not {engines}")
    first = search(split_requests(request, engines), stop)
    runs, winner, answer = [], None, first
    if not first.aborted and first.best is not None and first.score < request.beta:
        runs = [search(each, stop) for each in split_requests(request, engines, first.score)]
        for index, run in enumerate(runs):
            if run.score > answer.score or winner is not None and run.score == answer.score and \
                    run.root_index < answer.root_index:
                winner, answer = index, run
    every = [first, *runs]
    score = answer.score
    bound = BOUNDS[1] if score >= request.beta else BOUNDS[2] if score <= request.alpha else BOUNDS[0]
    result = SplitResult(answer.best, score, bound, list(answer.pv),
                         *(sum(getattr(run, name) for run in every) for name in COUNTERS),
                         any(run.aborted for run in every), first=first, engines=runs, winner=winner)
    result.root_index = answer.root_index
    return result
