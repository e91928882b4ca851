"""The host link's contracts at the byte level: :class:`HostLinkHarness`."""

from amaranth import Signal, Const, Mux
from amaranth.asserts import AnySeq     # not in amaranth.hdl in 0.5

from ..hostlink import HostLink
from ..protocol import CORE_IDS, SYNC, FrameType, crc8
from .harness import Harness

__all__ = ["HostLinkHarness"]


class HostLinkHarness(Harness):
    """The host link (receiver, executor, sender) at the byte level, after any bytes.

    The UART is bypassed: ``rx`` is the receiver's byte stream, a byte in any cycle, so
    that the depth goes to frames rather than bit times (the UART has its own tests). The
    generator's side (``generator``: ``start_ready``, ``busy``, ``moves``, counters; the perft
    array's ``perft.busy``) is free. The trace has three phases:

    1. any bytes on ``rx`` (``AnySeq``), for as long as the solver likes; then
    2. the host goes quiet and waits until it has seen ``QUIET`` cycles with no byte either
       way and the link not ``busy`` (meanwhile the generator is idle and ``tx`` is read);
    3. it sends a well-formed PING, back to back.

    Checked: the link goes quiet within ``WEDGE`` cycles (it never wedges), a PONG frame
    ends within ``ANSWER`` cycles of the PING's last byte, and every reply starts with SYNC.
    ``idle_timeout`` is the receiver's (small, so that a frame truncation fits the depth).
    """

    QUIET = 2           # beyond the idle timeout
    WEDGE = 64
    ANSWER = 10          # the PING's CRC byte to the PONG's (measured: 10, a 9-byte frame and a gap)

    def __init__(self, prop="hostlink", core="walker", idle_timeout=3):
        super().__init__()
        self.prop = prop
        self.idle_timeout = idle_timeout
        self.link = HostLink(layout_id=0, core_id=CORE_IDS[core], idle_timeout=idle_timeout, legality=True,
                             perft_engines=1)

    def elaborate(self, platform):
        m, checks = self.module()
        m.submodules.link = link = self.link
        phase = Signal(range(4))    # 0 any bytes, 1 quiet, 2 PING, 3 waiting for the PONG
        go = Signal(1)
        m.d.comb += go.eq(AnySeq(1))
        quiet_phase = phase != 0
        m.d.comb += [
            link.generator.start_ready.eq(Mux(quiet_phase, 1, AnySeq(1))),
            link.generator.busy.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.generator.moves.valid.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.generator.moves.payload.eq(AnySeq(len(link.generator.moves.payload.as_value()))),
            link.generator.counters.eq(AnySeq(len(link.generator.counters.as_value()))),
            link.perft.busy.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.perft.counters.eq(AnySeq(len(link.perft.counters.as_value()))),
            link.tx.ready.eq(Mux(quiet_phase, 1, AnySeq(1))),
        ]
        ping = list(bytes([SYNC, FrameType.PING, 0, crc8([FrameType.PING, 0])]))
        index = Signal(range(len(ping)))
        with m.Switch(phase):
            with m.Case(0):
                m.d.comb += [link.rx.valid.eq(AnySeq(1)), link.rx.payload.eq(AnySeq(8))]
                with m.If(go):
                    m.d.sync += phase.eq(1)
            with m.Case(2):
                m.d.comb += [link.rx.valid.eq(1), link.rx.payload.eq(Const(0, 8))]
                for i, byte in enumerate(ping):
                    with m.If(index == i):
                        m.d.comb += link.rx.payload.eq(byte)
                m.d.sync += index.eq(index + 1)
                with m.If(index == len(ping) - 1):
                    m.d.sync += phase.eq(3)

        # the quiet the host waits for, and how long it takes
        quiet, waited = Signal(range(self.idle_timeout + self.QUIET + 2)), Signal(range(self.WEDGE + 2))
        tx_byte = link.tx.valid & link.tx.ready
        with m.If(link.rx.valid | link.tx.valid | link.busy):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != self.idle_timeout + self.QUIET + 1):
            m.d.sync += quiet.eq(quiet + 1)
        with m.If(phase == 1):
            m.d.sync += waited.eq(waited + 1)
            with m.If(quiet == self.idle_timeout + self.QUIET + 1):
                m.d.sync += phase.eq(2)
        if self.prop == "hostlink":
            checks.check("the link goes quiet within the wedge bound", waited <= self.WEDGE)

        # the replies, parsed: position in the frame, its type and length
        position, frame_type, remaining = Signal(range(4)), Signal(8), Signal(8)
        pong, error = Signal(1), Signal(1)
        m.d.comb += [pong.eq(0), error.eq(0)]
        with m.If(tx_byte):
            with m.Switch(position):
                with m.Case(0):
                    m.d.sync += position.eq(1)
                with m.Case(1):
                    m.d.sync += [frame_type.eq(link.tx.payload), position.eq(2)]
                with m.Case(2):
                    m.d.sync += [remaining.eq(link.tx.payload), position.eq(3)]
                with m.Case(3):
                    with m.If(remaining == 0):      # the CRC: the frame is complete
                        m.d.sync += position.eq(0)
                        m.d.comb += [pong.eq(frame_type == FrameType.PONG), error.eq(frame_type == FrameType.ERROR)]
                    with m.Else():
                        m.d.sync += remaining.eq(remaining - 1)

        if self.prop == "hostlink":
            # (outside the If above: a check's signal must be driven in every cycle)
            checks.check("a reply starts with SYNC", link.tx.payload == SYNC, tx_byte & (position == 0))
        answered = Signal(1)
        answer_wait = Signal(range(self.ANSWER + 2))
        with m.If((phase == 3) & ~answered):
            m.d.sync += answer_wait.eq(answer_wait + 1)
            with m.If(pong):
                m.d.sync += answered.eq(1)
        if self.prop == "hostlink":
            checks.check("a PING is answered within the bound", answered | (answer_wait <= self.ANSWER))
        else:
            checks.cover("an error reply", error)
            checks.cover("a PONG reply to the PING", pong & (phase == 3))
        return m
