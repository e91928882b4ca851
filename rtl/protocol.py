"""Host-link protocol, version 1: constants and the frame checksum (pure Python).

Every frame, in both directions::

    0xA5  TYPE  LEN  PAYLOAD[LEN]  CRC

``CRC`` is CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07, initial value 0, no
reflection) over ``TYPE``, ``LEN`` and the payload. Multi-byte numbers are
little-endian.

Requests (host to FPGA):

* ``PING`` (0x01), no payload: answered by ``PONG`` (0x81) with
  ``[PROTOCOL_VERSION, layout id]`` (0 dense, 1 butterfly).
* ``GENERATE`` (0x02), 34 bytes: the 64 piece codes two per byte (square 2i in
  the low nibble of byte i, square 2i+1 in the high nibble), then
  ``white_to_move | castling << 1``, then ``ep_square | ep_valid << 7``.
  Answered by one ``MOVE`` (0x82) frame per generated move, in emission order
  (3 bytes: the 19-bit Move payload), then ``DONE`` (0x83, 20 bytes: cycles,
  steps, moves, stalls, promotions as 32-bit numbers).

Errors (FPGA to host), ``ERROR`` (0xEE) with one code byte:

* ``BAD_CHECKSUM``, ``BAD_LENGTH`` (wrong length for the type),
  ``UNKNOWN_TYPE``: the rest of the burst is discarded; the error is sent once
  the line has been idle for the idle timeout.
* ``TRUNCATED``: a frame stopped for longer than the idle timeout.
* ``JUNK``: bytes outside any frame, reported once the line has been idle.

After an error the FPGA hunts for the next ``0xA5``: a request sent after the
error reply is served normally.
"""

from enum import IntEnum

__all__ = ["PROTOCOL_VERSION", "SYNC", "FrameType", "ErrorCode", "GENERATE_LENGTH", "DONE_LENGTH",
           "MOVE_LENGTH", "LAYOUT_IDS", "crc8", "frame", "request_length"]

PROTOCOL_VERSION = 1
SYNC = 0xA5
GENERATE_LENGTH = 34
MOVE_LENGTH = 3
DONE_LENGTH = 20
LAYOUT_IDS = {"dense": 0, "butterfly": 1}


class FrameType(IntEnum):
    PING = 0x01
    GENERATE = 0x02
    PONG = 0x81
    MOVE = 0x82
    DONE = 0x83
    ERROR = 0xEE


class ErrorCode(IntEnum):
    BAD_CHECKSUM = 1
    BAD_LENGTH = 2
    UNKNOWN_TYPE = 3
    TRUNCATED = 4
    JUNK = 5


def request_length(frame_type):
    """The payload length a request type must have, or None for an unknown type."""
    return {FrameType.PING: 0, FrameType.GENERATE: GENERATE_LENGTH}.get(frame_type)


def crc8(data, crc=0):
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def frame(frame_type, payload=b""):
    body = bytes([int(frame_type), len(payload)]) + bytes(payload)
    return bytes([SYNC]) + body + bytes([crc8(body)])
