"""A position's first capture, from the board alone: what a quiescence node searches first.

The ordering stage's ``captures`` order puts a position's legal captures by bin, most valuable
victim first, then least valuable attacker, and within a bin in emission order. Its first move is
known from the board, without a generation, whenever :class:`~.order.FirstBin`'s forecast (the
lowest bin the pseudo-legal moves fill) is a capture's and that bin's first pseudo-legal move is
legal: no legal move is in a lower bin, and none of its bin comes before it. Belle's
find-victim / find-attacker, carried to the move itself, registered in stages::

    board ─► FirstBin ─► attackers ─► their first one's ─► the first ray's ─► legal? check?
             (2 cycles)  (the bin's    rays onto a victim,   victim: the move   (the king after
                          type; the    the first in slot                        the move; the
                          lowest)      order                                    check flag)

:class:`FirstCapture`'s ``move`` is of the board ``FIRST_CAPTURE_DELAY`` cycles before (the
search waits that long after its last write); ``found`` is low when the forecast is no capture
or the move is illegal (the search then generates the position). The model's
:func:`~hwmovegen.sim.model.order.first_capture`.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..tables import PieceType, TableKind
from ..tables.contracts import CAPTURE_BINS, capture_bin
from ..tables.lines import KING_STEPS, KNIGHT_STEPS, opposite
from ..tables.slots import KIND_SLOTS, RayType
from .bitboards import orient, shifted, slide, spread, wire
from .board import BoardView
from .core import PLANES
from .evaluate import InCheck
from .order import FIRST_BIN_DELAY, CheckFlag, FirstBin
from .types import BoardState, Move

__all__ = ["FirstCapture", "FIRST_CAPTURE_DELAY"]

FIRST_CAPTURE_DELAY = FIRST_BIN_DELAY + 4      # the forecast, the attacker, the first ray, the move, the verdict

_SLIDERS = (TableKind.BISHOP, TableKind.ROOK, TableKind.QUEEN)
# per attacker kind, the directions of its slots that can capture, in slot order
_CAPTURE_DIRECTIONS = {kind: [slot.direction for slot in slots if slot.type in (RayType.SLIDE, RayType.CAPTURE)]
                       for kind, slots in KIND_SLOTS.items()}


def _of_type(view, piece_type):
    """The squares holding a piece of the type ``piece_type`` (a 3-bit signal)."""
    planes = view.planes
    bits = Const(-1, 64)
    for k in range(3):
        bits = bits & Mux(piece_type[k], planes[k], ~planes[k])
    return bits


def _lowest_one(bits):
    """The lowest set bit of ``bits``, alone (the first square in emission order)."""
    return (bits & (~bits + 1))[:64]


def _square(one_hot):
    """The index of a one-hot bitboard's square."""
    return Cat(*[Cat(*[one_hot[s] for s in range(64) if s >> k & 1]).any() for k in range(6)])


class FirstCapture(wiring.Component):
    """A position -> its first capture in the ``captures`` order, when the board tells it (see the
    module's docstring), registered: ``move`` and ``found`` are of the board
    ``FIRST_CAPTURE_DELAY`` cycles before, which must have held since."""

    planes: In(PLANES)
    state: In(BoardState)
    found: Out(1)
    move: Out(Move)

    def elaborate(self, platform):
        m = Module()
        view, white = BoardView(self.planes, self.state), self.state.white_to_move
        occupied = wire(m, view.occupied, "occupied")
        oriented = {d: orient(m, occupied, d, f"occ{d}") for d in KING_STEPS}
        en_passant = Mux(self.state.ep_valid, Const(1, 64) << self.state.ep_square, 0)[:64]

        m.submodules.first_bin = first_bin = FirstBin()
        m.d.comb += [first_bin.planes.eq(self.planes), first_bin.state.eq(self.state)]

        # the bin's victim and attacker types (a capture bin's)
        bins = range(CAPTURE_BINS)
        victim_of = Array(Const(next(v for v in PieceType if any(capture_bin(v, a) == b for a in PieceType)), 3)
                          for b in bins)
        attacker_of = Array(Const(next(a for a in PieceType for v in PieceType if capture_bin(v, a) == b), 3)
                            for b in bins)
        victim, attacker = Signal(3), Signal(3)
        capture = Signal(1)
        m.d.comb += [capture.eq(first_bin.bin < CAPTURE_BINS),
                     victim.eq(victim_of[first_bin.bin[:5]]), attacker.eq(attacker_of[first_bin.bin[:5]])]

        # stage 1: the attacker type's pieces that capture a victim of the bin's type (each slot's
        # step or slide walked back from the victims), the first of them in emission order (the
        # lowest square)
        targets = wire(m, view.opponent & _of_type(view, victim), "victims")
        # what the attacker type captures onto: the victims, and for a pawn taking a pawn the
        # en-passant square
        pawns = (victim == PieceType.PAWN) & (attacker == PieceType.PAWN)
        ep_targets = wire(m, targets | Mux(pawns, en_passant, 0), "targets")
        back = {d: slide(m, occupied, targets, d, f"back{d}", oriented[d]) for d in KING_STEPS}
        ortho = back[0] | back[2] | back[4] | back[6]
        diag = back[1] | back[3] | back[5] | back[7]
        reached = Signal(64)
        with m.Switch(attacker):
            with m.Case(PieceType.PAWN):
                m.d.comb += reached.eq(Mux(white, spread(ep_targets, [opposite(d) for d in _CAPTURE_DIRECTIONS[TableKind.WPAWN]]),
                                           spread(ep_targets, [opposite(d) for d in _CAPTURE_DIRECTIONS[TableKind.BPAWN]])))
            with m.Case(PieceType.KNIGHT):
                m.d.comb += reached.eq(spread(targets, KNIGHT_STEPS))
            with m.Case(PieceType.BISHOP):
                m.d.comb += reached.eq(diag)
            with m.Case(PieceType.ROOK):
                m.d.comb += reached.eq(ortho)
            with m.Case(PieceType.QUEEN):
                m.d.comb += reached.eq(ortho | diag)
            with m.Case(PieceType.KING):
                m.d.comb += reached.eq(spread(targets, KING_STEPS))
        attackers = wire(m, view.own & _of_type(view, attacker) & reached, "attackers")
        frm_bit, hit = Signal(64), Signal(64)
        s1_victim, s1_attacker, s1_capture = Signal(3), Signal(3), Signal(1)
        m.d.sync += [frm_bit.eq(_lowest_one(attackers)), hit.eq(ep_targets),
                     s1_victim.eq(victim), s1_attacker.eq(attacker), s1_capture.eq(capture)]

        # stage 2: per ray the attacker's kinds capture along (a slider's slide, a step, a knight's
        # jump), the victim it ends on, and the ray that comes first in the kind's slot order
        ahead = {d: slide(m, occupied, frm_bit, d, f"ahead{d}", oriented[d]) for d in KING_STEPS}
        rays = {**{("slide", d): wire(m, ahead[d] & hit, f"slide{d}") for d in KING_STEPS},
                **{("step", d): wire(m, shifted(frm_bit, d) & hit, f"step{d}") for d in (*KING_STEPS, *KNIGHT_STEPS)}}
        ends = {ray: wire(m, bits.any(), f"{ray[0]}{ray[1]}_ends") for ray, bits in rays.items()}
        first = {ray: Signal(1, name=f"{ray[0]}{ray[1]}_first") for ray in rays}
        kinds = {TableKind.WPAWN: (s1_attacker == PieceType.PAWN) & white,
                 TableKind.BPAWN: (s1_attacker == PieceType.PAWN) & ~white,
                 **{kind: s1_attacker == int(kind) for kind in (TableKind.KNIGHT, *_SLIDERS, TableKind.KING)}}
        for ray in rays:
            chosen = []
            for kind, active in kinds.items():
                order = [("slide" if kind in _SLIDERS else "step", d) for d in _CAPTURE_DIRECTIONS[kind]]
                if ray in order:
                    earlier = order[:order.index(ray)]
                    chosen.append(active & ~Cat(*[ends[e] for e in earlier], Const(0, 1)).any())
            m.d.sync += first[ray].eq(ends[ray] & Cat(*chosen).any())
        s2_rays = {ray: Signal(64, name=f"{ray[0]}{ray[1]}_victim") for ray in rays}
        s2_frm_bit, s2_frm, s2_victim, s2_attacker, s2_capture = Signal(64), Signal(6), Signal(3), Signal(3), Signal(1)
        m.d.sync += [*(s2_rays[ray].eq(bits) for ray, bits in rays.items()),
                     s2_frm_bit.eq(frm_bit), s2_frm.eq(_square(frm_bit)),
                     s2_victim.eq(s1_victim), s2_attacker.eq(s1_attacker), s2_capture.eq(s1_capture)]

        # stage 3: the first ray's victim: the move
        to_bit = wire(m, Cat(*[Cat(*[first[ray] & s2_rays[ray][s] for ray in rays]).any() for s in range(64)]),
                      "to_bit")
        last_rank = Const(0xFF << 56 | 0xFF, 64)
        pawn = s2_attacker == PieceType.PAWN
        s3_frm_bit, s3_to_bit, s3_attacker, s3_capture = Signal(64), Signal(64), Signal(3), Signal(1)
        s3_move = Signal(Move)
        m.d.sync += [
            s3_frm_bit.eq(s2_frm_bit), s3_to_bit.eq(to_bit), s3_attacker.eq(s2_attacker), s3_capture.eq(s2_capture),
            s3_move.frm.eq(s2_frm), s3_move.to.eq(_square(to_bit)), s3_move.capture.eq(1),
            s3_move.promotion.eq(Mux(pawn & (to_bit & last_rank).any(), PieceType.QUEEN, 0)),
            s3_move.en_passant.eq(pawn & (s2_victim == PieceType.PAWN) & (to_bit & en_passant).any()),
        ]

        # stage 4: legal (the mover's king unattacked on the board after the move) and its check flag
        taken = Mux(s3_move.en_passant, Mux(white, s3_to_bit >> 8, s3_to_bit << 8)[:64], 0)
        kept = ~(s3_frm_bit | s3_to_bit | taken)
        code = Cat(Mux(s3_move.promotion != 0, s3_move.promotion, s3_attacker), ~white)
        after = Signal(PLANES)
        for k in range(4):
            m.d.comb += after[k].eq((self.planes[k] & kept) | Mux(code[k], s3_to_bit, 0))
        m.submodules.in_check = in_check = InCheck()
        m.submodules.check = check = CheckFlag()
        m.d.comb += [in_check.planes.eq(after), in_check.state.eq(self.state),
                     check.move.eq(s3_move), check.planes.eq(self.planes), check.state.eq(self.state),
                     check.mover.eq(s3_attacker)]
        m.d.sync += [self.found.eq(s3_capture & ~in_check.check), self.move.eq(s3_move),
                     self.move.check.eq(check.check)]
        return m
