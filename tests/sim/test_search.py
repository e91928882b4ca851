"""The model's search against python-chess as a referee: mates played out, stalemates, legal
principal variations, a plain minimax written here without pruning, draws by rule, the node
limit, the hint move and the window's bounds."""

import chess
import chess.polyglot
import pytest

from hwmovegen.sim.model import Position
from hwmovegen.sim.positions import random_boards
from hwmovegen.sim.search import SearchRequest, format_score, key, search, static_eval
from hwmovegen.tables import piece_code
from hwmovegen.tables.eval import evaluate
from hwmovegen.tables.search import INF, MATE, is_mate, mate_in

MATES = [   # (fen, depth, score): found by the search, checked by playing the PV out in python-chess
    ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 2, MATE - 1),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1, MATE - 1),    # mate through quiescence
    ("k7/8/1K6/8/8/8/8/7R b - - 0 1", 2, -(MATE - 2)),          # the side to move is mated
    ("k7/8/2K5/8/8/8/8/6R1 w - - 0 1", 3, MATE - 3),            # mate in 2
]
STALEMATES = ["7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"]
SMALL = [   # few pieces: the plain minimax stays fast to depth 3
    "8/8/3k4/8/3P4/8/3K4/8 w - - 0 1",
    "4k3/8/8/3n4/8/2N5/8/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
    "k7/8/2K5/8/8/8/8/6R1 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/8/8/4p3/R3K3 b Q - 0 1",
    "7k/8/8/8/8/8/1p6/K7 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "k7/8/1Q6/8/8/8/8/K7 w - - 0 1",        # most king moves stalemate
]


def request(fen, depth, **options):
    return SearchRequest(Position.from_fen(fen), depth, **options)


def play(fen, moves):
    """Play UCI ``moves`` in python-chess, each checked legal there."""
    board = chess.Board(fen)
    for uci in moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (fen, moves, uci)
        board.push(move)
    return board


@pytest.mark.parametrize("fen, depth, score", MATES)
def test_mate_pv_ends_in_checkmate(fen, depth, score):
    result = search(request(fen, depth))
    assert result.score == score and result.bound == "exact" and is_mate(result.score)
    pv = [move.uci() for move in result.pv]
    assert len(pv) == MATE - abs(score) and result.best == result.pv[0]
    assert play(fen, pv).is_checkmate()
    assert format_score(result.score) == f"mate {mate_in(score)}"


def test_mated_and_stalemated_roots():
    mated = search(request("8/8/8/8/8/2k5/1q6/K7 w - - 0 1", 2))
    assert (mated.best, mated.score, mated.pv, mated.nodes, mated.generations) == (None, -MATE, [], 1, 1)
    for fen in STALEMATES:
        assert chess.Board(fen).is_stalemate()
        result = search(request(fen, 3))
        assert (result.best, result.score, result.bound, result.nodes) == (None, 0, "exact", 1)


def test_random_positions_pv_legal_and_mates_real():
    for board in random_boards(12, seed=21):
        fen = board.fen()
        for depth in (1, 2):
            result = search(request(fen, depth, quiescence=2))
            pv = [move.uci() for move in result.pv]
            end = play(fen, pv)
            if board.is_game_over():
                assert result.best is None
                continue
            assert result.best is not None and result.best.to_chess() in board.legal_moves
            if is_mate(result.score):
                assert end.is_checkmate() and len(pv) == MATE - abs(result.score)
            assert result.nodes >= result.qnodes and result.generations >= 1


# -- the plain minimax, written from the specification without pruning ----------------------------

def _squares(board):
    squares = [0] * 64
    for square, piece in board.piece_map().items():
        squares[square] = piece_code(piece.piece_type, piece.color == chess.BLACK)
    return squares


def _eval(board):
    return evaluate(_squares(board), board.turn == chess.WHITE)


def _draw(board, ply, path, history):
    if ply == 0:
        return False
    return board.halfmove_clock >= 100 or chess.polyglot.zobrist_hash(board) in path | history


def _minimax(board, depth, ply, q, cap, path, history):
    """Negamax without pruning: ``depth`` > 0 full width, else quiescence at ``q`` plies."""
    if _draw(board, ply, path, history):
        return 0
    moves = list(board.legal_moves)
    checked = board.is_check()
    if depth == 0:
        if checked:
            if not moves:
                return -(MATE - ply)
            if q == cap:
                return _eval(board)
        else:
            stand = _eval(board)
            if q == cap:
                return stand
            if not moves:
                return 0
            moves = [m for m in moves if board.is_capture(m)]
    elif not moves:
        return -(MATE - ply) if checked else 0
    best = None if depth == 0 and checked or depth else stand
    here = path | {chess.polyglot.zobrist_hash(board)}
    for move in moves:
        board.push(move)
        score = -_minimax(board, max(depth - 1, 0), ply + 1, q + 1 if depth == 0 else 0, cap, here, history)
        board.pop()
        best = score if best is None else max(best, score)
    return best


@pytest.mark.parametrize("fen", SMALL)
def test_alpha_beta_equals_plain_minimax(fen):
    for depth, cap in ((1, 4), (2, 3), (3, 2)):
        board = chess.Board(fen)
        expected = _minimax(board, depth, 0, 0, cap, frozenset(), frozenset())
        assert search(request(fen, depth, quiescence=cap)).score == expected, (depth, cap)


def test_alpha_beta_equals_plain_minimax_at_depth_4():
    # kings and a rook: lines back to the root are draws by repetition (none changes the score here)
    fen = "8/8/3k4/8/8/3K4/8/7R b - - 0 1"
    expected = _minimax(chess.Board(fen), 4, 0, 0, 1, frozenset(), frozenset())
    assert search(request(fen, 4, quiescence=1)).score == expected


# -- draws by rule ----------------------------------------------------------------------------------

def test_history_repetition_is_the_only_way_out():
    # white, a queen and a rook down, holds only by repeating the game's position after Kb1
    fen = "k7/8/8/3q4/3r4/8/8/K7 w - - 0 1"
    assert search(request(fen, 2)).score < -500
    board = chess.Board(fen)
    board.push_uci("a1b1")
    drawn = search(request(fen, 2, history=(chess.polyglot.zobrist_hash(board),)))
    assert (drawn.best.uci(), drawn.score, [m.uci() for m in drawn.pv]) == ("a1b1", 0, ["a1b1"])


def test_perpetual_check_repeats_on_the_path():
    # white, a queen and a rook down, holds by perpetual check: Qd8+ Kh7 Qh4+ Kg8 is the root again
    fen = "6k1/5pp1/8/5K2/7Q/8/r7/q7 w - - 0 1"
    assert search(request(fen, 2, quiescence=2)).score < -500        # the second check lies beyond
    result = search(request(fen, 3, quiescence=2))
    pv = [move.uci() for move in result.pv]
    assert (result.score, pv) == (0, ["h4d8", "g8h7", "d8h4", "h7g8"])
    end = play(fen, pv)
    assert chess.polyglot.zobrist_hash(end) == chess.polyglot.zobrist_hash(chess.Board(fen))


def test_fifty_move_rule():
    fen = "4k3/8/8/8/8/8/8/3QK3 w - - 99 80"
    assert search(request(fen, 1, halfmove=99)).score == 0
    assert search(request(fen, 1, halfmove=98)).score > 500
    assert search(request(fen, 2, halfmove=98)).score == 0      # the clock reaches 100 two plies on
    # a capture resets the clock: it is the only move that does not draw
    fen = "4k3/8/8/8/8/8/8/r2QK3 w - - 99 80"
    result = search(request(fen, 1, halfmove=99))
    assert result.best.uci() == "d1a1" and result.score > 500


# -- the request's controls -------------------------------------------------------------------------

KIWI = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def test_node_limit_aborts():
    fen = SMALL[4]
    full = search(request(fen, 2))
    assert not full.aborted
    assert search(request(fen, 2, node_limit=full.nodes)).aborted is False    # the last make fits
    for limit in (1, 2, 50, full.nodes - 1):
        cut = search(request(fen, 2, node_limit=limit))
        assert cut.aborted and cut.nodes == limit
        assert cut.best.to_chess() in chess.Board(fen).legal_moves
        play(fen, [m.uci() for m in cut.pv])
    first = search(request(fen, 2, node_limit=1))
    assert first.score == -INF and first.pv == [] and first.bound == "upper" and first.generations == 1


def test_hint_is_searched_first():
    fen = KIWI
    plain = search(request(fen, 1, quiescence=1, node_limit=2))
    assert plain.best.uci() != "a2a3"
    hinted = search(request(fen, 1, quiescence=1, node_limit=2, hint="a2a3"))
    assert hinted.best.uci() == "a2a3" and hinted.aborted
    # a hint changes the order, not the score; an illegal one is ignored
    fen = SMALL[4]
    assert search(request(fen, 2, hint="b4b1")).score == search(request(fen, 2)).score
    assert search(request(fen, 2, hint="a1a8")) == search(request(fen, 2))


def test_window_bounds():
    fen = SMALL[4]
    exact = search(request(fen, 2)).score
    high = search(request(fen, 2, alpha=exact - 50, beta=exact - 10))
    assert (high.score, high.bound) == (exact - 10, "lower")
    low = search(request(fen, 2, alpha=exact + 10, beta=exact + 50))
    assert (low.score, low.bound) == (exact + 10, "upper")
    inside = search(request(fen, 2, alpha=exact - 1, beta=exact + 1))
    assert (inside.score, inside.bound) == (exact, "exact")
    assert inside.nodes <= search(request(fen, 2)).nodes


def test_eval_and_key_against_references():
    for board in random_boards(30, seed=4):
        position = Position.from_board(board)
        assert key(position) == chess.polyglot.zobrist_hash(board)
        assert static_eval(position) == _eval(board)


def test_bad_requests():
    position = Position.from_fen(chess.STARTING_FEN)
    for bad in ({"depth": 0}, {"depth": 1, "alpha": 5, "beta": 5}, {"depth": 1, "beta": INF + 1},
                {"depth": 1, "node_limit": -1}):
        with pytest.raises(ValueError):
            SearchRequest(position, **bad)
