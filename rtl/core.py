"""The interface every core offers the generator's top level."""

from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from . import types
from .types import BoardState, Counters, Move

__all__ = ["CoreSignature", "PLANES"]

# The board as the cores see it: four 64-bit bitplanes, bit k of every square's piece code in plane k.
PLANES = data.ArrayLayout(64, types.PLANES)


class CoreSignature(wiring.Signature):
    """Control, the move stream, the counters, the board (read-only while busy) and
    the core's own ROMs."""

    def __init__(self, rom_signature):
        super().__init__({
            "start": In(1),
            "busy": Out(1),
            "done": Out(1),
            "moves": Out(stream.Signature(Move)),
            "counters": Out(Counters),
            "planes": In(PLANES),
            "state": In(BoardState),
            "rom": Out(rom_signature),
        })
