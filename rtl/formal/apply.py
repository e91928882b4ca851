"""Make and unmake restore the board: :class:`ApplyHarness`."""

from amaranth import Signal
from amaranth.lib import wiring

from ..apply import MoveApplier
from ..board import BoardRAM
from .harness import Harness, free_legal_position, free_sound_move

__all__ = ["ApplyHarness"]


class ApplyHarness(Harness):
    """The board RAM and the MoveApplier, twice (with the stack's read and with it read ahead,
    ``prefetch``): a free legal position loaded through each board's load port (a rank a cycle),
    then a free move satisfying the generator's soundness conditions (:func:`move_checks`, exact
    paths) made and unmade, each as soon as its applier takes it. Checked: each board and its
    state registers are restored bit for bit, and each stack is empty again."""

    def __init__(self):
        super().__init__()
        self.boards = [BoardRAM(), BoardRAM()]
        self.appliers = [MoveApplier(depth=2), MoveApplier(depth=2, prefetch=True)]

    def elaborate(self, platform):
        m, checks = self.module()
        view = free_legal_position(m)
        move = free_sound_move(m, view)
        for index, (board, applier) in enumerate(zip(self.boards, self.appliers)):
            m.submodules[f"board{index}"] = board
            m.submodules[f"applier{index}"] = applier
            wiring.connect(m, applier.edit, board.edit)
            m.d.comb += [applier.planes.eq(board.planes), applier.state.eq(board.state)]

            # 0..7: loading a rank a cycle; 8: make; 9: unmake; 10: its end; 11: check
            step = Signal(range(16), name=f"step{index}")
            load = board.load
            with m.If(step < 8):
                m.d.comb += [load.rank_en.eq(1), load.rank.eq(step[:3]), load.state_en.eq(step == 0),
                             load.state.eq(view.state)]
                for bit in range(len(load.rank_planes)):
                    m.d.comb += load.rank_planes[bit].eq(view.planes[bit].word_select(step[:3], 8))
                m.d.sync += step.eq(step + 1)
            commands = applier.commands
            m.d.comb += [commands.payload.move.eq(move), commands.payload.unmake.eq(step == 9),
                         commands.valid.eq((step == 8) | (step == 9))]
            with m.If(commands.valid & commands.ready):
                m.d.sync += step.eq(step + 1)
            with m.If((step == 10) & ~applier.busy):
                m.d.sync += step.eq(11)
            restored = step == 11
            kind = "read ahead" if applier.prefetch else "read"
            checks.check(f"the board is restored (stack {kind})",
                         board.planes.as_value() == view.planes.as_value(), restored)
            checks.check(f"the state is restored (stack {kind})",
                         board.state.as_value() == view.state.as_value(), restored)
            checks.check(f"the stack is empty again (stack {kind})", applier.level == 0, restored)
        return m
