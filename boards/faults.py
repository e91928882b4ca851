"""The serial path under faults: ``board --port`` (pyserial) to a simulated dev board on a
pseudo-terminal (:class:`~.bridge.PtyBridge`), every kind of fault in turn, every answer checked.

Each fault rides on one request (a PING, or a GENERATE of one of the positions): the host
client retries as :class:`~.client.HostClient` says, and the answer it finally reports is
compared with the golden model. A fault *survived* when its request's answer came back correct;
a request the client gave up on is *lost* (reported, never silent, with the client's last
error); a *wrong* answer is one reported that the model contradicts. Between faults, clean
requests check that the board has resynchronised.
"""

import random
import time

from ..rtl.protocol import DONE_LENGTH, MOVE_LENGTH, PONG_LENGTH, FrameType, frame, generate_payload
from ..sim.harness.wire import position_bytes
from ..sim.model import Position, generate
from .bridge import FAULT_KINDS, PtyBridge
from .client import HostClient, LinkError, SerialTransport

__all__ = ["fault_run"]


def _frames_length(payload_lengths):
    return sum(4 + length for length in payload_lengths)


def fault_run(config, boards, faults, seed=1, timeout=1.0, retries=6, kinds=FAULT_KINDS, baud=115_200, order=None,
              progress=None, log=None):
    """``faults`` faults, ``kinds`` in turn, on requests over the terminal of a :class:`PtyBridge`
    (its board built from ``config``, at ``baud`` on the iCEBreaker's 12 MHz clock), on the
    python-chess ``boards`` given, in ``order`` (a board with the ordering stage: square order, with
    its check flags, unless told).
    Returns a dict: per kind ``tried``/``survived``/``lost``/``wrong``, and the totals, the
    requests, the client's retries, the seconds, and ``losses``: per request given up on, the
    fault's number (from 1) and kind (``None``: the clean request after it), the request and the
    client's last error. ``progress(n)``: after each fault."""
    rng = random.Random(seed)
    positions = [Position.from_board(board, check=False) for board in boards]
    layout, legal = config.layout, config.legal
    order = order or ("square" if config.order else None)
    expected = [generate(position, layout, legal=legal, order=order).moves for position in positions]
    per_kind = {kind: {"tried": 0, "survived": 0, "lost": 0, "wrong": 0} for kind in kinds}
    clean = {"requests": 0, "lost": 0, "wrong": 0}
    losses = []
    start = time.monotonic()
    with PtyBridge(config, baud=baud, seed=seed, stall=1.5 * timeout, log=log) as bridge:
        client = HostClient(SerialTransport(bridge.port), timeout=timeout, retries=retries)
        info = client.ping()

        def request(number, index, kind=None):
            """One request (index -1: a PING), with fault ``number``'s ``kind`` on it: its outcome."""
            if index < 0:
                lengths = (len(frame(FrameType.PING)), _frames_length([PONG_LENGTH]))
            else:
                moves = expected[index]
                lengths = (len(frame(FrameType.GENERATE, generate_payload(position_bytes(positions[index]), legal))),
                           _frames_length([MOVE_LENGTH] * len(moves) + [DONE_LENGTH]))
            if kind is not None:
                bridge.arm(kind, *lengths)
            try:
                if index < 0:
                    answer = client.ping() == info
                else:
                    answer = client.generate(positions[index], legal=legal, order=order)[0] == expected[index]
            except LinkError as error:
                losses.append({"fault": number + 1, "kind": kind,
                               "request": "PING" if index < 0 else f"GENERATE of position {index + 1}",
                               "error": str(error)})
                return "lost"
            finally:
                if bridge.error is not None:
                    raise bridge.error
            return "survived" if answer else "wrong"

        for number in range(faults):
            kind = kinds[number % len(kinds)]
            index = rng.randrange(-1, len(positions))
            outcome = request(number, index, kind)
            if bridge.disarm():         # the request ended before the fault's byte: no fault tried
                raise RuntimeError(f"a {kind} fault did not land")
            per_kind[kind]["tried"] += 1
            per_kind[kind][outcome] += 1
            clean["requests"] += 1      # and a clean request after it: the board has resynchronised
            outcome = request(number, rng.randrange(-1, len(positions)))
            if outcome != "survived":
                clean[outcome] += 1
            if progress:
                progress(1)
        landed = dict(bridge.tried)
    totals = {key: sum(row[key] for row in per_kind.values()) for key in ("tried", "survived", "lost", "wrong")}
    return {"faults": per_kind, "totals": totals, "landed": landed, "clean": clean, "losses": losses,
            "requests": client.stats["requests"], "retries": client.stats["retries"],
            "retry_causes": {key: client.stats[key] for key in ("timeouts", "bad_replies", "line_errors")},
            "board": {"divisor": bridge.divisor, "idle_timeout": bridge.idle_timeout, "core": info.core,
                      "layout": info.layout, "legality": info.legality},
            "seconds": round(time.monotonic() - start, 1)}
