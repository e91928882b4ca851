"""Perft driven by a move-generator backend.

The backend (golden model or simulated hardware) generates the pseudo-legal
stream at every node; the host keeps the position in a python-chess Board
(make/unmake with push/pop) and filters legality with python-chess's own
king-safety test. At the last ply the legal moves are only counted (bulk counting).
With ``legal=True`` the backend's stream is already legal (the hardware's legality stage,
or the model's own rule): the host only makes and unmakes moves, python-chess decides nothing.
"""

import time

__all__ = ["legal_moves", "node_moves", "perft", "divide"]


def legal_moves(board, stream):
    """The legal subset of a generated stream, as python-chess Moves, in stream order.

    Uses python-chess's pin/check analysis once per position rather than
    ``board.is_legal`` per move; castling is checked with ``is_legal`` because
    generation does not test the king's path for attacks.
    """
    king = board.king(board.turn)
    blockers = board._slider_blockers(king)
    checkers = board.checkers_mask()
    out = []
    if checkers:
        evasions = set(board._generate_evasions(king, checkers))
        for move in stream:
            chess_move = move.to_chess()
            if chess_move in evasions and board._is_safe(king, blockers, chess_move):
                out.append(chess_move)
        return out
    for move in stream:
        chess_move = move.to_chess()
        if move.castle:
            if board.is_legal(chess_move):
                out.append(chess_move)
        elif board._is_safe(king, blockers, chess_move):
            out.append(chess_move)
    return out


def node_moves(board, generate, legal=False):
    """The legal moves of ``board`` (python-chess Moves) in the backend's emission order."""
    stream = generate(board).moves
    return [move.to_chess() for move in stream] if legal else legal_moves(board, stream)


def _perft(board, depth, generate, legal=False):
    moves = node_moves(board, generate, legal)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += _perft(board, depth - 1, generate, legal)
        board.pop()
    return total


def divide(board, depth, generate, legal=False, progress=None):
    """Per-root-move node counts, in emission order: [(uci, nodes)]. ``progress(done, total)``
    is called as each root move's tree is counted."""
    board = board.copy(stack=False)
    result = []
    moves = node_moves(board, generate, legal)
    for move in moves:
        if depth == 1:
            result.append((move.uci(), 1))
        else:
            board.push(move)
            result.append((move.uci(), _perft(board, depth - 1, generate, legal)))
            board.pop()
        if progress:
            progress(len(result), len(moves))
    return result


def perft(board, depth, generate, legal=False):
    """(node count, seconds) of perft(depth) with ``generate(board) -> Generation``
    (``legal``: its stream is legal already)."""
    start = time.perf_counter()
    nodes = _perft(board.copy(stack=False), depth, generate, legal)
    return nodes, time.perf_counter() - start
