"""The leaf counter: after a move, the legal moves of the position it leads to, counted whole.

A perft's leaves are the legal moves of the positions one ply above them (the leaf-parents).
Streaming each leaf costs a cycle; :class:`LeafCounter` instead counts a leaf-parent's legal
moves at once, as bitboard perfts do on a CPU: a pseudo-legal move of the position above (the
*frontier*) and that position go in, a cycle each, and a few cycles later the number of legal
moves of the position the move leads to comes out (0 if the move itself leaves its king
attacked), one position a cycle.

The stages, each registered:

1. **make**, in two halves: the move applied to the parent, in a frame where the side that moved is black:
   a parent with white to move is flipped top to bottom with the colours swapped, so that
   everything after this stage counts white's moves only (pawns go up, castling is on the
   first rank, en passant is taken on the sixth);
2. **rays**: per direction, the opponent sliders' rays (run through the mover's king, which
   may not step back along them), the rays from the mover's king, and the mover's own slider
   rays; the leapers' attacks. A line's rays are ``o ^ (o - 2s)`` on its squares in order
   (one short subtraction per line, a carry chain on an FPGA);
3. **checks and pins**: the attacked squares; the checkers and the squares that answer a
   single check (the checker and the squares between it and the king); pinned pieces, per
   line, where a slider's ray and the king's ray meet on one own piece; whether the move that
   led here left its own king (or, castling, the squares it crossed) attacked;
4. **targets**: per direction, the squares the unpinned sliders (and those pinned along that
   line) reach; per jump, the knights'; the pawns' pushes, double pushes and captures, a
   promotion counting four; the king's unattacked squares; castling; en passant, decided by
   its own rules (a pin of the capturing pawn, the taken pawn uncovering a diagonal, the two
   pawns leaving the king's rank, a check);
5. **count**: a population count of all those sets (within one direction or jump no two
   moves share a target square, so each set bit is one move), in an adder tree.

The golden model counts the same leaves by its own method (:func:`hwmovegen.sim.model.leaf_count`:
make, walk the tables, test the king), and the tests compare the two.
"""

from amaranth import Module, Signal, Cat, Const, Mux, Value
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..tables import Direction, rights_kept
from ..tables.lines import KING_STEPS, KNIGHT_STEPS, axis, is_diagonal, opposite, square_mask
from .bitboards import at_least_two, flip_ranks, orient, popcount, shifted, slide, spread, wire
from .board import BoardRAM, BoardView, LoadSignature
from .core import PLANES
from .types import BoardState, Move

__all__ = ["LeafCounter", "LeafCounterTop", "COUNT_WIDTH", "LATENCY"]

COUNT_WIDTH = 11            # legal positions have at most 218 moves; every set's bits together fit 11
ALL = (1 << 64) - 1
RANK = [0xFF << (8 * r) for r in range(8)]


def _table(values):
    """A 64-entry constant table of small ints as a Const, for ``word_select`` by square."""
    width = max(max(values).bit_length(), 1)
    return Const(sum(v << (width * i) for i, v in enumerate(values)), width * 64), width


class _Stage:
    """A pipeline stage's registers: ``reg(name, value)`` registers a value, ``stage[name]``
    reads it back."""

    def __init__(self, m, name):
        self.m, self.name, self.values = m, name, {}

    def reg(self, name, value):
        shape = value.shape() if isinstance(value, data.View) else Value.cast(value).shape()
        signal = Signal(shape, name=f"{self.name}_{name}")
        self.m.d.sync += signal.eq(value)
        self.values[name] = signal
        return signal

    def __getitem__(self, name):
        return self.values[name]


class Child(data.Struct):
    """The position after the move, white to move (the frame of the make stage)."""
    us_pawns: 64
    us_knights: 64
    us_diagonal: 64         # bishops and queens
    us_straight: 64         # rooks and queens
    us_king: 64
    them_pawns: 64
    them_knights: 64
    them_diagonal: 64
    them_straight: 64
    them_king: 64
    castling: 2             # white kingside, queenside
    ep_valid: 1
    ep_file: 3              # the en-passant square is on the sixth rank
    exposed: 64             # squares the move must not have left attacked: black's king, and castling's path


POPCOUNT_STAGES = 3
LATENCY = 1 + 5 + POPCOUNT_STAGES     # the input register, the stages (make in two), the popcount's
EP_SIDES = ((-1, Direction.NE), (1, Direction.NW))     # en passant from the file to the left, to the right


class LeafCounter(wiring.Component):
    """``valid`` with ``planes``, ``state`` (a position) and ``move`` (a pseudo-legal move of
    it); ``LATENCY`` cycles later ``out_valid`` with ``count``, the legal moves of the
    position after the move, and ``legal``, whether the move was (the count is 0 if not).
    With ``null`` the move is ignored and the position itself is counted. One position a
    cycle; ``busy`` while any is in flight.

    It takes no options (its pipeline is fixed: ``LATENCY``).

    Members
    -------
    valid, planes, state, move, null : In(1), In(PLANES), In(BoardState), In(Move), In(1)
        A position and a move of it (or ``null``), every cycle it likes (no backpressure).
    out_valid, count, legal : Out(1), Out(COUNT_WIDTH), Out(1)
        ``LATENCY`` cycles later: the legal moves after the move, and whether it was legal.
    busy : Out(1)
        A position is in flight.
    """

    def __init__(self):
        super().__init__({
            "valid": In(1),
            "planes": In(PLANES),
            "state": In(BoardState),
            "move": In(Move),
            "null": In(1),
            "out_valid": Out(1),
            "count": Out(COUNT_WIDTH),
            "legal": Out(1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        valid = [Signal(1, name=f"valid{i}") for i in range(LATENCY)]
        m.d.sync += valid[0].eq(self.valid)
        for i in range(1, LATENCY):
            m.d.sync += valid[i].eq(valid[i - 1])
        m.d.comb += [self.out_valid.eq(valid[-1]), self.busy.eq(Cat(*valid).any())]

        # ---- input register
        planes = [Signal(64, name=f"in_plane{k}") for k in range(4)]
        state, move, null = Signal(BoardState), Signal(Move), Signal(1)
        m.d.sync += [p.eq(self.planes[k]) for k, p in enumerate(planes)]
        m.d.sync += [state.eq(self.state), move.eq(self.move), null.eq(self.null)]

        child = Signal(Child)
        m.d.sync += [child[name].eq(value) for name, value in self._make(m, planes, state, move, null).items()]
        rays = self._rays(m, child)
        verdicts = self._checks_and_pins(m, rays)
        sets, illegal = self._targets(m, verdicts)
        total = popcount(m, sets, "count", stages=POPCOUNT_STAGES)
        m.d.comb += [self.count.eq(Mux(illegal, 0, total)), self.legal.eq(~illegal)]
        return m

    # ---- stage 1: make, in the frame where black moved and white is to move
    def _make(self, m, planes, state, move, null):
        # in two halves: the board turned into the frame and the move's squares decoded, then
        # the squares changed and the pieces sorted
        f = _Stage(m, "frame")
        flip = state.white_to_move ^ null       # white moved (or, null, is to move): mirror, swap colours
        for k in range(3):
            f.reg(f"type{k}", Mux(flip, flip_ranks(planes[k]), planes[k]))
        view = BoardView(planes, state)
        f.reg("mover", Mux(flip, flip_ranks(view.occupied & ~view.black), view.black))
        frm = wire(m, move.frm ^ Mux(flip, 56, 0), "make_from")
        to = wire(m, move.to ^ Mux(flip, 56, 0), "make_to")
        f_one = wire(m, Mux(null, 0, Const(1, 64) << frm), "make_from_one")
        t_one = wire(m, Mux(null, 0, Const(1, 64) << to), "make_to_one")
        f.reg("to_one", t_one)
        # the piece that moves, read in the board as given (off the mirror's path)
        from_given = wire(m, Const(1, 64) << move.frm, "make_from_given")
        moved = Cat(*[(planes[k] & from_given).any() for k in range(3)])
        f.reg("placed", Mux(move.promotion != 0, move.promotion, moved))
        taken = Mux(move.en_passant & ~null, Const(1, 64) << (to + 8)[:6], 0)     # the white pawn above
        kingside = to[2]
        castle = move.castle & ~null
        f.reg("castle", castle)
        rook_from = Mux(castle, Mux(kingside, 1 << 63, 1 << 56), 0)
        f.reg("cleared", ~(f_one | t_one | taken | rook_from))
        f.reg("rook_to", Mux(castle, Mux(kingside, 1 << 61, 1 << 59), 0))
        f.reg("kingside", kingside)       # (every value above is this cycle's, the registers the next's)
        castling = Mux(flip, Cat(state.castling[2:4], state.castling[0:2]), state.castling)
        kept, width = _table([rights_kept(s) for s in range(64)])
        f.reg("rights", (castling & Mux(null, 0b1111, kept.word_select(frm, width)[:4]
                                         & kept.word_select(to, width)[:4]))[0:2])
        f.reg("ep_valid", Mux(null, state.ep_valid, move.double))
        f.reg("ep_file", Mux(null, state.ep_square[0:3], to[0:3]))

        cleared, t_one, rook_to = f["cleared"], f["to_one"], f["rook_to"]
        t0, t1, t2 = (wire(m, (f[f"type{k}"] & cleared) | Mux(f["placed"][k], t_one, 0)
                           | (rook_to if k == 2 else 0), f"make_child_type{k}") for k in range(3))
        occupied = wire(m, t0 | t1 | t2, "make_occupied")
        black = wire(m, occupied & ((f["mover"] & cleared) | t_one | rook_to), "make_black")
        white = wire(m, occupied & ~black, "make_white")
        kinds = {
            "pawns": t0 & ~t1 & ~t2, "knights": ~t0 & t1 & ~t2, "diagonal": t0 & (t1 ^ t2),
            "straight": t2 & ~t1, "king": ~t0 & t1 & t2,
        }
        # the fields of the child register (no comb struct in between: a wire both read and
        # written by one merged cell, even on different bits, is a feedback arc to CXXRTL)
        their_king = wire(m, kinds["king"] & black, "make_their_king")
        path = Mux(f["kingside"], square_mask([60, 61]), square_mask([60, 59]))
        return {
            **{f"us_{name}": bits & white for name, bits in kinds.items()},
            **{f"them_{name}": bits & black for name, bits in kinds.items() if name != "king"},
            "them_king": their_king,
            "castling": f["rights"],
            "ep_valid": f["ep_valid"],
            "ep_file": f["ep_file"],
            "exposed": their_king | Mux(f["castle"], path, 0),
        }

    @staticmethod
    def _sides(m, c, name):
        """Our pieces, theirs, and all, as signals."""
        us = wire(m, c.us_pawns | c.us_knights | c.us_diagonal | c.us_straight | c.us_king, f"{name}_us")
        them = wire(m, c.them_pawns | c.them_knights | c.them_diagonal | c.them_straight | c.them_king,
                    f"{name}_them")
        return us, them, wire(m, us | them, f"{name}_occupied")

    # ---- stage 2: the rays, the leapers' attacks and checks, en passant's rank
    def _rays(self, m, c):
        us, them, occupied = self._sides(m, c, "rays")
        through_king = wire(m, occupied & ~c.us_king, "rays_through_king")
        r = _Stage(m, "rays")
        r.reg("child", c)
        for d in KING_STEPS:
            theirs, ours = (c.them_diagonal, c.us_diagonal) if is_diagonal(d) else (c.them_straight, c.us_straight)
            all_oriented = orient(m, occupied, d, f"rays_occupied{d}")
            r.reg(f"attack{d}", slide(m, through_king, theirs, d, f"attack{d}"))
            r.reg(f"king{d}", slide(m, occupied, c.us_king, d, f"king{d}", all_oriented))
            r.reg(f"own{d}", slide(m, occupied, ours, d, f"own{d}", all_oriented))
        r.reg("leapers", spread(c.them_knights, KNIGHT_STEPS) | spread(c.them_pawns, (Direction.SE, Direction.SW))
              | spread(c.them_king, KING_STEPS))
        checkers = wire(m, (spread(c.us_king, KNIGHT_STEPS) & c.them_knights)
                        | (spread(c.us_king, (Direction.NE, Direction.NW)) & c.them_pawns), "leaper_checkers")
        r.reg("checkers", checkers)
        r.reg("leaper_check", checkers.any())
        r.reg("leaper_double", at_least_two(checkers))
        r.reg("own_leapers", spread(c.us_knights, KNIGHT_STEPS) | spread(c.us_pawns, (Direction.NE, Direction.NW))
              | spread(c.us_king, KING_STEPS))

        # en passant (the sixth rank's square, the pawn taken on the fifth): which of our pawns
        # stand beside it, and whether taking leaves a rook or queen facing the king on the fifth
        file = c.ep_file
        fifth = lambda bits: bits[32:40]
        empty_target = ~occupied.word_select(5, 8).bit_select(file, 1)
        for side, (offset, _) in enumerate(EP_SIDES):
            source = Signal(3, name=f"ep_source{side}")
            m.d.comb += source.eq(file + offset)
            exists = (file != 0) if offset < 0 else (file != 7)
            pawn = fifth(c.us_pawns).bit_select(source, 1)
            gone = wire(m, ((Const(1, 8) << file) | (Const(1, 8) << source))[:8], f"ep_gone{side}")
            seen = _rank_reach(m, fifth(occupied) & ~gone, fifth(c.us_king), f"ep_rank{side}") & fifth(c.them_straight)
            r.reg(f"ep{side}", c.ep_valid & exists & pawn & empty_target & ~seen.any())
        return r

    # ---- stage 3: attacked squares, checks, pins, the move's own legality
    def _checks_and_pins(self, m, r):
        c = r["child"]
        us, them, occupied = self._sides(m, c, "verdict")
        attacked = r["leapers"]
        answers = r["checkers"]
        checks = []
        pins = [Const(0, 64)] * 4
        uncovering = Const(0, 64)
        own_attacks = r["own_leapers"]
        for d in KING_STEPS:
            attacked = attacked | r[f"attack{d}"]
            toward = r[f"king{opposite(d)}"]            # from the king towards where d's sliders come from
            check = wire(m, (r[f"attack{d}"] & c.us_king).any(), f"check{d}")
            checks.append(check)
            answers = answers | Mux(check, toward, 0)
            meet = r[f"attack{d}"] & toward
            pins[axis(d)] = pins[axis(d)] | (meet & us)
            if is_diagonal(d):
                uncovering = uncovering | (meet & them)
            own_attacks = own_attacks | r[f"own{d}"]
        sliding = wire(m, Cat(*checks), "slider_checks")
        in_check = wire(m, sliding.any() | r["leaper_check"], "in_check")
        double = wire(m, at_least_two(sliding) | r["leaper_double"] | (sliding.any() & r["leaper_check"]),
                      "double_check")
        answers = wire(m, Mux(in_check, answers, ALL), "answers")
        v = _Stage(m, "verdicts")
        v.reg("child", c)
        v.reg("attacked", attacked)
        v.reg("in_check", in_check)
        v.reg("allowed", ~us & Mux(double, 0, answers))
        v.reg("ep_answers", answers[32:48])         # the fifth and sixth ranks, for en passant
        v.reg("double", double)
        for a in range(4):
            v.reg(f"pin{a}", pins[a])
        v.reg("uncovering", uncovering[32:40])     # the fifth rank, where a pawn is taken en passant
        for side in range(2):
            v.reg(f"ep{side}", r[f"ep{side}"])
        v.reg("illegal", (own_attacks & c.exposed).any())
        return v

    # ---- stage 4: the targets, as sets whose bits are moves
    def _targets(self, m, v):
        c = v["child"]
        us, them, occupied = self._sides(m, c, "targets")
        empty = wire(m, ~occupied, "targets_empty")
        allowed = v["allowed"]
        pins = [wire(m, v[f"pin{a}"], f"pins{a}") for a in range(4)]
        pinned = wire(m, pins[0] | pins[1] | pins[2] | pins[3], "pinned")

        def free_along(pieces, d):          # not pinned, or pinned along d's line
            return pieces & ~(pinned & ~pins[axis(d)])

        t = _Stage(m, "targets")
        for d in KING_STEPS:
            sliders = c.us_diagonal if is_diagonal(d) else c.us_straight
            t.reg(f"slide{d}", slide(m, occupied, free_along(sliders, d), d, f"slide{d}") & allowed)
        knights = wire(m, c.us_knights & ~pinned, "free_knights")
        for j in KNIGHT_STEPS:
            t.reg(f"jump{j}", shifted(knights, j) & allowed)
        pawns = [wire(m, free_along(c.us_pawns, d), f"free_pawns{d}") for d in (0, 7, 1)]
        single = wire(m, shifted(pawns[0], 0) & empty, "single_push")
        pushes = wire(m, single & allowed, "push_targets")
        left = wire(m, shifted(pawns[1], 7) & them & allowed, "left_targets")      # towards the a-file
        right = wire(m, shifted(pawns[2], 1) & them & allowed, "right_targets")
        for name, bits in (("push", pushes), ("left", left), ("right", right)):
            t.reg(name, bits[:56])
            t.reg(f"{name}_promotion", bits[56:64])
        double_from = wire(m, single & RANK[2], "double_from")
        t.reg("double", (shifted(double_from, 0) & empty & allowed)[24:32])
        t.reg("king", spread(c.us_king, KING_STEPS) & ~us & ~v["attacked"])

        # castling: the king at home, the right, the path empty, not out of, through or into check
        safe = wire(m, ~v["attacked"], "safe")
        home = c.us_king[4] & ~v["in_check"]
        t.reg("castle_kingside", c.castling[0] & home & empty[5] & empty[6] & safe[5] & safe[6])
        t.reg("castle_queenside", c.castling[1] & home & empty[1] & empty[2] & empty[3] & safe[2] & safe[3])

        # en passant: the capturing pawn pinned off the capture's diagonal, the taken pawn the
        # only piece between the king and a bishop or queen, a check it does not answer
        file = c.ep_file
        answers = v["ep_answers"]
        check_ok = ~v["double"] & (answers[0:8].bit_select(file, 1) | answers[8:16].bit_select(file, 1))
        uncovered = v["uncovering"].bit_select(file, 1)
        for side, (offset, capture) in enumerate(EP_SIDES):
            source = Signal(3, name=f"ep_from{side}")
            m.d.comb += source.eq(file + offset)
            pin_ok = ~pinned[32:40].bit_select(source, 1) | pins[axis(capture)][32:40].bit_select(source, 1)
            t.reg(f"ep{side}", v[f"ep{side}"] & pin_ok & check_ok & ~uncovered)

        # each set's bits are moves; a promotion is four (q, r, b, n)
        sets = [t[f"slide{d}"] for d in KING_STEPS] + [t[f"jump{j}"] for j in KNIGHT_STEPS]
        for name in ("push", "left", "right"):
            sets += [t[name]] + [t[f"{name}_promotion"]] * 4
        sets += [t["double"], t["king"], Cat(t["castle_kingside"], t["castle_queenside"], t["ep0"], t["ep1"])]
        illegal = v["illegal"]
        for i in range(1 + POPCOUNT_STAGES):    # beside the targets' register and the popcount's
            reg = Signal(1, name=f"illegal{i}")
            m.d.sync += reg.eq(illegal)
            illegal = reg
        return sets, illegal


def _rank_reach(m, occupied, king, name):
    """The squares of an eight-square rank a rook on ``king`` (one-hot) sees, both ways."""
    occupied = wire(m, occupied, f"{name}_occupied")

    def towards_h(o, s):
        return (o ^ (o - (s << 1))[:8])[:8]
    reverse = lambda bits: Cat(*[bits[7 - f] for f in range(8)])
    return towards_h(occupied, king) | reverse(towards_h(reverse(occupied), reverse(king)))


class LeafCounterTop(wiring.Component):
    """A :class:`LeafCounter` on a :class:`~.board.BoardRAM`: load a position, then give its
    moves one a cycle (or ``null`` to count it as it stands). For simulation drivers and tests,
    which count many moves of one position the way a perft engine's frontier does."""

    def __init__(self):
        super().__init__({
            "load": In(LoadSignature()),
            "valid": In(1),
            "move": In(Move),
            "null": In(1),
            "out_valid": Out(1),
            "count": Out(COUNT_WIDTH),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.board = board = BoardRAM()
        m.submodules.counter = counter = LeafCounter()
        wiring.connect(m, wiring.flipped(self.load), board.load)
        m.d.comb += [
            counter.planes.eq(board.planes), counter.state.eq(board.state),
            counter.valid.eq(self.valid), counter.move.eq(self.move), counter.null.eq(self.null),
            self.out_valid.eq(counter.out_valid), self.count.eq(counter.count), self.busy.eq(counter.busy),
        ]
        return m
