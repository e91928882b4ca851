"""The wire formats: the one definition of Move, BoardState, Counters and the position image.

Everything that crosses a boundary is defined here once, as an Amaranth layout,
and everything else derives from it: the gateware uses the layouts directly,
the host-link client and the CXXRTL backend pack and unpack Python integers with
:func:`pack` / :func:`unpack` (field offsets come from the layout), and the
CXXRTL driver is handed the counter width and field list at build time.
"""

from functools import lru_cache

from amaranth import Shape
from amaranth.lib import data

__all__ = ["Move", "BoardState", "Counters", "COUNTER_WIDTH", "COUNTER_NAMES", "CycleSample", "pack", "unpack",
           "byte_length", "PLANES", "POSITION_BYTES", "PLANE_BYTES", "position_image", "GenerateFlags",
           "PerftCounters", "PERFT_COUNTER_WIDTH", "PERFT_COUNTER_NAMES", "PerftReply", "Pong"]

COUNTER_WIDTH = 32


class Move(data.Struct):
    """One generated move: the payload of the move stream."""
    frm: 6
    to: 6
    promotion: 3       # python-chess piece type: 5 q, 4 r, 3 b, 2 n; 0 none
    capture: 1
    double: 1
    en_passant: 1
    castle: 1
    check: 1           # gives direct check (:mod:`.order`); 0 from a generator built without ordering


class BoardState(data.Struct):
    """The state registers beside the board RAM."""
    white_to_move: 1
    castling: 4        # hwmovegen.tables.CastleRight bits
    ep_valid: 1
    ep_square: 6


class GenerateFlags(data.Struct):
    """The options of a host-link GENERATE request: the byte after the position image."""
    legal: 1           # the legal moves (the legality stage), not the pseudo-legal ones
    order: 2           # an :class:`~.order.Order` (the ordering stage); 0, square order, without the stage


class Pong(data.Struct):
    """A host-link PONG's payload: what the board is (the codes in :mod:`.protocol`)."""
    version: 8          # PROTOCOL_VERSION: first in every version, so a host can tell an old board
    layout: 8           # LAYOUT_IDS
    core: 8             # CORE_IDS
    features: 8         # FEATURE_LEGALITY | FEATURE_ORDER
    perft_engines: 8    # the size of its perft array (0: none)


class Counters(data.Struct):
    """Per-position performance counters of a core."""
    cycles: COUNTER_WIDTH           # from the cycle start is sampled until done
    steps: COUNTER_WIDTH            # the core's unit of work (the walker: table nodes visited)
    moves: COUNTER_WIDTH            # moves transferred on the stream
    stalls: COUNTER_WIDTH           # cycles a move waited because the consumer was not ready
    promotion_nodes: COUNTER_WIDTH  # promotion nodes that emitted (four moves each)


COUNTER_NAMES = tuple(name for name, _ in Counters.as_shape())

PERFT_COUNTER_WIDTH = 48           # start position depth 7 is 3.2e9 nodes; 48 bits count far past it


class PerftCounters(data.Struct):
    """The counters of a perft run in hardware (:class:`~hwmovegen.rtl.perft.PerftEngine`)."""
    nodes: PERFT_COUNTER_WIDTH          # the leaves: legal moves counted at the last ply
    cycles: PERFT_COUNTER_WIDTH         # from the cycle start is taken until done
    generate_cycles: PERFT_COUNTER_WIDTH    # waiting on the generator, the legality setup included
    apply_cycles: PERFT_COUNTER_WIDTH   # making and unmaking
    interior: PERFT_COUNTER_WIDTH       # the generations that stored moves (the plies above the bottom)
    leaf_parents: PERFT_COUNTER_WIDTH   # the positions whose legal moves the leaf counter counted at once
    engine_cycles: PERFT_COUNTER_WIDTH  # the engines' busy cycles, summed (one engine: ``cycles``)


PERFT_COUNTER_NAMES = tuple(name for name, _ in PerftCounters.as_shape())


class PerftReply(data.Struct):
    """A host-link PERFT's answer: the leaves and the cycles the walk took."""
    nodes: PERFT_COUNTER_WIDTH
    cycles: PERFT_COUNTER_WIDTH


class CycleSample(data.Struct):
    """One clock cycle of a MoveGenerator's handshake, as a simulation records it (the
    CXXRTL driver's trace words, the pysim testbench's trace): the inputs the driver set
    and the outputs sampled at the clock edge."""
    start: 1
    start_ready: 1
    busy: 1
    moves_valid: 1
    moves_ready: 1
    done: 1


@lru_cache(maxsize=None)
def _fields(shape):
    """(name, offset, width) of every field of a layout, in order."""
    return tuple((name, field.offset, Shape.cast(field.shape).width) for name, field in data.Layout.cast(shape))


def pack(shape, values):
    """The integer a layout's fields make (``values``: a mapping of field name to int)."""
    word = 0
    for name, offset, width in _fields(shape):
        value = int(values[name])
        if not 0 <= value < 1 << width:
            raise ValueError(f"{name}={value} does not fit {width} bits")
        word |= value << offset
    return word


def unpack(shape, word):
    """The fields of an integer laid out as ``shape``, as a dict of ints."""
    return {name: (word >> offset) & ((1 << width) - 1) for name, offset, width in _fields(shape)}


def byte_length(shape):
    """Bytes a value of ``shape`` takes on a byte-wide wire (little-endian)."""
    return -(-data.Layout.cast(shape).size // 8)


# The position image: how a position crosses to the hardware (host-link GENERATE
# payload, the CXXRTL driver's load). The board RAM's four bitplanes (bit k of every
# square's piece code in plane k, square i in bit i), each as 8 little-endian bytes
# (so byte r of a plane is rank r), then BoardState as little-endian bytes.
PLANES = 4
PLANE_BYTES = 8
POSITION_BYTES = PLANES * PLANE_BYTES + byte_length(BoardState)


def position_image(planes, state):
    """The position image of four 64-bit bitplanes and a BoardState field mapping."""
    return (b"".join(plane.to_bytes(PLANE_BYTES, "little") for plane in planes)
            + pack(BoardState, state).to_bytes(byte_length(BoardState), "little"))
