"""The legality stage: a pseudo-legal move stream in, the legal moves out, one move a cycle.

Per position, after ``start``, the setup reads the board one rank a cycle, up from the first
rank to the eighth and back down from the seventh (``SETUP_CYCLES``, the same for every
position), and keeps eight-square-wide state only:

* the squares the opponent attacks, with the mover's king taken off the occupancy (so that
  a king cannot step back along a checking slider's ray), on the three ranks around the king
  (all its moves, castling included, land there). Each sweep carries the opponent's sliders'
  rays from rank to rank (straight and both diagonals), with the knights, pawns and king of
  the ranks just passed; a rank's own sliders along it by a subtraction (``o ^ (o - 2s)``);
* the king's rank, found on the way up; from the next rank on, a tracker per ray from the
  king (up: N, NE, NW; down: S, SE, SW; and E, W along the king's rank, stored as the sweep
  passed it) reads one square a cycle. The first piece a matching slider: a checker (its
  square and ray); an own piece with one behind it: pinned to that line;
* knight and pawn checkers, from the turn on, on the ranks around the king;
* for each square a pawn may take en passant from, the same rays with both pawns gone and
  the target square filled: a slider seen, or a leaper check other than by the taken pawn,
  makes that capture illegal (the rank case of ``8/8/8/KPp4r/...``).

Then each move is passed or dropped in the cycle it arrives:

* king moves only to unattacked squares; castling only out of check, through and onto
  unattacked squares;
* in double check, king moves only; in single check, a non-king move must take the checker
  or land between it and the king on its ray;
* a pinned piece stays on the line through its king;
* en passant by its precomputed verdict.

The stage is the setup, :class:`SetupSweep` (with an :class:`AttackMap`, a :class:`RayTracker`
per ray from the king and a :class:`CheckCounter`), handing :data:`KingSafety` to the filter,
:class:`MoveFilter`. The setup takes ``SETUP_CYCLES`` (the contract
:mod:`hwmovegen.tables.contracts` shares with the model); the core's first moves wait for it in
the core's own output FIFO. The board must hold the position through the setup, as it does
while the generator is busy.
"""

from amaranth import Module, Signal, Cat, Const, Mux, Array, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..tables import Direction
from ..tables.contracts import LEGAL_SETUP_CYCLES as SETUP_CYCLES
from ..tables.slots import DIRECTIONS
from .core import PLANES
from .types import BoardState, Move

__all__ = ["LegalityStage", "SetupSweep", "AttackMap", "RayTracker", "CheckCounter", "MoveFilter",
           "KingSafety", "KingSafetyWithStep", "SETUP_CYCLES"]

_KING_DIRECTIONS = DIRECTIONS[:8]           # N, NE, E, SE, S, SW, W, NW: a direction's axis is its index % 4


def _up(bits, k=1):
    """An eight-square rank moved ``k`` files towards h."""
    return (bits << k)[:8]


def _down(bits, k=1):
    return bits >> k


def _around(bits, k):
    return _up(bits, k) | _down(bits, k)


def _reverse(bits):
    return Cat(*[bits[7 - f] for f in range(8)])


def _rook_attacks(occupied, sliders):
    """The squares the ``sliders`` of a rank attack along it (each stops on the first
    occupied square): towards h by ``o ^ (o - 2s)``, towards a the same, reversed."""
    def towards_h(o, s):
        return (o ^ (o - (s << 1)))[:8]
    return towards_h(occupied, sliders) | _reverse(towards_h(_reverse(occupied), _reverse(sliders)))


def _file_of(one_hot):
    """The file of a one-hot rank (0 when it is empty)."""
    return Cat(*[Cat(*[one_hot[f] for f in range(8) if f >> b & 1]).any() for b in range(3)])


def _on_line(a, b, axis):
    """Whether squares ``a`` and ``b`` lie on one line along ``axis`` (a direction index % 4)."""
    df, dr = _KING_DIRECTIONS[axis]
    fa, ra, fb, rb = a[0:3], a[3:6], b[0:3], b[3:6]
    if df == 0:
        return fa == fb
    if dr == 0:
        return ra == rb
    if df == dr:
        return (fa - ra)[:4] == (fb - rb)[:4]
    return (fa + ra) == (fb + rb)


# What the setup sweep tells the filter about the mover's king, final from the end of the setup.
_SAFETY = {
    "king": 6,                  # its square
    "below": 8,                 # the squares the opponent attacks (the king off the board) on the
    "level": 8,                 # rank under it, its own rank and the rank above it
    "above": 8,
    "checks": 2,                # 0, 1, 2: double check (it saturates)
    "checker": 6,               # the checker of a single check: its square, whether a slider, its ray's axis
    "checker_slider": 1,
    "checker_axis": 2,
    "pinned": data.ArrayLayout(data.StructLayout({"square": 6, "valid": 1}), 8),   # by ray from the king
    "ep_east": 6,               # the square east of the pawn en passant takes (the other taker is west)
    "ep_seen": 2,               # en passant by the west, east taker: a slider sees the king through it
    "leaper_other": 1,          # a knight or pawn check other than by the pawn en passant takes
}
KingSafety = data.StructLayout(_SAFETY)
# ... and for a stage built with ``king_step``: whether the king has a step the filter passes
KingSafetyWithStep = data.StructLayout({**_SAFETY, "king_step": 1})


# A rank under the sweep, decoded for the side to move: a vector of its eight squares each.
SweptRank = data.StructLayout({name: 8 for name in (
    "occupied", "own", "orth", "diag", "knights", "pawns", "opp_king",
    "empty",                    # the mover's king counted as empty
)})

# The en-passant squares, registered at start: the target, the pawn en passant takes, and the
# squares it may be taken from (west, east).
EnPassant = data.StructLayout({"valid": 1, "square": 6, "taken": 6, "takers": data.ArrayLayout(6, 2)})

# A check seen in a cycle of the sweep: by a slider on a ray from the king (that ray's
# direction), or by a leaper (slider and direction 0).
CheckEvent = data.StructLayout({"seen": 1, "square": 6, "slider": 1, "direction": 3})


class AttackMap(wiring.Component):
    """The squares of the rank under the sweep the opponent attacks (``attacks``, in the cycle
    the rank is read): the rays entering it from the ranks passed (straight and both diagonals,
    carried over empty squares), the knights, pawns and king of the last two ranks, and the
    rank's own sliders along it (``o ^ (o - 2s)``). Where the sweep is ``turning``, the eighth
    rank starts the way down."""

    def __init__(self):
        super().__init__({
            "start": In(1),
            "sweeping": In(1),
            "down": In(1),
            "turning": In(1),
            "white": In(1),
            "rank": In(SweptRank),
            "attacks": Out(8),
        })

    def elaborate(self, platform):
        m = Module()
        rank = self.rank
        ray_straight, ray_up, ray_down = (Signal(8, name=n) for n in ("ray_straight", "ray_up", "ray_down"))
        knights1, knights2, pawns1, king1 = (Signal(8, name=n) for n in ("knights1", "knights2", "pawns1", "king1"))
        pawns_forward = Mux(self.down, self.white, ~self.white)    # the opponent's pawns attack in the sweep's direction
        m.d.comb += self.attacks.eq(
            ray_straight | ray_up | ray_down | _around(knights1, 2) | _around(knights2, 1)
            | Mux(pawns_forward, _around(pawns1, 1), 0) | _around(king1, 1) | king1 | _around(rank.opp_king, 1)
            | _rook_attacks(~rank.empty, rank.orth))
        carried = [Mux(self.turning, 0, ray) for ray in (ray_straight, ray_up, ray_down, knights1)]
        with m.If(self.start):
            m.d.sync += [s.eq(0) for s in (ray_straight, ray_up, ray_down, knights1, knights2, pawns1, king1)]
        with m.Elif(self.sweeping):
            m.d.sync += [
                ray_straight.eq((carried[0] & rank.empty) | rank.orth),
                ray_up.eq(_up((carried[1] & rank.empty) | rank.diag)),
                ray_down.eq(_down((carried[2] & rank.empty) | rank.diag)),
                knights1.eq(rank.knights), knights2.eq(carried[3]), pawns1.eq(rank.pawns), king1.eq(rank.opp_king),
            ]
        return m


class RayTracker(wiring.Component):
    """A ray from the king, a square a cycle while ``valid``: reads (``occupied``, ``own``,
    matching ``slider``) at (``file``, ``rank``); its direction is ``directions[down]``. The
    first piece a matching slider: ``check`` (the checker on ``square``); an own piece with one
    behind it: ``pin`` (``candidate`` pinned along ``direction``). For each en-passant taker,
    the ray with both pawns gone and the target square filled: ``ep_seen`` when a slider is
    its first piece. ``reset`` starts the ray again."""

    def __init__(self, directions):
        self.directions = directions
        super().__init__({
            "sweeping": In(1),
            "down": In(1),
            "reset": In(1),
            "file": In(3),
            "rank": In(3),
            "valid": In(1),
            "occupied": In(8),
            "own": In(8),
            "slider": In(8),
            "en_passant": In(EnPassant),
            "check": Out(1),
            "square": Out(6),
            "direction": Out(3),
            "pin": Out(1),
            "candidate": Out(6),
            "ep_seen": Out(2),
        })

    def elaborate(self, platform):
        m = Module()
        stage = Signal(2)           # 0 nothing seen, 1 an own piece, 2 done
        candidate = self.candidate
        blocked = Signal(2)         # en passant by taker i: a piece seen
        square = Cat(self.file, self.rank)
        occupied, mine, slider = (v.bit_select(self.file, 1) for v in (self.occupied, self.own, self.slider))
        live = Signal(1)
        m.d.comb += live.eq(self.sweeping & self.valid)
        m.d.comb += [self.square.eq(square), self.direction.eq(Mux(self.down, self.directions[1], self.directions[0])),
                     self.check.eq(live & occupied & (stage == 0) & slider),
                     self.pin.eq(live & occupied & (stage == 1) & slider)]
        with m.If(live & occupied & (stage != 2)):
            with m.If((stage == 0) & mine):
                m.d.sync += [stage.eq(1), candidate.eq(square)]
            with m.Else():
                m.d.sync += stage.eq(2)
        # en passant: both pawns gone, the target square filled
        ep = self.en_passant
        gone = square == ep.taken
        filled = ep.valid & (square == ep.square)
        for i in range(2):
            occupied_after = (occupied & ~gone & (square != ep.takers[i])) | filled
            with m.If(live & ~blocked[i] & occupied_after):
                m.d.sync += blocked[i].eq(1)
            m.d.comb += self.ep_seen[i].eq(live & ~blocked[i] & occupied_after & slider & ~filled)
        with m.If(self.reset):
            m.d.sync += [stage.eq(0), blocked.eq(0)]
        return m


class CheckCounter(wiring.Component):
    """The checks the sweep sees: their count, saturating at 2 (double check), and the checker
    of a single check (its square, whether a slider, the axis of its ray). ``events``: this
    cycle's checks (the first seen names the checker); ``several``: one of them stands for two
    checkers or more."""

    def __init__(self, events):
        super().__init__({
            "start": In(1),
            "events": In(data.ArrayLayout(CheckEvent, events)),
            "several": In(1),
            "checks": Out(2),
            "checker": Out(6),
            "checker_slider": Out(1),
            "checker_axis": Out(2),
        })

    def elaborate(self, platform):
        m = Module()
        checks = self.checks
        events = [self.events[i] for i in range(len(self.events))]
        seen = [event.seen for event in events]
        one, two = Signal(1), Signal(1)     # a checker this cycle, two or more
        m.d.comb += [one.eq(Cat(*seen).any()),
                     two.eq(self.several | Cat(*[a & b for i, a in enumerate(seen) for b in seen[i + 1:]]).any())]
        with m.If(self.start):
            m.d.sync += checks.eq(0)
        with m.Else():
            m.d.sync += checks.eq(Mux(two | checks[1] | (one & checks[0]), 2, checks | one))
            for event in reversed(events):
                with m.If(event.seen):
                    m.d.sync += [self.checker.eq(event.square), self.checker_slider.eq(event.slider),
                                 self.checker_axis.eq(event.direction)]
        return m


class SetupSweep(wiring.Component):
    """The setup: from ``start`` (the board holds the position through it) the board a rank a
    cycle, up and down again (``SETUP_CYCLES``), into ``safety``. ``ready`` from the end of the
    sweep until the next ``start``, ``busy`` during it. With ``king_step``, ``safety`` has whether
    the king has a legal step (:data:`KingSafetyWithStep`)."""

    def __init__(self, *, king_step=False):
        self.with_king_step = king_step
        super().__init__({
            "start": In(1),
            "planes": In(PLANES),
            "state": In(BoardState),
            "safety": Out(KingSafetyWithStep if king_step else KingSafety),
            "ready": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        running, finished, down = Signal(1), Signal(1), Signal(1)
        row = Signal(3)
        sweeping = running                  # a start mid-sweep wins: its resets come last below

        # ---- the state the sweep (and the filter: ``ep_east``) needs, registered at start
        state = self.state
        white = Signal(1)
        en_passant = Signal(EnPassant)
        taken_now = Mux(state.white_to_move, state.ep_square - 8, state.ep_square + 8)[:6]
        with m.If(self.start):
            m.d.sync += [white.eq(state.white_to_move), en_passant.valid.eq(state.ep_valid),
                         en_passant.square.eq(state.ep_square), en_passant.taken.eq(taken_now),
                         en_passant.takers[0].eq(taken_now - 1), en_passant.takers[1].eq(taken_now + 1)]
        taken = en_passant.taken

        # ---- the rank under the sweep, read a cycle ahead (the sweep's order is fixed): up from
        # the first rank, then down from the seventh (the turn reads the eighth for both)
        turning = ~down & (row == 7)
        sweep_row = Mux(down, row - 1, Mux(turning, 6, row + 1))
        rank = [Signal(8, name=f"rank_plane{k}") for k in range(4)]
        # start picks the first rank, a constant select: it only drives the last multiplexer
        # before the rank registers (in a large perft array it arrives from far off)
        with m.If(self.start):
            m.d.sync += [row.eq(0)] + [rank[k].eq(self.planes[k][0:8]) for k in range(4)]
        with m.Elif(sweeping):
            m.d.sync += [row.eq(sweep_row)] + [rank[k].eq(self.planes[k].word_select(sweep_row[:3], 8))
                                               for k in range(4)]
        t0, t1, t2, black = rank
        occ = t0 | t1 | t2
        own = occ & Mux(white, ~black, black)
        opp = occ & ~own
        orth = opp & t2 & ~t1                   # rook, queen
        diag = opp & t0 & (t1 ^ t2)             # bishop, queen
        knights = opp & ~t0 & t1 & ~t2
        pawns = opp & t0 & ~t1 & ~t2
        kings = ~t0 & t1 & t2
        own_king, opp_king = own & kings, opp & kings
        empty = ~occ | own_king                 # the mover's king off the board
        swept = Signal(SweptRank)
        m.d.comb += [swept.occupied.eq(occ), swept.own.eq(own), swept.orth.eq(orth), swept.diag.eq(diag),
                     swept.knights.eq(knights), swept.pawns.eq(pawns), swept.opp_king.eq(opp_king),
                     swept.empty.eq(empty)]

        # ---- the opponent's attacks on the rank under the sweep
        m.submodules.attack_map = attack_map = AttackMap()
        m.d.comb += [attack_map.start.eq(self.start), attack_map.sweeping.eq(sweeping), attack_map.down.eq(down),
                     attack_map.turning.eq(turning), attack_map.white.eq(white), attack_map.rank.eq(swept)]
        attacks = attack_map.attacks

        # ---- the king: found on the way up; the attacked squares on its rank and either side
        found = Signal(1)
        king_file, king_rank = Signal(3), Signal(3)
        king_square = Cat(king_file, king_rank)
        finding = sweeping & ~down & ~found & own_king.any()
        file_now = _file_of(own_king)
        below, level, above, last_attacks = (Signal(8, name=n) for n in ("below", "level", "above", "last_attacks"))
        # the own pieces on the same three ranks, for ``king_step``
        if self.with_king_step:
            own_below, own_level, own_above, last_own = (Signal(8, name=f"own_{n}")
                                                         for n in ("below", "level", "above", "last"))
            with m.If(sweeping):
                m.d.sync += [last_attacks.eq(attacks), last_own.eq(own)]
        else:
            with m.If(sweeping):
                m.d.sync += last_attacks.eq(attacks)
        # the rank under the sweep less the king's (once found). Not from ``start``: the offset is read
        # only once the king is found, and each sweep's first cycle writes it afresh (in a large perft
        # array, start in the subtraction was the critical path)
        offset = Signal(signed(4))
        with m.If(sweeping):
            m.d.sync += offset.eq(sweep_row - Mux(finding, row, king_rank))
        with m.If(finding):
            m.d.sync += [found.eq(1), king_file.eq(file_now), king_rank.eq(row),
                         below.eq(below | last_attacks), level.eq(level | attacks),
                         *([own_below.eq(last_own), own_level.eq(own)] if self.with_king_step else [])]
        with m.If(sweeping & found & (offset == 1)):
            m.d.sync += [above.eq(above | attacks), *([own_above.eq(own)] if self.with_king_step else [])]
        with m.If(sweeping & down):
            with m.If(offset == 0):
                m.d.sync += level.eq(level | attacks)
            with m.If(offset == -1):
                m.d.sync += below.eq(below | attacks)

        # ---- the rays from the king, a square a cycle
        pinned = [Signal(7, name=f"pinned{d}") for d in range(8)]       # square, valid
        ep_seen = [Signal(1, name=f"ep_seen{i}") for i in range(2)]
        leaper_other = Signal(1)            # a knight or pawn check other than by the taken pawn
        rank_occ, rank_own, rank_orth = (Signal(8, name=n) for n in ("rank_occ", "rank_own", "rank_orth"))
        with m.If(finding):
            m.d.sync += [rank_occ.eq(occ), rank_own.eq(own), rank_orth.eq(orth)]

        def ray_file(name, load, first, step, stepping):
            """The file of a diagonal or horizontal ray's square: ``first`` + ``step`` when
            loaded, then a step each ``stepping`` cycle; ``valid`` until it leaves the board."""
            file, valid = Signal(3, name=f"{name}_file"), Signal(1, name=f"{name}_valid")
            edge = 7 if step > 0 else 0
            with m.If(load):
                m.d.sync += [file.eq(first + step), valid.eq(first != edge)]
            with m.Elif(stepping):
                m.d.sync += [file.eq(file + step), valid.eq(valid & (file != edge))]
            return file, valid

        def tracker(name, file, valid, rank, vectors, directions, reset):
            """A ray from the king read at (``file``, ``rank``) in (occupied, own, slider) ``vectors``."""
            ray = m.submodules[name] = RayTracker(directions)
            m.d.comb += [ray.sweeping.eq(sweeping), ray.down.eq(down), ray.reset.eq(reset), ray.file.eq(file),
                         ray.rank.eq(rank), ray.valid.eq(valid), ray.occupied.eq(vectors[0]), ray.own.eq(vectors[1]),
                         ray.slider.eq(vectors[2]), ray.en_passant.eq(en_passant)]
            return ray

        on_ray = Mux(down, offset < 0, found)      # the ranks beyond the king in the sweep's direction
        rays_reset = self.start | (sweeping & turning)
        diagonal_load = finding | (sweeping & turning)     # for the way up, then for the way down
        diagonal_first = Mux(finding, file_now, king_file)
        plus, plus_valid = ray_file("plus", diagonal_load, diagonal_first, 1, sweeping & on_ray)
        minus, minus_valid = ray_file("minus", diagonal_load, diagonal_first, -1, sweeping & on_ray)
        east, east_valid = ray_file("east", finding, file_now, 1, sweeping & down)
        west, west_valid = ray_file("west", finding, file_now, -1, sweeping & down)
        rank_vectors = (rank_occ, rank_own, rank_orth)
        N, NE, E, SE, S, SW, W, NW = Direction       # each ray's direction going up, and down
        rays = [
            tracker("straight", king_file, on_ray, row, (occ, own, orth), (N, S), rays_reset),
            tracker("plus", plus, on_ray & plus_valid, row, (occ, own, diag), (NE, SE), rays_reset),
            tracker("minus", minus, on_ray & minus_valid, row, (occ, own, diag), (NW, SW), rays_reset),
            tracker("east", east, down & east_valid, king_rank, rank_vectors, (E, E), self.start),
            tracker("west", west, down & west_valid, king_rank, rank_vectors, (W, W), self.start),
        ]
        for ray in rays:                    # a pin, kept by direction; en passant seen through, by taker
            with m.If(ray.pin):
                with m.Switch(ray.direction):
                    for d in sorted(set(ray.directions)):
                        with m.Case(d):
                            m.d.sync += pinned[d].eq(Cat(ray.candidate, 1))
        for i in range(2):
            with m.If(Cat(*[ray.ep_seen[i] for ray in rays]).any()):
                m.d.sync += ep_seen[i].eq(1)

        # ---- knight and pawn checkers, from the turn on (the king's rank is known)
        king_one = Signal(8)
        m.d.comb += king_one.eq(Const(1, 8) << king_file)
        next_to = _around(king_one, 1)
        distance1 = (offset == 1) | (offset == -1)
        distance2 = (offset == 2) | (offset == -2)
        pawn_rank = offset == Mux(white, 1, -1)
        knight_hits = knights & Mux(distance1, _around(king_one, 2), Mux(distance2, next_to, 0))
        pawn_hits = pawns & Mux(pawn_rank, next_to, 0)
        leapers = sweeping & found & (down | turning)
        hits = Signal(8)
        m.d.comb += hits.eq(Mux(leapers, knight_hits | pawn_hits, 0))
        taken_here = Mux(row == taken[3:6], Const(1, 8) << taken[0:3], 0)
        with m.If(leapers & ((knight_hits != 0) | ((pawn_hits & ~taken_here) != 0))):
            m.d.sync += leaper_other.eq(1)

        # ---- the checks: a saturating count, and the checker of a single check
        m.submodules.checks = counter = CheckCounter(len(rays) + 1)
        m.d.comb += [counter.start.eq(self.start), counter.several.eq((hits & (hits - 1)) != 0)]
        for event, ray in zip(counter.events, rays):
            m.d.comb += [event.seen.eq(ray.check), event.square.eq(ray.square), event.slider.eq(1),
                         event.direction.eq(ray.direction)]
        leaper = counter.events[len(rays)]
        m.d.comb += [leaper.seen.eq(hits.any()), leaper.square.eq(Cat(_file_of(hits), row))]
        with m.If(self.start):
            m.d.sync += [leaper_other.eq(0), ep_seen[0].eq(0), ep_seen[1].eq(0),
                         found.eq(0), below.eq(0), level.eq(0), above.eq(0)]
            m.d.sync += [p.eq(0) for p in pinned]

        # ---- the sweep: up from the first rank, back down from the seventh (``row`` above)
        m.d.comb += [self.ready.eq(finished), self.busy.eq(running)]
        with m.If(self.start):
            m.d.sync += [running.eq(1), finished.eq(0), down.eq(0)]
        with m.Elif(sweeping & turning):
            m.d.sync += down.eq(1)
        with m.Elif(sweeping & down & (row == 0)):
            m.d.sync += [running.eq(0), finished.eq(1)]

        safety = self.safety
        m.d.comb += [
            safety.king.eq(king_square), safety.below.eq(below), safety.level.eq(level), safety.above.eq(above),
            safety.checks.eq(counter.checks), safety.checker.eq(counter.checker),
            safety.checker_slider.eq(counter.checker_slider), safety.checker_axis.eq(counter.checker_axis),
            safety.ep_east.eq(en_passant.takers[1]), safety.ep_seen.eq(Cat(*ep_seen)),
            safety.leaper_other.eq(leaper_other),
        ]
        if self.with_king_step:
            # a king step the filter passes: onto a square of the three ranks neither own nor
            # attacked (the ranks off the board left out)
            files = next_to | king_one
            free = [~attacked & ~mine for attacked, mine in ((below, own_below), (level, own_level),
                                                             (above, own_above))]
            m.d.comb += safety.king_step.eq(((king_rank != 0) & (free[0] & files).any()) |
                                            (free[1] & next_to).any() |
                                            ((king_rank != 7) & (free[2] & files).any()))
        m.d.comb += [safety.pinned[d].as_value().eq(pinned[d]) for d in range(8)]
        return m


class MoveFilter(wiring.Component):
    """A move in, passed or dropped by ``safety`` in the cycle it arrives, out the next cycle.
    Moves are taken while ``judging`` (the setup is done); ``start`` drops a held move.
    ``safety``'s layout is the setup's (:data:`KingSafety`, or :data:`KingSafetyWithStep`)."""

    def __init__(self, safety=KingSafety):
        super().__init__({
            "start": In(1),
            "judging": In(1),
            "safety": In(safety),
            "moves_in": In(stream.Signature(Move)),
            "moves_out": Out(stream.Signature(Move)),
        })

    def elaborate(self, platform):
        m = Module()
        safety = self.safety
        king_square, checks, checker = safety.king, safety.checks, safety.checker
        king_rank = king_square[3:6]
        below, level, above = safety.below, safety.level, safety.above
        move = self.moves_in.payload
        is_king = move.frm == king_square
        to_rank = move.to[3:6]
        around_king = Mux(to_rank == king_rank, level, Mux(to_rank == king_rank + 1, above, below))
        to_attacked = around_king.bit_select(move.to[0:3], 1)
        passing = Mux(move.to[2], 5, 3)             # castling: the square the king passes
        king_ok = Mux(move.castle, (checks == 0) & ~to_attacked & ~level.bit_select(passing, 1), ~to_attacked)
        lines = Array(_on_line(king_square, move.to, axis) for axis in range(4))
        pin_ok = 1
        for d in range(8):
            pin_ok = pin_ok & ~(safety.pinned[d].valid & (move.frm == safety.pinned[d].square) & ~lines[d % 4])
        beyond = Mux(checker > king_square, (king_square < move.to) & (move.to <= checker),
                     (checker <= move.to) & (move.to < king_square))
        check_ok = (move.to == checker) | (safety.checker_slider & lines[safety.checker_axis] & beyond)
        ep_ok = Mux(move.frm == safety.ep_east, ~safety.ep_seen[1], ~safety.ep_seen[0]) & ~safety.leaper_other
        other_ok = (checks != 2) & pin_ok & ((checks == 0) | check_ok)
        keep = Mux(is_king, king_ok, Mux(move.en_passant, ep_ok, other_ok))

        out = self.moves_out
        taking = self.moves_in.valid & self.moves_in.ready
        m.d.comb += self.moves_in.ready.eq(self.judging & (~out.valid | out.ready))
        with m.If(taking):
            m.d.sync += [out.valid.eq(keep), out.payload.eq(move)]
        with m.Elif(out.ready):
            m.d.sync += out.valid.eq(0)
        with m.If(self.start):
            m.d.sync += out.valid.eq(0)
        return m


class LegalityStage(wiring.Component):
    """``start`` in the cycle a position starts (the board holds it, and keeps it through the
    setup); ``moves_in`` from the core, ``moves_out`` the legal ones. ``ready`` from the end
    of the setup until the next ``start``; ``busy`` during the setup and while a move is held.
    The setup sweep (:class:`SetupSweep`) hands the per-move filter (:class:`MoveFilter`) what it
    found about the mover's king (:data:`KingSafety`).

    Its sweep's length is the contract's ``LEGAL_SETUP_CYCLES``. ``king_step=True`` adds the
    ``king_step`` output.

    Members
    -------
    start : In(1)
        A position starts; the setup reads ``planes`` and ``state`` a rank a cycle from now.
    planes, state : In(PLANES), In(BoardState)
        The position, held through the setup.
    moves_in : In(stream.Signature(Move))
        The core's pseudo-legal moves; taken once the setup is over.
    moves_out : Out(stream.Signature(Move))
        The legal ones, in the same order.
    ready, busy : Out(1)
        The setup is over / a setup runs or a move is held.
    king_step : Out(1), with ``king_step=True`` only
        With ``ready``: the king has a legal step (onto a square neither own nor attacked), so the
        position has a legal move whatever the core streams (a captures core's stalemate test).
    """

    def __init__(self, *, king_step=False):
        self.with_king_step = king_step
        super().__init__({
            "start": In(1),
            "planes": In(PLANES),
            "state": In(BoardState),
            "moves_in": In(stream.Signature(Move)),
            "moves_out": Out(stream.Signature(Move)),
            "ready": Out(1),
            "busy": Out(1),
            **({"king_step": Out(1)} if king_step else {}),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.setup = setup = SetupSweep(king_step=self.with_king_step)
        m.submodules.filter = move_filter = MoveFilter(setup.safety.shape())
        m.d.comb += [setup.start.eq(self.start), setup.planes.eq(self.planes), setup.state.eq(self.state),
                     move_filter.start.eq(self.start), move_filter.judging.eq(setup.ready),
                     move_filter.safety.eq(setup.safety),
                     self.ready.eq(setup.ready), self.busy.eq(move_filter.moves_out.valid | setup.busy)]
        if self.with_king_step:
            m.d.comb += self.king_step.eq(setup.safety.king_step)
        wiring.connect(m, wiring.flipped(self.moves_in), move_filter.moves_in)
        wiring.connect(m, move_filter.moves_out, wiring.flipped(self.moves_out))
        return m
