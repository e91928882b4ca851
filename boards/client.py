"""Host side of the UART host link (protocol in :mod:`hwmovegen.rtl.protocol`).

:class:`HostClient` speaks the protocol over a :class:`Transport`: ``write(data)``,
``read(timeout) -> bytes`` (whatever arrived within ``timeout`` seconds, possibly nothing) and
its clock, ``now()``. :class:`SerialTransport` is a real serial port (pyserial);
:class:`SimulatedDevBoard` runs a dev board's complete top level (UART included) in Amaranth's
simulator and moves bits on its pins; :class:`CompiledDevBoard` runs it compiled (Verilator or CXXRTL), as
a top with the search engine needs.
"""

import abc
import errno
import time
from pathlib import Path
from typing import NamedTuple

from amaranth.sim import Simulator

from ..rtl.protocol import (FrameType, ErrorCode, ERROR_MEANINGS, PROTOCOL_VERSION, MOVE_LENGTH, DONE_LENGTH,
                            PONG_LENGTH, PERFT_DONE_LENGTH, FEATURE_LEGALITY, FEATURE_ORDER, FEATURE_SEARCH,
                            LAYOUT_IDS, CORE_IDS, SEARCH_DONE_LENGTH, SEARCH_RESULT_BYTES, FrameDecoder, frame,
                            generate_payload, history_payload, perft_payload, search_payload)
from ..rtl.hostlink import HostLinkTop
from ..rtl.order import order_named
from ..rtl.types import PerftReply, Pong, unpack
from ..sim.harness.toolchain import ToolMissing
from ..tables.contracts import GeneratorConfig
from ..sim.harness.search import request_word, result_from_words
from ..sim.harness.wire import counters_from_word, move_from_word, position_bytes

__all__ = ["LinkError", "NoReply", "VersionMismatch", "DeviceError", "LINE_ERRORS", "NotAPort", "BoardInfo",
           "HostClient", "BoardSearch", "Transport", "SerialTransport", "SimulatedDevBoard",
           "CompiledDevBoard"]


class LinkError(RuntimeError):
    """The link misbehaved: no answer, or a reply that does not fit the protocol."""


class DeviceError(LinkError):
    """The FPGA answered with an ERROR frame."""

    def __init__(self, code):
        self.code = code
        try:
            code = ErrorCode(code)
        except ValueError:
            super().__init__(f"the board reported an unknown error (code {code})")
        else:
            super().__init__(f"the board reported {code.name}: {ERROR_MEANINGS[code]}")


class NoReply(LinkError):
    """No reply (or no whole one) within the timeout."""


class VersionMismatch(LinkError):
    """The board speaks another protocol version: no retry helps."""


class BoardInfo(NamedTuple):
    """What a board's PONG says."""
    version: int
    layout: str
    core: str
    legality: bool          # the bitstream has the legality stage
    perft_engines: int = 0  # the size of its perft array (0: none)
    ordering: bool = False  # the bitstream has the ordering stage
    search: bool = False    # the bitstream has the search engine


class Transport(abc.ABC):
    """The bytes between the host and a board, and the clock its timeouts run on."""

    @abc.abstractmethod
    def write(self, data):
        """Send ``data``."""

    @abc.abstractmethod
    def read(self, timeout):
        """The bytes that arrived within ``timeout`` seconds (of :meth:`now`), possibly none."""

    def now(self):
        """Seconds on the transport's clock: the wall clock, unless the board is simulated."""
        return time.monotonic()


# Errors that say a request was damaged on the way: sending it again may succeed. The others
# (no legality stage, a bad depth, ...) answer the request itself and are final.
LINE_ERRORS = frozenset({ErrorCode.BAD_CHECKSUM, ErrorCode.BAD_LENGTH, ErrorCode.UNKNOWN_TYPE, ErrorCode.TRUNCATED,
                         ErrorCode.JUNK})


class HostClient:
    """Requests and replies over a :class:`Transport`. ``timeout`` is in seconds of the
    transport's clock (simulated time for a simulated board).

    A request whose reply does not come, does not fit the protocol (a frame lost or damaged:
    the frame checksum, a MOVE stream whose count disagrees with its DONE) or is an ERROR of
    :data:`LINE_ERRORS` is sent again, up to ``retries`` times; before each retry the client
    waits until the line has been quiet for ``quiet`` seconds (default a quarter of the
    timeout: longer than the board's idle timeout, after which it reports a damaged request)
    and drops whatever came meanwhile, so that no stale reply is taken for the new one.
    ``stats`` counts the retries and why. With ``retries`` 0 the first failure is raised.
    """

    def __init__(self, transport, timeout=2.0, retries=0, quiet=None):
        self.transport = transport
        self.timeout = timeout
        self.retries = retries
        self.quiet = timeout / 4 if quiet is None else quiet
        self.now = transport.now
        self.decoder = FrameDecoder()
        self.pending = []
        self.stats = {"requests": 0, "retries": 0, "timeouts": 0, "bad_replies": 0, "line_errors": 0}

    def _next_frame(self, timeout=None):
        timeout = timeout or self.timeout
        deadline = self.now() + timeout
        while not self.pending:
            remaining = deadline - self.now()
            if remaining <= 0:
                raise NoReply(f"no reply from the board within {timeout} s")
            self.pending.extend(self.decoder.feed(self.transport.read(min(remaining, 0.05))))
        frame_type, payload = self.pending.pop(0)
        if frame_type == FrameType.ERROR:
            raise DeviceError(payload[0] if payload else -1)
        return frame_type, payload

    def resynchronise(self):
        """Drop every frame and byte not yet taken, and whatever arrives until the line has been
        quiet for ``quiet`` seconds (a late reply, the board's report of a damaged request)."""
        self.pending.clear()
        self.decoder = FrameDecoder()
        quiet_until = self.now() + self.quiet
        while self.now() < quiet_until:
            if self.transport.read(min(quiet_until - self.now(), 0.05)):
                quiet_until = self.now() + self.quiet

    def _request(self, request, collect):
        """Send ``request`` and return ``collect()`` (which reads its reply), retrying as the
        class says."""
        self.stats["requests"] += 1
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats["retries"] += 1
                self.resynchronise()
            self.transport.write(request)
            try:
                answer = collect()
                if attempt:     # the reply to an earlier try may still be on its way: not for the next request
                    self.resynchronise()
                return answer
            except DeviceError as error:
                if error.code not in LINE_ERRORS or attempt == self.retries:
                    raise
                self.stats["line_errors"] += 1
            except NoReply:
                if attempt == self.retries:
                    raise
                self.stats["timeouts"] += 1
            except VersionMismatch:
                raise
            except LinkError:
                if attempt == self.retries:
                    raise
                self.stats["bad_replies"] += 1

    def send_raw(self, data):
        """Write bytes as they are (for tests of garbage and truncated frames)."""
        self.transport.write(bytes(data))

    def expect_error(self):
        """Read the next frame, which must be an ERROR; return its code."""
        try:
            frame_type, payload = self._next_frame()
        except DeviceError as error:
            return error.code
        raise LinkError(f"expected an ERROR frame, got type 0x{frame_type:02x}")

    def ping(self):
        """The board's :class:`BoardInfo`."""
        return self._request(frame(FrameType.PING), self._pong)

    def _pong(self):
        frame_type, payload = self._next_frame()
        if frame_type != FrameType.PONG or not payload:
            raise LinkError(f"expected PONG, got type 0x{frame_type:02x}")
        if payload[0] != PROTOCOL_VERSION or len(payload) != PONG_LENGTH:     # the version: byte 0 in every one
            raise VersionMismatch(f"the board speaks protocol version {payload[0]}, this host {PROTOCOL_VERSION}: "
                                  f"rebuild its bitstream with this version of hwmovegen")
        pong = unpack(Pong, int.from_bytes(payload, "little"))
        layouts = {v: k for k, v in LAYOUT_IDS.items()}
        cores = {v: k for k, v in CORE_IDS.items()}
        return BoardInfo(pong["version"], layouts.get(pong["layout"], f"layout {pong['layout']}"),
                         cores.get(pong["core"], f"core {pong['core']}"), bool(pong["features"] & FEATURE_LEGALITY),
                         pong["perft_engines"], bool(pong["features"] & FEATURE_ORDER),
                         bool(pong["features"] & FEATURE_SEARCH))

    def generate(self, position, legal=False, order=None):
        """Moves (model Move objects, in emission order) and counters for a Position:
        the legal moves if ``legal`` (the board's legality stage), else the pseudo-legal ones;
        ``order`` (one of the model's ``ORDERS``): in that order with check flags (the board's
        ordering stage), None the core's order (a board with the ordering stage sends it as
        ``square``, with the check flags: order 0 on the wire)."""
        wire_order = 0 if order is None else order_named(order).value
        request = frame(FrameType.GENERATE, generate_payload(position_bytes(position), legal, wire_order))
        return self._request(request, self._moves)

    def _moves(self):
        moves = []
        while True:
            frame_type, payload = self._next_frame()
            if frame_type == FrameType.MOVE and len(payload) == MOVE_LENGTH:
                moves.append(move_from_word(int.from_bytes(payload, "little")))
            elif frame_type == FrameType.DONE and len(payload) == DONE_LENGTH:
                counters = counters_from_word(int.from_bytes(payload, "little"))
                if counters["moves"] != len(moves):     # a MOVE frame lost on the way
                    raise LinkError(f"the board sent {counters['moves']} moves, {len(moves)} arrived")
                return moves, counters
            else:
                raise LinkError(f"unexpected frame type 0x{frame_type:02x} during generation")

    def perft(self, position, depth, timeout=None):
        """The board's perft of a Position to ``depth`` plies, walked in its perft array:
        ``{"nodes": ..., "cycles": ...}``. ``timeout``: seconds to wait (default the client's)."""
        def collect():
            frame_type, payload = self._next_frame(timeout)
            if frame_type != FrameType.PERFT_DONE or len(payload) != PERFT_DONE_LENGTH:
                raise LinkError(f"expected PERFT_DONE, got type 0x{frame_type:02x}")
            return unpack(PerftReply, int.from_bytes(payload, "little"))
        return self._request(frame(FrameType.PERFT, perft_payload(position_bytes(position), depth)), collect)


    def search(self, request, stop=None, timeout=None):
        """The board's search engine's answer to a model
        :class:`~hwmovegen.sim.model.search.SearchRequest`: a model
        :class:`~hwmovegen.sim.model.search.SearchResult` with ``cycles`` and the hardware's own
        counters as ``hardware``, as the simulated engines answer. The request's history keys go
        first (HISTORY frames), then SEARCH. ``stop``: a ``threading.Event`` looked at while the
        board searches; once set, the client sends ABORT (the board answers with its best move so
        far). ``timeout``: seconds to wait for the answer (default the client's).

        An ABORT is sent only before the answer's first byte; one that still crosses the answer (the
        search ended meanwhile: the board takes no frame while it sends, and reports the bytes as
        junk) is followed by a wait for a quiet line, so that its report is not read as the next
        request's reply."""
        word = request_word(request)        # refuses what the engine cannot hold, in one line
        request_bytes = b"".join(frame(FrameType.HISTORY, history_payload(index, key))
                                 for index, key in enumerate(request.history))
        request_bytes += frame(FrameType.SEARCH, search_payload(position_bytes(request.position), word))

        def collect():
            aborted, pv = False, []
            deadline = self.now() + (timeout or self.timeout)
            while True:
                while not self.pending:
                    answering = pv or self.decoder.buffer        # the answer has begun: the search is over
                    if stop is not None and not aborted and not answering and stop.is_set():
                        self.abort()
                        aborted = True
                    if self.now() >= deadline:
                        raise NoReply(f"no search answer from the board within {timeout or self.timeout} s")
                    self.pending.extend(self.decoder.feed(self.transport.read(min(deadline - self.now(), 0.05))))
                frame_type, payload = self._next_frame()
                if frame_type == FrameType.MOVE and len(payload) == MOVE_LENGTH:
                    pv.append(int.from_bytes(payload, "little"))
                elif frame_type == FrameType.SEARCH_DONE and len(payload) == SEARCH_DONE_LENGTH:
                    result = result_from_words(int.from_bytes(payload[:SEARCH_RESULT_BYTES], "little"),
                                               int.from_bytes(payload[SEARCH_RESULT_BYTES:], "little"), pv)
                    if len(result.pv) != len(pv):       # a MOVE frame lost on the way
                        raise LinkError(f"the board's line has {len(result.pv)} moves, {len(pv)} arrived")
                    if aborted and not result.aborted:      # the ABORT came too late: dropped, or junk
                        self.resynchronise()
                    return result
                else:
                    raise LinkError(f"unexpected frame type 0x{frame_type:02x} during a search")
        return self._request(request_bytes, collect)

    def abort(self):
        """Stop the board's running search (its answer, the best move so far, still comes to
        :meth:`search`); dropped by a board with no search running."""
        self.transport.write(frame(FrameType.ABORT))


class BoardSearch:
    """A board's search engine as a search backend (``run(request, stop)``, as
    :mod:`hwmovegen.sim.backends` has them): each request a SEARCH over the host link, ``stop``
    an ABORT. ``name``: how the UCI engine names it; ``timeout``: seconds a search may take."""
    hardware = True

    def __init__(self, client, name="board", timeout=3600.0):
        self.client, self.name, self.timeout = client, name, timeout

    def prepare(self):
        """Ask the board what it is; refuse one without the search engine (one line)."""
        if not self.client.ping().search:
            raise DeviceError(ErrorCode.NO_SEARCH)

    def run(self, request, stop=None):
        return self.client.search(request, stop=stop, timeout=self.timeout)


class NotAPort(ValueError):
    """The port named is no terminal device (a regular file, a folder, /dev/null): one line."""


def _not_a_terminal(error):
    """Whether opening a port failed because it is no terminal device (pyserial keeps the
    termios error of a failed configuration as the context of its own)."""
    while error is not None:
        code = getattr(error, "errno", None) or next(iter(error.args[:1]), None)
        if code in (errno.ENOTTY, errno.EISDIR):
            return True
        error = error.__cause__ or error.__context__
    return False


class SerialTransport(Transport):
    """A serial port through pyserial (``pip install 'hwmovegen[serial]'``)."""

    def __init__(self, port, baud=115_200):
        path = Path(port)
        if path.exists() and not path.is_char_device():
            raise NotAPort(f"{port} is not a serial port but a {'folder' if path.is_dir() else 'file'}")
        try:
            import serial       # pyserial: the optional extra, only for a real board
        except ImportError:
            raise ToolMissing("the board command needs pyserial: pip install 'hwmovegen[serial]'") from None
        try:
            self.port = serial.Serial(port, baud, timeout=0)
        except (serial.SerialException, OSError) as error:
            if _not_a_terminal(error):
                raise NotAPort(f"{port} is not a serial port (not a terminal device)") from None
            raise LinkError(f"cannot open {port}: {error}") from None

    def write(self, data):
        self.port.write(data)

    def read(self, timeout):
        self.port.timeout = timeout
        return self.port.read(max(1, self.port.in_waiting))


class SimulatedDevBoard(Transport):
    """A dev board's whole top level in pysim, reached through its UART pins.

    ``divisor`` clock cycles per bit (small, to keep the simulation short) and
    ``idle_timeout`` in cycles; ``config``'s ``legal``, ``order``, ``perft_engines``: the stages
    and the perft array of its bitstream (as ``build`` has them), ``search`` its search engine (a
    tiny search only: :class:`CompiledDevBoard` is the one for searches). ``read(timeout)`` runs the
    simulation for up to ``timeout * cycles_per_second`` cycles of the board's clock or until a byte
    has been sent back.
    """

    def __init__(self, config=GeneratorConfig(), divisor=4, idle_timeout=400, cycles_per_second=200_000,
                 search=False):
        self.top = HostLinkTop(divisor, idle_timeout, config, search=search)
        self.divisor = divisor
        self.cycles_per_second = cycles_per_second
        self.to_send = bytearray()
        self.received = bytearray()
        self.cycles = 0
        top = self.top

        async def drive_rx(ctx):
            ctx.set(top.rx, 1)
            while True:
                if not self.to_send:
                    await ctx.tick()
                    continue
                byte = self.to_send.pop(0)
                for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]:
                    ctx.set(top.rx, bit)
                    await ctx.tick().repeat(divisor)

        async def watch_tx(ctx):
            while True:
                while ctx.get(top.tx):                     # wait for a start bit
                    await ctx.tick()
                await ctx.tick().repeat(divisor // 2)
                value = 0
                for i in range(8):
                    await ctx.tick().repeat(divisor)
                    value |= ctx.get(top.tx) << i
                await ctx.tick().repeat(divisor)           # the stop bit
                self.received.append(value)

        async def count(ctx):
            while True:
                await ctx.tick()
                self.cycles += 1

        self.sim = Simulator(top)
        self.sim.add_clock(1e-6)
        self.sim.add_testbench(drive_rx, background=True)
        self.sim.add_testbench(watch_tx, background=True)
        self.sim.add_testbench(count, background=True)

    def write(self, data):
        self.to_send += data

    def now(self):
        """Simulated seconds so far."""
        return self.cycles / self.cycles_per_second

    def idle(self, cycles):
        """Let the line rest for ``cycles`` clock cycles (after everything queued is sent)."""
        while self.to_send:
            self.sim.advance()
        end = self.cycles + cycles
        while self.cycles < end:
            self.sim.advance()

    def read(self, timeout):
        end = self.cycles + max(1, int(timeout * self.cycles_per_second))
        while not self.received and self.cycles < end:
            self.sim.advance()
        data, self.received = bytes(self.received), bytearray()
        return data


class CompiledDevBoard(Transport):
    """A dev board's whole top level compiled (:func:`~hwmovegen.sim.backends.hostlink_model`:
    Verilator with the search engine), reached through its UART pins in this process: what
    :class:`SimulatedDevBoard` is in pysim, at the speed a top with the search engine needs.
    ``search``: the top has the search engine. ``cycles_per_second``: the board's clock for the
    transport's simulated seconds (``now``)."""

    def __init__(self, config=GeneratorConfig(core="fast"), divisor=4, idle_timeout=400, search=True,
                 cycles_per_second=1_000_000, log=None):
        from ..sim.backends import hostlink_model    # the simulators only where a compiled board is asked for
        self.model = hostlink_model(config, divisor, idle_timeout, log=log, search=search)
        self.divisor = divisor
        self.cycles_per_second = cycles_per_second
        self.received = bytearray()

    def prepare(self):
        """Compile (or find) the model."""
        self.model.prepare()

    def write(self, data):
        levels = b"".join(bytes([bit]) * self.divisor
                          for byte in data for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1])
        self.received += self.model.run(levels)

    def now(self):
        """Simulated seconds so far."""
        return self.model.clock_cycles() / self.cycles_per_second

    def read(self, timeout):
        if not self.received:
            data, _ = self.model.idle(max(1, int(timeout * self.cycles_per_second)), stop_after=1)
            self.received += data
        data, self.received = bytes(self.received), bytearray()
        return data
