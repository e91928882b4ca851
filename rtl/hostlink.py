"""The host link's gateware: the protocol of :mod:`.protocol` over a UART, driving the generator.

``FrameReceiver`` checks request frames from the UART's byte stream and reports
errors, ``FrameSender`` frames replies, and ``RequestExecutor`` serves requests
on the generator (and the perft array and the search engine beside it). ``HostLink`` joins
the three; ``HostLinkTop`` adds the UART and the generator: everything a dev board needs but
its pins and clock.
"""

from amaranth import Module, Signal, Cat, Const, Mux, Shape
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables.contracts import SELECTABLE, GeneratorConfig
from .board import LoadSignature
from .movegen import MoveGenerator, control_signature
from .perft import PerftArray, PerftControlSignature
from .options import Options
from .ports import group
from .protocol import (SYNC, FrameType, ErrorCode, PROTOCOL_VERSION, REQUEST_LENGTHS, OLD_GENERATE_LENGTH,
                       MOVE_LENGTH, DONE_LENGTH, PONG_LENGTH, PERFT_DONE_LENGTH, PERFT_MAX_DEPTH, FEATURE_LEGALITY,
                       FEATURE_ORDER, FEATURE_SEARCH, ORDER_COUNT, LAYOUT_IDS, CORE_IDS, CRC, SEARCH_DONE_LENGTH,
                       SEARCH_REQUEST_BYTES, SEARCH_RESULT_BYTES, HISTORY_LENGTH)
from .search import SearchControlSignature, SearchEngine, SearchRequest
from ..tables.search import MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE, MAX_SEARCH_PLIES
from .types import PLANES, PLANE_BYTES, POSITION_BYTES, GenerateFlags, PerftReply, Pong
from .uart import UARTReceiver, UARTTransmitter

__all__ = ["FrameReceiver", "FrameSender", "ReplyFrame", "reply_frame", "LinkSignature", "RequestExecutor",
           "HostLink", "HostLinkTop"]

MAX_REQUEST = max(REQUEST_LENGTHS.values())
MAX_REPLY = max(DONE_LENGTH, MOVE_LENGTH, PONG_LENGTH, PERFT_DONE_LENGTH, 1)
# SEARCH_DONE is the longest reply: only a bitstream with the search engine holds it
SEARCH_MAX_REPLY = max(MAX_REPLY, SEARCH_DONE_LENGTH)


class FrameReceiver(wiring.Component):
    """Hunts for SYNC, checks type, length and CRC, and buffers the payload.

    A checked request waits on ``requests`` (payload: its type) with its payload in
    the buffer (``read_addr`` -> ``read_data`` a cycle later) until taken. While one
    waits, or while ``blocked``, a new frame's bytes are junk. Errors wait on
    ``errors`` (payload: the ``ErrorCode``); a second error while one waits is dropped.

    ``idle_timeout`` is in clock cycles: a frame that pauses for longer is
    truncated, and errors and junk are reported once the line has been idle this long.
    """

    def __init__(self, idle_timeout):
        self.idle_timeout = idle_timeout
        super().__init__({
            "rx": In(stream.Signature(8, always_ready=True)),
            "blocked": In(1),
            "requests": Out(stream.Signature(8)),
            "read_addr": In(range(MAX_REQUEST)),
            "read_data": Out(8),
            "errors": Out(stream.Signature(8)),
        })

    def elaborate(self, platform):
        m = Module()
        byte, got = self.rx.payload, self.rx.valid

        # cycles since the last received byte (saturating)
        idle = Signal(range(self.idle_timeout + 1))
        idle_expired = idle == self.idle_timeout
        with m.If(got):
            m.d.sync += idle.eq(0)
        with m.Elif(~idle_expired):
            m.d.sync += idle.eq(idle + 1)

        m.submodules.buffer = buffer = Memory(shape=8, depth=MAX_REQUEST, init=[])
        write_port, read_port = buffer.write_port(), buffer.read_port()
        m.submodules.crc = crc = CRC.create()
        req_type, req_length = Signal(8, name="req_type"), Signal(8, name="req_length")
        index = Signal(range(MAX_REQUEST))
        junk = Signal(1)
        old = Signal(1)         # a GENERATE of version 2's length, judged once its checksum holds
        discard_code = Signal(8)
        raise_error, raise_code = Signal(1), Signal(8)
        known, expected = Signal(1), Signal(8)
        with m.Switch(byte):
            for frame_type in REQUEST_LENGTHS:
                with m.Case(frame_type):
                    m.d.comb += known.eq(1)
        with m.Switch(req_type):
            for frame_type, length in REQUEST_LENGTHS.items():
                with m.Case(frame_type):
                    m.d.comb += expected.eq(length)
        m.d.comb += [
            write_port.addr.eq(index), write_port.data.eq(byte),
            read_port.addr.eq(self.read_addr), self.read_data.eq(read_port.data),
            crc.data.eq(byte),
        ]

        with m.If(self.requests.valid & self.requests.ready):
            m.d.sync += self.requests.valid.eq(0)
        with m.If(self.errors.valid & self.errors.ready):
            m.d.sync += self.errors.valid.eq(0)
        with m.If(raise_error & ~self.errors.valid):
            m.d.sync += [self.errors.valid.eq(1), self.errors.payload.eq(raise_code)]

        def fail(code, discard=True):
            """Report now (truncation: the line is already idle) or after the burst."""
            if discard:
                m.d.sync += discard_code.eq(code)
                m.next = "DISCARD"
            else:
                m.d.comb += [raise_error.eq(1), raise_code.eq(code)]
                m.next = "HUNT"
            m.d.sync += junk.eq(0)

        with m.FSM(name="receiver"):
            with m.State("HUNT"):
                with m.If(got):
                    with m.If((byte == SYNC) & ~self.requests.valid & ~self.blocked):
                        m.d.sync += junk.eq(0)
                        m.next = "TYPE"
                    with m.Else():
                        m.d.sync += junk.eq(1)
                with m.Elif(junk & idle_expired):
                    m.d.comb += [raise_error.eq(1), raise_code.eq(ErrorCode.JUNK)]
                    m.d.sync += junk.eq(0)
            with m.State("TYPE"):
                with m.If(got):
                    m.d.comb += [crc.start.eq(1), crc.valid.eq(1)]
                    m.d.sync += req_type.eq(byte)
                    with m.If(known):
                        m.next = "LENGTH"
                    with m.Else():
                        fail(ErrorCode.UNKNOWN_TYPE)
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("LENGTH"):
                with m.If(got):
                    m.d.comb += crc.valid.eq(1)
                    m.d.sync += [req_length.eq(byte), index.eq(0), old.eq(0)]
                    # a damaged length can look like version 2's: read the frame, and say OLD_VERSION
                    # only if its checksum holds (else BAD_CHECKSUM, which the host retries)
                    with m.If((req_type == FrameType.GENERATE) & (byte == OLD_GENERATE_LENGTH)):
                        m.d.sync += old.eq(1)
                        m.next = "PAYLOAD"
                    with m.Elif(byte != expected):
                        fail(ErrorCode.BAD_LENGTH)
                    with m.Elif(byte == 0):
                        m.next = "CHECK"
                    with m.Else():
                        m.next = "PAYLOAD"
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("PAYLOAD"):
                with m.If(got):
                    m.d.comb += [write_port.en.eq(1), crc.valid.eq(1)]
                    with m.If(index == req_length - 1):
                        m.next = "CHECK"
                    with m.Else():      # the write address stays inside the buffer, even unused
                        m.d.sync += index.eq(index + 1)
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("CHECK"):
                with m.If(got):
                    with m.If((byte == crc.crc) & old):
                        fail(ErrorCode.OLD_VERSION)     # never read a version-2 request as ours
                    with m.Elif(byte == crc.crc):
                        m.d.sync += [self.requests.valid.eq(1), self.requests.payload.eq(req_type)]
                        m.next = "HUNT"
                    with m.Else():
                        fail(ErrorCode.BAD_CHECKSUM)
                with m.Elif(idle_expired):
                    fail(ErrorCode.TRUNCATED, discard=False)
            with m.State("DISCARD"):        # swallow the rest of a bad burst, then report
                with m.If(idle_expired & ~got):
                    m.d.comb += [raise_error.eq(1), raise_code.eq(discard_code)]
                    m.next = "HUNT"
        return m


def reply_frame(max_reply=MAX_REPLY):
    """A reply for the sender: type, payload length and payload (LSB-first bytes), at most
    ``max_reply`` bytes of it."""
    return data.StructLayout({"type": 8, "length": 8, "payload": 8 * max_reply})


ReplyFrame = reply_frame()


class FrameSender(wiring.Component):
    """Sends ``SYNC TYPE LEN PAYLOAD CRC`` for every frame taken on ``frames`` (payloads of at
    most ``max_reply`` bytes)."""

    def __init__(self, max_reply=MAX_REPLY):
        self.max_reply = max_reply
        super().__init__({
            "frames": In(stream.Signature(reply_frame(max_reply))),
            "tx": Out(stream.Signature(8)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.crc = crc = CRC.create()
        current = Signal(reply_frame(self.max_reply), name="current")
        index = Signal(range(self.max_reply + 1))
        sent = self.tx.valid & self.tx.ready
        m.d.comb += crc.data.eq(self.tx.payload)

        def send(byte, then, first=False):
            m.d.comb += [self.tx.payload.eq(byte), self.tx.valid.eq(1)]
            if first:
                m.d.comb += crc.start.eq(sent)
            with m.If(sent):
                m.next = then

        with m.FSM(name="sender"):
            with m.State("IDLE"):
                m.d.comb += self.frames.ready.eq(1)
                with m.If(self.frames.valid):
                    m.d.sync += [current.eq(self.frames.payload), index.eq(0)]
                    m.next = "SYNC"
            with m.State("SYNC"):
                send(SYNC, "TYPE")
            with m.State("TYPE"):
                m.d.comb += crc.valid.eq(sent)
                send(current.type, "LENGTH", first=True)
            with m.State("LENGTH"):
                m.d.comb += crc.valid.eq(sent)
                send(current.length, "PAYLOAD")
            with m.State("PAYLOAD"):
                with m.If(index == current.length):
                    m.next = "CRC"
                with m.Else():
                    m.d.comb += crc.valid.eq(sent)
                    send(current.payload[:8], "PAYLOAD")
                    with m.If(sent):
                        m.d.sync += [current.payload.eq(current.payload >> 8), index.eq(index + 1)]
            with m.State("CRC"):
                send(crc.crc, "IDLE")
        return m


class LinkSignature(wiring.Signature):
    """What the host link drives, from its side: the position's load, the generator's control
    (with ``all_moves`` if ``legality``: with start, the pseudo-legal moves, not the legal ones;
    with ``order`` if ``ordering``), the perft array's, the search engine's if ``search``, and
    ``busy`` while a request is served."""

    def __init__(self, legality=False, ordering=False, search=False):
        super().__init__({
            "load": Out(LoadSignature()),
            "generator": In(control_signature(legality, ordering)),
            "perft": In(PerftControlSignature(PERFT_MAX_DEPTH)),
            **({"search": In(SearchControlSignature())} if search else {}),
            "busy": Out(1),
        })


class RequestExecutor(wiring.Component):
    """Serves checked requests on the generator and sends the replies and errors.

    Its ports beyond the receiver's and the sender's are a :class:`LinkSignature`.
    ``legality``: the generator has the legality stage; a GENERATE's ``legal`` flag
    drives ``generator.all_moves`` low with ``generator.start``. Without the stage, a legal
    request is refused with ``NO_LEGALITY``. ``ordering``: the generator has the ordering stage;
    the flags' ``order`` drives ``generator.order`` with the start (an order that is no ``Order``
    is refused with ``BAD_ORDER``); without the stage, any order but 0 is refused with
    ``NO_ORDER``. ``perft_engines``: the size of the perft array beside the generator (0: none,
    PERFT is refused with ``NO_PERFT``); both are loaded with the request's position.
    ``search``: a :class:`~.search.SearchEngine` beside them (loaded too) serves SEARCH, HISTORY
    and ABORT; without it they are refused with ``NO_SEARCH``.

    ``blocked`` tells the receiver to take no frame: high while a request is served, but for a
    SEARCH from its first cycle until its answer starts, when the receiver listens for ABORT (any
    other request waits until the search has answered). A search reads its request and position
    from the receiver's buffer for 60 cycles; the next frame's first payload byte lands there no
    sooner than four bytes (160 cycles at the UART's fastest) after the SEARCH's last, so an ABORT
    sent right behind a SEARCH is heard and no frame overwrites what the search still reads.
    """

    def __init__(self, layout_id, core_id, legality=False, perft_engines=0, ordering=False, search=False):
        self.layout_id = layout_id
        self.core_id = core_id
        self.legality = legality
        self.ordering = ordering
        self.perft_engines = perft_engines
        self.with_search = search
        super().__init__({
            "requests": In(stream.Signature(8)),
            "read_addr": Out(range(MAX_REQUEST)),
            "read_data": In(8),
            "errors": In(stream.Signature(8)),
            "frames": Out(stream.Signature(reply_frame(SEARCH_MAX_REPLY if search else MAX_REPLY))),
            "blocked": Out(1),
            **LinkSignature(legality, ordering, search).members,
        })

    def elaborate(self, platform):
        m = Module()
        frames, generator = self.frames, self.generator
        perft, refusal = Signal(1), Signal(8)       # the request is a PERFT / why it is refused

        def reply(frame_type, length, payload):
            m.d.comb += [frames.valid.eq(1), frames.payload.type.eq(frame_type),
                         frames.payload.length.eq(length), frames.payload.payload.eq(payload)]

        state_low = Signal(8)
        flags = Signal(GenerateFlags)
        rank, plane = Signal(range(8)), Signal(range(PLANES + 1))
        rank_planes = Signal(8 * PLANES)
        state_at = PLANES * PLANE_BYTES     # the image: four planes of 8 bytes, then the state
        features = (FEATURE_LEGALITY if self.legality else 0) | (FEATURE_ORDER if self.ordering else 0) | \
            (FEATURE_SEARCH if self.with_search else 0)
        searching = Signal(1)           # the request is a SEARCH (else, among the search's: a HISTORY)
        listening = Signal(1)           # a SEARCH is served: the receiver may take an ABORT
        # a SEARCH's request bytes or a HISTORY's, gathered from the buffer
        gathered = Signal(8 * max(SEARCH_REQUEST_BYTES, HISTORY_LENGTH))
        got = Signal(range(max(SEARCH_REQUEST_BYTES, HISTORY_LENGTH, MAX_SEARCH_PLIES) + 1))
        m.d.comb += self.blocked.eq(self.busy & ~listening)
        with m.FSM(name="executor"):
            with m.State("IDLE"):
                request_is = lambda *types: self.requests.valid & Cat(self.requests.payload == t for t in types).any()
                with m.If(self.errors.valid):
                    reply(FrameType.ERROR, 1, self.errors.payload)
                    m.d.comb += self.errors.ready.eq(frames.ready)
                with m.Elif(request_is(FrameType.PING)):
                    reply(FrameType.PONG, PONG_LENGTH, Pong.const({
                        "version": PROTOCOL_VERSION, "layout": self.layout_id, "core": self.core_id,
                        "features": features, "perft_engines": self.perft_engines}))
                    m.d.comb += self.requests.ready.eq(frames.ready)
                with m.Elif(request_is(FrameType.SEARCH, FrameType.HISTORY, FrameType.ABORT)):
                    m.d.comb += self.requests.ready.eq(1)
                    if not self.with_search:
                        m.d.sync += refusal.eq(ErrorCode.NO_SEARCH)
                        m.next = "REFUSE"
                    else:
                        with m.If(self.requests.payload != FrameType.ABORT):    # (no search runs: nothing to stop)
                            m.d.comb += self.read_addr.eq(Mux(self.requests.payload == FrameType.SEARCH,
                                                              POSITION_BYTES, 0))
                            m.d.sync += [searching.eq(self.requests.payload == FrameType.SEARCH), perft.eq(0),
                                         got.eq(0)]
                            m.next = "GATHER"
                with m.Elif(self.requests.valid):      # GENERATE or PERFT: the byte after the image first
                    m.d.comb += [self.requests.ready.eq(1), self.read_addr.eq(POSITION_BYTES)]
                    m.d.sync += [perft.eq(self.requests.payload == FrameType.PERFT), searching.eq(0)]
                    m.next = "FLAGS"
            with m.State("FLAGS"):          # GENERATE's flags, or PERFT's depth
                m.d.comb += [self.busy.eq(1), self.read_addr.eq(state_at)]
                read_flags = GenerateFlags(self.read_data[:len(flags.as_value())])
                m.d.sync += [flags.eq(read_flags), self.perft.depth.eq(self.read_data)]
                m.next = "STATE_LOW"
                with m.If(perft):
                    if not self.perft_engines:
                        m.d.sync += refusal.eq(ErrorCode.NO_PERFT)
                        m.next = "REFUSE"
                    else:
                        with m.If((self.read_data == 0) | (self.read_data > PERFT_MAX_DEPTH)):
                            m.d.sync += refusal.eq(ErrorCode.BAD_DEPTH)
                            m.next = "REFUSE"
                if not self.legality:
                    with m.Elif(read_flags.legal):
                        m.d.sync += refusal.eq(ErrorCode.NO_LEGALITY)
                        m.next = "REFUSE"
                if not self.ordering:
                    with m.Elif(read_flags.order != 0):
                        m.d.sync += refusal.eq(ErrorCode.NO_ORDER)
                        m.next = "REFUSE"
                else:
                    with m.Elif(read_flags.order >= ORDER_COUNT):
                        m.d.sync += refusal.eq(ErrorCode.BAD_ORDER)
                        m.next = "REFUSE"
            with m.State("REFUSE"):
                m.d.comb += self.busy.eq(1)
                reply(FrameType.ERROR, 1, refusal)
                with m.If(frames.ready):
                    m.next = "IDLE"
            if self.with_search:
                self._search_states(m, reply, refusal, searching, listening, gathered, got, state_at)
            with m.State("STATE_LOW"):
                m.d.comb += listening.eq(searching)     # an ABORT waits for SEARCHING
                m.d.comb += [self.busy.eq(1), self.read_addr.eq(state_at + 1)]
                m.d.sync += state_low.eq(self.read_data)
                m.next = "STATE_HIGH"
            with m.State("STATE_HIGH"):     # clear the board, write the state registers
                m.d.comb += listening.eq(searching)     # an ABORT waits for SEARCHING
                m.d.comb += [
                    self.busy.eq(1),
                    self.load.clear.eq(1),
                    self.load.state_en.eq(1),
                    self.load.state.eq(Cat(state_low, self.read_data)),
                    self.read_addr.eq(0),
                ]
                m.d.sync += [rank.eq(0), plane.eq(0)]
                m.next = "RANKS"
            with m.State("RANKS"):          # a rank's byte of each plane, one per cycle, then the rank write
                m.d.comb += listening.eq(searching)     # an ABORT waits for SEARCHING
                m.d.comb += self.busy.eq(1)
                with m.If(plane == PLANES):
                    m.d.comb += [self.load.rank_en.eq(1), self.load.rank.eq(rank),
                                 self.load.rank_planes.eq(rank_planes), self.read_addr.eq(rank + 1)]
                    m.d.sync += [rank.eq(rank + 1), plane.eq(0)]
                    with m.If(rank == 7):
                        m.next = "START"
                with m.Else():              # the next plane's byte (plane 0's during the last: unused)
                    m.d.comb += self.read_addr.eq(Mux(plane == PLANES - 1, 0, plane + 1) * PLANE_BYTES + rank)
                    m.d.sync += [rank_planes.eq(Cat(rank_planes[8:], self.read_data)), plane.eq(plane + 1)]
            with m.State("START"):
                m.d.comb += listening.eq(searching)     # an ABORT waits for SEARCHING
                m.d.comb += self.busy.eq(1)
                with m.If(perft):           # the array is idle: the executor serves one request at a time
                    m.d.comb += self.perft.start.eq(1)
                    m.next = "WALK"
                if self.with_search:
                    with m.Elif(searching):     # the engine is idle too; its request is the gathered bytes
                        m.d.comb += self.search.start.eq(1)
                        m.next = "SEARCHING"
                with m.Else():
                    m.d.comb += generator.start.eq(generator.start_ready)
                    if self.legality:
                        m.d.comb += generator.all_moves.eq(~flags.legal)
                    if self.ordering:
                        m.d.comb += generator.order.eq(flags.order)
                    with m.If(generator.start_ready):
                        m.next = "STREAM"
            with m.State("WALK"):           # the whole tree in the array, then its figures
                m.d.comb += self.busy.eq(1)
                with m.If(~self.perft.busy):
                    answer = Signal(PerftReply)
                    m.d.comb += [answer.nodes.eq(self.perft.counters.nodes),
                                 answer.cycles.eq(self.perft.counters.cycles)]
                    reply(FrameType.PERFT_DONE, PERFT_DONE_LENGTH, answer)
                    with m.If(frames.ready):
                        m.next = "IDLE"
            with m.State("STREAM"):         # one MOVE frame per move, then DONE with the counters
                m.d.comb += self.busy.eq(1)
                with m.If(generator.moves.valid):
                    reply(FrameType.MOVE, MOVE_LENGTH, generator.moves.payload)
                    m.d.comb += generator.moves.ready.eq(frames.ready)
                with m.Elif(~generator.busy):      # done has pulsed: the counters hold
                    reply(FrameType.DONE, DONE_LENGTH, generator.counters)
                    with m.If(frames.ready):
                        m.next = "IDLE"
        return m

    def _search_states(self, m, reply, refusal, searching, listening, gathered, got, state_at):
        """SEARCH's and HISTORY's states: their bytes gathered and checked (a HISTORY's key
        written), then for a SEARCH the position's load (STATE_LOW on), the search, its PV as
        MOVE frames and SEARCH_DONE."""
        search, frames = self.search, self.frames
        request = SearchRequest(gathered[:data.Layout.cast(SearchRequest).size])
        m.d.comb += search.request.eq(request)
        last = Mux(searching, SEARCH_REQUEST_BYTES - 1, HISTORY_LENGTH - 1)
        with m.State("GATHER"):         # a byte a cycle: the buffer answers the address a cycle later
            m.d.comb += [listening.eq(searching), self.busy.eq(1),
                         self.read_addr.eq(Mux(searching, POSITION_BYTES, 0) + got + 1)]
            m.d.sync += [gathered.word_select(got, 8).eq(self.read_data), got.eq(got + 1)]
            with m.If(got == last):
                m.d.comb += self.read_addr.eq(state_at)
                m.next = "GATHERED"
        with m.State("GATHERED"):
            m.d.comb += [listening.eq(searching), self.busy.eq(1), self.read_addr.eq(state_at)]
            index, key = gathered[:8], gathered[8:72]
            with m.If(~searching):
                with m.If(index >= MAX_HISTORY):
                    m.d.sync += refusal.eq(ErrorCode.BAD_SEARCH)
                    m.next = "REFUSE"
                with m.Else():
                    m.d.comb += [search.history.en.eq(1), search.history.index.eq(index),
                                 search.history.key.eq(key)]
                    m.next = "IDLE"
            with m.Elif((request.depth == 0) | (request.depth > MAX_DEPTH) | (request.quiescence > MAX_QUIESCENCE) |
                        (request.history > MAX_HISTORY)):
                m.d.sync += refusal.eq(ErrorCode.BAD_SEARCH)
                m.next = "REFUSE"
            with m.Else():
                m.next = "STATE_LOW"
        with m.State("SEARCHING"):      # until done; an ABORT stops the engine (its best move so far)
            m.d.comb += [self.busy.eq(1), listening.eq(1)]
            with m.If(self.requests.valid & (self.requests.payload == FrameType.ABORT)):
                m.d.comb += [self.requests.ready.eq(1), search.abort.eq(1)]
            with m.If(search.done):
                m.d.sync += got.eq(0)
                m.next = "LINE"
        with m.State("LINE"):           # the principal variation, a MOVE frame a move
            m.d.comb += [self.busy.eq(1), search.pv_index.eq(got)]
            with m.If(got == search.result.pv_length):
                m.next = "ANSWER"
            with m.Else():
                reply(FrameType.MOVE, MOVE_LENGTH, search.pv_move)
                with m.If(frames.ready):
                    m.d.sync += got.eq(got + 1)
        with m.State("ANSWER"):
            m.d.comb += self.busy.eq(1)
            result = search.result.as_value()
            reply(FrameType.SEARCH_DONE, SEARCH_DONE_LENGTH,
                  Cat(result, Const(0, 8 * SEARCH_RESULT_BYTES - len(result)), search.counters.as_value()))
            with m.If(frames.ready):
                m.next = "IDLE"


class HostLink(wiring.Component):
    """Receiver, executor and sender: request bytes in, reply bytes out, the generator driven
    (the executor's :class:`LinkSignature` ports, forwarded).

    Parameters
    ----------
    layout_id, core_id : int
        What PONG says the generator is (:data:`~.protocol.LAYOUT_IDS`, :data:`~.protocol.CORE_IDS`).
    idle_timeout : int
        Cycles without a byte after which a partial frame is dropped, at least 1.
    legality : bool
        The generator has the legality stage (``all_moves`` on its control).
    perft_engines : int
        The perft array's engines, 0 to 255 (0: none, PERFT is refused).
    ordering : bool
        The generator has the ordering stage, its order chosen per request.
    search : bool
        A search engine is beside the generator (SEARCH, HISTORY, ABORT; else refused).

    Members
    -------
    rx : In(stream.Signature(8, always_ready=True))
        The request bytes.
    tx : Out(stream.Signature(8))
        The reply bytes.
    The :class:`LinkSignature`'s, flat: the generator's control and the perft array's.
    """

    def __init__(self, *, layout_id, core_id, idle_timeout, legality=False, perft_engines=0, ordering=False,
                 search=False):
        options = Options("HostLink")
        options.choice("layout_id", layout_id, tuple(LAYOUT_IDS.values()))
        options.choice("core_id", core_id, tuple(CORE_IDS.values()))
        options.count("idle_timeout", idle_timeout, 1)
        options.flag("legality", legality)
        engines_width = Shape.cast(Pong.as_shape()["perft_engines"].shape).width     # PONG's byte
        options.count("perft_engines", perft_engines, 0, (1 << engines_width) - 1)
        options.flag("ordering", ordering)
        options.flag("search", search)
        options.done()
        self.layout_id, self.core_id, self.idle_timeout = layout_id, core_id, idle_timeout
        self.legality, self.perft_engines, self.ordering = legality, perft_engines, ordering
        self.with_search = search
        super().__init__({
            "rx": In(stream.Signature(8, always_ready=True)),
            "tx": Out(stream.Signature(8)),
            **LinkSignature(legality, ordering, search).members,
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = FrameReceiver(self.idle_timeout)
        m.submodules.executor = executor = RequestExecutor(self.layout_id, self.core_id, self.legality,
                                                           self.perft_engines, self.ordering, self.with_search)
        m.submodules.sender = sender = FrameSender(SEARCH_MAX_REPLY if self.with_search else MAX_REPLY)
        wiring.connect(m, wiring.flipped(self.rx), receiver.rx)
        wiring.connect(m, receiver.requests, executor.requests)
        wiring.connect(m, receiver.errors, executor.errors)
        wiring.connect(m, executor.frames, sender.frames)
        wiring.connect(m, sender.tx, wiring.flipped(self.tx))
        link = LinkSignature(self.legality, self.ordering, self.with_search)
        wiring.connect(m, group(executor, link), wiring.flipped(group(self, link)))
        m.d.comb += [
            receiver.blocked.eq(executor.blocked),
            receiver.read_addr.eq(executor.read_addr), executor.read_data.eq(receiver.read_data),
        ]
        return m


class HostLinkTop(wiring.Component):
    """UART pins -> host link -> the move generator ``config`` names (a
    :class:`~hwmovegen.tables.contracts.GeneratorConfig`: with the legality stage if ``legal``,
    the ordering stage, its order chosen per request, if ``order``), and a perft array of
    ``perft_engines`` engines beside it (none if 0), counting the last ply with the leaf counter
    if ``count_leaves``, and a :class:`~.search.SearchEngine` on the config's layout and core if
    ``search`` (else none: a bitstream without it refuses SEARCH)."""

    rx: In(1, init=1)
    tx: Out(1)
    busy: Out(1)

    def __init__(self, divisor, idle_timeout, config=GeneratorConfig(), search=False):
        self.divisor = divisor
        self.idle_timeout = idle_timeout
        self.search = search
        self.config = config.replace(order=config.order and SELECTABLE, max_plies=PERFT_MAX_DEPTH)
        super().__init__()

    @staticmethod
    def timing(clock_hz, baud, idle_timeout_s=0.005):
        """``(divisor, idle_timeout)`` in cycles of a ``clock_hz`` clock: the divisor from the baud
        rate, a 5 ms idle timeout (at least four bytes long)."""
        divisor = round(clock_hz / baud)
        return divisor, max(4 * 10 * divisor, round(clock_hz * idle_timeout_s))

    @classmethod
    def for_clock(cls, clock_hz, baud, config=GeneratorConfig(), idle_timeout_s=0.005, search=False):
        """A top for a real clock (see :meth:`timing`)."""
        return cls(*cls.timing(clock_hz, baud, idle_timeout_s), config, search=search)

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = UARTReceiver(self.divisor)
        m.submodules.transmitter = transmitter = UARTTransmitter(self.divisor)
        config = self.config
        m.submodules.link = link = HostLink(layout_id=LAYOUT_IDS[config.layout], core_id=CORE_IDS[config.core],
                                            idle_timeout=self.idle_timeout, legality=config.legal,
                                            perft_engines=config.perft_engines, ordering=bool(config.order),
                                            search=self.search)
        m.submodules.generator = generator = MoveGenerator.from_config(config)
        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx), self.busy.eq(link.busy)]
        wiring.connect(m, receiver.bytes, link.rx)
        wiring.connect(m, link.tx, transmitter.bytes)
        wiring.connect(m, link.generator, generator.control)
        loads = [generator.load]
        if config.perft_engines:
            m.submodules.perft = perft = PerftArray.from_config(config)
            loads.append(perft.load)
            wiring.connect(m, link.perft, perft.control)
        if self.search:
            m.submodules.search = search = SearchEngine(layout=config.layout, core=config.core)
            loads.append(search.load)
            wiring.connect(m, link.search, group(search, SearchControlSignature()))
        wiring.connect(m, link.load, *loads)
        return m
