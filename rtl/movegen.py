"""The top of the move generator: ROM, board RAM and sequencer."""

from amaranth import Module, ResetInserter
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables import get_layout
from .board import BoardRAM, LoadSignature
from .rom import MoveTableROM
from .sequencer import Sequencer
from .types import Counters, Move

__all__ = ["MoveGenerator"]


class MoveGenerator(wiring.Component):
    """Sandström's table-driven move generator.

    Ports
    -----
    load : In(LoadSignature)
        Write the position while idle: ``clear``, one square per cycle, the state registers.
    start : In(1)
        Pulse while idle: generate the pseudo-legal moves of the loaded position.
    abort : In(1)
        Synchronous reset of the sequencer (the board keeps its contents).
    busy, done : Out(1)
        ``done`` rises when the last move has been taken and stays high until the next start.
    moves : Out(stream.Signature(Move))
        The move stream, in the golden model's emission order; honours ``ready``.
    counters : Out(Counters)
        cycles, steps, moves, stalls and promotions of the current or last generation.
    """

    def __init__(self, layout="dense"):
        self.layout = get_layout(layout) if isinstance(layout, str) else layout
        super().__init__({
            "load": In(LoadSignature()),
            "start": In(1),
            "abort": In(1),
            "busy": Out(1),
            "done": Out(1),
            "moves": Out(stream.Signature(Move)),
            "counters": Out(Counters),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = MoveTableROM(self.layout)
        m.submodules.board = board = BoardRAM()
        sequencer = Sequencer(self.layout)
        m.submodules.sequencer = ResetInserter(self.abort)(sequencer)

        wiring.connect(m, wiring.flipped(self.load), board.load)
        wiring.connect(m, sequencer.rom, rom.bus)
        wiring.connect(m, wiring.flipped(self.moves), sequencer.moves)
        m.d.comb += [
            sequencer.occupied.eq(board.occupied),
            sequencer.black.eq(board.black),
            sequencer.state.eq(board.state),
            board.rd_select.eq(sequencer.rd_select),
            sequencer.rd_code.eq(board.rd_code),
            sequencer.start.eq(self.start),
            self.busy.eq(sequencer.busy),
            self.done.eq(sequencer.done),
            self.counters.eq(sequencer.counters),
        ]
        return m
