"""Amaranth components of the move generator."""

from .types import Move, BoardState, Counters
from .rom import MoveTableROM, RomSignature
from .decode import NodeDecoder
from .board import BoardRAM, LoadSignature
from .sequencer import Sequencer
from .movegen import MoveGenerator

__all__ = ["Move", "BoardState", "Counters", "MoveTableROM", "RomSignature", "NodeDecoder",
           "BoardRAM", "LoadSignature", "Sequencer", "MoveGenerator"]
