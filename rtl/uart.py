"""8N1 UART receiver and transmitter with byte streams."""

from amaranth import Module, Signal, Cat
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["UARTReceiver", "UARTTransmitter", "MIN_DIVISOR"]

MIN_DIVISOR = 4     # clock cycles per bit: the receiver confirms the start bit at its middle


class UARTReceiver(wiring.Component):
    """Receives 8N1 bytes on ``rx``; ``divisor`` clock cycles per bit.

    The line is synchronised through two flip-flops, the start bit is confirmed at
    its middle and every bit sampled at its middle. A byte whose stop bit is low
    (a framing error, or a break) is dropped and flagged on ``frame_error`` for a
    cycle. The byte stream has no backpressure: a byte not taken is overwritten.
    """

    rx: In(1)
    bytes: Out(stream.Signature(8, always_ready=True))
    frame_error: Out(1)

    def __init__(self, divisor):
        if divisor < MIN_DIVISOR:
            raise ValueError(f"the UART needs at least {MIN_DIVISOR} clock cycles per bit")
        self.divisor = divisor
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        sync_rx = Signal(2, init=0b11)
        line = sync_rx[1]
        m.d.sync += sync_rx.eq(Cat(self.rx, sync_rx[0]))
        timer = Signal(range(self.divisor))
        bit_index = Signal(range(9))
        shift = Signal(8)
        m.d.sync += [self.bytes.valid.eq(0), self.frame_error.eq(0)]
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~line):
                    m.d.sync += timer.eq(self.divisor // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                with m.If(timer == 0):
                    with m.If(line):            # a glitch, not a start bit
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [timer.eq(self.divisor - 1), bit_index.eq(0)]
                        m.next = "DATA"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("DATA"):
                with m.If(timer == 0):
                    m.d.sync += [timer.eq(self.divisor - 1), bit_index.eq(bit_index + 1)]
                    with m.If(bit_index == 8):  # the stop bit
                        with m.If(line):
                            m.d.sync += [self.bytes.payload.eq(shift), self.bytes.valid.eq(1)]
                            m.next = "IDLE"
                        with m.Else():
                            m.d.sync += self.frame_error.eq(1)
                            m.next = "BREAK"
                    with m.Else():
                        m.d.sync += shift.eq(Cat(shift[1:], line))
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("BREAK"):              # wait for the line to return high
                with m.If(line):
                    m.next = "IDLE"
        return m


class UARTTransmitter(wiring.Component):
    """Sends the bytes of its stream as 8N1 on ``tx``; ``divisor`` clock cycles per bit."""

    tx: Out(1, init=1)
    bytes: In(stream.Signature(8))

    def __init__(self, divisor):
        self.divisor = divisor
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        timer = Signal(range(self.divisor))
        frame = Signal(10, init=0x3FF)      # stop bit, data, start bit; shifted out LSB first
        bits_left = Signal(range(11))
        m.d.comb += self.bytes.ready.eq(bits_left == 0)
        m.d.comb += self.tx.eq(frame[0])
        with m.If(self.bytes.valid & self.bytes.ready):
            m.d.sync += [frame.eq(Cat(0, self.bytes.payload, 1)), bits_left.eq(10),
                         timer.eq(self.divisor - 1)]
        with m.Elif(bits_left != 0):
            with m.If(timer == 0):
                m.d.sync += [frame.eq(Cat(frame[1:], 1)), bits_left.eq(bits_left - 1),
                             timer.eq(self.divisor - 1)]
            with m.Else():
                m.d.sync += timer.eq(timer - 1)
        return m
