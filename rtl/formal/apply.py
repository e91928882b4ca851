"""Make and unmake restore the board: :class:`ApplyHarness`."""

from amaranth import Signal
from amaranth.lib import wiring

from ..apply import MoveApplier
from ..board import BoardRAM
from .harness import Harness, free_legal_position, free_sound_move

__all__ = ["ApplyHarness"]


class ApplyHarness(Harness):
    """The board RAM and the MoveApplier: a free legal position loaded through the load port
    (a rank a cycle), then a free move satisfying the generator's soundness conditions
    (:func:`move_checks`, exact paths) made and unmade. Checked: the board and state
    registers are restored bit for bit, and the stack is empty again."""

    def __init__(self):
        super().__init__()
        self.board = BoardRAM()
        self.applier = MoveApplier(depth=2)

    def elaborate(self, platform):
        m, checks = self.module()
        m.submodules.board = board = self.board
        m.submodules.applier = applier = self.applier
        view = free_legal_position(m)
        wiring.connect(m, applier.edit, board.edit)
        m.d.comb += [applier.planes.eq(board.planes), applier.state.eq(board.state)]

        step = Signal(range(16))        # 0..7: loading a rank a cycle; 8: make; 9: unmake; 10: check
        load = board.load
        with m.If(step < 8):
            m.d.comb += [load.rank_en.eq(1), load.rank.eq(step[:3]), load.state_en.eq(step == 0),
                         load.state.eq(view.state)]
            for bit in range(len(load.rank_planes)):
                m.d.comb += load.rank_planes[bit].eq(view.planes[bit].word_select(step[:3], 8))
            m.d.sync += step.eq(step + 1)
        move = free_sound_move(m, view)
        commands = applier.commands
        m.d.comb += [commands.payload.move.eq(move), commands.payload.unmake.eq(step == 9),
                     commands.valid.eq((step == 8) | (step == 9))]
        with m.If(commands.valid & commands.ready):
            m.d.sync += step.eq(step + 1)
        with m.If((step == 10) & ~applier.busy):
            m.d.sync += step.eq(11)
        restored = step == 11
        checks.check("the board is restored", board.planes.as_value() == view.planes.as_value(), restored)
        checks.check("the state is restored", board.state.as_value() == view.state.as_value(), restored)
        checks.check("the stack is empty again", applier.level == 0, restored)
        return m
