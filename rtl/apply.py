"""Make and unmake: the narrow "apply move" path into the board, and the undo stack.

A perft or search engine walks a tree on one board: it *makes* a generated move,
works below it, then *unmakes* it. :class:`MoveApplier` does both through the
board's edit port (:class:`~.board.EditSignature`), one square per cycle:

* make: the state registers at once (side to move, castling rights lost from the
  move's two squares, the en-passant square of a double push), then ``from``
  emptied, the piece (or its promotion) put on ``to``, and the extra square of an
  en passant (the taken pawn) or the two of a castling (the rook);
* unmake: everything back from the stack entry the make pushed: the move, the piece
  that moved, the piece it took and the state before it. Nothing is recomputed by
  another rule.

The stack is a block RAM of ``depth`` entries (:class:`StackEntry`). A make takes
3 cycles (4 for en passant, 5 for castling), an unmake one more (the stack read). With
``prefetch`` the stack's top is read ahead (the read port always addresses it, and a command
keeps the applier busy for two cycles at least, so the word is there when the next one comes), and
an unmake takes as long as the make: the search engine's choice; the perft engine keeps the read
(its routed figures are of it).
"""

from amaranth import Module, Signal, Cat, Const, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables import castle_rook_move, piece_code, rights_kept
from .board import EditSignature
from .core import PLANES
from .types import BoardState, Move

__all__ = ["ApplyCommand", "StackEntry", "MoveApplier", "make_cycles"]



class ApplyCommand(data.Struct):
    """A command for the applier: make ``move``, or (``unmake``) undo the last make."""
    unmake: 1
    move: Move


class StackEntry(data.Struct):
    """What a make pushes: enough to undo it exactly."""
    move: Move
    moved: 4            # the piece code that stood on ``from``
    captured: 4         # the piece code taken (on ``to``, or the pawn taken en passant); 0 none
    state: BoardState   # the state registers before the move


def make_cycles(move):
    """Cycles a make of ``move`` (a model Move) keeps the applier busy; an unmake takes one more,
    or as many with ``prefetch``."""
    return 3 + move.en_passant + 2 * move.castle


def _code_at(planes, square):
    """The piece code on ``square``."""
    return Cat(*[planes[bit].bit_select(square, 1) for bit in range(len(planes))])


def _by_square(m, square, table, width, name):
    """A constant table indexed by square, as a signal."""
    value = Signal(width, name=name)
    with m.Switch(square):
        for index, entry in enumerate(table):
            with m.Case(index):
                m.d.comb += value.eq(entry)
    return value


def _restore(m, word, edit, entry):
    """An unmake's first step: the stack's top (``word``, as its read port gives it now) into the
    board's state and the entry under way, then its square writes."""
    m.d.comb += [edit.state_en.eq(1), edit.state.eq(word.state)]
    m.d.sync += entry.eq(word)
    m.next = "WRITE"


class MoveApplier(wiring.Component):
    """Make and unmake moves on a :class:`~.board.BoardRAM` through its edit port.

    Ports
    -----
    commands : In(stream.Signature(ApplyCommand))
        Taken when the applier is idle and the stack allows it (a make below ``depth``
        entries, an unmake above none); the command is done when ``busy`` falls.
    planes, state : In
        The board as it is (to read the moving and the captured piece).
    edit : Out(EditSignature)
        To the board's edit port.
    level : Out
        Entries on the stack: the moves made and not yet unmade.
    busy : Out(1)
        A command is under way.
    """

    def __init__(self, depth, *, prefetch=False):
        self.depth, self.prefetch = depth, prefetch
        super().__init__({
            "commands": In(stream.Signature(ApplyCommand)),
            "planes": In(PLANES),
            "state": In(BoardState),
            "edit": Out(EditSignature()),
            "level": Out(range(depth + 1)),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        # a power of two deep: the top's address, level - 1, wraps to the last word at level 0 (read
        # and unused), which must exist (CXXRTL stops on a read out of bounds; a stack of 17 for
        # the search engine would read word 31)
        m.submodules.stack = stack = Memory(shape=StackEntry, depth=1 << (self.depth - 1).bit_length(), init=[])
        push, top = stack.write_port(), stack.read_port(transparent_for=())

        command, edit = self.commands.payload, self.edit
        move = command.move
        level = self.level
        entry = Signal(StackEntry)          # the command under way
        unmaking = Signal(1)
        slot = Signal(2)                    # the square write under way
        last = Signal(2)                    # the last slot of this move

        # ---- accepting a command
        can_make = level < self.depth
        can_undo = level > 0
        idle = Signal(1)
        m.d.comb += self.commands.ready.eq(idle & Mux(command.unmake, can_undo, can_make))
        taking = self.commands.valid & self.commands.ready
        white = self.state.white_to_move
        taken_square = Mux(move.en_passant, Mux(white, move.to - 8, move.to + 8)[:6], move.to)
        made = Signal(StackEntry)
        m.d.comb += [made.move.eq(move), made.moved.eq(_code_at(self.planes, move.frm)),
                     made.captured.eq(_code_at(self.planes, taken_square)), made.state.eq(self.state)]
        kept = _by_square(m, move.frm, [rights_kept(s) for s in range(64)], 4, "kept_from") & \
            _by_square(m, move.to, [rights_kept(s) for s in range(64)], 4, "kept_to")
        after = Signal(BoardState)
        m.d.comb += [after.white_to_move.eq(~white), after.castling.eq(self.state.castling & kept),
                     after.ep_valid.eq(move.double), after.ep_square.eq(Mux(move.double, (move.frm + move.to)[1:7], 0))]
        m.d.comb += [push.addr.eq(level), push.data.eq(made), top.addr.eq(level - 1)]

        # ---- the square writes of the latched entry: (square, code) per slot
        mv = entry.move
        black = ~entry.state.white_to_move                      # the side that made the move
        colour = Cat(Const(0, 3), black)
        rook_from = _by_square(m, mv.to, [castle_rook_move(s)[0] if s in (2, 6, 58, 62) else 0
                                          for s in range(64)], 6, "rook_from")
        rook_to = _by_square(m, mv.to, [castle_rook_move(s)[1] if s in (2, 6, 58, 62) else 0
                                        for s in range(64)], 6, "rook_to")
        rook = Const(piece_code(4, False), 4) | colour
        placed = Mux(mv.promotion != 0, Cat(mv.promotion, black), entry.moved)
        taken_at = Mux(black, mv.to + 8, mv.to - 8)[:6]             # en passant: the taken pawn's square
        squares = [mv.frm, mv.to, Mux(mv.en_passant, taken_at, rook_from), rook_to]
        make_codes = [0, placed, 0, rook]
        undo_codes = [entry.moved, Mux(mv.en_passant, 0, entry.captured),
                      Mux(mv.en_passant, entry.captured, rook), 0]
        with m.Switch(slot):
            for index in range(4):
                with m.Case(index):
                    m.d.comb += [edit.square.eq(squares[index]),
                                 edit.code.eq(Mux(unmaking, undo_codes[index], make_codes[index]))]

        with m.FSM(name="applier"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(taking & ~command.unmake):
                    m.d.comb += [push.en.eq(1), edit.state_en.eq(1), edit.state.eq(after)]
                    m.d.sync += [entry.eq(made), unmaking.eq(0), level.eq(level + 1)]
                    m.next = "WRITE"
                with m.Elif(taking):
                    m.d.sync += [unmaking.eq(1), level.eq(level - 1)]
                    if self.prefetch:       # the top, addressed since the last push or pop
                        _restore(m, top.data, edit, entry)
                    else:
                        m.next = "READ"
            if not self.prefetch:
                with m.State("READ"):       # the stack's top arrives
                    _restore(m, top.data, edit, entry)
            with m.State("WRITE"):
                m.d.comb += edit.square_en.eq(1)
                m.d.sync += slot.eq(slot + 1)
                with m.If(slot == last):
                    m.d.sync += slot.eq(0)
                    m.next = "IDLE"
        m.d.comb += [
            last.eq(Mux(mv.castle, 3, Mux(mv.en_passant, 2, 1))),
            self.busy.eq(~idle),
        ]
        return m
