"""The golden model against python-chess and the published perft counts."""

import chess
import pytest

from hwmovegen.sim.model import Position, PositionError, cycle_bound, echo_fen, generate, parse_fen
from hwmovegen.sim.model.perft import perft, legal_moves
from hwmovegen.sim.backends import ModelBackend
from hwmovegen.tables import CastleRight

from ..helpers import KIWIPETE, PROMOTION_CAPTURE


def check_stream(board, generation):
    """(a) no duplicates, (b) legal subset == legal_moves, (c) pseudo-legal exactly."""
    stream = [m.to_chess() for m in generation.moves]
    assert len(stream) == len(set(stream)), "duplicate moves"
    legal = {m for m in stream if board.is_legal(m)}
    assert legal == set(board.legal_moves)
    reference = {m for m in board.generate_pseudo_legal_moves() if not board.is_castling(m)}
    non_castling = {m.to_chess() for m in generation.moves if not m.castle}
    assert non_castling == reference
    rights = Position.from_board(board).castling
    for move in generation.moves:
        if move.castle:  # the right is held and every square between king and rook is empty
            rook_file = 7 if move.to % 8 == 6 else 0
            between = chess.SquareSet(chess.between(move.frm, move.to - move.to % 8 + rook_file))
            assert not between & board.occupied
            right = {6: CastleRight.WHITE_KINGSIDE, 2: CastleRight.WHITE_QUEENSIDE,
                     62: CastleRight.BLACK_KINGSIDE, 58: CastleRight.BLACK_QUEENSIDE}[move.to]
            assert rights & right and board.piece_type_at(move.frm) == chess.KING
    # every flag says what python-chess says of the move
    for move in generation.moves:
        cm = move.to_chess()
        assert move.capture == board.is_capture(cm)
        assert move.en_passant == board.is_en_passant(cm)
        assert move.castle == board.is_castling(cm)
        assert move.double == (board.piece_type_at(move.frm) == chess.PAWN and abs(move.to - move.frm) == 16)


def test_suite_positions_match_python_chess(suite):
    assert len(suite) == 133
    for record in suite:
        check_stream(record.board, generate(Position.from_board(record.board)))


def test_random_positions_match_python_chess(random_1000):
    assert len(random_1000) == 1000
    for board in random_1000:
        check_stream(board, generate(Position.from_board(board)))


def test_random_positions_cover_the_special_moves(random_1000):
    """The random sample really exercises promotions, en passant and castling."""
    moves = [m for b in random_1000 for m in generate(Position.from_board(b)).moves]
    assert any(m.promotion for m in moves)
    assert any(m.en_passant for m in moves)
    assert any(m.castle for m in moves)


def test_layouts_emit_identical_streams(suite, random_1000):
    boards = [r.board for r in suite] + random_1000[:300]
    for board in boards:
        position = Position.from_board(board)
        dense, butterfly = generate(position, "dense"), generate(position, "butterfly")
        assert dense.moves == butterfly.moves
        assert dense.steps == butterfly.steps


def test_emission_order_is_ascending_squares_then_table_order():
    generation = generate(Position.from_fen(chess.STARTING_FEN))
    assert [m.uci() for m in generation.moves][:6] == ["b1c3", "b1a3", "g1h3", "g1f3", "a2a3", "a2a4"]
    froms = [m.frm for m in generation.moves]
    assert froms == sorted(froms)
    # start position: a1 rook 2 nodes, b1 knight 3, c1 bishop 2, d1 queen 5, e1 king 5 steps
    # + 2 blocked castling paths, f1 bishop 2, g1 knight 3, h1 rook 2; pawns: push ray of
    # 2 nodes + 1 capture on the edge files, + 2 captures elsewhere
    assert generation.steps == 2 + 3 + 2 + 5 + 7 + 2 + 3 + 2 + 2 * 3 + 6 * 4


def test_promotion_emits_four_moves_in_order():
    generation = generate(Position.from_fen(PROMOTION_CAPTURE))
    assert [m.uci() for m in generation.moves if m.frm == chess.A7] == [
        "a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8r", "a7b8b", "a7b8n"]
    assert generation.promotion_nodes == 2


def test_castling_needs_right_and_empty_path():
    def castles(fen):
        return [m.uci() for m in generate(Position.from_fen(fen)).moves if m.castle]
    assert castles("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1") == ["e1g1", "e1c1"]
    assert castles("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1") == ["e8g8", "e8c8"]
    assert castles("r3k2r/8/8/8/8/8/8/RN2K2R w Kk - 0 1") == ["e1g1"]
    assert castles("r3k2r/8/8/8/8/8/8/R3K1NR w KQkq - 0 1") == ["e1c1"]
    # pseudo-legal: attacked path squares are the legality stage's job
    assert castles("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".replace("8/8/8/8", "5r2/8/8/8")) == [
        "e1g1", "e1c1"]


@pytest.mark.parametrize("fen, problem", [
    ("not a fen", "bad FEN"),
    ("8/8/8/8/8/8/8/K7 w - - 0 1", "black has no king"),
    ("k7/8/8/8/8/8/8/KK6 w - - 0 1", "more than one king"),
    ("k6P/8/8/8/8/8/8/K7 w - - 0 1", "first or last rank"),
    ("k7/8/8/8/8/8/8/K6r b - - 0 1", "not to move is in check"),
    ("k7/8/8/8/8/8/8/K7 w - e3 0 1", "en-passant"),
    ("4k3/pppppppp/pppppppp/pppppppp/8/8/8/4K3 w - - 0 1", "black has more than 8 pawns"),
    ("4k3/8/8/8/PPPPPPPP/PPPPPPPP/PPPPPPPP/4K3 w - - 0 1", "white has more than 8 pawns"),
    ("qqqqkqqq/qqqqqqqq/qqqqqqqq/qqqqqqqq/8/8/8/4K3 w - - 0 1", "black has more than 16 pieces"),
    ("4r2k/8/8/8/8/3n4/8/r3K3 w - - 0 1", "more than two pieces give check"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling rights K without the king and that rook"),
    ("r3k3/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "castling rights k without"),
    ("r3k2r/8/8/8/8/8/8/R2K3R w KQkq - 0 1", "castling rights KQ without"),
    ("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1", "castling rights KQkq without"),
    ("4k3/8/8/8/8/8/8/1R2K3 w Q - 0 1", "castling rights Q without"),       # a rook, not in the corner
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "no side to move, castling, en passant, halfmove clock or "
                                                    "fullmove number fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", "no halfmove clock or fullmove number fields"),
])
def test_impossible_positions_are_rejected(fen, problem):
    with pytest.raises(PositionError, match=problem):
        parse_fen(fen)


@pytest.mark.parametrize("letter", "KQkq")
def test_every_castling_letter_needs_its_king_and_rook_at_home(letter):
    """Each letter alone: refused without its rook and with its king off its square (python-chess
    itself drops a Q or q with no rook on the back rank before its status can see it)."""
    home = "r3k2r/8/8/8/8/8/8/R3K2R"
    assert parse_fen(f"{home} w {letter} - 0 1")
    corner = {"K": "R3K3", "Q": "4K2R", "k": "r3k3", "q": "4k2r"}[letter]
    no_rook = home.replace("R3K2R", corner) if letter.isupper() else corner + home[5:]
    king_off = home.replace("R3K2R", "R2K3R") if letter.isupper() else "r2k3r" + home[5:]
    for board in (no_rook, king_off):
        with pytest.raises(PositionError, match=f"castling rights {letter} without"):
            parse_fen(f"{board} w {letter} - 0 1")


def test_a_check_python_chess_calls_impossible_is_accepted(suite):
    """Two sliders checking along one line: no last move gives such a check, yet the moves are
    well defined; the perft suite holds one, with its published counts."""
    fen = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1"
    assert chess.Board(fen).status() == chess.STATUS_IMPOSSIBLE_CHECK
    assert parse_fen(fen) and any(record.fen == fen for record in suite)


def test_the_echoed_fen_keeps_the_en_passant_square_the_hardware_holds():
    fen = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"       # b5c6 is pseudo-legal only
    board = parse_fen(fen)
    assert echo_fen(board) == fen and board.fen() != fen
    assert "b5c6" in generate(Position.from_fen(echo_fen(board))).uci()


def test_perft_depths_1_to_3_on_every_suite_position(suite):
    backend = ModelBackend()
    checked = 0
    for record in suite:
        for depth in (1, 2, 3):
            nodes, _ = perft(record.board, depth, backend.generate)
            assert nodes == record.depths[depth], (record.fen, depth)
            checked += 1
    assert checked == 3 * 133


def test_legal_filter_keeps_stream_order():
    board = parse_fen(KIWIPETE)
    stream = generate(Position.from_board(board)).moves
    legal = legal_moves(board, stream)
    assert [m.uci() for m in legal] == [m.uci() for m in stream if board.is_legal(m.to_chess())]


def test_cycle_bound_of_the_walker():
    start = generate(Position.from_fen(chess.STARTING_FEN))
    assert cycle_bound(start, "walker") == start.steps + 4 == 60
    promoting = generate(Position.from_fen(PROMOTION_CAPTURE))
    assert cycle_bound(promoting, "walker") == promoting.steps + 3 * 2 + 4
    with pytest.raises(KeyError, match="unknown core"):
        cycle_bound(start, "nonsense")


def test_position_state_fields():
    position = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    assert position.state() == {"white_to_move": 1, "castling": 0, "ep_valid": 1, "ep_square": chess.D6}
    assert Position.from_fen(KIWIPETE.replace(" w ", " b ")).state()["castling"] == 15
