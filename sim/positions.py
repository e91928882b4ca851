"""Seeded random positions from random games (reproducible for a given seed)."""

import random

import chess

__all__ = ["random_boards"]


def random_boards(count, seed=1, max_plies=200, keep=0.15):
    """``count`` positions reached by playing uniformly random legal moves.

    Each game starts from the initial position and runs for up to ``max_plies``
    plies or until it ends; every position along it is kept with probability
    ``keep``, which mixes openings, middlegames, promotions and bare endgames.
    """
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(1, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if rng.random() < keep:
                boards.append(board.copy(stack=False))
                if len(boards) == count:
                    break
    return boards
