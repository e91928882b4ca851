"""Polyglot keys against python-chess's chess.polyglot.zobrist_hash."""

import random

import chess
import chess.polyglot

from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables import piece_code
from hwmovegen.tables.zobrist import (RANDOM, TURN_KEY, castle_key, ep_hashed, ep_key, piece_key, position_key)


def _bits(board):
    rights = board.clean_castling_rights()
    return sum(bit for mask, bit in ((chess.BB_H1, 1), (chess.BB_A1, 2), (chess.BB_H8, 4), (chess.BB_A8, 8))
               if rights & mask)


def key_of(board):
    squares = [0] * 64
    for square, piece in board.piece_map().items():
        squares[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
    return position_key(squares, board.turn == chess.WHITE, _bits(board), board.ep_square)


def test_the_array_is_polyglots():
    assert RANDOM == tuple(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
    assert RANDOM[0] == 0x9D39247E33776D41 and RANDOM[780] == 0xF8D626AAAF278509


def test_known_polyglot_keys():
    # the keys listed in the Polyglot book format's description
    assert key_of(chess.Board()) == 0x463B96181691FC9C
    board = chess.Board()
    for uci, key in (("e2e4", 0x823C9B50FD114196), ("d7d5", 0x0756B94461C50FB0), ("e4e5", 0x662FAFB965DB29D4),
                     ("f7f5", 0x22A48B5A8E47FF78), ("e1e2", 0x652A607CA3F242C1), ("e8f7", 0x00FDD303C946BDD9)):
        board.push_uci(uci)
        assert key_of(board) == key, uci


def test_bundled_positions():
    for record in bundled_suites():
        assert key_of(record.board) == chess.polyglot.zobrist_hash(record.board), record.fen


def test_random_games():
    for board in random_boards(400, seed=11):
        assert key_of(board) == chess.polyglot.zobrist_hash(board), board.fen()


def test_en_passant_cases():
    cases = [
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", True),        # a white pawn beside the pushed one
        ("4k3/8/8/2Pp4/8/8/8/4K3 w - d6 0 1", True),        # on the other side
        ("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 1", False),        # nobody to capture
        ("4k3/8/8/3p3P/8/8/8/4K3 w - d6 0 1", False),       # a pawn on the rank, not beside
        ("4k3/8/8/8/Pp6/8/8/4K3 b - a3 0 1", True),         # black to capture, edge file
        ("4k3/8/8/8/P6p/8/8/4K3 b - a3 0 1", False),        # h4 is not beside a4 (no wrap)
        ("4k3/8/8/8/pP6/8/8/4K3 b - b3 0 1", True),
        ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", True),         # hashed though the capture is illegal (pinned)
    ]
    for fen, hashed in cases:
        board = chess.Board(fen)
        squares = [0] * 64
        for square, piece in board.piece_map().items():
            squares[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
        assert ep_hashed(squares, board.turn == chess.WHITE, board.ep_square) == hashed, fen
        assert key_of(board) == chess.polyglot.zobrist_hash(board), fen


def test_incremental_keys_along_games():
    """An applier's XORs: pieces out and in, castling rights, ep file, turn; equal to the full key."""
    rng = random.Random(7)
    for _ in range(20):
        board = chess.Board()
        key = key_of(board)
        for _ in range(rng.randrange(20, 150)):
            moves = list(board.legal_moves)
            if not moves:
                break
            before, bits, ep = board.piece_map(), _bits(board), (key_of(board) != 0) and board.ep_square
            squares_before = [0] * 64
            for square, piece in before.items():
                squares_before[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
            hashed_before = ep_hashed(squares_before, board.turn == chess.WHITE, board.ep_square)
            board.push(rng.choice(moves))
            after = board.piece_map()
            for square in set(before) | set(after):
                if before.get(square) != after.get(square):
                    for piece in (before.get(square), after.get(square)):
                        if piece:
                            key ^= piece_key(piece_code(piece.piece_type, piece.color == chess.BLACK), square)
            key ^= castle_key(bits) ^ castle_key(_bits(board)) ^ TURN_KEY
            if hashed_before:
                key ^= ep_key(ep & 7)
            squares_after = [0] * 64
            for square, piece in after.items():
                squares_after[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
            if ep_hashed(squares_after, board.turn == chess.WHITE, board.ep_square):
                key ^= ep_key(board.ep_square & 7)
            assert key == chess.polyglot.zobrist_hash(board), board.fen()
