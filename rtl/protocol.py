"""Host-link protocol, version 5: constants, the frame checksum and frame building (pure Python).

Every frame, in both directions::

    0xA5  TYPE  LEN  PAYLOAD[LEN]  CRC

``CRC`` is CRC-8/SMBUS (polynomial x^8 + x^2 + x + 1, initial value 0, no
reflection; ``amaranth.lib.crc.catalog.CRC8_SMBUS``) over ``TYPE``, ``LEN`` and the
payload. Multi-byte numbers are little-endian. Payload layouts come from
:mod:`hwmovegen.rtl.types`:

* ``PING`` (0x01), no payload: answered by ``PONG`` (0x81) with
  ``[PROTOCOL_VERSION, layout id, core id, features, perft engines]``; feature bit 0
  (``FEATURE_LEGALITY``): the bitstream has the legality stage, bit 1 (``FEATURE_ORDER``):
  the ordering stage; perft engines: the size of its perft array (0: none).
* ``GENERATE`` (0x02): the position image (``types.position_image``: the four
  bitplanes of the piece codes, 8 bytes each, then the ``BoardState`` bits), then the ``GenerateFlags`` byte
  (bit 0 ``legal``: the legal moves, else the pseudo-legal ones; bits 1-2 ``order``: an
  ``Order`` of :mod:`.order`, 0 the core's order). Answered by one ``MOVE`` (0x82) frame per
  generated move, in emission order (the ``Move`` bits; ``check`` set only by the ordering
  stage), then ``DONE`` (0x83) with the ``Counters`` bits.
* ``PERFT`` (0x03): the position image, then the depth byte (1 to ``PERFT_MAX_DEPTH``).
  The board's perft array walks the legal tree with no host help and answers with
  ``PERFT_DONE`` (0x84): the ``PerftReply`` bits (the leaves and the cycles).

Errors (FPGA to host), ``ERROR`` (0xEE) with one code byte:

* ``BAD_CHECKSUM``, ``BAD_LENGTH`` (wrong length for the type),
  ``UNKNOWN_TYPE``: the rest of the burst is discarded; the error is sent once
  the line has been idle for the idle timeout.
* ``TRUNCATED``: a frame stopped for longer than the idle timeout.
* ``JUNK``: bytes outside any frame, reported once the line has been idle.
* ``OLD_VERSION``: a GENERATE of the length version 2 used (no flags byte): the
  host speaks an older protocol. Nothing is generated.
* ``NO_LEGALITY``: a GENERATE asked for legal moves of a bitstream built
  without the legality stage. Nothing is generated.
* ``NO_PERFT``: a PERFT to a bitstream without a perft array.
* ``BAD_DEPTH``: a PERFT's depth is 0 or above what the engines hold.
* ``NO_ORDER``: a GENERATE asked for an order (``order`` not 0) of a bitstream built
  without the ordering stage. Nothing is generated.
* ``BAD_ORDER``: a GENERATE's ``order`` is 3, no ``Order``. Nothing is generated.

After an error the FPGA hunts for the next ``0xA5``: a request sent after the
error reply is served normally.

Version history: 1 sent the state as ``white_to_move | castling << 1`` and
``ep_square | ep_valid << 7`` and PONG without the core; 2 sends the
``BoardState`` bits as they are and names the core; 3 adds the GENERATE flags
byte (legal moves) and the PONG features byte; 4 adds PERFT and the PONG's perft
engines byte; 5 adds the flags' ``order``, the ``Move``'s ``check`` bit, the ordering
feature and ``NO_ORDER`` / ``BAD_ORDER`` (a version-4 board would ignore the order and
answer in square order: the client refuses it by the version).
"""

from enum import IntEnum

from amaranth.lib.crc import catalog

from ..tables.contracts import CORE_CONTRACTS, LAYOUT_IDS, MAX_PLIES
from .order import Order
from .types import Counters, GenerateFlags, Move, PerftReply, POSITION_BYTES, byte_length, pack

__all__ = ["PROTOCOL_VERSION", "SYNC", "FrameType", "ErrorCode", "ERROR_MEANINGS", "REQUEST_LENGTHS",
           "GENERATE_LENGTH", "OLD_GENERATE_LENGTH", "MOVE_LENGTH", "DONE_LENGTH", "PONG_LENGTH",
           "FEATURE_LEGALITY", "FEATURE_ORDER", "ORDER_COUNT", "LAYOUT_IDS", "CORE_IDS", "CRC", "crc8", "frame",
           "generate_payload", "perft_payload", "PERFT_LENGTH", "PERFT_DONE_LENGTH", "PERFT_MAX_DEPTH"]

PROTOCOL_VERSION = 5
SYNC = 0xA5
CRC = catalog.CRC8_SMBUS(data_width=8)
MOVE_LENGTH = byte_length(Move)
DONE_LENGTH = byte_length(Counters)
PONG_LENGTH = 5
PERFT_LENGTH = POSITION_BYTES + 1
PERFT_DONE_LENGTH = byte_length(PerftReply)
PERFT_MAX_DEPTH = MAX_PLIES  # the engines' stacks
FEATURE_LEGALITY = 1
FEATURE_ORDER = 2
ORDER_COUNT = len(Order)    # the orders on the wire: 0 to ORDER_COUNT - 1
GENERATE_LENGTH = POSITION_BYTES + byte_length(GenerateFlags)
OLD_GENERATE_LENGTH = POSITION_BYTES        # version 2: the image alone
CORE_IDS = {name: contract.protocol_id for name, contract in CORE_CONTRACTS.items()}


class FrameType(IntEnum):
    PING = 0x01
    GENERATE = 0x02
    PERFT = 0x03
    PONG = 0x81
    MOVE = 0x82
    DONE = 0x83
    PERFT_DONE = 0x84
    ERROR = 0xEE


class ErrorCode(IntEnum):
    BAD_CHECKSUM = 1
    BAD_LENGTH = 2
    UNKNOWN_TYPE = 3
    TRUNCATED = 4
    JUNK = 5
    OLD_VERSION = 6
    NO_LEGALITY = 7
    NO_PERFT = 8
    BAD_DEPTH = 9
    NO_ORDER = 10
    BAD_ORDER = 11


# what the host tells its user for each error code
ERROR_MEANINGS = {
    ErrorCode.BAD_CHECKSUM: "a request failed its checksum",
    ErrorCode.BAD_LENGTH: "a request had the wrong length for its type",
    ErrorCode.UNKNOWN_TYPE: "a request had an unknown type",
    ErrorCode.TRUNCATED: "a request stopped before its end",
    ErrorCode.JUNK: "bytes arrived outside any frame",
    ErrorCode.OLD_VERSION: f"a GENERATE of protocol version 2 arrived; the board speaks version {PROTOCOL_VERSION}",
    ErrorCode.NO_LEGALITY: "legal moves were asked of a bitstream without the legality stage "
                           "(build it with --legal)",
    ErrorCode.NO_PERFT: "a perft was asked of a bitstream without a perft array (build it with --perft-engines)",
    ErrorCode.BAD_DEPTH: f"a perft depth was 0 or above the engines' {PERFT_MAX_DEPTH} plies",
    ErrorCode.NO_ORDER: "ordered moves were asked of a bitstream without the ordering stage (build it with --order)",
    ErrorCode.BAD_ORDER: f"a GENERATE asked for order {ORDER_COUNT}, which does not exist (0 to {ORDER_COUNT - 1})",
}


# The payload length of every request the FPGA accepts.
REQUEST_LENGTHS = {FrameType.PING: 0, FrameType.GENERATE: GENERATE_LENGTH, FrameType.PERFT: PERFT_LENGTH}


def crc8(data):
    return CRC.compute(bytes(data))


def frame(frame_type, payload=b""):
    body = bytes([int(frame_type), len(payload)]) + bytes(payload)
    return bytes([SYNC]) + body + bytes([crc8(body)])


def generate_payload(image, legal=False, order=0):
    """A GENERATE request's payload: the position image, then the flags (``order``: the value
    of an ``Order``, 0 the core's order)."""
    flags = pack(GenerateFlags, {"legal": int(legal), "order": int(order)})
    return bytes(image) + flags.to_bytes(byte_length(GenerateFlags), "little")


def perft_payload(image, depth):
    """A PERFT request's payload: the position image, then the depth."""
    return bytes(image) + bytes([depth])
