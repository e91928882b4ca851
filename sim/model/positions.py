"""Seeded random positions from random games (reproducible for a given seed)."""

import random

import chess

from .movegen import PositionError, check_board

__all__ = ["random_boards"]


def random_boards(count, seed=1, max_plies=200, keep=0.15, progress=None):
    """``count`` positions reached by playing uniformly random legal moves.

    Each game starts from the initial position and runs for up to ``max_plies``
    plies or until it ends; every position along it is kept with probability
    ``keep``, which mixes openings, middlegames, promotions and bare endgames.
    ``progress(1)`` is called as each position is kept (100,000 take about 20 s).
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
                if progress:
                    progress(1)
                if len(boards) == count:
                    break
    return boards


_LINES = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def stress_boards(count, seed=1):
    """``count`` positions built around what legality gets wrong: each has the side to move's
    king with pieces on lines through it (pins and checks along any of the eight directions,
    knights and pawns giving check, double checks), and by turns an en-passant capture beside
    the king's rank or along a pin, castling rights with attacked path squares, and pawns about
    to promote. White or black to move; every position passes the model's own check
    (:func:`hwmovegen.sim.model.check_board`)."""
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = _stress_board(rng, len(boards))
        if board is None:
            continue
        try:
            check_board(board)
        except PositionError:
            continue
        boards.append(board)
    return boards


def _stress_board(rng, index):
    board = chess.Board.empty()
    white = chess.WHITE
    theme = index % 4                       # en passant, castling, promotions, lines only
    king = rng.choice([4, 3, 32 + rng.randrange(8), rng.randrange(64)]) if theme != 1 else chess.E1
    if theme == 0:
        king = 32 + rng.randrange(8)        # on the fifth rank, where en passant is taken
    board.set_piece_at(king, chess.Piece(chess.KING, white))

    def free(square):
        return square is not None and board.piece_at(square) is None

    def along(square, direction, distance):
        file, rank = chess.square_file(square), chess.square_rank(square)
        file, rank = file + direction[0] * distance, rank + direction[1] * distance
        return chess.square(file, rank) if 0 <= file < 8 and 0 <= rank < 8 else None

    # lines through the king: an own piece then an enemy slider (a pin), or the slider alone (a check)
    for direction in rng.sample(_LINES, rng.randrange(1, 5)):
        slider = rng.choice([chess.QUEEN, chess.BISHOP if direction[0] and direction[1] else chess.ROOK])
        first = rng.randrange(1, 4)
        if rng.random() < 0.75:
            own = along(king, direction, first)
            if free(own):
                kind = rng.choice([chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
                if kind != chess.PAWN or 8 <= own < 56:
                    board.set_piece_at(own, chess.Piece(kind, white))
            first += rng.randrange(1, 3)
        enemy = along(king, direction, first)
        if free(enemy):
            board.set_piece_at(enemy, chess.Piece(slider, not white))
    # leapers giving check now and then
    if rng.random() < 0.3:
        for jump in rng.sample([6, 10, 15, 17, -6, -10, -15, -17], 2):
            square = king + jump
            if 0 <= square < 64 and abs(chess.square_file(square) - chess.square_file(king)) <= 2 and free(square):
                board.set_piece_at(square, chess.Piece(chess.KNIGHT, not white))
                break
    if rng.random() < 0.2:
        square = along(king, rng.choice([(-1, 1), (1, 1)]), 1)
        if free(square) and 8 <= square < 56:
            board.set_piece_at(square, chess.Piece(chess.PAWN, not white))
    ep = None
    if theme == 0:                          # a black pawn that just pushed two, beside white pawns
        file = rng.randrange(8)
        taken, target = chess.square(file, 4), chess.square(file, 5)
        if free(taken) and free(target) and free(chess.square(file, 6)):
            board.set_piece_at(taken, chess.Piece(chess.PAWN, not white))
            for side in (-1, 1):
                if 0 <= file + side < 8 and free(chess.square(file + side, 4)) and rng.random() < 0.7:
                    board.set_piece_at(chess.square(file + side, 4), chess.Piece(chess.PAWN, white))
            if rng.random() < 0.5:          # a rook on the fifth rank, for the rank pin
                for square in rng.sample(range(32, 40), 8):
                    if free(square):
                        board.set_piece_at(square, chess.Piece(rng.choice([chess.ROOK, chess.QUEEN]), not white))
                        break
            ep = target
    rights = ""
    if theme == 1:                          # castling, with the path's squares attacked or not
        for rook, right in ((chess.H1, "K"), (chess.A1, "Q")):
            if free(rook) and rng.random() < 0.8:
                board.set_piece_at(rook, chess.Piece(chess.ROOK, white))
                rights += right
        for _ in range(rng.randrange(3)):
            file = rng.choice([1, 2, 3, 5, 6])
            square = chess.square(file, rng.randrange(3, 7))
            if free(square):
                board.set_piece_at(square, chess.Piece(rng.choice([chess.ROOK, chess.QUEEN, chess.BISHOP]),
                                                       not white))
    if theme == 2:                          # pawns about to promote, with pieces to take
        for _ in range(rng.randrange(1, 4)):
            square = chess.square(rng.randrange(8), 6)
            if free(square):
                board.set_piece_at(square, chess.Piece(chess.PAWN, white))
        for _ in range(rng.randrange(3)):
            square = chess.square(rng.randrange(8), 7)
            if free(square):
                board.set_piece_at(square, chess.Piece(rng.choice([chess.ROOK, chess.KNIGHT]), not white))
    for _ in range(rng.randrange(6)):       # a few more of either side
        square = rng.randrange(64)
        kind = rng.choice([chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
        if free(square) and (kind != chess.PAWN or 8 <= square < 56):
            board.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
    for square in rng.sample(range(64), 64):        # the other king, not touching ours
        if free(square) and chess.square_distance(square, king) > 1:
            board.set_piece_at(square, chess.Piece(chess.KING, not white))
            break
    board.turn = white
    board.set_castling_fen(rights or "-")
    board.ep_square = ep
    if rng.random() < 0.5:                  # black to move: the same, mirrored
        board = board.mirror()
    return board
