"""Formal property harnesses: the generator's contracts as ``Assert``/``Assume``/``Cover``.

Each harness is an Amaranth elaboratable whose only port is the clock: every input of the
design under test is free (``AnySeq`` in every cycle, ``AnyConst`` for the whole trace) and
constrained only by ``Assume`` statements, so a model checker (SymbiYosys, run by
:mod:`hwmovegen.sim.formal`) explores every input sequence. Every assertion also drives a
signal ``check__<name>`` and every cover ``cover__<name>``, so that the runner can say from a
trace which one failed. The position is a free constant (``board_planes``, ``board_state``),
constrained only by what a legal FEN implies (:func:`legal_position`); the runner decodes it
from a counterexample into a FEN.

Generator properties (one core, :class:`GeneratorHarness`; the core reads the free board
directly, as :class:`~hwmovegen.rtl.movegen.MoveGenerator` hands it the board RAM):

``stream``
    the move stream's rules (``amaranth.lib.stream``): ``valid`` never drops and the payload
    never changes before the transfer; no ``valid`` without a started position; ``done`` once
    per start and never before the position's last transfer; ``busy`` exactly while a started
    position is not done. ``start``, ``ready`` and ``abort`` are free.
``soundness``
    every move on the stream is a pseudo-legal move of the position: :func:`move_checks`.
``termination``
    with ``ready`` held high, ``done`` within the documented cycle bound
    (:func:`hwmovegen.sim.model.cycle_bound`), the counters agreeing with the harness.
``abort``
    one cycle after ``abort`` the generator is idle: not busy, no move, no done, ready.
``cover``
    every node kind emits, and a promotion waits under backpressure (reachability).

Other harnesses: :class:`HostLinkHarness` (``hostlink``, ``hostlink-cover``),
:class:`LegalityHarness` (``legality``), :class:`ApplyHarness` (``apply``).
"""

from amaranth import ClockDomain, Elaboratable, Module, ResetInserter, Signal, Cat, Const, Mux
from amaranth.asserts import AnyConst, AnySeq, Initial     # not in amaranth.hdl in 0.5
from amaranth.hdl import Assert, Assume, Cover
from amaranth.lib import wiring

from ..tables import TableKind, chain
from .apply import MoveApplier
from .board import BoardRAM, BoardView
from .core import PLANES
from .hostlink import HostLink
from .legality import LegalityStage
from .movegen import CORES
from .order import CheckFlag
from .protocol import SYNC, FrameType, crc8
from .types import BoardState, Move

__all__ = ["BoardView", "legal_position", "move_checks", "GeneratorHarness", "HostLinkHarness",
           "LegalityHarness", "ApplyHarness", "GENERATOR_PROPERTIES", "PROPERTIES", "harness"]

# piece types (python-chess): the codes' bits 2..0
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(1, 7)


def _squares(predicate):
    """A 64-bit constant: bit s set where ``predicate(s)``."""
    return Const(sum(1 << s for s in range(64) if predicate(s)), 64)


def _one(bits):
    """Exactly one bit of ``bits`` is set."""
    return (bits != 0) & ((bits & (bits - 1)) == 0)


def _name(text):
    return "_".join(text.replace("'", "").replace(",", "").replace("-", "_").split())


def legal_position(view):
    """What a legal FEN implies about the board RAM and state registers (those of python-chess's
    ``Board.status()`` checks that :func:`hwmovegen.sim.model.check_board` enforces and that
    concern a single side's pieces or the state, and the cleaned castling rights the loader
    writes; the piece and checker counts it also refuses are not assumed): a list of conditions."""
    p, state = view.planes, view.state
    kings, pawns, rooks = view.of_type(KING), view.of_type(PAWN), view.of_type(ROOK)
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


def _file(square):
    return square[0:3]


def _rank(square):
    return square[3:6]


def _signed_delta(a, b):
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
    df = _signed_delta(_file(frm), _file(to))         # signed file and rank steps
    dr = _signed_delta(_rank(frm), _rank(to))
    adf = Mux(df < 0, -df, df)[:4]
    adr = Mux(dr < 0, -dr, dr)[:4]
    forward = Mux(white, dr, -dr)                       # ranks towards the opponent
    straight = ((df == 0) | (dr == 0)) & (frm != to)
    diagonal = (adf == adr) & (adf != 0)
    if between is None:
        path_clear = (between_mask(frm, to) & view.occupied) == 0
    else:
        # the free square strictly between frm and to on their line
        bf, br = _signed_delta(_file(frm), _file(between)), _signed_delta(_rank(frm), _rank(between))
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

    geometry = Mux(piece == PAWN,
                   Mux(move.double, pawn_double, pawn_push | pawn_capture),
                   Mux(piece == KNIGHT, ((adf == 1) & (adr == 2)) | ((adf == 2) & (adr == 1)),
                   Mux(piece == BISHOP, diagonal,
                   Mux(piece == ROOK, straight,
                   Mux(piece == QUEEN, straight | diagonal,
                   Mux(piece == KING, Mux(move.castle, (frm == home) & (kingside | queenside),
                                          (adf <= 1) & (adr <= 1) & (frm != to)), 0))))))
    return [
        ("from holds a piece of the side to move", own.bit_select(frm, 1)),
        ("to does not hold a piece of the side to move", ~own.bit_select(to, 1)),
        ("the move is one of the piece's moves", geometry),
        ("a slider's path is empty", path_clear),
        ("capture flag exactly onto an opponent or en passant",
         move.capture == (opponent.bit_select(to, 1) | move.en_passant)),
        ("a pawn moves forward onto an empty square, captures diagonally",
         (piece != PAWN) | Mux(pawn_capture, opponent.bit_select(to, 1) | move.en_passant,
                               empty.bit_select(to, 1))),
        ("en passant only by a pawn onto the en-passant square",
         ~move.en_passant | ((piece == PAWN) & pawn_capture & ep_target & empty.bit_select(to, 1))),
        ("double push only from the start rank over an empty square",
         ~move.double | ((piece == PAWN) & pawn_double & (_rank(frm) == start_rank)
                         & empty.bit_select(middle, 1) & empty.bit_select(to, 1))),
        ("promotion exactly by a pawn onto the last rank",
         (move.promotion != 0) == ((piece == PAWN) & (_rank(to) == last_rank))),
        ("a promotion is to a queen, rook, bishop or knight",
         (move.promotion == 0) | ((move.promotion >= KNIGHT) & (move.promotion <= QUEEN))),
        ("castling only with the right held and an empty path",
         ~move.castle | ((piece == KING) & (frm == home) & (kingside | queenside) & right
                         & ((path & view.occupied) == 0))),
    ]



def _chain_length_tables():
    """Per square, the chain length of every table kind (the queen: rook and bishop blocks)."""
    tables = {kind: [len(chain(kind, s)) for s in range(64)] for kind in TableKind}
    tables[TableKind.QUEEN] = [tables[TableKind.ROOK][s] + tables[TableKind.BISHOP][s] for s in range(64)]
    return tables


def walk_limit(view):
    """The most table nodes a walk of ``view``'s side to move can visit, and the most
    promotion nodes that can emit: every node of its pieces' chains (a walk visits a node
    at most once), three promotion nodes per pawn on the seventh rank."""
    tables = _chain_length_tables()
    white = view.state.white_to_move
    nodes = 0
    for square in range(64):
        piece = view.type_at(Const(square, 6))
        length = Mux(white, tables[TableKind.WPAWN][square], tables[TableKind.BPAWN][square])
        for kind in (TableKind.KNIGHT, TableKind.BISHOP, TableKind.ROOK, TableKind.QUEEN, TableKind.KING):
            length = Mux(piece == int(kind), tables[kind][square], length)
        nodes = nodes + Mux(view.own[square], length, 0)
    pawns = view.own & view.of_type(PAWN)
    seventh = Mux(white, pawns[48:56], pawns[8:16])
    promotion_nodes = 3 * sum(seventh[i] for i in range(8))
    return nodes, promotion_nodes


def _line_through(a, b):
    """File and rank steps from ``a`` to ``b``, and whether they share a line (rank, file or
    diagonal)."""
    df, dr = _signed_delta(_file(a), _file(b)), _signed_delta(_rank(a), _rank(b))
    adf, adr = Mux(df < 0, -df, df), Mux(dr < 0, -dr, dr)
    return df, dr, ((df == 0) | (dr == 0) | (adf == adr)) & (a != b)


def _steps_to(a, x):
    """File and rank steps from ``a`` to the constant square ``x``."""
    xs = Const(x, 6)
    return _signed_delta(_file(a), _file(xs)), _signed_delta(_rank(a), _rank(xs))


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


class _Checks:
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


class _Harness(Elaboratable):
    def __init__(self):
        self.domain = ClockDomain("sync", reset_less=True)

    def ports(self):
        return [self.domain.clk]


GENERATOR_PROPERTIES = ("stream", "soundness", "termination", "abort", "cover")


class _FreeBoardGenerator(Elaboratable):
    """A core, its ROM and a board: what MoveGenerator builds without the legality stage
    (which wires the core's ports straight through), with the board RAM replaced by the
    harness's free position."""

    def __init__(self, core_class, rom_class, layout):
        self.core = core_class(layout)
        self.rom = rom_class(layout)
        self.abort = Signal(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = ResetInserter(self.abort)(self.core)
        m.submodules.rom = self.rom
        wiring.connect(m, self.core.rom, self.rom.bus)
        return m


class GeneratorHarness(_Harness):
    """A core with a free position, free control inputs and one property's checks.

    ``core_class`` replaces the core (a copy with an injected bug, in the tests).
    ``bound`` is the termination bound's terms (:mod:`hwmovegen.sim.model`:
    ``{"fixed": .., "per_promotion": ..}`` for the walker, ``{"latency": .., "empty": ..}``
    for the fast core). ``positions``: the board is one of these (packed planes, packed
    state), for the covers.
    """

    def __init__(self, prop, core="walker", layout="dense", bound=None, core_class=None, positions=None):
        if prop not in GENERATOR_PROPERTIES:
            raise KeyError(f"unknown generator property {prop!r}")
        if core not in CORES:
            raise KeyError(f"unknown core {core!r}")
        if prop == "termination" and bound is None:
            raise ValueError("termination needs the cycle bound's terms")
        super().__init__()
        from ..tables import get_layout
        self.prop, self.core, self.bound = prop, core, bound
        self.positions = positions
        default_core, rom_class = CORES[core]
        self.generator = _FreeBoardGenerator(core_class or default_core, rom_class, get_layout(layout))

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.generator = self.generator
        dut = self.generator.core
        prop = self.prop
        checks = _Checks(m)

        view = free_legal_position(m)
        m.d.comb += [dut.planes.eq(view.planes), dut.state.eq(view.state)]
        if self.positions:
            # the board is one of these: a cover needs a witness, not every board, and a few
            # concrete boards keep the deep steps cheap (the assertions keep the free board)
            image = Cat(view.planes.as_value(), view.state.as_value())
            m.d.comb += Assume(Cat(*[image == (planes | state << len(view.planes.as_value()))
                                     for planes, state in self.positions]).any())
        start, abort, ready = Signal(1), Signal(1), Signal(1)
        m.d.comb += [start.eq(AnySeq(1)), ready.eq(AnySeq(1)), dut.start.eq(start), dut.moves.ready.eq(ready)]
        m.d.comb += self.generator.abort.eq(abort)
        if prop == "stream":
            m.d.comb += abort.eq(AnySeq(1))     # else never

        moves, payload = dut.moves, dut.moves.payload
        transfer = moves.valid & moves.ready
        starting = start & dut.start_ready

        # positions started and not yet done
        outstanding = Signal(range(16))
        with m.If(abort):
            m.d.sync += outstanding.eq(0)
        with m.Else():
            m.d.sync += outstanding.eq(outstanding + starting - dut.done)

        if prop in ("soundness", "termination", "cover"):
            m.d.comb += Assume(~start | (outstanding == 0))     # one position at a time
        if prop == "termination":
            m.d.comb += Assume(ready)

        if prop == "stream":
            stalled = Signal(1)
            held = Signal.like(payload)
            # abort is the core's reset: it may drop a waiting move (the abort property checks it)
            m.d.sync += [stalled.eq(moves.valid & ~moves.ready & ~abort), held.eq(payload)]
            checks.check("valid never drops before the transfer", moves.valid, stalled)
            checks.check("the payload holds until the transfer", payload.as_value() == held.as_value(), stalled)
            checks.check("no valid without a started position", outstanding != 0, moves.valid)
            checks.check("done only for a started position", outstanding != 0, dut.done)
            checks.check("done only after the last transfer of its position", ~moves.valid,
                         dut.done & (outstanding == 1))
            checks.check("busy exactly while a started position is not done",
                         dut.busy == ((outstanding - dut.done) != 0))

        elif prop == "soundness":
            between = AnyConst(6)
            for name, condition in move_checks(view, payload, between):
                checks.check(name, condition, moves.valid)

        elif prop == "termination":
            elapsed = Signal(16)        # cycles since the start cycle, counted as the counters do
            transfers = Signal(16)
            running = outstanding != 0
            with m.If(starting):
                m.d.sync += [elapsed.eq(1), transfers.eq(0)]
            with m.Elif(running):
                m.d.sync += [elapsed.eq(elapsed + 1), transfers.eq(transfers + transfer)]
            finished = running & dut.done
            counters = dut.counters
            checks.check("the cycle counter counts from start to done", counters.cycles == elapsed, finished)
            checks.check("the move counter counts the transfers", counters.moves == transfers, finished)
            checks.check("no stalls with ready held high", counters.stalls == 0, finished)
            if self.core == "walker":
                nodes, promotion_nodes = walk_limit(view)
                fixed, per_promotion = self.bound["fixed"], self.bound["per_promotion"]
                checks.check("done within the cycle bound of the counted nodes",
                             counters.cycles <= counters.steps + per_promotion * counters.promotion_nodes + fixed,
                             finished)
                checks.check("the walk visits only nodes of its pieces' chains", counters.steps <= nodes, finished)
                checks.check("only pawns on the seventh rank promote",
                             counters.promotion_nodes <= promotion_nodes, finished)
                checks.check("done within the cycle bound of the board",
                             elapsed <= nodes + per_promotion * promotion_nodes + fixed, running)
            else:
                latency, empty = self.bound["latency"], self.bound["empty"]
                checks.check("done within a cycle per move and the latency", elapsed <= transfers + latency, running)
                # checked at done: while it runs, a position with moves has none out before
                # step 18 either; the bound above makes every position done, so a position
                # done without a move was done within ``empty`` cycles
                checks.check("a position without moves is done within its bound",
                             (transfers != 0) | (elapsed <= empty), finished)

        elif prop == "abort":
            aborted = Signal(1)
            m.d.sync += aborted.eq(abort)
            checks.check("one cycle after abort the generator is idle",
                         ~dut.busy & ~moves.valid & ~dut.done & dut.start_ready, aborted)

        elif prop == "cover":
            piece = view.type_at(payload.frm)
            quiet = ~payload.capture & ~payload.double & ~payload.castle & (payload.promotion == 0)
            pawn_capture = payload.capture & ~payload.en_passant & (payload.promotion == 0)
            kinds = {
                "a piece move onto an empty square": (piece != PAWN) & quiet,
                "a piece move capturing": (piece != PAWN) & payload.capture,
                "a pawn push": (piece == PAWN) & quiet,
                "a double push": payload.double,
                "a pawn capture": (piece == PAWN) & pawn_capture,
                "an en-passant capture": payload.en_passant,
                "a promotion by a push": (payload.promotion != 0) & ~payload.capture,
                "a promotion by a capture": (payload.promotion != 0) & payload.capture,
                "castling kingside": payload.castle & payload.to[2],
                "castling queenside": payload.castle & ~payload.to[2],
            }
            stalled = Signal(1)
            m.d.sync += stalled.eq(moves.valid & ~moves.ready)
            kinds["a promotion taken after waiting under backpressure"] = stalled & (payload.promotion != 0)
            for name, condition in kinds.items():
                checks.cover(name, transfer & condition)
        return m


class HostLinkHarness(_Harness):
    """The host link (receiver, executor, sender) at the byte level, after any bytes.

    The UART is bypassed: ``rx`` is the receiver's byte stream, a byte in any cycle, so
    that the depth goes to frames rather than bit times (the UART has its own tests). The
    generator's side (``start_ready``, ``generating``, ``moves``, counters, the perft
    array's ``perft_busy``) is free. The trace has three phases:

    1. any bytes on ``rx`` (``AnySeq``), for as long as the solver likes; then
    2. the host goes quiet and waits until it has seen ``QUIET`` cycles with no byte either
       way and the link not ``busy`` (meanwhile the generator is idle and ``tx`` is read);
    3. it sends a well-formed PING, back to back.

    Checked: the link goes quiet within ``WEDGE`` cycles (it never wedges), a PONG frame
    ends within ``ANSWER`` cycles of the PING's last byte, and every reply starts with SYNC.
    ``idle_timeout`` is the receiver's (small, so that a frame truncation fits the depth).
    """

    QUIET = 2           # beyond the idle timeout
    WEDGE = 64
    ANSWER = 10          # the PING's CRC byte to the PONG's (measured: 10, a 9-byte frame and a gap)

    def __init__(self, prop="hostlink", core="walker", idle_timeout=3):
        from .protocol import CORE_IDS
        super().__init__()
        self.prop = prop
        self.idle_timeout = idle_timeout
        self.link = HostLink(0, CORE_IDS[core], idle_timeout, legality=True, perft_engines=1)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.link = link = self.link
        checks = _Checks(m)
        phase = Signal(range(4))    # 0 any bytes, 1 quiet, 2 PING, 3 waiting for the PONG
        go = Signal(1)
        m.d.comb += go.eq(AnySeq(1))
        quiet_phase = phase != 0
        m.d.comb += [
            link.start_ready.eq(Mux(quiet_phase, 1, AnySeq(1))),
            link.generating.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.moves.valid.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.moves.payload.eq(AnySeq(len(link.moves.payload.as_value()))),
            link.counters.eq(AnySeq(len(link.counters.as_value()))),
            link.perft_busy.eq(Mux(quiet_phase, 0, AnySeq(1))),
            link.perft_counters.eq(AnySeq(len(link.perft_counters.as_value()))),
            link.tx.ready.eq(Mux(quiet_phase, 1, AnySeq(1))),
        ]
        ping = list(bytes([SYNC, FrameType.PING, 0, crc8([FrameType.PING, 0])]))
        index = Signal(range(len(ping)))
        with m.Switch(phase):
            with m.Case(0):
                m.d.comb += [link.rx.valid.eq(AnySeq(1)), link.rx.payload.eq(AnySeq(8))]
                with m.If(go):
                    m.d.sync += phase.eq(1)
            with m.Case(2):
                m.d.comb += [link.rx.valid.eq(1), link.rx.payload.eq(Const(0, 8))]
                for i, byte in enumerate(ping):
                    with m.If(index == i):
                        m.d.comb += link.rx.payload.eq(byte)
                m.d.sync += index.eq(index + 1)
                with m.If(index == len(ping) - 1):
                    m.d.sync += phase.eq(3)

        # the quiet the host waits for, and how long it takes
        quiet, waited = Signal(range(self.idle_timeout + self.QUIET + 2)), Signal(range(self.WEDGE + 2))
        tx_byte = link.tx.valid & link.tx.ready
        with m.If(link.rx.valid | link.tx.valid | link.busy):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != self.idle_timeout + self.QUIET + 1):
            m.d.sync += quiet.eq(quiet + 1)
        with m.If(phase == 1):
            m.d.sync += waited.eq(waited + 1)
            with m.If(quiet == self.idle_timeout + self.QUIET + 1):
                m.d.sync += phase.eq(2)
        if self.prop == "hostlink":
            checks.check("the link goes quiet within the wedge bound", waited <= self.WEDGE)

        # the replies, parsed: position in the frame, its type and length
        position, frame_type, remaining = Signal(range(4)), Signal(8), Signal(8)
        pong, error = Signal(1), Signal(1)
        m.d.comb += [pong.eq(0), error.eq(0)]
        with m.If(tx_byte):
            with m.Switch(position):
                with m.Case(0):
                    m.d.sync += position.eq(1)
                with m.Case(1):
                    m.d.sync += [frame_type.eq(link.tx.payload), position.eq(2)]
                with m.Case(2):
                    m.d.sync += [remaining.eq(link.tx.payload), position.eq(3)]
                with m.Case(3):
                    with m.If(remaining == 0):      # the CRC: the frame is complete
                        m.d.sync += position.eq(0)
                        m.d.comb += [pong.eq(frame_type == FrameType.PONG), error.eq(frame_type == FrameType.ERROR)]
                    with m.Else():
                        m.d.sync += remaining.eq(remaining - 1)

        if self.prop == "hostlink":
            # (outside the If above: a check's signal must be driven in every cycle)
            checks.check("a reply starts with SYNC", link.tx.payload == SYNC, tx_byte & (position == 0))
        answered = Signal(1)
        answer_wait = Signal(range(self.ANSWER + 2))
        with m.If((phase == 3) & ~answered):
            m.d.sync += answer_wait.eq(answer_wait + 1)
            with m.If(pong):
                m.d.sync += answered.eq(1)
        if self.prop == "hostlink":
            checks.check("a PING is answered within the bound", answered | (answer_wait <= self.ANSWER))
        else:
            checks.cover("an error reply", error)
            checks.cover("a PONG reply to the PING", pong & (phase == 3))
        return m


class LegalityHarness(_Harness):
    """The legality stage on a free legal position, started in the first cycle, fed free
    moves that satisfy the generator's soundness conditions (:func:`move_checks`) but for
    the slider's path, with a free ready on its output. Checked: a move of a piece pinned to its king
    by an opponent slider (``pinner``, free) that leaves the line through king and slider
    is never passed."""

    def __init__(self):
        super().__init__()
        self.stage = LegalityStage()

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.stage = stage = self.stage
        checks = _Checks(m)
        view = free_legal_position(m)
        m.d.comb += [stage.planes.eq(view.planes), stage.state.eq(view.state), stage.start.eq(Initial())]
        move_in = stage.moves_in.payload
        m.d.comb += [stage.moves_in.valid.eq(AnySeq(1)), move_in.eq(AnySeq(len(move_in.as_value()))),
                     stage.moves_out.ready.eq(AnySeq(1))]
        # the soundness conditions but the slider's path: the stage judges a pin by the move's
        # squares alone, so leaving the path free only widens what is checked (and is cheaper)
        for name, condition in move_checks(view, move_in, Const(0, 6)):
            if name != "a slider's path is empty":
                m.d.comb += Assume(~stage.moves_in.valid | condition)

        king = Signal(6, name="king")
        pinner = Signal(6, name="pinner")
        m.d.comb += [king.eq(AnyConst(6)), pinner.eq(AnyConst(6))]
        m.d.comb += Assume((view.own & view.of_type(KING)).bit_select(king, 1))
        move = stage.moves_out.payload
        line = between_mask(king, pinner)
        df, dr = _signed_delta(_file(king), _file(pinner)), _signed_delta(_rank(king), _rank(pinner))
        straight = (df == 0) | (dr == 0)
        slider = Mux(straight, view.of_type(ROOK) | view.of_type(QUEEN), view.of_type(BISHOP) | view.of_type(QUEEN))
        pinned = (line.bit_select(move.frm, 1) & view.own.bit_select(move.frm, 1)
                  & (view.opponent & slider).bit_select(pinner, 1)
                  & ((line & view.occupied) == (Const(1, 64) << move.frm)))
        # the line through king and pinner, both ways: with the path left free the input may
        # slide past the pinner, which a clear path (the generator's moves) never does
        off_line = ~line_mask(king, pinner).bit_select(move.to, 1)
        checks.check("a pinned piece never leaves its line", ~(stage.moves_out.valid & pinned & off_line))
        return m


class ApplyHarness(_Harness):
    """The board RAM and the MoveApplier: a free legal position loaded through the load port
    (a rank a cycle), then a free move satisfying the generator's soundness conditions
    (:func:`move_checks`, exact paths) made and unmade. Checked: the board and state
    registers are restored bit for bit, and the stack is empty again."""

    def __init__(self):
        super().__init__()
        self.board = BoardRAM()
        self.applier = MoveApplier(depth=2)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.board = board = self.board
        m.submodules.applier = applier = self.applier
        checks = _Checks(m)
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
        move = Signal(Move, name="move")
        m.d.comb += move.eq(AnyConst(len(move.as_value())))
        for _, condition in move_checks(view, move, None):
            m.d.comb += Assume(condition)
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


class CheckHarness(_Harness):
    """The ordering stage's check flag (:class:`~.order.CheckFlag`) on a free legal position and a
    free move satisfying the generator's soundness conditions (:func:`move_checks`, exact paths).
    Checked: the flag says exactly whether the moved piece (the promoted piece, the castling
    rook) on its destination attacks the opponent's king on the board after the move, reckoned
    here square by square; unless the piece attacked that king already before it moved, which a
    position the generator accepts rules out (the side not to move is never in check)."""

    def __init__(self, prop="check"):
        super().__init__()
        self.prop = prop
        self.flag = CheckFlag()

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.domain
        m.submodules.flag = flag = self.flag
        checks = _Checks(m)
        view = free_legal_position(m)
        move = Signal(Move, name="move")
        m.d.comb += move.eq(AnyConst(len(move.as_value())))
        for _, condition in move_checks(view, move, None):
            m.d.comb += Assume(condition)
        m.d.comb += Assume(~move.check)
        mover = view.type_at(move.frm)
        m.d.comb += [flag.move.eq(move), flag.planes.eq(view.planes), flag.state.eq(view.state),
                     flag.mover.eq(mover)]
        king = Signal(6, name="king")
        m.d.comb += [king.eq(AnyConst(6)), Assume((view.opponent & view.of_type(KING)).bit_select(king, 1))]

        def bit(square):
            return (Const(1, 64) << square)[:64]

        white = view.state.white_to_move
        east = _file(move.to) > _file(move.frm)
        rook_from = Mux(east, move.frm + 3, move.frm + 60)[:6]      # h1/h8, a1/a8 (frm - 4 mod 64)
        rook_to = Mux(east, move.frm + 1, move.frm + 63)[:6]
        victim = Mux(white, move.to + 56, move.to + 8)[:6]           # behind the en-passant square
        after = Signal(64, name="after")
        m.d.comb += after.eq(Mux(move.castle,
                                 (view.occupied & ~bit(move.frm) & ~bit(rook_from)) | bit(move.to) | bit(rook_to),
                                 (view.occupied & ~bit(move.frm) & ~Mux(move.en_passant, bit(victim), 0))
                                 | bit(move.to)))
        dest = Mux(move.castle, rook_to, move.to)
        piece = Mux(move.castle, ROOK, Mux(move.promotion != 0, move.promotion, mover))

        def attacks(kind, square, occupied):
            """Whether a piece of type ``kind`` of the side to move on ``square`` attacks the king."""
            df, dr = _signed_delta(_file(square), _file(king)), _signed_delta(_rank(square), _rank(king))
            adf, adr = Mux(df < 0, -df, df)[:4], Mux(dr < 0, -dr, dr)[:4]
            clear = (between_mask(square, king) & occupied) == 0
            straight = ((df == 0) | (dr == 0)) & (square != king) & clear
            diagonal = (adf == adr) & (adf != 0) & clear
            return Mux(kind == PAWN, (adf == 1) & (Mux(white, dr, -dr) == 1),
                   Mux(kind == KNIGHT, ((adf == 1) & (adr == 2)) | ((adf == 2) & (adr == 1)),
                   Mux(kind == BISHOP, diagonal,
                   Mux(kind == ROOK, straight,
                   Mux(kind == QUEEN, straight | diagonal, 0)))))

        gives = attacks(piece, dest, after)
        checking_already = attacks(mover, move.frm, view.occupied)
        other = Signal(6, name="other")         # another piece of the mover's side, for the covers
        m.d.comb += other.eq(AnyConst(6))
        discovered = (view.own.bit_select(other, 1) & (other != move.frm) & (other != dest)
                      & attacks(view.type_at(other), other, after))
        if self.prop == "check":
            checks.check("the check flag is exact", checking_already | (flag.check == gives))
        else:
            for name, condition in (("a promotion checks along the file it leaves",
                                     ~move.capture & (move.promotion == QUEEN) & flag.check
                                     & (_file(king) == _file(move.frm))),
                                    ("a capture-promotion checks back along its diagonal",
                                     move.capture & (move.promotion == BISHOP) & flag.check
                                     & (between_mask(move.to, king).bit_select(move.frm, 1))),
                                    ("castling checks along the rank the king left",
                                     move.castle & flag.check & (_rank(king) == _rank(move.frm))),
                                    ("a knight checks", (mover == KNIGHT) & flag.check),
                                    ("a discovered check is not flagged", ~flag.check & discovered)):
                checks.cover(name, condition & ~checking_already)
        return m


PROPERTIES = GENERATOR_PROPERTIES + ("hostlink", "hostlink-cover", "legality", "apply", "check", "check-cover")


def harness(prop, core="walker", layout="dense", bound=None, core_class=None, **options):
    """The harness of property ``prop`` (one of ``PROPERTIES``)."""
    if prop in GENERATOR_PROPERTIES:
        return GeneratorHarness(prop, core, layout, bound=bound, core_class=core_class, **options)
    if prop in ("hostlink", "hostlink-cover"):
        return HostLinkHarness(prop, core, **options)
    if prop == "legality":
        return LegalityHarness()
    if prop == "apply":
        return ApplyHarness()
    if prop in ("check", "check-cover"):
        return CheckHarness(prop)
    raise KeyError(f"unknown property {prop!r}")
