"""Host-link protocol, version 6: constants, the frame checksum, frame building and decoding (pure Python).

Every frame, in both directions::

    0xA5  TYPE  LEN  PAYLOAD[LEN]  CRC

``CRC`` is CRC-8/SMBUS (polynomial x^8 + x^2 + x + 1, initial value 0, no
reflection; ``amaranth.lib.crc.catalog.CRC8_SMBUS``) over ``TYPE``, ``LEN`` and the
payload. Multi-byte numbers are little-endian. Payload layouts come from
:mod:`hwmovegen.rtl.types`:

* ``PING`` (0x01), no payload: answered by ``PONG`` (0x81) with the ``Pong`` bytes
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
* ``HISTORY`` (0x06): an index byte (0 to ``MAX_HISTORY - 1``) and a 64-bit key: a position of the
  game before the root (since its last irreversible move), for the next SEARCH's repetitions. No reply.
* ``SEARCH`` (0x04): the position image, then the search engine's ``SearchRequest`` bits
  (:mod:`.search`: depth, quiescence plies, the window, the node limit, the first move to try,
  the halfmove clock, the count of history keys written). The engine searches; meanwhile the
  board takes ``ABORT`` (0x05, no payload): the engine stops before its next move and answers
  with the best move so far (any other request waits for the answer). Answered by one ``MOVE``
  frame per move of the principal variation, then ``SEARCH_DONE`` (0x85): the ``SearchResult``
  bytes, then the ``SearchCounters`` bytes. An ABORT with no search running is dropped.

Errors (FPGA to host), ``ERROR`` (0xEE) with one code byte:

* ``BAD_CHECKSUM``, ``BAD_LENGTH`` (wrong length for the type),
  ``UNKNOWN_TYPE``: the rest of the burst is discarded; the error is sent once
  the line has been idle for the idle timeout.
* ``TRUNCATED``: a frame stopped for longer than the idle timeout.
* ``JUNK``: bytes outside any frame, reported once the line has been idle.
* ``OLD_VERSION``: a GENERATE of the length version 2 used (no flags byte) whose checksum
  holds: the host speaks an older protocol. Nothing is generated. (With a bad checksum it is
  ``BAD_CHECKSUM``: a length byte damaged on the line, for the host to send again.)
* ``NO_LEGALITY``: a GENERATE asked for legal moves of a bitstream built
  without the legality stage. Nothing is generated.
* ``NO_PERFT``: a PERFT to a bitstream without a perft array.
* ``BAD_DEPTH``: a PERFT's depth is 0 or above what the engines hold.
* ``NO_ORDER``: a GENERATE asked for an order (``order`` not 0) of a bitstream built
  without the ordering stage. Nothing is generated.
* ``BAD_ORDER``: a GENERATE's ``order`` is 3, no ``Order``. Nothing is generated.
* ``NO_SEARCH``: a SEARCH, HISTORY or ABORT to a bitstream without the search engine.
* ``BAD_SEARCH``: a SEARCH's depth is 0 or above ``MAX_DEPTH``, its quiescence above
  ``MAX_QUIESCENCE`` or its history count above ``MAX_HISTORY``, or a HISTORY's index is
  ``MAX_HISTORY`` or more. Nothing is searched or written.

After an error the FPGA hunts for the next ``0xA5``: a request sent after the
error reply is served normally.

Version history: 1 sent the state as ``white_to_move | castling << 1`` and
``ep_square | ep_valid << 7`` and PONG without the core; 2 sends the
``BoardState`` bits as they are and names the core; 3 adds the GENERATE flags
byte (legal moves) and the PONG features byte; 4 adds PERFT and the PONG's perft
engines byte; 5 adds the flags' ``order``, the ``Move``'s ``check`` bit, the ordering
feature and ``NO_ORDER`` / ``BAD_ORDER`` (a version-4 board would ignore the order and
answer in square order: the client refuses it by the version); 6 adds SEARCH, HISTORY and
ABORT, the search feature and ``NO_SEARCH`` / ``BAD_SEARCH``.
"""

from enum import IntEnum

from amaranth.lib.crc import catalog

from ..tables.contracts import CORE_CONTRACTS, LAYOUT_IDS, MAX_PLIES
from ..tables.search import MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE
from .order import Order
from .search import SearchCounters, SearchRequest, SearchResult
from .types import Counters, GenerateFlags, Move, PerftReply, Pong, POSITION_BYTES, byte_length, pack

__all__ = ["PROTOCOL_VERSION", "SYNC", "FrameType", "ErrorCode", "ERROR_MEANINGS", "REQUEST_LENGTHS",
           "GENERATE_LENGTH", "OLD_GENERATE_LENGTH", "MOVE_LENGTH", "DONE_LENGTH", "PONG_LENGTH",
           "FEATURE_LEGALITY", "FEATURE_ORDER", "ORDER_COUNT", "LAYOUT_IDS", "CORE_IDS", "CRC", "crc8", "frame",
           "FrameDecoder", "generate_payload", "perft_payload", "PERFT_LENGTH", "PERFT_DONE_LENGTH", "PERFT_MAX_DEPTH",
           "FEATURE_SEARCH", "SEARCH_LENGTH", "SEARCH_REQUEST_BYTES", "SEARCH_RESULT_BYTES", "SEARCH_DONE_LENGTH",
           "HISTORY_LENGTH", "search_payload", "history_payload"]

PROTOCOL_VERSION = 6
SYNC = 0xA5
CRC = catalog.CRC8_SMBUS(data_width=8)
MOVE_LENGTH = byte_length(Move)
DONE_LENGTH = byte_length(Counters)
PONG_LENGTH = byte_length(Pong)
PERFT_LENGTH = POSITION_BYTES + 1
PERFT_DONE_LENGTH = byte_length(PerftReply)
PERFT_MAX_DEPTH = MAX_PLIES  # the engines' stacks
FEATURE_LEGALITY = 1
FEATURE_ORDER = 2
FEATURE_SEARCH = 4
SEARCH_REQUEST_BYTES = byte_length(SearchRequest)
SEARCH_LENGTH = POSITION_BYTES + SEARCH_REQUEST_BYTES
SEARCH_RESULT_BYTES = byte_length(SearchResult)
SEARCH_DONE_LENGTH = SEARCH_RESULT_BYTES + byte_length(SearchCounters)     # the result, then the counters
HISTORY_LENGTH = 1 + 8          # the index, then the key
ORDER_COUNT = len(Order)    # the orders on the wire: 0 to ORDER_COUNT - 1
GENERATE_LENGTH = POSITION_BYTES + byte_length(GenerateFlags)
OLD_GENERATE_LENGTH = POSITION_BYTES        # version 2: the image alone
CORE_IDS = {name: contract.protocol_id for name, contract in CORE_CONTRACTS.items()}


class FrameType(IntEnum):
    PING = 0x01
    GENERATE = 0x02
    PERFT = 0x03
    SEARCH = 0x04
    ABORT = 0x05
    HISTORY = 0x06
    PONG = 0x81
    MOVE = 0x82
    DONE = 0x83
    PERFT_DONE = 0x84
    SEARCH_DONE = 0x85
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
    NO_SEARCH = 12
    BAD_SEARCH = 13


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
    ErrorCode.NO_SEARCH: "a search was asked of a bitstream without the search engine (build it with --search)",
    ErrorCode.BAD_SEARCH: f"a search asked for a depth outside 1 to {MAX_DEPTH}, more than {MAX_QUIESCENCE} quiescence "
                          f"plies or more than {MAX_HISTORY} history keys",
}


# The payload length of every request the FPGA accepts.
REQUEST_LENGTHS = {FrameType.PING: 0, FrameType.GENERATE: GENERATE_LENGTH, FrameType.PERFT: PERFT_LENGTH,
                   FrameType.SEARCH: SEARCH_LENGTH, FrameType.ABORT: 0, FrameType.HISTORY: HISTORY_LENGTH}


def crc8(data):
    return CRC.compute(bytes(data))


def frame(frame_type, payload=b""):
    body = bytes([int(frame_type), len(payload)]) + bytes(payload)
    return bytes([SYNC]) + body + bytes([crc8(body)])


class FrameDecoder:
    """Splits a byte stream into (type, payload) frames, skipping bytes outside frames."""

    def __init__(self):
        self.buffer = bytearray()
        self.skipped = 0

    def feed(self, data):
        self.buffer += data
        frames = []
        while True:
            start = self.buffer.find(SYNC)
            if start < 0:
                self.skipped += len(self.buffer)
                self.buffer.clear()
                return frames
            self.skipped += start
            del self.buffer[:start]
            if len(self.buffer) < 3 or len(self.buffer) < 4 + self.buffer[2]:
                return frames
            length = self.buffer[2]
            body = bytes(self.buffer[1:3 + length])
            if crc8(body) != self.buffer[3 + length]:
                self.skipped += 1           # not a frame after all: resynchronise after this SYNC
                del self.buffer[:1]
                continue
            frames.append((body[0], body[2:]))
            del self.buffer[:4 + length]


def generate_payload(image, legal=False, order=0):
    """A GENERATE request's payload: the position image, then the flags (``order``: the value
    of an ``Order``, 0 the core's order)."""
    flags = pack(GenerateFlags, {"legal": int(legal), "order": int(order)})
    return bytes(image) + flags.to_bytes(byte_length(GenerateFlags), "little")


def perft_payload(image, depth):
    """A PERFT request's payload: the position image, then the depth."""
    return bytes(image) + bytes([depth])


def search_payload(image, request_word):
    """A SEARCH request's payload: the position image, then the engine's ``SearchRequest`` word
    (:func:`hwmovegen.sim.harness.search.request_word`)."""
    return bytes(image) + request_word.to_bytes(SEARCH_REQUEST_BYTES, "little")


def history_payload(index, key):
    """A HISTORY request's payload: where the key goes, then the key."""
    return bytes([index]) + key.to_bytes(8, "little")
