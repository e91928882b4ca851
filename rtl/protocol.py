"""Host-link protocol, version 2: constants, the frame checksum and frame building (pure Python).

Every frame, in both directions::

    0xA5  TYPE  LEN  PAYLOAD[LEN]  CRC

``CRC`` is CRC-8/SMBUS (polynomial x^8 + x^2 + x + 1, initial value 0, no
reflection; ``amaranth.lib.crc.catalog.CRC8_SMBUS``) over ``TYPE``, ``LEN`` and the
payload. Multi-byte numbers are little-endian. Payload layouts come from
:mod:`hwmovegen.rtl.types`:

* ``PING`` (0x01), no payload: answered by ``PONG`` (0x81) with
  ``[PROTOCOL_VERSION, layout id, core id]``.
* ``GENERATE`` (0x02): the position image (``types.position_image``: 32 bytes of
  piece codes, then the ``BoardState`` bits). Answered by one ``MOVE`` (0x82)
  frame per generated move, in emission order (the ``Move`` bits), then ``DONE``
  (0x83) with the ``Counters`` bits.

Errors (FPGA to host), ``ERROR`` (0xEE) with one code byte:

* ``BAD_CHECKSUM``, ``BAD_LENGTH`` (wrong length for the type),
  ``UNKNOWN_TYPE``: the rest of the burst is discarded; the error is sent once
  the line has been idle for the idle timeout.
* ``TRUNCATED``: a frame stopped for longer than the idle timeout.
* ``JUNK``: bytes outside any frame, reported once the line has been idle.

After an error the FPGA hunts for the next ``0xA5``: a request sent after the
error reply is served normally.

Version history: 1 sent the state as ``white_to_move | castling << 1`` and
``ep_square | ep_valid << 7`` and PONG without the core; 2 sends the
``BoardState`` bits as they are and names the core.
"""

from enum import IntEnum

from amaranth.lib.crc import catalog

from .types import Counters, Move, POSITION_BYTES, byte_length

__all__ = ["PROTOCOL_VERSION", "SYNC", "FrameType", "ErrorCode", "REQUEST_LENGTHS", "MOVE_LENGTH",
           "DONE_LENGTH", "PONG_LENGTH", "LAYOUT_IDS", "CORE_IDS", "CRC", "crc8", "frame"]

PROTOCOL_VERSION = 2
SYNC = 0xA5
CRC = catalog.CRC8_SMBUS(data_width=8)
MOVE_LENGTH = byte_length(Move)
DONE_LENGTH = byte_length(Counters)
PONG_LENGTH = 3
LAYOUT_IDS = {"dense": 0, "butterfly": 1}
CORE_IDS = {"walker": 0, "fast": 1}


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


# The payload length of every request the FPGA accepts.
REQUEST_LENGTHS = {FrameType.PING: 0, FrameType.GENERATE: POSITION_BYTES}


def crc8(data):
    return CRC.compute(bytes(data))


def frame(frame_type, payload=b""):
    body = bytes([int(frame_type), len(payload)]) + bytes(payload)
    return bytes([SYNC]) + body + bytes([crc8(body)])
