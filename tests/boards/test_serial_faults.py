"""The serial path a user takes (pyserial on a port) against the simulated dev board on a
pseudo-terminal, under faults; and the host client's retries on a scripted line."""

import json

import chess
import pytest

from hwmovegen.boards.bridge import FAULT_KINDS
from hwmovegen.boards.client import DeviceError, HostClient, LinkError, NoReply, Transport
from hwmovegen.cli import main
from hwmovegen.rtl.protocol import PROTOCOL_VERSION, ErrorCode, FrameType, frame
from hwmovegen.rtl.types import Counters, Move, Pong, byte_length, pack
from hwmovegen.sim.harness.wire import word_from_move
from hwmovegen.sim.model import Position, generate

from ..helpers import KIWIPETE


class Scripted(Transport):
    """A line that answers the n-th request written with ``replies[n]`` (bytes), on a clock that
    moves only as it is read."""

    def __init__(self, replies):
        self.replies, self.requests, self.inbox, self.clock = list(replies), [], bytearray(), 0.0

    def write(self, data):
        self.requests.append(bytes(data))
        if self.replies:
            self.inbox += self.replies.pop(0)

    def read(self, timeout):
        self.clock += timeout
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def now(self):
        return self.clock


def pong():
    return frame(FrameType.PONG, pack(Pong, {"version": PROTOCOL_VERSION, "layout": 0, "core": 0, "features": 0,
                                             "perft_engines": 0}).to_bytes(byte_length(Pong), "little"))


def error(code):
    return frame(FrameType.ERROR, bytes([code]))


def moves_reply(moves, count=None):
    counters = pack(Counters, {"cycles": 1, "steps": 1, "moves": len(moves) if count is None else count,
                               "stalls": 0, "promotion_nodes": 0})
    return b"".join(frame(FrameType.MOVE, word_from_move(m).to_bytes(byte_length(Move), "little")) for m in moves) \
        + frame(FrameType.DONE, counters.to_bytes(byte_length(Counters), "little"))


def test_a_damaged_request_is_sent_again_and_a_final_error_is_not():
    line = Scripted([error(ErrorCode.JUNK), error(ErrorCode.TRUNCATED), pong()])
    client = HostClient(line, timeout=1.0, retries=2)
    assert client.ping().version == PROTOCOL_VERSION
    assert len(line.requests) == 3 and len(set(line.requests)) == 1
    assert client.stats["retries"] == 2 and client.stats["line_errors"] == 2
    # with no retries left, the error is the answer
    line = Scripted([error(ErrorCode.JUNK), pong()])
    with pytest.raises(DeviceError, match="JUNK"):
        HostClient(line, timeout=1.0, retries=0).ping()
    # an error about the request itself is final: sending it again would get it again
    line = Scripted([error(ErrorCode.NO_LEGALITY), pong()])
    with pytest.raises(DeviceError, match="NO_LEGALITY"):
        HostClient(line, timeout=1.0, retries=5).ping()
    assert len(line.requests) == 1


def test_a_lost_move_or_a_silent_board_is_retried_then_reported():
    position = Position.from_fen(KIWIPETE)
    moves = generate(position).moves
    # a MOVE frame lost on the way: the DONE's count says so, and the request is sent again
    line = Scripted([moves_reply(moves[:-1], count=len(moves)), moves_reply(moves)])
    client = HostClient(line, timeout=1.0, retries=1)
    assert client.generate(position)[0] == moves
    assert client.stats["bad_replies"] == 1
    line = Scripted([moves_reply(moves[:-1], count=len(moves))])
    with pytest.raises(LinkError, match=f"the board sent {len(moves)} moves, {len(moves) - 1} arrived"):
        HostClient(line, timeout=1.0).generate(position)
    # no reply at all: each try waits its timeout, then the client gives up, saying so
    line = Scripted([])
    client = HostClient(line, timeout=0.5, retries=3)
    with pytest.raises(NoReply, match="no reply from the board within 0.5 s"):
        client.ping()
    assert len(line.requests) == 4 and client.stats["timeouts"] == 3


def test_a_late_reply_to_an_earlier_try_is_not_taken_for_the_next_request():
    position = Position.from_fen(KIWIPETE)
    moves = generate(position).moves
    late = pong()
    # the first PING's reply stalls past the timeout and comes after the second's: the client
    # drops it after the answer, so the GENERATE that follows reads its own reply
    line = Scripted([b"", pong() + late, moves_reply(moves)])
    client = HostClient(line, timeout=0.5, retries=1)
    assert client.ping().version == PROTOCOL_VERSION
    assert client.generate(position)[0] == moves


def test_board_port_runs_through_pyserial_on_the_pseudo_terminal(capsys):
    code = main(["board", "--sim-pty", "--fen", KIWIPETE, "--json"])
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert code == 0 and result["backend"] == "sim-pty" and result["matches_model"]
    assert result["moves"] == [m.uci() for m in generate(Position.from_fen(KIWIPETE)).moves]


def test_every_fault_kind_is_survived(capsys):
    faults = 4 * len(FAULT_KINDS)
    code = main(["board", "--sim-pty", "--faults", str(faults), "--legal", "--json"])
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    *kinds, total = rows
    assert [row["kind"] for row in kinds] == list(FAULT_KINDS)
    assert all(row["tried"] == 4 and row["survived"] == 4 for row in kinds), kinds
    assert total["tried"] == faults and total["lost"] == 0 and total["wrong"] == 0
    assert total["clean"] == {"requests": faults, "lost": 0, "wrong": 0}
    assert total["retries"] >= faults // 2          # the faults did damage: most requests needed another try
    assert code == 0


def test_a_request_given_up_on_is_listed_with_its_error(capsys):
    # no retries: a damaged request is given up on at once, and each is listed with the fault on it
    faults = len(FAULT_KINDS)
    code = main(["board", "--sim-pty", "--faults", str(faults), "--retries", "0", "--legal", "--json"])
    out, err = capsys.readouterr()
    total = json.loads(out.splitlines()[-1])
    losses = total["losses"]
    assert losses and len(losses) == total["lost"] + total["clean"]["lost"], total
    assert {loss["kind"] for loss in losses} - {None} <= set(FAULT_KINDS)
    assert all(1 <= loss["fault"] <= faults and loss["error"] and
               (loss["request"] == "PING" or loss["request"].startswith("GENERATE of position ")) for loss in losses)
    assert total["wrong"] == 0 and code == 1


def test_bad_fault_options_are_one_line(capsys):
    for argv, message in ((["--sim", "--faults", "3"], "--faults needs --sim-pty"),
                          (["--sim-pty", "--faults", "0"], "--faults"),
                          (["--sim-pty", "--faults", "3", "--perft", "2"], "--faults runs generation requests"),
                          (["--sim", "--sim-pty"], "give --port PORT (a board), --sim")):
        code = main(["board", *argv])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and message in err, (argv, err)
