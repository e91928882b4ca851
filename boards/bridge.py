"""A simulated dev board on a pseudo-terminal, and faults on the way to it.

:class:`PtyBridge` opens a pseudo-terminal and joins its bytes to the pins of a dev board's whole
top level compiled (:func:`~hwmovegen.sim.backends.hostlink_model`; CXXRTL for the walker's): each byte the host
writes to the terminal is driven onto the simulated rx pin bit by bit, ``divisor`` clock cycles a
bit (the board's baud on its clock), and what the board's UART sends on tx goes back to the
terminal. ``hwmovegen board --port`` (pyserial, the path a user takes to a real board) runs
against it unchanged.

Faults are armed one at a time (:meth:`PtyBridge.arm`) and land on a byte counted from the arming
(the request's bytes for the host's side, the reply's for the board's):

* ``drop``: a byte of the request is never sent; ``flip``: a bit of one flipped in the bridge;
* ``glitch``: one bit period of a byte inverted on the rx pin (the start, a data or the stop bit:
  the receiver in :mod:`hwmovegen.rtl.uart` sees it); ``noise``: a burst of random levels on the
  rx pin, 1 to 4 bytes long, before a byte;
* ``reset``: the board reset while a byte of the request is on its pin (mid-frame);
* ``reply_drop``, ``reply_flip``: a reply byte lost or a bit of it flipped on the way back;
* ``stall``: the reply held back from the reader for longer than the host waits, then delivered.
"""

import os
import random
import select
import threading
import time
import tty

from ..rtl.hostlink import HostLinkTop
from ..sim.backends import hostlink_model
from ..tables.contracts import GeneratorConfig

__all__ = ["FAULT_KINDS", "PtyBridge", "uart_levels"]

FAULT_KINDS = ("drop", "flip", "glitch", "noise", "reset", "reply_drop", "reply_flip", "stall")
HOST_FAULTS = ("drop", "flip", "glitch", "noise", "reset")      # on the request's bytes

CHUNK = 20_000      # cycles simulated between looks at the terminal


def uart_levels(byte, divisor):
    """The rx pin's level a cycle for one 8N1 byte: start bit, data LSB first, stop bit."""
    bits = [0] + [(byte >> i) & 1 for i in range(8)] + [1]
    return b"".join(bytes([bit]) * divisor for bit in bits)


class PtyBridge:
    """A pseudo-terminal whose far end is a simulated dev board (see the module).

    ``config``: the generator behind the link (as ``build`` makes it); ``clock_hz`` and ``baud``:
    the board's, whose ratio is the UART's divisor (the iCEBreaker's 12 MHz and 115200 baud by
    default); the idle timeout is the bitstream's (:meth:`HostLinkTop.for_clock`). ``stall``:
    seconds a stalled reply is held. Use as a context manager; :attr:`port` is the terminal's
    path.
    """

    def __init__(self, config=GeneratorConfig(), clock_hz=12_000_000, baud=115_200, seed=1, stall=1.0, log=None):
        self.divisor, self.idle_timeout = HostLinkTop.timing(clock_hz, baud)
        self.model = hostlink_model(config, self.divisor, self.idle_timeout, log=log)
        self.random = random.Random(seed)
        self.stall = stall
        self.tried = {kind: 0 for kind in FAULT_KINDS}      # faults that landed
        self._armed = None          # (kind, byte index from arming)
        self._host_bytes = self._board_bytes = 0
        self._line = []             # what goes onto the rx pin: level strings and "reset" marks
        self._to_host = bytearray()
        self._held_until = 0.0
        self._quiet_cycles = 0      # cycles to keep simulating after the last activity
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self.error = None

    def __enter__(self):
        self.model.prepare()            # compile (or find) the model before the terminal opens
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)         # bytes as they are: no echo, no line editing
        os.set_blocking(self._master, False)
        self.port = os.ttyname(self._slave)
        self._thread = threading.Thread(target=self._serve, name="pty-bridge", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        os.close(self._master)
        os.close(self._slave)

    def arm(self, kind, request_length, reply_length):
        """The next fault: it lands on a random byte of the next request (of ``request_length``
        bytes) once the host writes it, or of its reply (``reply_length``) for the ``reply_``
        kinds and ``stall``."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r} (choose from {', '.join(FAULT_KINDS)})")
        with self._lock:
            length = request_length if kind in HOST_FAULTS else reply_length
            self._armed = (kind, self.random.randrange(length))
            self._host_bytes = self._board_bytes = 0

    def disarm(self):
        """Forget a fault that has not landed; returns whether one was pending."""
        with self._lock:
            pending, self._armed = self._armed is not None, None
            return pending

    def _take(self, side, index):
        """The armed fault's kind if it lands on byte ``index`` of ``side`` (host or board)."""
        if self._armed is None or self._armed[1] != index:
            return None
        kind = self._armed[0]
        if (kind in HOST_FAULTS) != (side == "host"):
            return None
        self._armed = None
        self.tried[kind] += 1
        return kind

    def _from_host(self, data):
        """The host's bytes onto the line, with a fault where one lands."""
        divisor = self.divisor
        with self._lock:
            for byte in data:
                kind = self._take("host", self._host_bytes)
                self._host_bytes += 1
                if kind == "drop":
                    continue
                if kind == "flip":
                    byte ^= 1 << self.random.randrange(8)
                levels = uart_levels(byte, divisor)
                if kind == "glitch":
                    bit = self.random.randrange(10)
                    levels = levels[:bit * divisor] + bytes(1 - level for level in levels[bit * divisor:
                                                                                       (bit + 1) * divisor]) \
                        + levels[(bit + 1) * divisor:]
                if kind == "noise":
                    span = self.random.randrange(1, 5) * 10 * divisor
                    # levels held for random stretches of a quarter bit to two bits, as a bad contact makes them
                    burst = bytearray()
                    while len(burst) < span:
                        burst += bytes([self.random.randrange(2)]) * self.random.randrange(divisor // 4 + 1,
                                                                                              2 * divisor)
                    self._line.append(bytes(burst[:span]) + bytes([1]) * (2 * divisor))
                if kind == "reset":
                    cut = self.random.randrange(10 * divisor)
                    self._line += [levels[:cut], "reset"]
                    continue
                self._line.append(levels)

    def _to_terminal(self, data):
        """The board's bytes towards the host, with a fault where one lands."""
        with self._lock:
            for byte in data:
                kind = self._take("board", self._board_bytes)
                self._board_bytes += 1
                if kind == "reply_drop":
                    continue
                if kind == "reply_flip":
                    byte ^= 1 << self.random.randrange(8)
                if kind == "stall":        # from a short delay the host waits out to one it gives up on
                    self._held_until = time.monotonic() + self.stall * self.random.uniform(0.25, 1.0)
                self._to_host.append(byte)

    def _serve(self):
        try:
            while not self._stop.is_set():
                active = bool(self._line) or self._quiet_cycles > 0 or self.model.busy()
                readable, _, _ = select.select([self._master], [], [], 0 if active else 0.01)
                if readable:
                    try:
                        data = os.read(self._master, 4096)
                    except BlockingIOError:
                        data = b""
                    self._from_host(data)
                if self._line or self._quiet_cycles > 0 or self.model.busy():
                    self._simulate()
                self._flush()
        except Exception as error:      # the test or command reports it; the thread must not die silently
            self.error = error
            raise

    def _simulate(self):
        """About a CHUNK of cycles: the line's queued levels, else idle ones."""
        with self._lock:
            line, self._line = self._line, []
        received = bytearray()
        spent = 0
        for item in line:
            if item == "reset":
                self.model.board_reset()
                continue
            received += self.model.run(item)
            spent += len(item)
        if line:
            # after the last level, long enough for the board to report a damaged request
            self._quiet_cycles = 2 * self.idle_timeout + 20 * self.divisor
        if spent < CHUNK:
            data, ran = self.model.idle(CHUNK - spent)
            received += data
            self._quiet_cycles = max(0, self._quiet_cycles - ran)
        if received:
            self._to_terminal(received)

    def _flush(self):
        with self._lock:
            if not self._to_host or time.monotonic() < self._held_until:
                return
            data = bytes(self._to_host)
        try:
            written = os.write(self._master, data)
        except BlockingIOError:
            written = 0
        with self._lock:
            del self._to_host[:written]
