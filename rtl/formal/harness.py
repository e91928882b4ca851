"""What every formal harness shares: a free position and what a legal FEN implies about it,
the generator's soundness conditions on a move (:func:`move_checks`), the squares between and
along two squares' line, named assertions and covers (:class:`Checks`), and the harness base
(:class:`Harness`: its only port is the clock)."""

from amaranth import ClockDomain, Elaboratable, Fragment, Module, Signal, Cat, Const, Mux
from amaranth.asserts import AnyConst     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assert, Assume, Cover

from ...tables import PieceType
from ..board import BoardView
from ..core import PLANES
from ..types import BoardState, Move

__all__ = ["internal", "in_state", "known_state", "elaborated", "legal_position", "free_position",
           "free_legal_position", "free_sound_move", "square_file", "square_rank", "signed_delta", "move_checks",
           "between_mask", "line_mask", "Checks", "Harness"]

def _squares(predicate):
    """A 64-bit constant: bit s set where ``predicate(s)``."""
    return Const(sum(1 << s for s in range(64) if predicate(s)), 64)


def _one(bits):
    """Exactly one bit of ``bits`` is set."""
    return (bits != 0) & ((bits & (bits - 1)) == 0)


def _name(text):
    return "_".join(text.replace("'", "").replace(",", "").replace(":", "").replace("-", "_").split())


def legal_position(view):
    """What a legal FEN implies about the board RAM and state registers (those of python-chess's
    ``Board.status()`` checks that :func:`hwmovegen.sim.model.check_board` enforces and that
    concern a single side's pieces or the state, and the cleaned castling rights the loader
    writes; the piece and checker counts it also refuses are not assumed): a list of conditions."""
    p, state = view.planes, view.state
    kings, pawns, rooks = view.of_type(PieceType.KING), view.of_type(PieceType.PAWN), view.of_type(PieceType.ROOK)
    white, black = view.occupied & ~view.black, view.occupied & view.black
    back_ranks = _squares(lambda s: s < 8 or s >= 56)
    conditions = [
        (p[0] & p[1] & p[2]) == 0,                          # no piece code 7
        (view.black & ~view.occupied) == 0,                 # an empty square has no colour
        _one(kings & white), _one(kings & black),           # one king per side
        (pawns & back_ranks) == 0,                          # no pawns on the first or last rank
    ]
    # the en-passant square: on the sixth rank seen from the side to move, empty, the
    # pawn that pushed two squares in front of it, the square it came from empty
    ep = state.ep_square
    ahead = Mux(state.white_to_move, ep - 8, ep + 8)[:6]
    behind = Mux(state.white_to_move, ep + 8, ep - 8)[:6]
    ep_ok = ((ep[3:6] == Mux(state.white_to_move, 5, 2))
             & view.empty.bit_select(ep, 1) & view.empty.bit_select(behind, 1)
             & (pawns & view.opponent).bit_select(ahead, 1))
    conditions.append(~state.ep_valid | ep_ok)
    # a castling right is kept only with the king and that rook on their squares
    for bit, (king, rook, colour) in enumerate(((4, 7, white), (4, 0, white), (60, 63, black), (60, 56, black))):
        held = (kings & colour)[king] & (rooks & colour)[rook]
        conditions.append(~state.castling[bit] | held)
    return conditions


def free_position(m, name="board"):
    """A free constant position (``<name>_planes``, ``<name>_state``) and its view."""
    planes, state = Signal(PLANES, name=f"{name}_planes"), Signal(BoardState, name=f"{name}_state")
    m.d.comb += [planes.eq(AnyConst(len(planes.as_value()))), state.eq(AnyConst(len(state.as_value())))]
    return BoardView(planes, state)


def free_legal_position(m):
    """A free constant position assumed to be what a legal FEN implies, and its view."""
    view = free_position(m)
    for condition in legal_position(view):
        m.d.comb += Assume(condition)
    return view


def square_file(square):
    return square[0:3]


def square_rank(square):
    return square[3:6]


def signed_delta(a, b):
    """b - a of two 3-bit coordinates, signed."""
    return Cat(b, Const(0, 1)).as_signed() - Cat(a, Const(0, 1)).as_signed()


def move_checks(view, move, between):
    """Named conditions that together say ``move`` is a pseudo-legal move of the position
    ``view`` (the soundness property).

    ``between`` is a free square (``AnyConst``): a slider's path is checked empty at it
    whenever it lies strictly between the move's squares, which, as it is free, checks
    every square of every path in an assertion (and is cheap). ``None``: the whole path
    (:func:`between_mask`), which an assumption needs.
    """
    frm, to = move.frm, move.to
    white = view.state.white_to_move
    piece = view.type_at(frm)
    own, opponent, empty = view.own, view.opponent, view.empty
    df = signed_delta(square_file(frm), square_file(to))         # signed file and rank steps
    dr = signed_delta(square_rank(frm), square_rank(to))
    adf = Mux(df < 0, -df, df)[:4]
    adr = Mux(dr < 0, -dr, dr)[:4]
    forward = Mux(white, dr, -dr)                       # ranks towards the opponent
    straight = ((df == 0) | (dr == 0)) & (frm != to)
    diagonal = (adf == adr) & (adf != 0)
    if between is None:
        path_clear = (between_mask(frm, to) & view.occupied) == 0
    else:
        # the free square strictly between frm and to on their line
        bf, br = signed_delta(square_file(frm), square_file(between)), signed_delta(square_rank(frm), square_rank(between))
        lo_f, hi_f = Mux(df < 0, df, 0), Mux(df < 0, 0, df)
        lo_r, hi_r = Mux(dr < 0, dr, 0), Mux(dr < 0, 0, dr)
        on_segment = ((bf * dr == br * df) & (bf >= lo_f) & (bf <= hi_f) & (br >= lo_r) & (br <= hi_r)
                      & (between != frm) & (between != to))
        path_clear = ~on_segment | empty.bit_select(between, 1)
    last_rank = Mux(white, 7, 0)
    start_rank = Mux(white, 1, 6)
    ep_target = view.state.ep_valid & (to == view.state.ep_square)
    pawn_push = (df == 0) & (forward == 1)
    pawn_double = (df == 0) & (forward == 2)
    pawn_capture = (adf == 1) & (forward == 1)
    middle = Mux(white, frm + 8, frm - 8)[:6]
    # castling: the king on e1 (e8) to g1 or c1 (g8, c8), the right held, the path empty
    home = Mux(white, 4, 60)
    kingside = to == home + 2
    queenside = to == home - 2
    right = Mux(white, Mux(kingside, view.state.castling[0], view.state.castling[1]),
                Mux(kingside, view.state.castling[2], view.state.castling[3]))
    path = Mux(white, Mux(kingside, _squares(lambda s: s in (5, 6)), _squares(lambda s: s in (1, 2, 3))),
               Mux(kingside, _squares(lambda s: s in (61, 62)), _squares(lambda s: s in (57, 58, 59))))

    geometry = Mux(piece == PieceType.PAWN,
                   Mux(move.double, pawn_double, pawn_push | pawn_capture),
                   Mux(piece == PieceType.KNIGHT, ((adf == 1) & (adr == 2)) | ((adf == 2) & (adr == 1)),
                   Mux(piece == PieceType.BISHOP, diagonal,
                   Mux(piece == PieceType.ROOK, straight,
                   Mux(piece == PieceType.QUEEN, straight | diagonal,
                   Mux(piece == PieceType.KING, Mux(move.castle, (frm == home) & (kingside | queenside),
                                          (adf <= 1) & (adr <= 1) & (frm != to)), 0))))))
    return [
        ("from holds a piece of the side to move", own.bit_select(frm, 1)),
        ("to does not hold a piece of the side to move", ~own.bit_select(to, 1)),
        ("the move is one of the piece's moves", geometry),
        ("a slider's path is empty", path_clear),
        ("capture flag exactly onto an opponent or en passant",
         move.capture == (opponent.bit_select(to, 1) | move.en_passant)),
        ("a pawn moves forward onto an empty square, captures diagonally",
         (piece != PieceType.PAWN) | Mux(pawn_capture, opponent.bit_select(to, 1) | move.en_passant,
                               empty.bit_select(to, 1))),
        ("en passant only by a pawn onto the en-passant square",
         ~move.en_passant | ((piece == PieceType.PAWN) & pawn_capture & ep_target & empty.bit_select(to, 1))),
        ("double push only from the start rank over an empty square",
         ~move.double | ((piece == PieceType.PAWN) & pawn_double & (square_rank(frm) == start_rank)
                         & empty.bit_select(middle, 1) & empty.bit_select(to, 1))),
        ("promotion exactly by a pawn onto the last rank",
         (move.promotion != 0) == ((piece == PieceType.PAWN) & (square_rank(to) == last_rank))),
        ("a promotion is to a queen, rook, bishop or knight",
         (move.promotion == 0) | ((move.promotion >= PieceType.KNIGHT) & (move.promotion <= PieceType.QUEEN))),
        ("castling only with the right held and an empty path",
         ~move.castle | ((piece == PieceType.KING) & (frm == home) & (kingside | queenside) & right
                         & ((path & view.occupied) == 0))),
    ]


def free_sound_move(m, view):
    """A free constant move (``move``) that satisfies the generator's soundness conditions on
    ``view`` (:func:`move_checks`, exact paths)."""
    move = Signal(Move, name="move")
    m.d.comb += move.eq(AnyConst(len(move.as_value())))
    for _, condition in move_checks(view, move, None):
        m.d.comb += Assume(condition)
    return move


def _line_through(a, b):
    """File and rank steps from ``a`` to ``b``, and whether they share a line (rank, file or
    diagonal)."""
    df, dr = signed_delta(square_file(a), square_file(b)), signed_delta(square_rank(a), square_rank(b))
    adf, adr = Mux(df < 0, -df, df), Mux(dr < 0, -dr, dr)
    return df, dr, ((df == 0) | (dr == 0) | (adf == adr)) & (a != b)


def _steps_to(a, x):
    """File and rank steps from ``a`` to the constant square ``x``."""
    xs = Const(x, 6)
    return signed_delta(square_file(a), square_file(xs)), signed_delta(square_rank(a), square_rank(xs))


def between_mask(a, b):
    """The squares strictly between ``a`` and ``b`` when they share a line (rank, file or
    diagonal), else none: 64 comparators against constant squares."""
    df, dr, lined = _line_through(a, b)
    lo_f, hi_f = Mux(df < 0, df, 0), Mux(df < 0, 0, df)
    lo_r, hi_r = Mux(dr < 0, dr, 0), Mux(dr < 0, 0, dr)
    bits = []
    for x in range(64):
        bf, br = _steps_to(a, x)
        bits.append((bf * dr == br * df) & (bf >= lo_f) & (bf <= hi_f) & (br >= lo_r) & (br <= hi_r)
                    & (a != x) & (b != x))
    return Mux(lined, Cat(*bits), 0)


def line_mask(a, b):
    """The squares of the whole line (rank, file or diagonal) through ``a`` and ``b``, if
    they share one; else none."""
    df, dr, lined = _line_through(a, b)
    bits = []
    for x in range(64):
        bf, br = _steps_to(a, x)
        bits.append(bf * dr == br * df)
    return Mux(lined, Cat(*bits), 0)


def internal(fragment, path):
    """A register inside an elaborated design (``fragment``: :meth:`Fragment.get` of it, which
    the harness then adds in place of the design, so that the signal is the design's own):
    ``path`` names the submodules and the signal, dotted (``"walker.fsm_state"``).

    What an induction invariant needs: k-induction starts from any state that satisfies the
    assertions for k cycles, so the assertions must pin the registers that the ports do not
    show. The registers are found by name in the statements that drive them (Amaranth 0.5's
    netlist before flattening), so that the RTL carries nothing for its proofs."""
    *modules, name = path.split(".")
    for module in modules:
        found = [sub for sub, sub_name, _ in fragment.subfragments if sub_name == module]
        if not found:
            raise KeyError(f"no submodule {module!r} on the way to {path!r}")
        fragment = found[0]
    for statements in fragment.statements.values():
        for statement in statements:
            for signal in statement._lhs_signals():
                if signal.name == name:
                    return signal
    raise KeyError(f"no signal {path!r} driven there")


def in_state(fsm_state, name):
    """``fsm_state`` (an FSM's state register, from :func:`internal`) is in state ``name``."""
    for value in _states(fsm_state):
        if fsm_state.decoder(value).split("/")[0] == name:
            return fsm_state == value
    raise KeyError(f"no state {name!r} in {fsm_state.name}")


def _states(fsm_state):
    """The values of ``fsm_state`` that name a state (its decoder raises on the others)."""
    values = []
    for value in range(1 << len(fsm_state)):
        try:
            fsm_state.decoder(value)
        except KeyError:
            continue
        values.append(value)
    return values


def known_state(fsm_state):
    """``fsm_state`` holds one of its FSM's states (a register of more values than states)."""
    return fsm_state <= max(_states(fsm_state))


def elaborated(m, name, design, platform):
    """Add ``design`` to ``m`` as submodule ``name``, elaborated first: its fragment, for
    :func:`internal`."""
    fragment = Fragment.get(design, platform)
    m.submodules[name] = fragment
    return fragment


class Checks:
    """Assertions and covers with names: each drives a signal ``check__<name>`` /
    ``cover__<name>`` (the runner reads them in a trace to say which one failed)."""

    def __init__(self, m):
        self.m = m

    def check(self, name, condition, enable=1):
        ok = Signal(1, name="check__" + _name(name))
        self.m.d.comb += [ok.eq(~enable | condition), Assert(ok, name)]

    def cover(self, name, condition):
        reached = Signal(1, name="cover__" + _name(name))
        self.m.d.comb += [reached.eq(condition), Cover(reached, name)]


class Harness(Elaboratable):
    def __init__(self):
        self.domain = ClockDomain("sync", reset_less=True)

    def module(self):
        """A module in the harness's clock domain, and its named checks."""
        m = Module()
        m.domains.sync = self.domain
        return m, Checks(m)

    def ports(self):
        return [self.domain.clk]
