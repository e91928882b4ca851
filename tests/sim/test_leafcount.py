"""The compiled leaf counter in bulk: every pseudo-legal move of thousands of positions, the
count after it against python-chess and, on a share of them, the golden model's own count.
The counter is Verilator's model: 54 processor-seconds to compile here, CXXRTL's 115."""

import chess
import pytest

from hwmovegen.sim.cxxrtl import VerilatorLeafCounter
from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.model import Position, generate, leaf_count
from hwmovegen.sim.model.positions import random_boards, stress_boards
from hwmovegen.sim.harness.wire import position_bytes

from ..legal_positions import RULES


@pytest.fixture(scope="module")
def counter():
    counter = VerilatorLeafCounter()
    counter.prepare()
    return counter


def counted(counter, boards):
    """Per board: its Position, its pseudo-legal moves (the model's stream) and the counter's
    counts for the board itself and after each move."""
    positions = [Position.from_board(board) for board in boards]
    streams = [generate(position).moves for position in positions]
    counts = counter.count([(position_bytes(position), [None] + moves)
                            for position, moves in zip(positions, streams)])
    return list(zip(boards, positions, streams, counts))


def chess_counts(board, moves):
    """python-chess's count of the board's legal moves, then after each move (0 if illegal)."""
    out = [board.legal_moves.count()]
    for move in moves:
        chess_move = move.to_chess()
        if not board.is_legal(chess_move):
            out.append(0)
            continue
        board.push(chess_move)
        out.append(board.legal_moves.count())
        board.pop()
    return out


def test_against_python_chess_on_thousands_of_positions(counter):
    boards = ([chess.Board(fen) for _, fen, _, _ in RULES] + [record.board for record in bundled_suites()]
              + random_boards(1500, seed=11) + stress_boards(2500, seed=12))
    seen = {"check": 0, "double check": 0, "en passant legal": 0, "en passant illegal": 0,
            "castling legal": 0, "castling illegal": 0, "promotion": 0}
    pin_lines = set()

    def features(board):
        """What a counted position exercises: checks, pins on each line through the king."""
        checkers = len(board.checkers())
        seen["check"] += checkers == 1
        seen["double check"] += checkers > 1
        king = board.king(board.turn)
        for square in chess.SquareSet(board.occupied_co[board.turn]):
            pinners = int(board.pin(board.turn, square)) & board.occupied_co[not board.turn]
            if board.is_pinned(board.turn, square) and pinners:
                pinner = chess.lsb(pinners)
                df = chess.square_file(pinner) - chess.square_file(king)
                dr = chess.square_rank(pinner) - chess.square_rank(king)
                pin_lines.add(((df > 0) - (df < 0), (dr > 0) - (dr < 0)))

    total = 0
    for board, position, moves, counts in counted(counter, boards):
        assert counts == chess_counts(board, moves), board.fen(en_passant="fen")
        total += len(counts)
        features(board)
        for move in moves:                  # and the children: en passant and castling both ways, promotions
            chess_move = move.to_chess()
            legal = board.is_legal(chess_move)
            if move.en_passant:
                seen["en passant legal" if legal else "en passant illegal"] += 1
            if move.castle:
                seen["castling legal" if legal else "castling illegal"] += 1
            seen["promotion"] += bool(move.promotion) and legal
            if legal:
                board.push(chess_move)
                features(board)
                board.pop()
    assert total > 100_000
    assert len(pin_lines) == 8, pin_lines
    assert all(n > 20 for n in seen.values()), seen


def test_against_the_model(counter):
    """The model's own rule (make, walk the tables, test the king) on a share of the positions."""
    boards = random_boards(150, seed=13) + stress_boards(250, seed=14)
    for board, position, moves, counts in counted(counter, boards):
        assert counts[0] == len(generate(position, legal=True).moves), board.fen(en_passant="fen")
        assert counts[1:] == [leaf_count(position, move) for move in moves], board.fen(en_passant="fen")


def test_the_en_passant_rank_pin(counter):
    """After d7d5 the capture e5d6 would leave the white king on the fifth rank to the rook."""
    board = chess.Board("8/3p4/8/K3P2r/8/8/8/4k3 b - - 0 1")
    (_, _, moves, counts), = counted(counter, [board])
    push = next(i for i, move in enumerate(moves) if move.uci() == "d7d5")
    board.push_uci("d7d5")
    assert board.has_pseudo_legal_en_passant() and not board.has_legal_en_passant()
    assert counts[1 + push] == board.legal_moves.count() == 6     # the king's five moves and e5e6
