"""The golden model's ordered generation (:mod:`hwmovegen.sim.model.order`): the check flag against
python-chess, rule by rule and at scale, and the orders against today's stream and bins
recomputed from python-chess's piece types."""

from collections import Counter
from dataclasses import replace

import chess
import pytest

from hwmovegen.sim.model import Position, generate, gives_check, order_bin, order_moves
from hwmovegen.tables.contracts import CAPTURE_BINS, ORDER_BINS as BINS, ORDERS, PROMOTION_BIN, QUIET_BIN
from hwmovegen.sim.model.positions import random_boards, stress_boards

from ..helpers import EN_PASSANT, KIWIPETE, POSITION3, PROMOTION_CAPTURE, PROMOTIONS
from ..legal_positions import RULES

# (name, FEN with white to move, moves that must be flagged, moves that must not); each is
# tested as it stands and mirrored (black to move)
CHECK_RULES = [
    ("a promotion checks down the file it leaves", "8/4P3/8/8/8/8/8/K3k3 w - - 0 1",
     ["e7e8q", "e7e8r"], ["e7e8b", "e7e8n"]),
    ("a promotion's file blocked below the pawn", "8/4P3/8/8/4p3/8/8/K3k3 w - - 0 1",
     [], ["e7e8q", "e7e8r", "e7e8b", "e7e8n"]),
    ("a capture-promotion checks back along the diagonal", "r7/1P6/8/8/4k3/8/8/7K w - - 0 1",
     ["b7a8q", "b7a8b"], ["b7a8r", "b7a8n", "b7b8q", "b7b8r", "b7b8b", "b7b8n"]),
    ("a knight promotion checks", "3n4/4P3/3k4/8/8/8/8/K7 w - - 0 1",
     ["e7e8n", "e7d8q", "e7d8r"], ["e7e8q", "e7e8r", "e7e8b", "e7d8b", "e7d8n"]),
    ("O-O: the rook checks along the rank through the king's square", "8/8/8/8/8/8/8/2k1K2R w K - 0 1",
     ["e1g1"], ["e1f1", "e1f2", "e1e2", "h1h8"]),
    ("O-O-O: the rook checks along the rank through the king's square", "8/8/8/8/8/8/8/R3K1k1 w Q - 0 1",
     ["e1c1"], ["e1d1", "e1d2", "a1a2", "a1b1", "a1d1"]),
    ("O-O: the rook checks up the file", "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
     ["e1g1", "h1h8", "h1f1"], ["e1f1", "h1g1", "h1h7"]),
    ("O-O-O: the rook checks up the file", "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
     ["e1c1", "a1a8", "a1d1"], ["e1d1", "a1b1", "a1c1", "a1a7"]),
    ("O-O: the rook's file blocked", "5k2/5p2/8/8/8/8/8/4K2R w K - 0 1",
     [], ["e1g1"]),
    ("en passant: the capturing pawn checks", "8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 1",
     ["e5d6"], ["e5e6"]),
    ("en passant: a discovered check along the rank", "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
     [], ["e5d6", "e5e6"]),
    ("a knight leaves a rook's file: discovered, and double with a direct check",
     "4k3/8/8/8/4N3/8/8/K3R3 w - - 0 1", ["e4d6", "e4f6"], ["e4c5", "e4g5", "e4c3", "e4g3", "e4d2", "e4f2"]),
    ("pawns check by pushing and by capturing", "8/8/3k4/2n5/1P2P3/8/8/K7 w - - 0 1",
     ["e4e5", "b4c5"], ["b4b5"]),
    ("a double push checks", "8/8/8/3k4/8/8/4P3/K7 w - - 0 1", ["e2e4"], ["e2e3"]),
    ("sliders check, or are blocked", "7k/8/8/4p3/8/8/1B6/K2R2Q1 w - - 0 1",
     ["g1g7", "g1g8", "g1h2", "g1h1", "d1d8", "b2e5"], ["b2c3", "d1d7", "g1e3"]),
    ("a king never gives check, even beside the other king", "8/8/8/8/8/3k4/8/4K3 w - - 0 1",
     [], ["e1e2", "e1d2", "e1d1", "e1f2"]),
]


def mirror_uci(uci):
    move = chess.Move.from_uci(uci)
    return chess.Move(chess.square_mirror(move.from_square), chess.square_mirror(move.to_square),
                      move.promotion).uci()


def rule_cases():
    for name, fen, checks, quiet in CHECK_RULES:
        board = chess.Board(fen)
        yield name, board, checks, quiet
        yield name + " (black)", board.mirror(), [mirror_uci(m) for m in checks], [mirror_uci(m) for m in quiet]


_ROOK_TO = {chess.G1: chess.F1, chess.C1: chess.D1, chess.G8: chess.F8, chess.C8: chess.D8}


def checking_square(move):
    """Where the piece that may check stands after a model Move: the rook's square castling."""
    return _ROOK_TO[move.to] if move.castle else move.to


class Coverage(Counter):
    """What the checks against python-chess hit, so that each tricky case is seen to be tested."""

    def see(self, board, move, flag, after):
        king = after.king(after.turn)
        square = checking_square(move)
        line = chess.SquareSet(chess.between(square, king))
        if flag:
            self["check"] += 1
            kind = chess.ROOK if move.castle else move.promotion or board.piece_type_at(move.frm)
            self[f"check by {chess.piece_name(kind)}"] += 1
            if move.promotion and not move.capture and chess.square_file(king) == chess.square_file(square):
                self["promotion checks down the file it leaves"] += 1
            if move.promotion and move.capture and move.frm in line:
                self["capture-promotion checks back through its square"] += 1
            if move.castle:
                rank = chess.square_rank(king) == chess.square_rank(square)
                self["castling checks along the rank" if rank else "castling checks up the file"] += 1
            if move.en_passant:
                self["en passant checks"] += 1
            if len(after.checkers()) == 2:
                self["double check, one direct"] += 1
        elif after.is_check():
            self["discovered check, not flagged"] += 1
            if move.en_passant:
                self["discovered check by en passant, not flagged"] += 1
        if board.piece_type_at(move.frm) == chess.KING and not move.castle and square in after.checkers():
            self["king beside the other king, not flagged"] += 1


def assert_check_flags(board, moves, coverage=None):
    """Each flag equals python-chess's word on the move (pseudo-legal moves too): the moved
    piece (the rook castling) is among the checkers after the move, a king move excepted."""
    position = Position.from_board(board, check=False)
    for move in moves:
        after = board.copy(stack=False)
        after.push(move.to_chess())
        square = checking_square(move)
        king_move = board.piece_type_at(move.frm) == chess.KING and not move.castle
        expected = square in after.checkers() and not king_move
        assert move.check == expected, (board.fen(), move.uci())
        assert gives_check(position, move) == expected, (board.fen(), move.uci())
        # python-chess's own gives_check: every flagged move checks; an unflagged check is discovered
        if move.check:
            assert board.gives_check(move.to_chess()), (board.fen(), move.uci())
        elif board.gives_check(move.to_chess()):
            assert king_move or square not in after.checkers(), (board.fen(), move.uci())
        if coverage is not None:
            coverage.see(board, move, move.check, after)


def reference_bin(board, move):
    """The bin from python-chess's piece types (the order's rule written independently)."""
    chess_move = move.to_chess()
    if board.is_capture(chess_move):
        victim = chess.PAWN if board.is_en_passant(chess_move) else board.piece_type_at(chess_move.to_square)
        return (chess.QUEEN - victim) * 6 + board.piece_type_at(chess_move.from_square) - 1
    return 30 if chess_move.promotion else 31


def unflagged(moves):
    return [replace(move, check=False) for move in moves]


@pytest.fixture(scope="module")
def boards(suite, random_1000):
    extra = [chess.Board(fen) for fen in (KIWIPETE, POSITION3, PROMOTIONS, PROMOTION_CAPTURE, EN_PASSANT)]
    rules = [chess.Board(fen) for _, fen, _, _ in RULES] + [board for _, board, _, _ in rule_cases()]
    return [r.board for r in suite] + random_1000 + stress_boards(400, seed=2031) + extra + rules


def test_the_constants():
    assert ORDERS == ("square", "mvv-lva", "captures")
    assert (CAPTURE_BINS, PROMOTION_BIN, QUIET_BIN, BINS) == (30, 30, 31, 32)


@pytest.mark.parametrize("name, board, checks, quiet", list(rule_cases()), ids=[c[0] for c in rule_cases()])
def test_check_rule_by_rule(name, board, checks, quiet):
    position = Position.from_board(board)
    stream = generate(position, order="square").moves
    flags = {move.uci(): move.check for move in stream}
    assert set(checks + quiet) <= set(flags), set(checks + quiet) - set(flags)
    assert all(flags[uci] for uci in checks), (checks, flags)
    assert not any(flags[uci] for uci in quiet), (quiet, flags)
    assert_check_flags(board, stream)


def test_check_flags_against_python_chess(boards):
    coverage = Coverage()
    for board in boards:
        position = Position.from_board(board)
        moves = order_moves(position, generate(position).moves, "square")
        assert_check_flags(board, moves, coverage)
    # every tricky case is really tested, at scale and not only by the hand-made rules
    for case in ("check by pawn", "check by knight", "check by bishop", "check by rook", "check by queen",
                 "promotion checks down the file it leaves", "capture-promotion checks back through its square",
                 "castling checks along the rank", "castling checks up the file", "en passant checks",
                 "double check, one direct", "discovered check, not flagged",
                 "discovered check by en passant, not flagged", "king beside the other king, not flagged"):
        assert coverage[case] > 0, (case, coverage)
    assert coverage["check"] > 1000, coverage


def test_the_orders_against_todays_stream(boards):
    seen = Counter()
    for board in boards:
        position = Position.from_board(board)
        today = generate(position)
        for order in ORDERS:
            ordered = generate(position, order=order)
            assert (ordered.steps, ordered.promotion_nodes) == (today.steps, today.promotion_nodes)
            assert ordered.ordered == order and (ordered.generated, ordered.setup) == (None, 0)
            assert ordered.captures == sum(board.is_capture(m.to_chess()) for m in today.moves)
            assert_check_flags(board, ordered.moves)
            bins = [order_bin(position, move) for move in ordered.moves]
            assert bins == [reference_bin(board, move) for move in ordered.moves], board.fen()
            kept = [m for m in today.moves if order != "captures" or reference_bin(board, m) < CAPTURE_BINS]
            if order == "square":
                assert unflagged(ordered.moves) == today.moves
                continue
            assert Counter(unflagged(ordered.moves)) == Counter(kept), board.fen()
            assert bins == sorted(bins), board.fen()
            # ties keep today's order: each bin's moves in today's relative order
            for bin_ in set(bins):
                assert ([m for m, b in zip(unflagged(ordered.moves), bins) if b == bin_]
                        == [m for m in kept if reference_bin(board, m) == bin_]), board.fen()
            seen.update(bins)
            if order == "mvv-lva" and len(set(bins)) > 1 and unflagged(ordered.moves) != today.moves:
                seen["reordered"] += 1
    # every capture bin that can occur is met (a king's capture of a pawn ... of a queen included)
    assert set(range(BINS)) <= set(seen), sorted(set(range(BINS)) - set(seen))
    assert seen["reordered"] > 100


def test_legal_then_ordered(boards):
    for board in boards[:400]:
        position = Position.from_board(board)
        legal = generate(position, legal=True)
        for order in ORDERS:
            ordered = generate(position, legal=True, order=order)
            assert ordered.moves == order_moves(position, legal.moves, order), board.fen()
            assert ((ordered.steps, ordered.generated, ordered.setup, ordered.movers)
                    == (legal.steps, legal.generated, legal.setup, legal.movers))
            expected = {m for m in board.legal_moves if order != "captures" or board.is_capture(m)}
            assert {m.to_chess() for m in ordered.moves} == expected, board.fen()
            assert ordered.captures == sum(board.is_capture(m) for m in board.legal_moves)
            # a legal move's check flag: python-chess's gives_check, discovered checks aside
            for move in ordered.moves:
                assert move.check <= board.gives_check(move.to_chess())


def test_without_an_order_nothing_changes(suite):
    for record in suite[:20]:
        position = Position.from_board(record.board)
        for legal in (False, True):
            plain = generate(position, legal=legal)
            assert generate(position, legal=legal, order=None).moves == plain.moves
            assert not any(move.check for move in plain.moves)
            assert (plain.captures, plain.ordered) == (None, None)


def test_an_unknown_order_is_refused():
    position = Position.from_board(chess.Board())
    with pytest.raises(ValueError, match="unknown order 'lva'"):
        generate(position, order="lva")
    with pytest.raises(ValueError, match="unknown order"):
        order_moves(position, generate(position).moves, "mvv_lva")
