"""The board top-level, UART included, simulated end to end through the host-side protocol code."""

import json

import chess
import pytest

from hwmovegen.boards.hostlink import (DeviceError, FrameDecoder, HostClient, SimulatedBoard,
                                       encode_position)
from hwmovegen.rtl.protocol import ErrorCode, FrameType, crc8, frame
from hwmovegen.sim.cli import main
from hwmovegen.sim.model import Position, generate

POSITIONS = [
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n1k3/PPP5/8/8/8/8/5ppp/4K1N1 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "7b/6k1/8/8/8/8/8/K7 b - - 0 1",
]


@pytest.fixture(scope="module")
def link():
    board = SimulatedBoard()
    return board, HostClient(board, timeout=0.5)


def assert_generates(client, fen):
    position = Position.from_fen(fen)
    moves, counters = client.generate(position)
    model = generate(position)
    assert moves == model.moves, fen
    assert counters["steps"] == model.steps and counters["moves"] == len(model.moves)
    assert counters["promotions"] == model.promotion_nodes
    # the UART is far slower than the generator: it waits on the link, never the reverse
    assert counters["cycles"] - counters["stalls"] <= model.steps + 3 * model.promotion_nodes + 4


def test_ping(link):
    _, client = link
    assert client.ping() == (1, "dense")


@pytest.mark.parametrize("fen", POSITIONS)
def test_generate_over_the_uart_matches_the_model(link, fen):
    assert_generates(link[1], fen)


@pytest.mark.parametrize("garbage, code", [
    (b"\x00\x13hello", ErrorCode.JUNK),
    (frame(FrameType.PING)[:3], ErrorCode.TRUNCATED),
    (frame(FrameType.GENERATE, encode_position(Position.from_fen(chess.STARTING_FEN)))[:20],
     ErrorCode.TRUNCATED),
    (bytes([0xA5, 0x07, 0x00, crc8(b"\x07\x00")]), ErrorCode.UNKNOWN_TYPE),
    (bytes([0xA5, 0x02, 0x05, 1, 2, 3, 4, 5, 0]), ErrorCode.BAD_LENGTH),
    (frame(FrameType.PING)[:-1] + b"\x00", ErrorCode.BAD_CHECKSUM),
])
def test_bad_input_gets_an_error_and_the_link_recovers(link, garbage, code):
    board, client = link
    bad = bytearray(garbage)
    client.send_raw(bad)
    assert client.expect_error() == code
    assert_generates(client, POSITIONS[2])      # the next request is served


def test_bad_checksum_on_a_generate_request(link):
    board, client = link
    request = bytearray(frame(FrameType.GENERATE, encode_position(Position.from_fen(POSITIONS[0]))))
    request[10] ^= 0x40
    client.send_raw(request)
    assert client.expect_error() == ErrorCode.BAD_CHECKSUM
    assert client.ping() == (1, "dense")


def test_junk_right_before_a_request_is_skipped(link):
    board, client = link
    client.send_raw(b"\x00\x01\x02" + frame(FrameType.PING))   # no idle gap: no JUNK error
    frame_type, payload = client._next_frame()
    assert frame_type == FrameType.PONG and payload == bytes([1, 0])


def test_error_frames_raise_device_error(link):
    board, client = link
    client.send_raw(b"zz")
    board.idle(1000)                    # the line rests: the board reports the junk
    with pytest.raises(DeviceError, match="JUNK"):
        client.ping()
    frame_type, _ = client._next_frame()   # the ping's own answer follows the error
    assert frame_type == FrameType.PONG


def test_frame_decoder_resynchronises():
    decoder = FrameDecoder()
    good = frame(FrameType.MOVE, b"\x01\x02\x03")
    broken = bytearray(frame(FrameType.MOVE, b"\x04\x05\x06"))
    broken[-1] ^= 0xFF
    frames = decoder.feed(b"noise" + bytes(broken) + good[:4])
    frames += decoder.feed(good[4:])
    assert frames == [(FrameType.MOVE, b"\x01\x02\x03")]


def test_cli_board_sim(capsys, tmp_path):
    assert main(["board", "--sim", "--fen", POSITIONS[3]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# board: protocol 1, dense layout"
    assert out[-1].startswith("# matches the golden model: 7 moves")
    epd = tmp_path / "two.epd"
    epd.write_text(f"{POSITIONS[3]}\n{POSITIONS[2]}\n")
    assert main(["board", "--sim", "--epd", str(epd), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for line in lines:
        model = generate(Position.from_fen(line["fen"]))
        assert line["moves"] == model.uci() and line["matches_model"] is True
        assert line["steps"] == model.steps


def test_cli_board_needs_a_port_or_sim(capsys):
    assert main(["board"]) == 2
    assert "--port" in capsys.readouterr().err
