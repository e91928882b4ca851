"""PeSTO's tables as published, their orientation, and the tapered evaluation's integer rules."""

import random

import chess
import pytest

from hwmovegen.tables import piece_code
from hwmovegen.tables.eval import (EG_TABLE, EG_VALUE, MG_TABLE, MG_VALUE, PHASE256, PHASE_WEIGHT, evaluate,
                                   piece_terms, taper, white_terms)
from hwmovegen.sim.model.positions import random_boards

P, N, B, R, Q, K = range(1, 7)


def squares_of(board):
    squares = [0] * 64
    for square, piece in board.piece_map().items():
        squares[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
    return squares


def test_values_cited_by_a_second_copy():
    # values as a second, independently typed copy of the CPW page lists them (flat, a8 first)
    assert MG_VALUE[1:] == (82, 337, 365, 477, 1025, 0)
    assert EG_VALUE[1:] == (94, 281, 297, 512, 936, 0)
    assert MG_TABLE[P][8:16] == (98, 134, 61, 95, 68, 126, 34, -11)
    assert EG_TABLE[P][8:16] == (178, 173, 158, 134, 147, 132, 165, 187)
    assert MG_TABLE[N][0] == -167 and MG_TABLE[N][56] == -105 and MG_TABLE[N][21] == 129
    assert EG_TABLE[N][63] == -64 and EG_TABLE[B][2] == -11
    assert MG_TABLE[R][55] == -71 and EG_TABLE[R][63] == -20
    assert MG_TABLE[Q][63] == -50 and EG_TABLE[Q][12] == 58
    assert MG_TABLE[K][:8] == (-65, 23, 16, -15, -56, -34, 2, 13)
    assert EG_TABLE[K][56:] == (-53, -34, -21, -11, -28, -14, -24, -43)
    # whole-table sums of that second copy
    sums = {"mg": (759, -59, 341, 505, 146, -999), "eg": (2043, -1018, -268, 52, 565, 176)}
    assert tuple(sum(MG_TABLE[kind]) for kind in range(1, 7)) == sums["mg"]
    assert tuple(sum(EG_TABLE[kind]) for kind in range(1, 7)) == sums["eg"]
    # pawns never stand on the first or last rank: those rows are zero
    assert all(MG_TABLE[P][i] == EG_TABLE[P][i] == 0 for i in (*range(8), *range(56, 64)))


def test_orientation():
    # a white knight on g1 (square 6) reads the published last row's g entry, index 62; a black one on
    # g8 (square 62) the same entry, negated
    assert piece_terms(piece_code(N, False), chess.G1) == (337 + MG_TABLE[N][62], 281 + EG_TABLE[N][62], 1)
    assert piece_terms(piece_code(N, True), chess.G8) == (-(337 + MG_TABLE[N][62]), -(281 + EG_TABLE[N][62]), 1)
    assert piece_terms(piece_code(N, False), chess.G8)[0] == 337 + MG_TABLE[N][6] == 337 - 15
    # a white pawn on e7 is near promotion: the published second row
    assert piece_terms(piece_code(P, False), chess.E7)[0] == 82 + 68
    assert piece_terms(0, chess.E4) == (0, 0, 0)


def test_phase_table():
    assert len(PHASE256) == 25 and PHASE256[0] == 0 and PHASE256[12] == 128 and PHASE256[24] == 256
    assert all(PHASE256[p] == (p * 256 + 12) // 24 for p in range(25))
    assert PHASE_WEIGHT[1:] == (0, 1, 1, 2, 4, 0)


def test_taper_floors_negative_sums():
    assert taper(-1, -1, 12) == -1             # -256 >> 8
    assert taper(-1, 0, 12) == -1              # -128 >> 8 is a floor, not a truncation to 0
    assert taper(100, 50, 24) == 100 and taper(100, 50, 0) == 50
    assert taper(100, 50, 30) == taper(100, 50, 24)     # more material than the start: capped


def test_start_position_and_mirror_symmetry():
    start = chess.Board()
    assert white_terms(squares_of(start)) == (0, 0, 24)
    assert evaluate(squares_of(start), True) == 0
    for board in random_boards(40, seed=5):
        mg, eg, phase = white_terms(squares_of(board))
        assert white_terms(squares_of(board.mirror())) == (-mg, -eg, phase)
        # the floor is not symmetric: the score of the mirror's side to move is a ceiling where the
        # original's is a floor (white to move) or the other way round (black to move)
        score = evaluate(squares_of(board), board.turn == chess.WHITE)
        mirrored = evaluate(squares_of(board.mirror()), board.turn != chess.WHITE)
        assert (mirrored - score if board.turn == chess.WHITE else score - mirrored) in (0, 1)


def _reference(board):
    """The evaluation written from the definition with python-chess's own square names."""
    mg = eg = phase = 0
    for square, piece in board.piece_map().items():
        row, file = 7 - chess.square_rank(square), chess.square_file(square)    # published rows: rank 8 first
        if piece.color == chess.BLACK:
            row = 7 - row
        index = row * 8 + file
        sign = 1 if piece.color == chess.WHITE else -1
        mg += sign * (MG_VALUE[piece.piece_type] + MG_TABLE[piece.piece_type][index])
        eg += sign * (EG_VALUE[piece.piece_type] + EG_TABLE[piece.piece_type][index])
        phase += PHASE_WEIGHT[piece.piece_type]
    phase = min(phase, 24)
    numerator = mg * ((phase * 256 + 12) // 24) + eg * (256 - (phase * 256 + 12) // 24)
    white = numerator // 256
    return white if board.turn == chess.WHITE else -white


@pytest.mark.parametrize("seed", [1, 2])
def test_evaluate_matches_a_reference(seed):
    for board in random_boards(60, seed=seed):
        assert evaluate(squares_of(board), board.turn == chess.WHITE) == _reference(board), board.fen()


def test_incremental_terms_equal_the_full_sum():
    """What an applier keeps: on each move, subtract the terms of the squares that change and add
    their new ones; the running sums equal the full sum all along a game."""
    rng = random.Random(3)
    board = chess.Board()
    running = list(white_terms(squares_of(board)))
    for _ in range(120):
        moves = list(board.legal_moves)
        if not moves:
            break
        before = squares_of(board)
        board.push(rng.choice(moves))
        after = squares_of(board)
        for square in range(64):
            if before[square] != after[square]:
                old, new = piece_terms(before[square], square), piece_terms(after[square], square)
                running = [r - o + n for r, o, n in zip(running, old, new)]
        assert tuple(running) == white_terms(after)
