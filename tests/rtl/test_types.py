"""The wire formats: pack/unpack, the position image, the names derived from the layouts."""

import random

import chess

from hwmovegen.rtl.types import (BoardState, COUNTER_NAMES, Counters, Move, POSITION_BYTES, byte_length,
                                 pack, position_image, unpack)
from hwmovegen.sim.model import Position
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.sim.harness.wire import move_from_word, position_bytes, word_from_move


def test_pack_unpack_round_trip():
    rng = random.Random(1)
    for shape in (Move, BoardState, Counters):
        for _ in range(100):
            word = rng.getrandbits(shape.as_shape().size)
            assert pack(shape, unpack(shape, word)) == word


def test_move_words_and_model_moves():
    rng = random.Random(2)
    for _ in range(200):
        word = rng.getrandbits(Move.as_shape().size)
        assert word_from_move(move_from_word(word)) == word


def test_derived_sizes_and_names():
    assert byte_length(Move) == 3 and byte_length(Counters) == 20 and POSITION_BYTES == 34
    assert COUNTER_NAMES == ("cycles", "steps", "moves", "stalls", "promotion_nodes")


def test_position_image():
    position = Position.from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
    image = position_bytes(position)
    assert len(image) == POSITION_BYTES
    planes = [int.from_bytes(image[8 * k:8 * k + 8], "little") for k in range(4)]
    for square in range(64):
        assert sum((planes[k] >> square & 1) << k for k in range(4)) == position.squares[square]
    state = unpack(BoardState, int.from_bytes(image[32:], "little"))
    assert state == {"white_to_move": 1, "castling": 0, "ep_valid": 1, "ep_square": chess.D6}
    assert image == position_image(position.planes(), position.state())


def test_the_fast_image_of_a_board_equals_the_model_positions(suite):
    for board in [r.board for r in suite] + random_boards(200, seed=12):
        assert position_bytes(board) == position_bytes(Position.from_board(board)), board.fen()
