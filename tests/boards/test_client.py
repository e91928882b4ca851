"""A dev board's top level, UART included, simulated end to end through the host client."""

import json

import chess
import pytest

from hwmovegen.boards.client import DeviceError, HostClient, SimulatedDevBoard, Transport
from hwmovegen.cli import main
from hwmovegen.rtl.protocol import (OLD_GENERATE_LENGTH, PROTOCOL_VERSION, ErrorCode, FrameDecoder, FrameType, crc8, frame,
                                    generate_payload, perft_payload)
from hwmovegen.sim.model import Position, cycle_bound, generate, work
from hwmovegen.sim.harness.wire import position_bytes
from hwmovegen.tables.contracts import ORDERS, SELECTABLE, GeneratorConfig

from ..helpers import EN_PASSANT, KIWIPETE, ONE_STEP_WALKS, PROMOTIONS
from ..legal_positions import RULES

POSITIONS = [KIWIPETE, PROMOTIONS, EN_PASSANT, ONE_STEP_WALKS[0]]


@pytest.fixture(scope="module")
def link():
    board = SimulatedDevBoard()
    return board, HostClient(board, timeout=0.5)


def assert_generates(client, fen):
    position = Position.from_fen(fen)
    moves, counters = client.generate(position)
    model = generate(position)
    assert moves == model.moves, fen
    assert counters["steps"] == model.steps and counters["moves"] == len(model.moves)
    assert counters["promotion_nodes"] == model.promotion_nodes
    # the UART is far slower than the generator: it waits on the link, never the reverse
    assert counters["cycles"] - counters["stalls"] <= cycle_bound(model)


def test_ping(link):
    _, client = link
    assert client.ping() == (PROTOCOL_VERSION, "dense", "walker", False, 0, False, False)


@pytest.mark.parametrize("fen", POSITIONS)
def test_generate_over_the_uart_matches_the_model(link, fen):
    assert_generates(link[1], fen)


def _with_byte(request, index, value):
    """``request`` with its byte at ``index`` replaced: a fault on the line."""
    return request[:index] + bytes([value]) + request[index + 1:]


@pytest.mark.parametrize("garbage, code", [
    (b"\x00\x13hello", ErrorCode.JUNK),
    (frame(FrameType.PING)[:3], ErrorCode.TRUNCATED),
    (frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(chess.STARTING_FEN))))[:20],
     ErrorCode.TRUNCATED),
    # a version-2 host: the image without the flags byte
    (frame(FrameType.GENERATE, position_bytes(Position.from_fen(chess.STARTING_FEN))), ErrorCode.OLD_VERSION),
    # a GENERATE whose length byte lost a bit on the line looks like version 2's: damaged, retried
    (_with_byte(frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(chess.STARTING_FEN)))),
                2, OLD_GENERATE_LENGTH), ErrorCode.BAD_CHECKSUM),
    # legal moves asked of a bitstream without the legality stage
    (frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(KIWIPETE)), legal=True)),
     ErrorCode.NO_LEGALITY),
    # an order asked of a bitstream without the ordering stage
    (frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(KIWIPETE)), order=1)),
     ErrorCode.NO_ORDER),
    # perft asked of a bitstream without a perft array
    (frame(FrameType.PERFT, perft_payload(position_bytes(Position.from_fen(KIWIPETE)), 2)), ErrorCode.NO_PERFT),
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
    request = bytearray(frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(POSITIONS[0])))))
    request[10] ^= 0x40
    client.send_raw(request)
    assert client.expect_error() == ErrorCode.BAD_CHECKSUM
    assert client.ping() == (PROTOCOL_VERSION, "dense", "walker", False, 0, False, False)


def test_junk_right_before_a_request_is_skipped(link):
    board, client = link
    client.send_raw(b"\x00\x01\x02" + frame(FrameType.PING))   # no idle gap: no JUNK error
    frame_type, payload = client._next_frame()
    assert frame_type == FrameType.PONG and payload == bytes([PROTOCOL_VERSION, 0, 0, 0, 0])


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
    assert out[0] == f"# board: protocol {PROTOCOL_VERSION}, walker core, dense layout"
    assert out[-1].startswith("# matches the golden model: 7 moves")
    epd = tmp_path / "two.epd"
    epd.write_text(f"{POSITIONS[3]}\n{POSITIONS[2]}\n")
    assert main(["board", "--sim", "--epd", str(epd), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2
    for line in lines:
        model = generate(Position.from_fen(line["fen"]))
        assert line["moves"] == model.uci() and line["matches_model"] is True
        assert line["steps"] == model.steps and line["promotion_nodes"] == model.promotion_nodes


def test_cli_board_needs_a_port_or_sim(capsys):
    assert main(["board"]) == 2
    assert "--port" in capsys.readouterr().err


def test_an_old_protocol_version_is_refused():
    """A host of this version talking to a board of another gets one clear line."""
    class OldBoard(Transport):
        def __init__(self):
            self.out = b""

        def write(self, data):
            self.out += frame(FrameType.PONG, bytes([1, 0]))

        def read(self, timeout):
            data, self.out = self.out, b""
            return data

    with pytest.raises(Exception, match="protocol version 1.*rebuild"):
        HostClient(OldBoard(), timeout=0.1).ping()


@pytest.mark.parametrize("core", ["walker", "fast"])
def test_a_legal_board_serves_both_flags(core):
    """With the legality stage: the legal stream when GENERATE asks for it, and the plain
    core's stream and counters, cycle for cycle, when it does not."""
    client = HostClient(SimulatedDevBoard(GeneratorConfig(core=core, legal=True)), timeout=0.5)
    assert client.ping() == (PROTOCOL_VERSION, "dense", core, True, 0, False, False)
    for name, fen, _, _ in RULES[:1] + RULES[13:14]:
        position = Position.from_fen(fen)
        moves, counters = client.generate(position, legal=True)
        model = generate(position, legal=True)
        assert moves == model.moves, name
        assert counters["moves"] == len(model.moves) and counters["steps"] == work(model, core)
        assert counters["cycles"] - counters["stalls"] <= cycle_bound(model, core)
        moves, counters = client.generate(position)
        plain = generate(position)
        assert moves == plain.moves, name
        assert counters["steps"] == work(plain, core)
        assert counters["cycles"] - counters["stalls"] <= cycle_bound(plain, core)


def test_cli_board_sim_legal(capsys):
    fen = RULES[13][1]      # en passant exposing the king on the rank
    assert main(["board", "--sim", "--legal", "--fen", fen, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["legal"] is True and line["matches_model"] is True
    assert line["moves"] == generate(Position.from_fen(fen), legal=True).uci()
    assert "b5c6" not in line["moves"]
    assert line["fen"] == fen       # the en-passant square the board was sent, though no legal move uses it


def test_a_perft_board_walks_trees_alone():
    """PERFT: the board's two-engine array walks the tree and answers nodes and cycles; a
    bad depth is refused and the link goes on."""
    client = HostClient(SimulatedDevBoard(GeneratorConfig(perft_engines=2)), timeout=0.5)
    assert client.ping() == (PROTOCOL_VERSION, "dense", "walker", False, 2, False, False)
    answer = client.perft(Position.from_fen(KIWIPETE), 2, timeout=5)
    assert answer["nodes"] == 2039 and 0 < answer["cycles"] < 10_000
    for depth in (0, 9):
        client.send_raw(frame(FrameType.PERFT, perft_payload(position_bytes(Position.from_fen(KIWIPETE)), depth)))
        assert client.expect_error() == ErrorCode.BAD_DEPTH
    assert client.perft(Position.from_fen(chess.STARTING_FEN), 1)["nodes"] == 20
    assert_generates(client, PROMOTIONS)


def test_cli_board_sim_perft(capsys):
    assert main(["board", "--sim", "--perft", "2", "--fen", EN_PASSANT, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    board = chess.Board(EN_PASSANT)
    expected = sum(len(list(_after(board, move).legal_moves)) for move in board.legal_moves)
    assert line["matches"] is True and line["nodes"] == expected and line["cycles"] > 0


def _after(board, move):
    board = board.copy()
    board.push(move)
    return board


# captures of every kind of victim, by a pawn and a knight; capture-promotions that give check
CAPTURES = "k7/8/2b5/3q1r2/4P3/2N5/8/K7 w - - 0 1"
PROMOTION_CHECKS = "4r3/3P4/8/8/k7/8/8/4K3 w - - 0 1"


def test_an_ordered_board_serves_every_order():
    """With the ordering stage (fast core): each order of GENERATE's flags is the model's
    ordered stream, check flags included; no order is the square order, flagged; an order
    that is no Order is refused with BAD_ORDER and the link goes on."""
    client = HostClient(SimulatedDevBoard(GeneratorConfig(core="fast", order=SELECTABLE)), timeout=0.5)
    assert client.ping() == (PROTOCOL_VERSION, "dense", "fast", False, 0, True, False)
    streams = {}
    for fen in (CAPTURES, PROMOTION_CHECKS):
        position = Position.from_fen(fen)
        for order in ORDERS:
            moves, counters = client.generate(position, order=order)
            model = generate(position, order=order)
            assert moves == model.moves, (fen, order)
            assert counters["moves"] == len(model.moves) and counters["steps"] == work(model, "fast")
            assert counters["cycles"] - counters["stalls"] <= cycle_bound(model, "fast")
            streams[fen, order] = moves
    # the positions tell the orders apart and have checks: the flags and the order are checked
    assert streams[CAPTURES, "mvv-lva"] != streams[CAPTURES, "square"]
    assert [m.uci() for m in streams[CAPTURES, "captures"]] == ["e4d5", "c3d5", "e4f5"]
    assert sum(m.check for m in streams[PROMOTION_CHECKS, "captures"]) == 2
    client.send_raw(frame(FrameType.GENERATE, generate_payload(position_bytes(Position.from_fen(CAPTURES)),
                                                               order=3)))
    assert client.expect_error() == ErrorCode.BAD_ORDER
    position = Position.from_fen(PROMOTION_CHECKS)
    assert client.generate(position)[0] == generate(position, order="square").moves


def test_an_ordered_legal_walker_board():
    """The walker with both stages: the legal moves in MVV-LVA order, and the pseudo-legal
    ones in the core's order, with their check flags."""
    client = HostClient(SimulatedDevBoard(GeneratorConfig(legal=True, order=SELECTABLE)), timeout=0.5)
    assert client.ping() == (PROTOCOL_VERSION, "dense", "walker", True, 0, True, False)
    position = Position.from_fen(RULES[13][1])      # en passant exposing the king on the rank
    moves, counters = client.generate(position, legal=True, order="mvv-lva")
    model = generate(position, legal=True, order="mvv-lva")
    assert moves == model.moves and counters["moves"] == len(model.moves)
    assert counters["cycles"] - counters["stalls"] <= cycle_bound(model, "walker")
    assert client.generate(position, order="square")[0] == generate(position, order="square").moves


def test_cli_board_sim_order(capsys):
    assert main(["board", "--sim", "--core", "fast", "--order", "mvv-lva", "--fen", PROMOTION_CHECKS]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"# board: protocol {PROTOCOL_VERSION}, fast core, dense layout, ordering stage"
    model = generate(Position.from_fen(PROMOTION_CHECKS), order="mvv-lva")
    assert out[1:-1] == [m.uci() + ("+" if m.check else "") for m in model.moves]
    assert out[1] == "d7e8q+" and out[-1].startswith(f"# matches the golden model: {len(model.moves)} moves")
    assert main(["board", "--sim", "--order", "captures", "--legal", "--fen", PROMOTION_CHECKS, "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    model = generate(Position.from_fen(PROMOTION_CHECKS), legal=True, order="captures")
    assert line["matches_model"] is True and line["order"] == "captures" and line["legal"] is True
    assert line["moves"] == model.uci() and line["check"] == [int(m.check) for m in model.moves] == [1, 0, 1, 0]


def test_cli_board_order_needs_the_stage(capsys, monkeypatch):
    """A board whose bitstream has no ordering stage: --order is refused in one line."""
    from hwmovegen.cli import fpga
    monkeypatch.setattr(fpga, "SerialTransport", lambda port, baud: SimulatedDevBoard())
    assert main(["board", "--port", "ttyFAKE", "--order", "mvv-lva"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hwmovegen: error: ") and "no ordering stage" in err and len(err.splitlines()) == 1
