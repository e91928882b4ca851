"""The host link: the protocol of :mod:`hwmovegen.rtl.protocol` over a UART, driving the generator."""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .board import LoadSignature
from .movegen import MoveGenerator
from .protocol import (SYNC, FrameType, ErrorCode, PROTOCOL_VERSION, GENERATE_LENGTH, MOVE_LENGTH,
                       DONE_LENGTH, LAYOUT_IDS)
from .types import Counters, Move
from .uart import UARTReceiver, UARTTransmitter

__all__ = ["HostLink", "HostLinkTop", "crc8_step"]


def crc8_step(crc, byte):
    """CRC-8 (polynomial 0x07) of ``crc`` extended by ``byte``, as logic."""
    value = crc ^ byte
    for _ in range(8):
        value = Mux(value[7], (value << 1)[:8] ^ 0x07, (value << 1)[:8])
    return value


class HostLink(wiring.Component):
    """Parses request frames from ``rx``, runs the generator, sends reply frames on ``tx``.

    ``idle_timeout`` is in clock cycles: a frame that pauses for longer is
    truncated, and errors and junk are reported once the line has been idle this long.
    """

    def __init__(self, layout_id, idle_timeout):
        self.layout_id = layout_id
        self.idle_timeout = idle_timeout
        super().__init__({
            "rx": In(stream.Signature(8, always_ready=True)),
            "tx": Out(stream.Signature(8)),
            "load": Out(LoadSignature()),
            "start": Out(1),
            "done": In(1),
            "moves": In(stream.Signature(Move)),
            "counters": In(Counters),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        byte_in = self.rx.payload
        got = self.rx.valid

        # -- idle timer: cycles since the last received byte (saturating) --
        idle = Signal(range(self.idle_timeout + 1))
        idle_expired = idle == self.idle_timeout
        with m.If(got):
            m.d.sync += idle.eq(0)
        with m.Elif(~idle_expired):
            m.d.sync += idle.eq(idle + 1)

        # -- request parser --
        m.submodules.buffer = buffer = Memory(shape=8, depth=GENERATE_LENGTH, init=[])
        write_port = buffer.write_port()
        read_port = buffer.read_port()
        req_type = Signal(8)
        req_length = Signal(8)
        index = Signal(range(GENERATE_LENGTH + 1))
        crc = Signal(8)
        junk = Signal(1)
        frame_ready = Signal(1)         # a checked request waits in req_type / buffer
        taken = Signal(1)               # the executor takes it this cycle
        error_pending = Signal(1)
        error_code = Signal(8)
        error_raise = Signal(1)
        error_raise_code = Signal(8)
        expected = Signal(8)
        known = Signal(1)
        m.d.comb += [
            known.eq((byte_in == FrameType.PING) | (byte_in == FrameType.GENERATE)),
            expected.eq(Mux(req_type == FrameType.GENERATE, GENERATE_LENGTH, 0)),
            write_port.addr.eq(index),
            write_port.data.eq(byte_in),
        ]
        with m.If(taken):
            m.d.sync += frame_ready.eq(0)
        with m.If(error_raise):
            m.d.sync += [error_pending.eq(1), error_code.eq(error_raise_code)]

        def fail(code, discard=True):
            m.d.comb += [error_raise.eq(~discard), error_raise_code.eq(code)]
            m.d.sync += [error_code.eq(code), junk.eq(0)]
            m.next = "DISCARD" if discard else "HUNT"

        with m.FSM(name="parser"):
            with m.State("HUNT"):
                with m.If(got):
                    # while a request waits or runs, a new frame cannot be taken: its bytes are junk
                    with m.If((byte_in == SYNC) & ~frame_ready & ~self.busy):
                        m.d.sync += [crc.eq(0), junk.eq(0)]
                        m.next = "TYPE"
                    with m.Else():
                        m.d.sync += junk.eq(1)
                with m.Elif(junk & idle_expired):
                    m.d.comb += [error_raise.eq(1), error_raise_code.eq(ErrorCode.JUNK)]
                    m.d.sync += junk.eq(0)
            with m.State("TYPE"):
                with m.If(got):
                    m.d.sync += [req_type.eq(byte_in), crc.eq(crc8_step(crc, byte_in))]
                    with m.If(known):
                        m.next = "LENGTH"
                    with m.Else():
                        fail(ErrorCode.UNKNOWN_TYPE)
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("LENGTH"):
                with m.If(got):
                    m.d.sync += [req_length.eq(byte_in), crc.eq(crc8_step(crc, byte_in)), index.eq(0)]
                    with m.If(byte_in != expected):
                        fail(ErrorCode.BAD_LENGTH)
                    with m.Elif(byte_in == 0):
                        m.next = "CHECK"
                    with m.Else():
                        m.next = "PAYLOAD"
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("PAYLOAD"):
                with m.If(got):
                    m.d.comb += write_port.en.eq(1)
                    m.d.sync += [crc.eq(crc8_step(crc, byte_in)), index.eq(index + 1)]
                    with m.If(index == req_length - 1):
                        m.next = "CHECK"
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("CHECK"):
                with m.If(got):
                    with m.If(byte_in == crc):
                        m.d.sync += frame_ready.eq(1)
                        m.next = "HUNT"
                    with m.Else():
                        fail(ErrorCode.BAD_CHECKSUM)
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("DISCARD"):        # swallow the rest of a bad burst, then report
                with m.If(idle_expired & ~got):
                    m.d.comb += [error_raise.eq(1), error_raise_code.eq(error_code)]
                    m.next = "HUNT"

        # -- reply framer: SYNC TYPE LEN PAYLOAD CRC from tx_type / tx_length / tx_payload --
        tx_type = Signal(8)
        tx_length = Signal(8)
        tx_payload = Signal(8 * DONE_LENGTH)
        tx_index = Signal(range(DONE_LENGTH + 1))
        tx_crc = Signal(8)
        send = Signal(1)                # start a frame (the framer must be idle)
        send_type = Signal(8)
        send_length = Signal(8)
        send_payload = Signal(8 * DONE_LENGTH)
        framer_idle = Signal(1)
        tx_byte = Signal(8)
        m.d.comb += [self.tx.payload.eq(tx_byte)]
        sent = self.tx.valid & self.tx.ready
        with m.FSM(name="framer"):
            with m.State("IDLE"):
                m.d.comb += framer_idle.eq(1)
                with m.If(send):
                    m.d.sync += [tx_type.eq(send_type), tx_length.eq(send_length),
                                 tx_payload.eq(send_payload), tx_index.eq(0), tx_crc.eq(0)]
                    m.next = "SYNC"
            with m.State("SYNC"):
                m.d.comb += [tx_byte.eq(SYNC), self.tx.valid.eq(1)]
                with m.If(sent):
                    m.next = "TYPE"
            with m.State("TYPE"):
                m.d.comb += [tx_byte.eq(tx_type), self.tx.valid.eq(1)]
                with m.If(sent):
                    m.d.sync += tx_crc.eq(crc8_step(tx_crc, tx_type))
                    m.next = "LENGTH"
            with m.State("LENGTH"):
                m.d.comb += [tx_byte.eq(tx_length), self.tx.valid.eq(1)]
                with m.If(sent):
                    m.d.sync += tx_crc.eq(crc8_step(tx_crc, tx_length))
                    m.next = "PAYLOAD"
            with m.State("PAYLOAD"):
                with m.If(tx_index == tx_length):
                    m.next = "CRC"
                with m.Else():
                    m.d.comb += [tx_byte.eq(tx_payload[:8]), self.tx.valid.eq(1)]
                    with m.If(sent):
                        m.d.sync += [tx_crc.eq(crc8_step(tx_crc, tx_payload[:8])),
                                     tx_payload.eq(tx_payload >> 8), tx_index.eq(tx_index + 1)]
            with m.State("CRC"):
                m.d.comb += [tx_byte.eq(tx_crc), self.tx.valid.eq(1)]
                with m.If(sent):
                    m.next = "IDLE"

        def reply(frame_type, length, payload):
            m.d.comb += [send.eq(1), send_type.eq(frame_type), send_length.eq(length),
                         send_payload.eq(payload)]

        # -- executor --
        square = Signal(7)
        state_low = Signal(8)
        with m.FSM(name="executor"):
            with m.State("IDLE"):
                with m.If(framer_idle & error_pending):
                    reply(FrameType.ERROR, 1, error_code)
                    m.d.sync += error_pending.eq(0)
                with m.Elif(framer_idle & frame_ready):
                    m.d.comb += taken.eq(1)
                    with m.If(req_type == FrameType.PING):
                        reply(FrameType.PONG, 2, Cat(Const(PROTOCOL_VERSION, 8), Const(self.layout_id, 8)))
                    with m.Else():
                        m.d.comb += read_port.addr.eq(GENERATE_LENGTH - 2)
                        m.next = "STATE_LOW"
            with m.State("STATE_LOW"):
                m.d.comb += [self.busy.eq(1), read_port.addr.eq(GENERATE_LENGTH - 1)]
                m.d.sync += state_low.eq(read_port.data)
                m.next = "STATE_HIGH"
            with m.State("STATE_HIGH"):     # clear the board, write the state registers
                high = read_port.data
                m.d.comb += [
                    self.busy.eq(1),
                    self.load.clear.eq(1),
                    self.load.state_en.eq(1),
                    self.load.state.white_to_move.eq(state_low[0]),
                    self.load.state.castling.eq(state_low[1:5]),
                    self.load.state.ep_square.eq(high[0:6]),
                    self.load.state.ep_valid.eq(high[7]),
                    read_port.addr.eq(0),
                ]
                m.d.sync += square.eq(0)
                m.next = "SQUARES"
            with m.State("SQUARES"):        # one square per cycle; the byte for it was read last cycle
                m.d.comb += [
                    self.busy.eq(1),
                    self.load.wr_en.eq(1),
                    self.load.wr_square.eq(square[:6]),
                    self.load.wr_code.eq(Mux(square[0], read_port.data[4:8], read_port.data[0:4])),
                    read_port.addr.eq((square + 1) >> 1),
                ]
                m.d.sync += square.eq(square + 1)
                with m.If(square == 63):
                    m.next = "START"
            with m.State("START"):
                m.d.comb += [self.busy.eq(1), self.start.eq(1)]
                m.next = "STREAM"
            with m.State("STREAM"):         # one MOVE frame per move, then DONE with the counters
                m.d.comb += self.busy.eq(1)
                with m.If(framer_idle & self.moves.valid):
                    m.d.comb += self.moves.ready.eq(1)
                    reply(FrameType.MOVE, MOVE_LENGTH, self.moves.payload)
                with m.Elif(framer_idle & self.done):
                    reply(FrameType.DONE, DONE_LENGTH, self.counters)
                    m.next = "IDLE"
        return m


class HostLinkTop(wiring.Component):
    """UART pins -> host link -> move generator: everything a board needs but its pins and clock."""

    rx: In(1, init=1)
    tx: Out(1)
    busy: Out(1)

    def __init__(self, clock_hz, baud=115_200, layout="dense", idle_timeout_s=0.005, divisor=None,
                 idle_timeout=None):
        self.divisor = divisor or round(clock_hz / baud)
        self.idle_timeout = idle_timeout or max(4 * 10 * self.divisor, round(clock_hz * idle_timeout_s))
        self.layout = layout
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = UARTReceiver(self.divisor)
        m.submodules.transmitter = transmitter = UARTTransmitter(self.divisor)
        m.submodules.link = link = HostLink(LAYOUT_IDS[self.layout], self.idle_timeout)
        m.submodules.generator = generator = MoveGenerator(self.layout)
        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx), self.busy.eq(link.busy)]
        wiring.connect(m, receiver.bytes, link.rx)
        wiring.connect(m, link.tx, transmitter.bytes)
        wiring.connect(m, link.load, generator.load)
        wiring.connect(m, generator.moves, link.moves)
        m.d.comb += [generator.start.eq(link.start), link.done.eq(generator.done),
                     link.counters.eq(generator.counters)]
        return m
