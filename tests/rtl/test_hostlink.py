"""The host link's receiver and sender on their own: framing, CRC, every error, recovery."""

import random

import pytest
from amaranth.sim import Simulator

from hwmovegen.rtl.hostlink import FrameReceiver, FrameSender
from hwmovegen.rtl.protocol import OLD_GENERATE_LENGTH, REQUEST_LENGTHS, ErrorCode, FrameType, crc8, frame

IDLE = 60       # idle timeout in cycles
GENERATE = frame(FrameType.GENERATE, bytes(range(REQUEST_LENGTHS[FrameType.GENERATE])))


def receive(chunks, blocked_for=()):
    """Feed byte chunks (an idle gap after each) to a FrameReceiver; return what it reported:
    ('request', type, payload) and ('error', code) in order."""
    dut = FrameReceiver(IDLE)
    events = []

    async def feed(ctx):
        for index, chunk in enumerate(chunks):
            ctx.set(dut.blocked, index in blocked_for)
            for byte in chunk:
                ctx.set(dut.rx.payload, byte)
                ctx.set(dut.rx.valid, 1)
                await ctx.tick()
                ctx.set(dut.rx.valid, 0)
                await ctx.tick().repeat(3)
            await ctx.tick().repeat(IDLE + 10)

    async def take(ctx):
        while True:
            await ctx.tick()
            if ctx.get(dut.errors.valid):
                events.append(("error", ErrorCode(ctx.get(dut.errors.payload))))
                ctx.set(dut.errors.ready, 1)
                await ctx.tick()
                ctx.set(dut.errors.ready, 0)
            if ctx.get(dut.requests.valid):
                frame_type = ctx.get(dut.requests.payload)
                payload = []
                for address in range(REQUEST_LENGTHS[FrameType(frame_type)]):
                    ctx.set(dut.read_addr, address)
                    await ctx.tick()
                    payload.append(ctx.get(dut.read_data))
                events.append(("request", FrameType(frame_type), bytes(payload)))
                ctx.set(dut.requests.ready, 1)
                await ctx.tick()
                ctx.set(dut.requests.ready, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(feed)
    sim.add_testbench(take, background=True)
    sim.run()
    return events


PING = frame(FrameType.PING)
PONG_REQUEST = ("request", FrameType.PING, b"")


def test_requests_are_checked_and_buffered():
    assert receive([PING, GENERATE]) == [PONG_REQUEST, ("request", FrameType.GENERATE, GENERATE[3:-1])]


@pytest.mark.parametrize("garbage, code", [
    (b"\x00\x13hello", ErrorCode.JUNK),
    (PING[:3], ErrorCode.TRUNCATED),
    (GENERATE[:20], ErrorCode.TRUNCATED),
    (bytes([0xA5, 0x07, 0x00, crc8(b"\x07\x00")]), ErrorCode.UNKNOWN_TYPE),
    (bytes([0xA5, 0x02, 0x05, 1, 2, 3, 4, 5, 0]), ErrorCode.BAD_LENGTH),
    (PING[:-1] + bytes([PING[-1] ^ 0x5A]), ErrorCode.BAD_CHECKSUM),
    (frame(FrameType.GENERATE, bytes(OLD_GENERATE_LENGTH)), ErrorCode.OLD_VERSION),    # version 2
    # a GENERATE whose length byte a bit error made version 2's: damaged, not old
    (GENERATE[:2] + bytes([OLD_GENERATE_LENGTH]) + GENERATE[3:], ErrorCode.BAD_CHECKSUM),
    # a version-2 GENERATE with a bad checksum is damaged too
    (frame(FrameType.GENERATE, bytes(OLD_GENERATE_LENGTH))[:-1] + b"\x00", ErrorCode.BAD_CHECKSUM),
    (GENERATE[:10] + bytes([GENERATE[10] ^ 0x40]) + GENERATE[11:], ErrorCode.BAD_CHECKSUM),
])
def test_every_error_is_reported_and_the_next_request_served(garbage, code):
    assert receive([garbage, PING]) == [("error", code), PONG_REQUEST]


def test_junk_right_before_a_request_is_skipped():
    assert receive([b"\x00\x01\x02" + PING]) == [PONG_REQUEST]


def test_a_frame_while_blocked_is_junk():
    assert receive([PING, PING], blocked_for=(0,)) == [("error", ErrorCode.JUNK), PONG_REQUEST]


def test_sender_frames_with_crc_under_backpressure():
    dut = FrameSender()
    rng = random.Random(5)
    frames = [(FrameType.PONG, bytes([2, 0, 1])), (FrameType.MOVE, bytes([0x34, 0x12, 0x05])),
              (FrameType.ERROR, bytes([3])), (FrameType.DONE, bytes(range(20)))]
    sent = bytearray()

    async def push(ctx):
        for frame_type, payload in frames:
            ctx.set(dut.frames.payload, {"type": frame_type, "length": len(payload),
                                         "payload": int.from_bytes(payload, "little")})
            ctx.set(dut.frames.valid, 1)
            await ctx.tick().until(dut.frames.ready)
        ctx.set(dut.frames.valid, 0)

    async def pull(ctx):
        expected = sum(len(frame(t, p)) for t, p in frames)
        while len(sent) < expected:
            ready = rng.random() < 0.5
            ctx.set(dut.tx.ready, ready)
            _, _, valid, byte = await ctx.tick().sample(dut.tx.valid, dut.tx.payload)
            if valid and ready:
                sent.append(byte)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(push, background=True)
    sim.add_testbench(pull)
    sim.run()
    assert bytes(sent) == b"".join(frame(t, p) for t, p in frames)
