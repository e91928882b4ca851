"""Amaranth components of the move generator."""

from . import combcheck

from .types import Move, BoardState, Counters
from .board import BoardRAM, LoadSignature
from .rom import MoveTableROM, RomSignature, RomUse
from .decode import NodeDecoder
from .feeder import PieceFeeder
from .fifo import PromotionFifo
from .counters import PerfCounters
from .walker import Walker, WalkerCore
from .fast import FastCore
from .legality import LegalityStage
from .movegen import MoveGenerator, CORES, generator_roms

__all__ = ["Move", "BoardState", "Counters", "BoardRAM", "LoadSignature", "MoveTableROM",
           "RomSignature", "RomUse", "NodeDecoder", "PieceFeeder", "PromotionFifo", "PerfCounters",
           "Walker", "WalkerCore", "FastCore", "LegalityStage", "MoveGenerator", "CORES", "generator_roms"]

combcheck.install()       # Amaranth's cycle check, a cell at a time first (rtl/combcheck.py)
