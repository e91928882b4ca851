"""What a search reads off the board at every node, kept as the board changes: the evaluation,
the Polyglot key, and whether the side to move is in check.

:class:`PositionTerms` watches the board's edit port (the applier's make and unmake write one
square a cycle): in the cycle a square is written it reads the code leaving it (from the planes)
and the code arriving, looks both up in ROM (PeSTO's value and table entry, middlegame and
endgame, the phase weight, :func:`hwmovegen.tables.eval.piece_terms`; the Polyglot piece key,
:func:`hwmovegen.tables.zobrist.piece_key`) and updates its sums at the same clock edge as the
board, so that the terms always belong to the board as it stands and a leaf costs no cycle of
evaluation. After a load, ``scan`` adds the 64 squares up once, a square a cycle. The key's
state part (side to move, castling rights, the en-passant file when Polyglot hashes it) is logic
on those registers and the state; the tapered score is registered from them over two cycles, with
``ready`` to say when it belongs to the board.

:class:`InCheck` tells whether the side to move's king is attacked, from the planes alone
(the rays from the king to the first piece, the knight and pawn squares around it), so that a
quiescence node stands pat without starting a generation.
"""

from amaranth import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables.eval import MAX_PHASE, PHASE256, piece_terms
from ..tables.lines import KING_STEPS, KNIGHT_STEPS
from ..tables.search import SCORE_BITS
from ..tables.zobrist import CASTLE_BASE, EP_BASE, RANDOM, TURN_KEY, piece_key
from .bitboards import slide, spread, wire
from .board import BoardView, EditSignature
from .core import PLANES
from .types import BoardState

__all__ = ["PieceTerms", "PositionTerms", "InCheck", "TERM_BITS", "SCORE_LATENCY", "terms_rom", "keys_rom", "follow_board"]

TERM_BITS = 16              # |mg|, |eg| of a legal position stay far below 2**15
SCORE_LATENCY = 2           # cycles from a board's last edit to its score on ``score``
_PAWN, _KNIGHT, _BISHOP, _ROOK, _QUEEN, _KING = 1, 2, 3, 4, 5, 6
_N, _NE, _E, _SE, _S, _SW, _W, _NW = range(8)


class PieceTerms(data.Struct):
    """What a piece code on a square adds to the evaluation's sums (white positive)."""
    mg: signed(TERM_BITS)
    eg: signed(TERM_BITS)
    phase: 3


def _address(square, code):
    return code << 6 | square


def terms_rom():
    """The evaluation ROM's words, addressed by ``code << 6 | square`` (16 codes x 64 squares)."""
    words = []
    for code in range(16):
        for square in range(64):
            mg, eg, phase = piece_terms(code, square) if code & 7 in range(1, 7) else (0, 0, 0)
            words.append({"mg": mg, "eg": eg, "phase": phase})
    return words


def keys_rom():
    """The Polyglot piece keys, addressed as :func:`terms_rom`."""
    return [piece_key(code, square) if code & 7 in range(1, 7) else 0 for code in range(16) for square in range(64)]


class PositionTerms(wiring.Component):
    """The evaluation's sums and the Polyglot key of the board, kept on every edit.

    Ports
    -----
    planes, state : In
        The board as it stands (the codes an edit overwrites are read here).
    edit : In(EditSignature)
        The writes into the board (a tap of the applier's edit port, not a driver of it).
    scan : In(1)
        Start the sums afresh from the board (after a load): ``busy`` for 64 cycles.
    busy : Out(1)
    mg, eg : Out(signed)
        PeSTO's middlegame and endgame sums, white's pieces positive.
    phase : Out
        The phase weights summed, capped at 24.
    key : Out(64)
        The Polyglot key of the board and state.
    score : Out(signed(SCORE_BITS))
        The tapered evaluation for the side to move (floor of the 256ths, negated for black),
        registered: it follows the board ``SCORE_LATENCY`` cycles late.
    ready : Out(1)
        ``score`` belongs to the board as it stands: no edit, state write or scan step in the last
        ``SCORE_LATENCY`` cycles (a reader waits for it; the applier's make and unmake leave two
        cycles before the engine's first read, so it does not wait there).
    """

    def __init__(self):
        super().__init__({
            "planes": In(PLANES),
            "state": In(BoardState),
            "edit": In(EditSignature()),
            "scan": In(1),
            "busy": Out(1),
            "mg": Out(signed(TERM_BITS)),
            "eg": Out(signed(TERM_BITS)),
            "phase": Out(range(MAX_PHASE + 1)),
            "key": Out(64),
            "score": Out(signed(SCORE_BITS)),
            "ready": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        view = BoardView(self.planes, self.state)
        m.submodules.terms = terms = Memory(shape=PieceTerms, depth=1024, init=terms_rom())
        m.submodules.keys = keys = Memory(shape=64, depth=1024, init=keys_rom())
        leaving_terms, arriving_terms = terms.read_port(domain="comb"), terms.read_port(domain="comb")
        leaving_key, arriving_key = keys.read_port(domain="comb"), keys.read_port(domain="comb")

        # an edit replaces the code on its square; a scan step adds a square's code to empty sums
        scanning, square = Signal(1), Signal(6)
        changing = Signal(1)
        where, leaving, arriving = Signal(6), Signal(4), Signal(4)
        with m.If(scanning):
            m.d.comb += [changing.eq(1), where.eq(square), leaving.eq(0), arriving.eq(view.code_at(square))]
        with m.Else():
            m.d.comb += [changing.eq(self.edit.square_en), where.eq(self.edit.square),
                         leaving.eq(view.code_at(self.edit.square)), arriving.eq(self.edit.code)]
        m.d.comb += [leaving_terms.addr.eq(Cat(where, leaving)), arriving_terms.addr.eq(Cat(where, arriving)),
                     leaving_key.addr.eq(Cat(where, leaving)), arriving_key.addr.eq(Cat(where, arriving))]

        mg, eg = Signal(signed(TERM_BITS)), Signal(signed(TERM_BITS))
        weights = Signal(range(2 * 64 * 4 + 1))     # uncapped: promotions may pass 24
        pieces_key = Signal(64)
        with m.If(self.scan):
            m.d.sync += [scanning.eq(1), square.eq(0), mg.eq(0), eg.eq(0), weights.eq(0), pieces_key.eq(0)]
        with m.Elif(changing):
            new, old = arriving_terms.data, leaving_terms.data
            m.d.sync += [mg.eq(mg + new.mg - old.mg), eg.eq(eg + new.eg - old.eg),
                         weights.eq(weights + new.phase - old.phase),
                         pieces_key.eq(pieces_key ^ leaving_key.data ^ arriving_key.data)]
            with m.If(scanning):
                m.d.sync += square.eq(square + 1)
                with m.If(square == 63):
                    m.d.sync += scanning.eq(0)

        # the state's part of the key
        state, white = self.state, self.state.white_to_move
        castle = Const(0, 64)
        for bit in range(4):
            castle = castle ^ Mux(state.castling[bit], RANDOM[CASTLE_BASE + bit], 0)
        ep_file = state.ep_square[:3]
        pushed = Mux(white, state.ep_square - 8, state.ep_square + 8)[:6]        # the pawn that double-pushed
        own_pawns = view.own & view.of_type(_PAWN)
        beside = ((ep_file != 0) & own_pawns.bit_select((pushed - 1)[:6], 1)) | \
                 ((ep_file != 7) & own_pawns.bit_select((pushed + 1)[:6], 1))
        ep_keys = Signal(64)
        with m.Switch(ep_file):
            for file in range(8):
                with m.Case(file):
                    m.d.comb += ep_keys.eq(RANDOM[EP_BASE + file])
        m.d.comb += self.key.eq(pieces_key ^ castle ^ Mux(state.ep_valid & beside, ep_keys, 0)
                                ^ Mux(white, TURN_KEY, 0))

        # tapering, registered over SCORE_LATENCY cycles (a multiply and two adds are too long for
        # the cycle that reads the score): mg * p + eg * (256 - p) = eg * 256 + (mg - eg) * p, so
        # the floor of the 256ths is eg + ((mg - eg) * p >> 8), the same floor with one multiply
        phase = Signal(range(MAX_PHASE + 1))
        m.d.comb += phase.eq(Mux(weights > MAX_PHASE, MAX_PHASE, weights))
        phase256 = Signal(range(257))
        with m.Switch(phase):
            for index, value in enumerate(PHASE256):
                with m.Case(index):
                    m.d.sync += phase256.eq(value)
        difference = Signal(signed(TERM_BITS + 1))
        endgame, for_white = Signal(signed(TERM_BITS)), Signal(1)
        m.d.sync += [difference.eq(mg - eg), endgame.eq(eg), for_white.eq(white)]
        white_score = endgame + ((difference * phase256) >> 8)
        m.d.sync += self.score.eq(Mux(for_white, white_score, -white_score))

        # the score belongs to the board once SCORE_LATENCY edges have passed without a change
        age = Signal(range(SCORE_LATENCY + 1))
        with m.If(self.scan | changing | self.edit.state_en):
            m.d.sync += age.eq(0)
        with m.Elif(age != SCORE_LATENCY):
            m.d.sync += age.eq(age + 1)
        m.d.comb += [
            self.ready.eq(~scanning & (age == SCORE_LATENCY)),
            self.mg.eq(mg), self.eg.eq(eg), self.phase.eq(phase), self.busy.eq(scanning),
        ]
        return m


class InCheck(wiring.Component):
    """Whether the side to move's king is attacked in the position on ``planes`` and ``state``
    (combinational): a slider of the opponent first on a ray from the king along its lines, a
    knight a jump away, a pawn diagonally ahead of the king, the opponent's king beside it."""

    planes: In(PLANES)
    state: In(BoardState)
    check: Out(1)

    def elaborate(self, platform):
        m = Module()
        view = BoardView(self.planes, self.state)
        occupied = wire(m, view.occupied, "occupied")
        king = wire(m, view.own & view.of_type(_KING), "king")
        theirs = wire(m, view.opponent, "theirs")
        reach = [slide(m, occupied, king, d, f"ray{d}") for d in KING_STEPS]
        ortho = reach[_N] | reach[_E] | reach[_S] | reach[_W]
        diag = reach[_NE] | reach[_SE] | reach[_SW] | reach[_NW]
        straight = view.of_type(_ROOK) | view.of_type(_QUEEN)
        slanted = view.of_type(_BISHOP) | view.of_type(_QUEEN)
        white = self.state.white_to_move
        # an opponent's pawn attacks the king from diagonally ahead of it (from the mover's side)
        pawn_squares = Mux(white, spread(king, (_NE, _NW)), spread(king, (_SE, _SW)))
        attackers = ((ortho & straight) | (diag & slanted) | (spread(king, KNIGHT_STEPS) & view.of_type(_KNIGHT))
                     | (pawn_squares & view.of_type(_PAWN)) | (spread(king, KING_STEPS) & view.of_type(_KING)))
        m.d.comb += self.check.eq((attackers & theirs).any())
        return m


def follow_board(m, planes, state, edit, terms, in_check):
    """Wire the search's readings to the board they follow: ``terms`` and ``in_check`` read its
    ``planes`` and ``state``, and ``terms`` sees every write of the applier's ``edit`` port (the
    board's own edge: the evaluation and key change with the board)."""
    m.d.comb += [terms.planes.eq(planes), terms.state.eq(state),
                 in_check.planes.eq(planes), in_check.state.eq(state)]
    for name in ("square_en", "square", "code", "state_en", "state"):
        m.d.comb += getattr(terms.edit, name).eq(getattr(edit, name))
