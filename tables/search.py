"""The search's constants, shared by the golden model's search and the hardware's engine
(the algorithm: ``docs/search.md`` and :mod:`hwmovegen.sim.search`).

Scores are signed centipawns from the side to move's point of view, in 16 bits signed. A side
mated at ply ``p`` (the root is ply 0) scores ``-(MATE - p)``; ``INF`` bounds the full window.
"""

__all__ = ["MATE", "INF", "MATE_BOUND", "SCORE_BITS", "DEFAULT_QUIESCENCE", "MAX_QUIESCENCE", "MAX_DEPTH",
           "MAX_SEARCH_PLIES", "MAX_HISTORY", "MAX_SEARCH_ENGINES", "COUNTERS", "BOUNDS", "is_mate", "mate_in"]

MATE = 32000
INF = MATE + 1              # the full window (-INF, INF): no score reaches it
MATE_BOUND = MATE - 256     # |score| >= MATE_BOUND: a mate score (no path is longer than 256 plies)
SCORE_BITS = 16             # every score, window and bound fits a signed 16-bit word

DEFAULT_QUIESCENCE = 4      # Q: quiescence plies below the horizon, at most
MAX_QUIESCENCE = 8
MAX_DEPTH = 8               # the full-width depth a request may ask for
MAX_SEARCH_PLIES = MAX_DEPTH + MAX_QUIESCENCE + 1     # a search stack's entries: the root, then a ply each
MAX_HISTORY = 100           # earlier positions a request may carry: the fifty-move rule's 100 plies
MAX_SEARCH_ENGINES = 16     # engines splitting the root moves (docs/search.md), at most

COUNTERS = ("nodes", "qnodes", "cutoffs", "generations")     # every counter but cycles, in output order
BOUNDS = ("exact", "lower", "upper")                         # the root's score against the request's window

assert -(2 ** (SCORE_BITS - 1)) <= -INF and INF < 2 ** (SCORE_BITS - 1)


def is_mate(score):
    """Whether ``score`` is a mate score (for either side)."""
    return abs(score) >= MATE_BOUND


def mate_in(score):
    """The moves to mate a mate score stands for: positive when the side to move mates,
    negative when it is mated (``-(MATE - 2)`` is mated in 1, ``MATE - 1`` mates in 1)."""
    moves = (MATE - abs(score) + 1) // 2
    return moves if score > 0 else -moves
