"""The legality stage: a pseudo-legal move stream in, the legal moves out, one move a cycle.

Per position, after ``start``, a short setup computes from the board (bitboards, one
occluded fill per cycle through a single fill unit whose direction is a parameter):

* the squares the opponent attacks, with the mover's king taken off the occupancy, so
  that a king cannot step back along a checking slider's ray: the leapers at once, then
  each sliding direction;
* for each of the eight directions from the king, the ray up to the first piece: a
  checking slider makes it the check mask (the squares that block or capture); an own
  piece with a matching slider behind it (the x-ray fill) is pinned to that line;
* knight and pawn checkers (they add their square to the check mask, and a second
  checker of any kind means double check);
* for each pawn that can take en passant, the king's eight rays with both pawns gone and
  the target square filled: a slider seen on one of them, or a leaper check other than by
  the taken pawn, makes that capture illegal (the rank case of ``8/8/8/KPp4r/...``).

Then each move is passed or dropped in the cycle it arrives:

* king moves only to unattacked squares; castling only out of check, through and onto
  unattacked squares;
* in double check, king moves only; in single check, a non-king move must land on the
  check mask (capture or block);
* a pinned piece stays on the line through its king;
* en passant by its precomputed verdict.

Setup takes ``LEGAL_SETUP`` cycles plus ``EP_SETUP`` per pawn that can take en passant
(:mod:`hwmovegen.sim.legality` has the same figures); the core's first moves wait for it
in the core's own output FIFO.
"""

from amaranth import Module, Signal, Cat, Const, Mux, Array
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables.slots import DIRECTIONS
from .core import PLANES
from .types import BoardState, Move

__all__ = ["LegalityStage", "SETUP_STEPS"]

_KING_DIRECTIONS = DIRECTIONS[:8]           # N, NE, E, SE, S, SW, W, NW
_KNIGHT_JUMPS = DIRECTIONS[8:]
SETUP_STEPS = 1 + 3 * 8                     # the leapers, then three fills per direction


def _shift(bits, df, dr):
    """``bits`` moved by (df files, dr ranks), squares that leave the board dropped."""
    amount = 8 * dr + df
    keep = Const(sum(1 << s for s in range(64) if 0 <= (s & 7) + df < 8 and 0 <= (s >> 3) + dr < 8), 64)
    masked = bits & keep
    return (masked << amount)[:64] if amount >= 0 else masked >> -amount


def _leaper_attacks(bits, jumps):
    out = 0
    for df, dr in jumps:
        out = out | _shift(bits, df, dr)
    return out


def _reverse(value):
    """A bitboard turned half a turn (square s to 63 - s): every direction becomes its opposite."""
    return Cat(*[value[63 - s] for s in range(64)])


def _fill(m, gen, empty, direction):
    """The squares a slider set ``gen`` attacks in ``direction`` over ``empty`` (the first
    occupied square included): a Kogge-Stone occluded fill. Directions 4..7 are 0..3
    turned half a turn, so the shifts choose among four directions only."""
    back, axis = direction[2], direction[:2]

    def step(value, k):
        return Array(_shift(value, df * k, dr * k) for df, dr in _KING_DIRECTIONS[:4])[axis]

    g, e = Signal(64), Signal(64)
    m.d.comb += [g.eq(Mux(back, _reverse(gen), gen)), e.eq(Mux(back, _reverse(empty), empty))]
    for k in (1, 2, 4):
        g_next, e_next = Signal(64), Signal(64)
        m.d.comb += [g_next.eq(g | (e & step(g, k))), e_next.eq(e & step(e, k))]
        g, e = g_next, e_next
    forward, attacks = Signal(64), Signal(64)
    m.d.comb += [forward.eq(step(g, 1)), attacks.eq(Mux(back, _reverse(forward), forward))]
    return attacks


def _index(m, one_hot, name):
    """The square of a one-hot 64-bit value (0 when it is empty)."""
    index = Signal(6, name=name)
    m.d.comb += index.eq(Cat(*[Cat(*[one_hot[s] for s in range(64) if s >> b & 1]).any() for b in range(6)]))
    return index


def _on_line(a, b, direction):
    """Whether squares ``a`` and ``b`` lie on one line along ``direction``'s axis."""
    df, dr = _KING_DIRECTIONS[direction]
    fa, ra, fb, rb = a[0:3], a[3:6], b[0:3], b[3:6]
    if df == 0:
        return fa == fb
    if dr == 0:
        return ra == rb
    if df == dr:
        return (fa - ra)[:4] == (fb - rb)[:4]
    return (fa + ra) == (fb + rb)


class LegalityStage(wiring.Component):
    """``start`` in the cycle a position starts (the board holds it, and keeps it through the
    setup); ``moves_in`` from the core, ``moves_out`` the legal ones. ``ready`` from the end
    of the setup until the next ``start``; ``busy`` during the setup and while a move is held."""

    def __init__(self):
        super().__init__({
            "start": In(1),
            "planes": In(PLANES),
            "state": In(BoardState),
            "moves_in": In(stream.Signature(Move)),
            "moves_out": Out(stream.Signature(Move)),
            "ready": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        planes, state = self.planes, self.state

        # ---- the position's bitboards, registered at start
        p0, p1, p2, black = planes[0], planes[1], planes[2], planes[3]
        occupied_now = p0 | p1 | p2
        own_now = occupied_now & Mux(state.white_to_move, ~black, black)

        def of_type(code):
            return ((p0 if code & 1 else ~p0) & (p1 if code & 2 else ~p1) & (p2 if code & 4 else ~p2))

        occ, own, king, own_pawns = Signal(64), Signal(64), Signal(64), Signal(64)
        opp_pawns, opp_knights, opp_king, opp_orth, opp_diag = (Signal(64, name=n) for n in (
            "opp_pawns", "opp_knights", "opp_king", "opp_orth", "opp_diag"))
        white = Signal(1)
        ep_valid, ep_square = Signal(1), Signal(6)
        opp_now = occupied_now & ~own_now
        with m.If(self.start):
            m.d.sync += [
                occ.eq(occupied_now), own.eq(own_now), king.eq(own_now & of_type(6)),
                own_pawns.eq(own_now & of_type(1)),
                opp_pawns.eq(opp_now & of_type(1)), opp_knights.eq(opp_now & of_type(2)),
                opp_king.eq(opp_now & of_type(6)),
                opp_orth.eq(opp_now & (of_type(4) | of_type(5))), opp_diag.eq(opp_now & (of_type(3) | of_type(5))),
                white.eq(state.white_to_move), ep_valid.eq(state.ep_valid), ep_square.eq(state.ep_square),
            ]
        king_square = _index(m, king, "king_square")

        # ---- en passant: the taken pawn's square, and the two squares a taker may stand on
        taken = Signal(6)
        m.d.comb += taken.eq(Mux(white, ep_square - 8, ep_square + 8))
        takers = []             # (square, a pawn of ours stands there)
        for side in (-1, 1):
            square = Signal(6, name=f"taker{side + 1}")
            on_board = (taken[0:3] != (0 if side < 0 else 7))
            m.d.comb += square.eq(taken + side)
            takers.append((square, ep_valid & on_board & own_pawns.bit_select(square, 1)))

        # ---- the setup sequence: step 0 the leapers, steps 1..24 three fills per direction,
        # then 8 fills per en-passant taker; ``ready`` once it is over
        step = Signal(range(SETUP_STEPS + 1))
        ep_phase = Signal(2)        # 0: first taker, 1: second, 2: done
        ep_direction = Signal(3)
        running, finished = Signal(1), Signal(1)
        attacked, check_mask = Signal(64), Signal(64)
        leaper_checkers = Signal(64)
        checks = Signal(2)          # saturates at 2: double check
        pinned = [Signal(7, name=f"pinned{d}") for d in range(8)]       # square, valid
        ray = Signal(64)
        ep_seen = [Signal(1, name=f"ep_seen{i}") for i in range(2)]     # a slider sees the king after it

        direction = Signal(3)
        phase = Signal(2)
        gen, empty = Signal(64), Signal(64)
        attacks = _fill(m, gen, empty, direction)
        orth = Array(Const(int(df == 0 or dr == 0), 1) for df, dr in _KING_DIRECTIONS)[direction]
        sliders = Mux(orth, opp_orth, opp_diag)
        first = ray & occ           # the first piece on the king's ray (registered ray)

        in_ep = Signal(1)           # the en-passant fills (after the 24 direction fills)
        fill_direction, fill_phase = Signal(3), Signal(2)   # registered: (step - 1) // 3 and % 3
        one = Const(1, 64)
        ep_empty = Signal(64)       # registered: the occupancy's holes with a taker's capture made

        def ep_empty_for(taker):
            return (~occ | (one << takers[taker][0]) | (one << taken)) & ~(one << ep_square)

        m.d.comb += [direction.eq(Mux(in_ep, ep_direction, fill_direction)), phase.eq(fill_phase)]
        with m.If(in_ep):
            m.d.comb += [gen.eq(king), empty.eq(ep_empty)]
        with m.Elif(phase == 0):
            m.d.comb += [gen.eq(sliders), empty.eq(~occ | king)]
        with m.Elif(phase == 1):
            m.d.comb += [gen.eq(king), empty.eq(~occ)]
        with m.Else():
            m.d.comb += [gen.eq(king), empty.eq(~occ | (first & own))]

        m.d.comb += self.ready.eq(finished)
        with m.If(self.start):
            m.d.sync += [running.eq(1), finished.eq(0), step.eq(0), ep_phase.eq(0), ep_direction.eq(0),
                         checks.eq(0), ep_seen[0].eq(0), ep_seen[1].eq(0), in_ep.eq(0),
                         fill_direction.eq(0), fill_phase.eq(0)]
            m.d.sync += [p.eq(0) for p in pinned]
        with m.Elif(running):
            with m.If(step == 0):
                m.d.sync += ep_empty.eq(ep_empty_for(0))
                knight_hits = _leaper_attacks(king, _KNIGHT_JUMPS) & opp_knights
                # the squares from which an opponent pawn would capture onto the king
                pawn_hits = Mux(white, _leaper_attacks(king, ((-1, 1), (1, 1))),
                                _leaper_attacks(king, ((-1, -1), (1, -1)))) & opp_pawns
                pawn_attacks = Mux(white, _leaper_attacks(opp_pawns, ((-1, -1), (1, -1))),
                                   _leaper_attacks(opp_pawns, ((-1, 1), (1, 1))))
                hits = knight_hits | pawn_hits
                m.d.sync += [
                    attacked.eq(_leaper_attacks(opp_knights, _KNIGHT_JUMPS) | pawn_attacks
                                | _leaper_attacks(opp_king, _KING_DIRECTIONS)),
                    leaper_checkers.eq(hits), check_mask.eq(hits),
                    checks.eq(Mux(hits == 0, 0, Mux((hits & (hits - 1)) == 0, 1, 2))),
                    step.eq(1),
                ]
            with m.Elif(~in_ep):
                with m.Switch(phase):
                    with m.Case(0):
                        m.d.sync += attacked.eq(attacked | attacks)
                    with m.Case(1):
                        m.d.sync += ray.eq(attacks)
                    with m.Case(2):
                        with m.If((first & sliders).any()):         # a checking slider
                            m.d.sync += [check_mask.eq(check_mask | ray), checks.eq(Mux(checks == 0, 1, 2))]
                        pin_square = _index(m, first & own, "pin_square")
                        for d in range(8):
                            with m.If((direction == d) & (first & own).any() & (attacks & sliders).any()):
                                m.d.sync += pinned[d].eq(Cat(pin_square, 1))
                m.d.sync += [step.eq(step + 1), fill_phase.eq(Mux(fill_phase == 2, 0, fill_phase + 1)),
                             fill_direction.eq(fill_direction + (fill_phase == 2))]
                with m.If(step == SETUP_STEPS - 1):
                    with m.If(~takers[0][1] & ~takers[1][1]):
                        m.d.sync += [running.eq(0), finished.eq(1)]
                    with m.Else():
                        m.d.sync += in_ep.eq(1)
                        with m.If(~takers[0][1]):
                            m.d.sync += [ep_phase.eq(1), ep_empty.eq(ep_empty_for(1))]
            with m.Else():
                # en passant: the king's rays with both pawns gone and the target filled
                for i in range(2):
                    with m.If((ep_phase == i) & (attacks & sliders).any()):
                        m.d.sync += ep_seen[i].eq(1)
                m.d.sync += ep_direction.eq(ep_direction + 1)
                with m.If(ep_direction == 7):
                    with m.If((ep_phase == 0) & takers[1][1]):
                        m.d.sync += [ep_phase.eq(1), ep_empty.eq(ep_empty_for(1))]
                    with m.Else():
                        m.d.sync += [running.eq(0), finished.eq(1), in_ep.eq(0)]

        # ---- the filter: a move in, its verdict registered with it
        move = self.moves_in.payload
        to_attacked = attacked.bit_select(move.to, 1)
        is_king = move.frm == king_square
        passing = (move.frm + move.to)[1:7]         # the square between (castling only)
        king_ok = Mux(move.castle, (checks == 0) & ~to_attacked & ~attacked.bit_select(passing, 1), ~to_attacked)
        pin_ok = 1
        for d in range(8):
            pin_ok = pin_ok & ~(pinned[d][6] & (move.frm == pinned[d][0:6]) & ~_on_line(king_square, move.to, d))
        ep_ok = Mux(move.frm == takers[1][0], ~ep_seen[1], ~ep_seen[0]) & \
            ((leaper_checkers & ~(one << taken)) == 0)
        other_ok = (checks != 2) & pin_ok & ((checks == 0) | check_mask.bit_select(move.to, 1))
        keep = Mux(is_king, king_ok, Mux(move.en_passant, ep_ok, other_ok))

        out = self.moves_out
        taking = self.moves_in.valid & self.moves_in.ready
        m.d.comb += self.moves_in.ready.eq(finished & (~out.valid | out.ready))
        with m.If(taking):
            m.d.sync += [out.valid.eq(keep), out.payload.eq(move)]
        with m.Elif(out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(self.start):
            m.d.sync += out.valid.eq(0)
        m.d.comb += self.busy.eq(out.valid | running)
        return m

