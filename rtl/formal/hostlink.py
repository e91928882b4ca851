"""The host link's contracts at the byte level: :class:`HostLinkHarness`."""

from amaranth import Signal, Cat, Const, Mux
from amaranth.asserts import AnyConst, AnySeq     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assume

from ..hostlink import MAX_REPLY, FrameReceiver, FrameSender, HostLink, ReplyFrame
from ..protocol import CORE_IDS, CRC, SYNC, FrameType, crc8
from ..uart import UARTReceiver
from .harness import Harness, elaborated, in_state, internal, known_state

__all__ = ["HostLinkHarness", "ResyncHarness", "FramingHarness", "UartHarness"]


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


class ResyncHarness(Harness):
    """The frame receiver's resynchronisation, for all time (k-induction): after any bytes at
    all, once the line has been quiet for the idle timeout and one cycle more, a well-formed
    PING sent back to back is received as a PING request in the cycle after its CRC byte.

    The receiver alone (:class:`~hwmovegen.rtl.hostlink.FrameReceiver`), its byte stream free
    (``AnySeq``) for as long as the solver likes, as are ``blocked`` and the readiness of its
    ``requests`` and ``errors``; then the host goes quiet (the executor takes what waits:
    ``requests.ready`` and ``errors.ready`` high, not ``blocked``), then sends the PING.
    """

    def __init__(self, idle_timeout=3):
        super().__init__()
        self.idle_timeout = idle_timeout
        self.receiver = FrameReceiver(idle_timeout)

    def elaborate(self, platform):
        m, checks = self.module()
        receiver = elaborated(m, "receiver", self.receiver, platform)
        rx, requests, errors = self.receiver.rx, self.receiver.requests, self.receiver.errors
        timeout = self.idle_timeout
        phase = Signal(range(5))    # 0 any bytes, 1 quiet, 2 the PING, 3 its request due, 4 done
        ping = list(bytes([SYNC, FrameType.PING, 0, crc8([FrameType.PING, 0])]))
        index = Signal(range(len(ping)))
        quiet = Signal(range(timeout + 2))      # cycles without a byte, saturating one past the timeout
        free = phase == 0
        m.d.comb += [
            self.receiver.blocked.eq(Mux(free, AnySeq(1), 0)),
            requests.ready.eq(Mux(free, AnySeq(1), 1)),
            errors.ready.eq(Mux(free, AnySeq(1), 1)),
            self.receiver.read_addr.eq(AnySeq(len(self.receiver.read_addr))),
        ]
        with m.If(rx.valid):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != timeout + 1):
            m.d.sync += quiet.eq(quiet + 1)
        with m.Switch(phase):
            with m.Case(0):
                m.d.comb += [rx.valid.eq(AnySeq(1)), rx.payload.eq(AnySeq(8))]
                with m.If(AnySeq(1)):
                    m.d.sync += phase.eq(1)
            with m.Case(1):
                with m.If(quiet == timeout + 1):
                    m.d.sync += phase.eq(2)
            with m.Case(2):
                m.d.comb += [rx.valid.eq(1), rx.payload.eq(Const(ping[0], 8))]
                for i, byte in enumerate(ping):
                    with m.If(index == i):
                        m.d.comb += rx.payload.eq(byte)
                m.d.sync += index.eq(index + 1)
                with m.If(index == len(ping) - 1):
                    m.d.sync += phase.eq(3)
            with m.Case(3):
                m.d.sync += phase.eq(4)
        checks.check("a PING after the quiet is received as a PING request",
                     requests.valid & (requests.payload == FrameType.PING), phase == 3)

        # the invariants k-induction needs: what the receiver holds, tied to the harness's phase
        state = internal(receiver, "receiver_state")
        idle = internal(receiver, "idle")
        # the FSM's register has values that name no state: none is reachable
        checks.check("invariant: the receiver is in one of its states", known_state(state))
        # the receiver's idle count is the harness's quiet count, saturating at the timeout
        checks.check("invariant: the receiver's idle count is the line's",
                     idle == Mux(quiet > timeout, timeout, quiet))
        # a quiet line a cycle past the timeout has ended every frame: the receiver hunts
        checks.check("invariant: a line quiet past the timeout leaves the receiver hunting",
                     in_state(state, "HUNT"), quiet == timeout + 1)
        # the executor takes a waiting request at once after phase 0, so none waits by the PING
        checks.check("invariant: no request waits during the PING", ~requests.valid, phase == 2)
        # the PING's bytes so far: the receiver's state, the type it read, the CRC it ran
        checks.check("invariant: after SYNC the receiver reads the type", in_state(state, "TYPE"),
                     (phase == 2) & (index == 1))
        checks.check("invariant: after the type the receiver reads the length",
                     in_state(state, "LENGTH") & (internal(receiver, "req_type") == FrameType.PING),
                     (phase == 2) & (index == 2))
        checks.check("invariant: after the length the receiver checks the CRC",
                     in_state(state, "CHECK") & (internal(receiver, "req_type") == FrameType.PING)
                     & (internal(receiver, "crc.crc") == crc8([FrameType.PING, 0])),
                     (phase == 2) & (index == 3))
        checks.check("invariant: the quiet ends with the PING", index == 0, phase < 2)
        return m


class FramingHarness(Harness):
    """The frame sender's framing, for all time (k-induction): every frame taken leaves as
    SYNC, its type, its length, its payload's first ``length`` bytes (LSB first) and the CRC
    of type, length and payload; no byte leaves outside a frame; ``tx`` keeps the stream's rules
    (``valid`` and the byte held until taken). Frames (at most ``MAX_REPLY`` bytes of payload,
    as the executor sends) and ``tx.ready`` are free in every cycle."""

    def __init__(self):
        super().__init__()
        self.sender = FrameSender()

    def elaborate(self, platform):
        m, checks = self.module()
        sender = elaborated(m, "sender", self.sender, platform)
        frames, tx = self.sender.frames, self.sender.tx
        m.d.comb += [frames.valid.eq(AnySeq(1)), frames.payload.eq(AnySeq(len(frames.payload.as_value()))),
                     tx.ready.eq(AnySeq(1))]
        m.d.comb += Assume(frames.payload.length <= MAX_REPLY)
        taken = frames.valid & frames.ready
        sent = tx.valid & tx.ready

        # the frame on its way (as taken) and the bytes of it sent: 0 SYNC, 1 type, 2 length,
        # 3.. the payload, then the CRC; ``open`` while a frame is taken and its CRC not sent
        frame = Signal.like(frames.payload)
        position = Signal(range(MAX_REPLY + 4))
        is_open = Signal(1)
        with m.If(taken):
            m.d.sync += [frame.eq(frames.payload), position.eq(0), is_open.eq(1)]
        payload_index = (position - 3)[:len(position)]
        crc_at = frame.length + 3
        with m.If(sent):
            m.d.sync += position.eq(position + 1)
            with m.If(position == crc_at):
                m.d.sync += is_open.eq(0)
        # the CRC over what left after SYNC, computed here from the bytes as they leave
        m.submodules.crc = crc = CRC.create()
        m.d.comb += [crc.data.eq(tx.payload), crc.start.eq(sent & (position == 1)),
                     crc.valid.eq(sent & (position >= 1) & (position < crc_at))]
        expected = Mux(position == 0, SYNC, Mux(position == 1, frame.type, Mux(position == 2, frame.length,
                       Mux(position == crc_at, crc.crc, frame.payload.word_select(payload_index, 8)))))
        checks.check("no byte leaves outside a frame", is_open, tx.valid)
        checks.check("every byte of a frame is the one its place in the frame calls for",
                     tx.payload == expected, tx.valid)
        checks.check("a frame is taken only after the last one's CRC", ~is_open | (position == crc_at + 1),
                     taken)
        stalled, held = Signal(1), Signal(8)
        m.d.sync += [stalled.eq(tx.valid & ~tx.ready), held.eq(tx.payload)]
        checks.check("tx valid holds until the byte is taken", tx.valid, stalled)
        checks.check("the byte holds until it is taken", tx.payload == held, stalled)

        # the invariants k-induction needs: the sender's registers are the harness's frame
        state = internal(sender, "sender_state")
        index = internal(sender, "index")
        current = ReplyFrame(internal(sender, "current"))     # found as a plain signal: its view
        checks.check("invariant: the sender is in one of its states", known_state(state))
        # which byte the sender is at is where the harness is in the frame
        checks.check("invariant: the sender is idle exactly outside a frame", in_state(state, "IDLE") == ~is_open)
        for name, at in (("SYNC", position == 0), ("TYPE", position == 1), ("LENGTH", position == 2)):
            checks.check(f"invariant: the sender sends {name} at its place", in_state(state, name), is_open & at)
        checks.check("invariant: the sender sends the payload between length and CRC",
                     in_state(state, "PAYLOAD"), is_open & (position > 2) & (position < crc_at))
        # after the payload's last byte the sender spends a cycle in PAYLOAD before the CRC
        checks.check("invariant: the sender sends the CRC after the payload",
                     in_state(state, "PAYLOAD") | in_state(state, "CRC"), is_open & (position == crc_at))
        # its copy of the frame: type and length as taken, the payload shifted by the bytes sent
        checks.check("invariant: the sender's frame is the one taken",
                     (current.type == frame.type) & (current.length == frame.length)
                     & (current.payload == (frame.payload >> (8 * Mux(position > 3, payload_index, 0)))), is_open)
        checks.check("invariant: the sender's payload index is the bytes of payload sent",
                     index == Mux(position > 3, payload_index, 0), is_open)
        checks.check("invariant: the frame's place stops at its CRC", position <= crc_at, is_open)
        # the frame as taken was assumed no longer than a reply: the copy too
        checks.check("invariant: the frame on its way is no longer than a reply", frame.length <= MAX_REPLY, is_open)
        # the sender's CRC ran over the same bytes as the harness's
        checks.check("invariant: the sender's CRC is the harness's", internal(sender, "crc.crc") == crc.crc,
                     is_open & (position >= 2))
        return m


class UartHarness(Harness):
    """The UART receiver's resynchronisation, for all time (k-induction): after any levels on
    ``rx`` for as long as the solver likes (glitches, breaks, bytes cut short), once the line has
    been high for a frame's time and a few cycles more, any byte sent as 8N1 is received whole,
    without a framing error, two cycles after its stop bit's last cycle."""

    DIVISOR = 4         # the fewest cycles per bit the receiver takes (``MIN_DIVISOR``)

    def __init__(self):
        super().__init__()
        self.receiver = UARTReceiver(self.DIVISOR)

    def elaborate(self, platform):
        m, checks = self.module()
        receiver = elaborated(m, "uart", self.receiver, platform)
        divisor = self.DIVISOR
        frame_cycles = 10 * divisor
        quiet_cycles = frame_cycles + 3         # a whole frame, the two synchronising flip-flops, one more
        byte = Signal(8, name="byte")
        m.d.comb += byte.eq(AnyConst(8))
        bits = Cat(Const(0, 1), byte, Const(1, 1))  # start bit, data LSB first, stop bit
        phase = Signal(range(4))    # 0 any levels, 1 the line high, 2 the byte, 3 its reception
        counter = Signal(range(max(quiet_cycles, frame_cycles) + 1))
        with m.Switch(phase):
            with m.Case(0):
                m.d.comb += self.receiver.rx.eq(AnySeq(1))
                with m.If(AnySeq(1)):
                    m.d.sync += [phase.eq(1), counter.eq(0)]
            with m.Case(1):
                m.d.comb += self.receiver.rx.eq(1)
                m.d.sync += counter.eq(counter + 1)
                with m.If(counter == quiet_cycles - 1):
                    m.d.sync += [phase.eq(2), counter.eq(0)]
            with m.Case(2):
                m.d.comb += self.receiver.rx.eq(bits.bit_select((counter // divisor)[:4], 1))
                m.d.sync += counter.eq(counter + 1)
                with m.If(counter == frame_cycles - 1):
                    m.d.sync += [phase.eq(3), counter.eq(0)]
            with m.Case(3):
                m.d.comb += self.receiver.rx.eq(1)
                with m.If(counter != 3):
                    m.d.sync += counter.eq(counter + 1)
        out = self.receiver.bytes
        received = Signal(1)
        with m.If((phase >= 2) & out.valid):
            m.d.sync += received.eq(1)
        with m.If(phase < 2):
            m.d.sync += received.eq(0)
        checks.check("after the quiet line, a byte received is the byte sent", out.payload == byte,
                     (phase >= 2) & out.valid)
        checks.check("after the quiet line, no framing error", ~self.receiver.frame_error, phase >= 2)
        checks.check("the byte is received two cycles after its stop bit", received, (phase == 3) & (counter == 2))

        # the invariants k-induction needs (with k past the quiet and the byte, the rest follows
        # from the design): the harness's counters within their phases, the receiver's bit index
        # within its nine bits, and the receiver idle, its line high, when the byte begins
        checks.check("invariant: the quiet's counter within it", counter < quiet_cycles, phase == 1)
        checks.check("invariant: the byte's counter within it", counter < frame_cycles, phase == 2)
        checks.check("invariant: the wait's counter within it", counter <= 3, phase == 3)
        # (it counts the stop bit too, so it rests at 9 after a frame; a frame restarts it at 0)
        uart_state = internal(receiver, "fsm_state")
        checks.check("invariant: the receiver's bit index within a frame", internal(receiver, "bit_index") <= 8,
                     in_state(uart_state, "DATA"))
        checks.check("invariant: the receiver is idle on a high line when the byte begins",
                     in_state(uart_state, "IDLE") & (internal(receiver, "sync_rx") == 0b11),
                     (phase == 2) & (counter == 0))
        return m
