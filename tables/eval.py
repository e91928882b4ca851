"""PeSTO's evaluation: material and piece-square tables, middlegame and endgame, tapered by the
game phase (pure Python: the golden model and the hardware's evaluation ROM take their numbers here).

Source: the piece values and tables of Ronald Friederich's PeSTO (and his engine Rofchade), tuned by
him with Texel's method, as published on the Chess Programming Wiki page "PeSTO's Evaluation
Function" (chessprogramming.org). Licence: the author states no licence for these numbers on that
page or in PeSTO's distribution as far as this project found; they are reproduced here as a
published, widely reused set of constants, unchanged. ``tests/tables/test_eval.py`` checks them against values
cited by a second, independent copy.

Orientation: each table is listed as published, from a8 (index 0) to h1, for white. With the
project's square numbering (a1 = 0, h8 = 63) a white piece on ``square`` takes ``table[square ^ 56]``,
a black one ``table[square]`` (the board mirrored).

The evaluation, all integers (no divider, so the hardware needs none):

* ``mg``, ``eg``: the sum over white pieces of value + table entry, minus the same for black;
* ``phase = min(24, sum of PHASE_WEIGHT)`` over both colours (N, B = 1, R = 2, Q = 4);
* ``phase256 = PHASE256[phase]`` = ``(phase * 256 + 12) // 24``;
* ``white = (mg * phase256 + eg * (256 - phase256)) >> 8``, a floor (also for negative sums);
* the score for the side to move: ``white``, or ``-white`` with black to move.

The hardware keeps ``mg``, ``eg`` and the phase weight sum incrementally: :func:`piece_terms` gives a
piece's signed contribution on a square, the same function the full sum (:func:`white_terms`) adds up.
PeSTO's tempo bonus is not used.
"""

__all__ = ["MG_VALUE", "EG_VALUE", "MG_TABLE", "EG_TABLE", "PHASE_WEIGHT", "MAX_PHASE", "PHASE256",
           "table_index", "piece_terms", "white_terms", "taper", "evaluate"]

# by python-chess piece type, index 0 unused: -, P, N, B, R, Q, K
MG_VALUE = (0, 82, 337, 365, 477, 1025, 0)
EG_VALUE = (0, 94, 281, 297, 512, 936, 0)
PHASE_WEIGHT = (0, 0, 1, 1, 2, 4, 0)
MAX_PHASE = 24
PHASE256 = tuple((phase * 256 + 12) // 24 for phase in range(MAX_PHASE + 1))

_MG_PAWN = (
       0,    0,    0,    0,    0,    0,    0,    0,
      98,  134,   61,   95,   68,  126,   34,  -11,
      -6,    7,   26,   31,   65,   56,   25,  -20,
     -14,   13,    6,   21,   23,   12,   17,  -23,
     -27,   -2,   -5,   12,   17,    6,   10,  -25,
     -26,   -4,   -4,  -10,    3,    3,   33,  -12,
     -35,   -1,  -20,  -23,  -15,   24,   38,  -22,
       0,    0,    0,    0,    0,    0,    0,    0,
)
_MG_KNIGHT = (
    -167,  -89,  -34,  -49,   61,  -97,  -15, -107,
     -73,  -41,   72,   36,   23,   62,    7,  -17,
     -47,   60,   37,   65,   84,  129,   73,   44,
      -9,   17,   19,   53,   37,   69,   18,   22,
     -13,    4,   16,   13,   28,   19,   21,   -8,
     -23,   -9,   12,   10,   19,   17,   25,  -16,
     -29,  -53,  -12,   -3,   -1,   18,  -14,  -19,
    -105,  -21,  -58,  -33,  -17,  -28,  -19,  -23,
)
_MG_BISHOP = (
     -29,    4,  -82,  -37,  -25,  -42,    7,   -8,
     -26,   16,  -18,  -13,   30,   59,   18,  -47,
     -16,   37,   43,   40,   35,   50,   37,   -2,
      -4,    5,   19,   50,   37,   37,    7,   -2,
      -6,   13,   13,   26,   34,   12,   10,    4,
       0,   15,   15,   15,   14,   27,   18,   10,
       4,   15,   16,    0,    7,   21,   33,    1,
     -33,   -3,  -14,  -21,  -13,  -12,  -39,  -21,
)
_MG_ROOK = (
      32,   42,   32,   51,   63,    9,   31,   43,
      27,   32,   58,   62,   80,   67,   26,   44,
      -5,   19,   26,   36,   17,   45,   61,   16,
     -24,  -11,    7,   26,   24,   35,   -8,  -20,
     -36,  -26,  -12,   -1,    9,   -7,    6,  -23,
     -45,  -25,  -16,  -17,    3,    0,   -5,  -33,
     -44,  -16,  -20,   -9,   -1,   11,   -6,  -71,
     -19,  -13,    1,   17,   16,    7,  -37,  -26,
)
_MG_QUEEN = (
     -28,    0,   29,   12,   59,   44,   43,   45,
     -24,  -39,   -5,    1,  -16,   57,   28,   54,
     -13,  -17,    7,    8,   29,   56,   47,   57,
     -27,  -27,  -16,  -16,   -1,   17,   -2,    1,
      -9,  -26,   -9,  -10,   -2,   -4,    3,   -3,
     -14,    2,  -11,   -2,   -5,    2,   14,    5,
     -35,   -8,   11,    2,    8,   15,   -3,    1,
      -1,  -18,   -9,   10,  -15,  -25,  -31,  -50,
)
_MG_KING = (
     -65,   23,   16,  -15,  -56,  -34,    2,   13,
      29,   -1,  -20,   -7,   -8,   -4,  -38,  -29,
      -9,   24,    2,  -16,  -20,    6,   22,  -22,
     -17,  -20,  -12,  -27,  -30,  -25,  -14,  -36,
     -49,   -1,  -27,  -39,  -46,  -44,  -33,  -51,
     -14,  -14,  -22,  -46,  -44,  -30,  -15,  -27,
       1,    7,   -8,  -64,  -43,  -16,    9,    8,
     -15,   36,   12,  -54,    8,  -28,   24,   14,
)
_EG_PAWN = (
       0,    0,    0,    0,    0,    0,    0,    0,
     178,  173,  158,  134,  147,  132,  165,  187,
      94,  100,   85,   67,   56,   53,   82,   84,
      32,   24,   13,    5,   -2,    4,   17,   17,
      13,    9,   -3,   -7,   -7,   -8,    3,   -1,
       4,    7,   -6,    1,    0,   -5,   -1,   -8,
      13,    8,    8,   10,   13,    0,    2,   -7,
       0,    0,    0,    0,    0,    0,    0,    0,
)
_EG_KNIGHT = (
     -58,  -38,  -13,  -28,  -31,  -27,  -63,  -99,
     -25,   -8,  -25,   -2,   -9,  -25,  -24,  -52,
     -24,  -20,   10,    9,   -1,   -9,  -19,  -41,
     -17,    3,   22,   22,   22,   11,    8,  -18,
     -18,   -6,   16,   25,   16,   17,    4,  -18,
     -23,   -3,   -1,   15,   10,   -3,  -20,  -22,
     -42,  -20,  -10,   -5,   -2,  -20,  -23,  -44,
     -29,  -51,  -23,  -15,  -22,  -18,  -50,  -64,
)
_EG_BISHOP = (
     -14,  -21,  -11,   -8,   -7,   -9,  -17,  -24,
      -8,   -4,    7,  -12,   -3,  -13,   -4,  -14,
       2,   -8,    0,   -1,   -2,    6,    0,    4,
      -3,    9,   12,    9,   14,   10,    3,    2,
      -6,    3,   13,   19,    7,   10,   -3,   -9,
     -12,   -3,    8,   10,   13,    3,   -7,  -15,
     -14,  -18,   -7,   -1,    4,   -9,  -15,  -27,
     -23,   -9,  -23,   -5,   -9,  -16,   -5,  -17,
)
_EG_ROOK = (
      13,   10,   18,   15,   12,   12,    8,    5,
      11,   13,   13,   11,   -3,    3,    8,    3,
       7,    7,    7,    5,    4,   -3,   -5,   -3,
       4,    3,   13,    1,    2,    1,   -1,    2,
       3,    5,    8,    4,   -5,   -6,   -8,  -11,
      -4,    0,   -5,   -1,   -7,  -12,   -8,  -16,
      -6,   -6,    0,    2,   -9,   -9,  -11,   -3,
      -9,    2,    3,   -1,   -5,  -13,    4,  -20,
)
_EG_QUEEN = (
      -9,   22,   22,   27,   27,   19,   10,   20,
     -17,   20,   32,   41,   58,   25,   30,    0,
     -20,    6,    9,   49,   47,   35,   19,    9,
       3,   22,   24,   45,   57,   40,   57,   36,
     -18,   28,   19,   47,   31,   34,   39,   23,
     -16,  -27,   15,    6,    9,   17,   10,    5,
     -22,  -23,  -30,  -16,  -16,  -23,  -36,  -32,
     -33,  -28,  -22,  -43,   -5,  -32,  -20,  -41,
)
_EG_KING = (
     -74,  -35,  -18,  -18,  -11,   15,    4,  -17,
     -12,   17,   14,   17,   17,   38,   23,   11,
      10,   17,   23,   15,   20,   45,   44,   13,
      -8,   22,   24,   27,   26,   33,   26,    3,
     -18,   -4,   21,   24,   27,   23,    9,  -11,
     -19,   -3,   11,   21,   23,   16,    7,   -9,
     -27,  -11,    4,   13,   14,    4,   -5,  -17,
     -53,  -34,  -21,  -11,  -28,  -14,  -24,  -43,
)

MG_TABLE = (None, _MG_PAWN, _MG_KNIGHT, _MG_BISHOP, _MG_ROOK, _MG_QUEEN, _MG_KING)
EG_TABLE = (None, _EG_PAWN, _EG_KNIGHT, _EG_BISHOP, _EG_ROOK, _EG_QUEEN, _EG_KING)
assert all(len(table) == 64 for table in MG_TABLE[1:] + EG_TABLE[1:])


def table_index(square, black):
    """The index into a published table of a piece on ``square`` (a1 = 0)."""
    return square if black else square ^ 56


def piece_terms(code, square):
    """What a piece with board code ``code`` (:func:`hwmovegen.tables.piece_code`) on ``square``
    adds to ``(mg, eg, phase)``: white's terms positive, black's negative; the phase weight is
    positive for both. ``(0, 0, 0)`` for an empty square."""
    kind, black = code & 7, bool(code & 8)
    if not kind:
        return 0, 0, 0
    index = table_index(square, black)
    mg = MG_VALUE[kind] + MG_TABLE[kind][index]
    eg = EG_VALUE[kind] + EG_TABLE[kind][index]
    return (-mg, -eg, PHASE_WEIGHT[kind]) if black else (mg, eg, PHASE_WEIGHT[kind])


def white_terms(squares):
    """``(mg, eg, phase weight sum)`` of a board given as 64 piece codes (the sum uncapped)."""
    mg = eg = phase = 0
    for square, code in enumerate(squares):
        if code:
            dm, de, dp = piece_terms(code, square)
            mg, eg, phase = mg + dm, eg + de, phase + dp
    return mg, eg, phase


def taper(mg, eg, phase):
    """White's score from the terms: the phase capped at 24, blended in 256ths, floored."""
    phase256 = PHASE256[min(phase, MAX_PHASE)]
    return (mg * phase256 + eg * (256 - phase256)) >> 8


def evaluate(squares, white_to_move):
    """The static evaluation, in centipawns for the side to move."""
    white = taper(*white_terms(squares))
    return white if white_to_move else -white
