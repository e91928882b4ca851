"""Ordered generation: a position's moves collected, flagged for check, and emitted by bins.

A search wants its moves in a good order, not in square order: Belle's find-victim /
find-attacker cycle and the Deep Blue chip emit the captures most valuable victim first,
least valuable attacker first, then the rest. :class:`MoveOrderer` does it behind any core
(and behind the legality stage): it takes the generator's stream one move a cycle, computes
each move's bin and direct-check flag from the move's own position, and writes it into one of
one of three banks, where each of the 32 bins is a linked list in arrival order. When the
position is complete its bank is read out bin by bin, one move a cycle, while the next positions
fill the other banks (with two, the core would wait for every emission to end). The order and
the check rule are the golden model's (:mod:`hwmovegen.sim.order`)::

    moves ─► input ─► bin, check ─► bank 0/1/2 ─► bins in order ─► moves (with ``check``)
    (any order, back to back)      (lists per bin)

Bins: ``(5 - victim) * 6 + attacker - 1`` for a capture (python-chess piece types, the victim
of en passant a pawn, the attacker a pawn for every promotion), 30 for a promotion without
capture, 31 for every other move. ``square`` mode puts every move in bin 31 (today's order),
``captures`` mode keeps only bins 0-29 (the list a quiescence search wants).

Check (direct only): the moved piece on its destination, or the rook of a castling, attacks the
opponent's king after the move. It is read from the king's rays on the board before the move,
each up to its first occupied square: a destination on a matching ray checks. The from-square
matters only where the moved piece leaves along the line it came from (the position refuses a
side not to move in check, so only a promotion or the castling rook can): there the piece checks
if its from-square is the ray's first occupied square.
"""

from types import SimpleNamespace

from amaranth import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import data, enum, stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables import Direction, PieceType
from ..tables.contracts import CAPTURE_BINS, ORDER_BINS as BINS, ORDERS, PROMOTION_BIN, QUIET_BIN, capture_bin
from ..tables.lines import KING_STEPS, KNIGHT_STEPS
from .bitboards import orient, slide, spread, wire
from .counters import StreamCount
from .board import BoardView
from .core import PLANES
from .fifo import RECORDS
from .types import COUNTER_WIDTH, BoardState, Counters, Move

__all__ = ["Order", "order_named", "MoveOrderer", "FirstBin", "BINS", "CAPTURE_BINS", "BANK_MOVES",
           "ORDER_IN_FLIGHT", "FIRST_BIN_DELAY"]

BANK_MOVES = 512            # more than any position holds: 15 queens' 27 moves and a king's 10
BANKS = 3
ORDER_IN_FLIGHT = RECORDS   # positions between start and the ordered done


class Order(enum.Enum, shape=2):
    """The order of a position's moves, chosen at ``start``."""
    SQUARE = 0          # the core's order
    MVV_LVA = 1         # captures by victim, then attacker; promotions; the rest
    CAPTURES = 2        # the captures alone, in MVV-LVA order


# the wire values are the contract's order names, in order
assert tuple(order.name.lower().replace("_", "-") for order in Order) == ORDERS


def order_named(name):
    """The :class:`Order` of a contract order name (``"mvv-lva"``)."""
    return Order(ORDERS.index(name))


class _Item(data.Struct):
    """What enters the orderer's pipeline: a move of the position at the input, or its end."""
    move: Move
    close: 1
    bank: range(3)
    order: Order


def _bit(bits, index):
    return bits.bit_select(index, 1)


class CheckFlag(wiring.Component):
    """A move and its position -> whether the move gives direct check (combinational)."""

    move: In(Move)
    planes: In(PLANES)
    state: In(BoardState)
    mover: In(3)            # the moving piece's type
    check: Out(1)

    def elaborate(self, platform):
        m = Module()
        move, white = self.move, self.state.white_to_move
        view = BoardView(self.planes, self.state)
        occupied = wire(m, view.occupied, "occupied")
        king = wire(m, view.opponent & view.of_type(PieceType.KING), "king")     # the opponent's
        reach = []
        for d in KING_STEPS:
            reach.append(slide(m, occupied, king, d, f"ray{d}"))
        N, NE, E, SE, S, SW, W, NW = Direction
        ortho = wire(m, reach[N] | reach[E] | reach[S] | reach[W], "ortho")
        diag = wire(m, reach[NE] | reach[SE] | reach[SW] | reach[NW], "diag")
        knight = wire(m, spread(king, KNIGHT_STEPS), "knight")
        # the squares a pawn of the side to move attacks the king from: behind it, diagonally
        pawn = wire(m, Mux(white, spread(king, (SE, SW)), spread(king, (NE, NW))), "pawn")
        frm, to = move.frm, move.to
        east = to[:3] > frm[:3]
        # the from-square first on the king's ray along the move's own line (promotions, castling)
        file_xray = Mux(white, _bit(reach[N], frm), _bit(reach[S], frm))
        diag_xray = Mux(white, Mux(east, _bit(reach[NE], frm), _bit(reach[NW], frm)),
                        Mux(east, _bit(reach[SE], frm), _bit(reach[SW], frm)))
        # castling: the rook lands beside the king's from-square, towards the king's destination
        rook_to = Mux(east, frm + 1, frm + 63)[:6]      # frm - 1 modulo 64
        castle_check = _bit(ortho, rook_to) | Mux(east, _bit(reach[E], frm), _bit(reach[W], frm))
        piece = Mux(move.promotion != 0, move.promotion, self.mover)
        xray = Mux(move.promotion != 0, Mux(move.capture, diag_xray, file_xray), 0)
        with m.If(move.castle):
            m.d.comb += self.check.eq(castle_check)
        with m.Else():
            with m.Switch(piece):
                with m.Case(PieceType.PAWN):
                    m.d.comb += self.check.eq(_bit(pawn, to))
                with m.Case(PieceType.KNIGHT):
                    m.d.comb += self.check.eq(_bit(knight, to))
                with m.Case(PieceType.BISHOP):
                    m.d.comb += self.check.eq(_bit(diag, to) | (xray & move.capture))
                with m.Case(PieceType.ROOK):
                    m.d.comb += self.check.eq(_bit(ortho, to) | (xray & ~move.capture))
                with m.Case(PieceType.QUEEN):
                    m.d.comb += self.check.eq(_bit(ortho | diag, to) | xray)
        return m


FIRST_BIN_DELAY = 2     # FirstBin's registers: its bin is of the board two cycles before


class FirstBin(wiring.Component):
    """A position -> the lowest bin its pseudo-legal moves fill, registered (``bin`` is of the
    board ``FIRST_BIN_DELAY`` cycles before; 31, the quiet bin, when nothing lower is filled).

    Belle's find-victim / find-attacker over the attack maps, all at once: per attacker type the
    squares the side to move's pieces of that type attack (pawns diagonally ahead, sliders up to
    the first occupied square, a slide per direction), against the opponent's pieces of each
    victim type (and the en-passant square for a pawn), give the capture bins a move fills; a pawn
    with an empty square ahead on its last rank, the promotion bin. The ordering stage's first move
    is the first arrival in the lowest bin its legal moves fill, so when that bin is this one (it is
    no lower: legal moves are pseudo-legal), the move can leave the moment it arrives
    (:class:`MoveOrderer` with ``early``). The model's :func:`~hwmovegen.sim.model.order.first_bin`."""

    planes: In(PLANES)
    state: In(BoardState)
    bin: Out(range(BINS))

    def elaborate(self, platform):
        m = Module()
        view, white = BoardView(self.planes, self.state), self.state.white_to_move
        occupied = wire(m, view.occupied, "occupied")
        opponent = wire(m, view.opponent, "opponent")
        N, NE, E, SE, S, SW, W, NW = Direction
        oriented = {d: orient(m, occupied, d, f"occ{d}") for d in KING_STEPS}

        def own(piece_type):
            return wire(m, view.own & view.of_type(piece_type), f"own{piece_type.name.lower()}")

        def slides(seeds, directions, name):
            reach = Const(0, 64)
            for d in directions:
                reach = reach | slide(m, occupied, seeds, d, f"{name}{d}", oriented[d])
            return reach
        pawns = own(PieceType.PAWN)
        attacks = {
            PieceType.PAWN: Mux(white, spread(pawns, (NE, NW)), spread(pawns, (SE, SW))),
            PieceType.KNIGHT: spread(own(PieceType.KNIGHT), KNIGHT_STEPS),
            PieceType.BISHOP: slides(own(PieceType.BISHOP), (NE, SE, SW, NW), "bishop"),
            PieceType.ROOK: slides(own(PieceType.ROOK), (N, E, S, W), "rook"),
            PieceType.QUEEN: slides(own(PieceType.QUEEN), KING_STEPS, "queen"),
            PieceType.KING: spread(own(PieceType.KING), KING_STEPS),
        }
        attacks = {t: wire(m, a, f"attacks_{t.name.lower()}") for t, a in attacks.items()}
        en_passant = Mux(self.state.ep_valid, Const(1, 64) << self.state.ep_square, 0)[:64]
        # a push onto the last rank: a pawn on its seventh with the square ahead empty
        seventh, second = Const(0xFF << 48, 64), Const(0xFF << 8, 64)
        promotes = Mux(white, spread(pawns & seventh, (N,)), spread(pawns & second, (S,))) & view.empty
        filled = Signal(BINS)       # the bins the position's pseudo-legal moves fill (the first stage)
        for victim in (PieceType.PAWN, PieceType.KNIGHT, PieceType.BISHOP, PieceType.ROOK, PieceType.QUEEN):
            victims = wire(m, opponent & view.of_type(victim), f"victims_{victim.name.lower()}")
            for attacker, attacked in attacks.items():
                # a pawn takes en passant too (no other piece: the square is empty)
                targets = victims | en_passant if victim == attacker == PieceType.PAWN else victims
                m.d.sync += filled[capture_bin(victim, attacker)].eq((attacked & targets).any())
        m.d.sync += [filled[PROMOTION_BIN].eq(promotes.any()), filled[QUIET_BIN].eq(1)]
        _, lowest = _lowest(filled, BINS)
        m.d.sync += self.bin.eq(lowest)
        return m


def _one_hot(bank):
    return (Const(1, BANKS) << bank)[:BANKS]


def _bin_bit(index):
    return (Const(1, BINS) << index)[:BINS]


def _following(bank):
    return Mux(bank == BANKS - 1, 0, bank + 1)


def _lowest(bits, width):
    """(any, index of the lowest set bit) of ``bits``: a tree of halves, log2(width) levels of
    multiplexers (a chain of ``Mux`` per bit would be ``width`` levels deep); ``width`` a power of two."""
    assert width & (width - 1) == 0
    if width == 1:
        return bits[0], Const(0, 0)
    half = width // 2
    low_any, low = _lowest(bits[:half], half)
    high_any, high = _lowest(bits[half:], width - half)
    return low_any | high_any, Mux(low_any, Cat(low, Const(0, 1)), Cat(high, Const(1, 1)))


def _advance(e, at_tail, link, current_bin, any_later, head_later, next_bin, pending, next_ready, following,
             head_following, next_first, next_filled):
    """The emission's move (at ``current``, in ``current_bin``) is done with: the next of its bin
    (``link``), the next bin's first, or the bank's end, and then the next bank's first at once if
    it is ready (no cycle between positions). ``e``: the issue's signals."""
    m = e.m
    with m.If(~at_tail):
        m.d.comb += [e.issue.eq(1), e.index.eq(link), e.bin.eq(current_bin)]
    with m.Elif(any_later):
        m.d.comb += [e.issue.eq(1), e.index.eq(head_later), e.bin.eq(next_bin),
                     e.new_pending.eq(pending & ~_bin_bit(next_bin))]
    with m.Else():
        m.d.comb += e.finish.eq(1)
        with m.If(next_ready):
            m.d.comb += [e.issue.eq(1), e.bank.eq(following), e.index.eq(head_following), e.bin.eq(next_first),
                         e.new_pending.eq(next_filled & ~_bin_bit(next_first))]


def _begin_bank(e, any_first, head_first, first_bin, filled):
    """A complete bank's first move (its lowest bin's), or its end."""
    m = e.m
    with m.If(any_first):
        m.d.comb += [e.issue.eq(1), e.index.eq(head_first), e.bin.eq(first_bin),
                     e.new_pending.eq(filled & ~_bin_bit(first_bin))]
    with m.Else():
        m.d.comb += e.finish.eq(1)


class MoveOrderer(wiring.Component):
    """A generator's stream in, the same moves ordered per position and flagged for check out.

    It takes no options: the order comes per position on ``order``, the bins from the contract.

    Members
    -------
    begin, order, begin_ready, begin_position : In(1), In(Order), Out(1), In(range(RECORDS))
        A position is started upstream (``begin``, in a cycle with ``begin_ready``) to be emitted
        in ``order``; ``begin_position`` is the number the upstream core gives it.
    moves_in, planes, state, foreign : In(stream), In(PLANES), In(BoardState), In(1)
        The upstream stream, with the position of the move on it; ``foreign``: the move belongs
        to a later position than ``position`` (a core running positions back to back; the move
        waits while the orderer closes the earlier ones).
    position : Out(range(RECORDS))
        The upstream number of the position whose moves the orderer takes now.
    end, end_counters : In(1), In(Counters)
        Upstream's ``done``, in start order, and its counters then (``steps`` and
        ``promotion_nodes`` are passed on with the ordered ``done``).
    moves : Out(stream.Signature(Move))
        The ordered stream.
    busy, done, counters : Out(1), Out(1), Out(Counters)
        ``done`` pulses once per position, in start order, after its last ordered move; the
        counters are those of the ordered stream (cycles in segments between ``done``\\ s, as the
        fast core counts them; moves and stalls at the output), with upstream's steps.
    begin_bin : In(range(BINS)), with ``early`` only
        Sampled with ``begin``: the lowest bin the position's pseudo-legal moves fill
        (:class:`FirstBin`). The first move to arrive in that bin is the position's first ordered
        move, and leaves at once, before the position is complete, when the emission is free for
        it; the rest follow once it is. The order is the same; the position's ``done`` comes a
        cycle sooner.
    """

    def __init__(self, *, early=False):
        self.early = early
        super().__init__({
            "begin": In(1), "order": In(Order), "begin_position": In(range(RECORDS)),
            **({"begin_bin": In(range(BINS))} if early else {}),
            "begin_ready": Out(1), "moves_in": In(stream.Signature(Move)),
            "planes": In(PLANES), "state": In(BoardState), "foreign": In(1), "position": Out(range(RECORDS)),
            "end": In(1), "end_counters": In(Counters), "moves": Out(stream.Signature(Move)),
            "busy": Out(1), "done": Out(1), "counters": Out(Counters),
        })

    def elaborate(self, platform):
        m = Module()
        early = self.early
        index_shape = range(BANK_MOVES)
        begin_bin = (self.begin_bin,) if early else ()

        # positions started and their orders, in start order (stdlib FIFOs: nothing special here)
        m.submodules.starts = starts = SyncFIFOBuffered(
            width=Order.as_shape().width + len(self.begin_position) + sum(len(v) for v in begin_bin),
            depth=ORDER_IN_FLIGHT)
        m.submodules.ends = ends = SyncFIFOBuffered(width=2 * COUNTER_WIDTH, depth=ORDER_IN_FLIGHT)
        in_flight = Signal(range(ORDER_IN_FLIGHT + 1))
        finish = Signal(1)
        begin = self.begin & self.begin_ready
        m.d.comb += [
            self.begin_ready.eq((in_flight < ORDER_IN_FLIGHT) & starts.w_rdy),
            starts.w_en.eq(begin), starts.w_data.eq(Cat(self.order, self.begin_position, *begin_bin)),
            ends.w_en.eq(self.end),
            ends.w_data.eq(Cat(self.end_counters.steps, self.end_counters.promotion_nodes)),
        ]
        m.d.sync += in_flight.eq(in_flight + begin - finish)
        head_order = Signal(Order)
        head_bin = (Signal(range(BINS), name="head_bin"),) if early else ()
        m.d.comb += [Cat(head_order, self.position, *head_bin).eq(starts.r_data)]

        # ---- input: the moves of the position at the head of ``starts``, then its close
        claimed = Signal(BANKS)         # a bank belongs to a position being collected or emitted
        in_bank = Signal(range(BANKS))
        in_claimed = Signal(1)          # the position at the input holds in_bank
        credit = Signal(range(-ORDER_IN_FLIGHT - 1, ORDER_IN_FLIGHT + 2))    # upstream dones - closes
        can_enter = starts.r_rdy & (in_claimed | ~_bit(claimed, in_bank))
        close = can_enter & ((credit > 0) | (self.moves_in.valid & self.foreign))
        take = can_enter & ~close & self.moves_in.valid & ~self.foreign
        m.d.comb += [self.moves_in.ready.eq(take), starts.r_en.eq(close)]
        m.d.sync += credit.eq(credit + self.end - close)
        clear_claim = Signal(BANKS)
        set_claim = Signal(BANKS)
        with m.If((take | close) & ~in_claimed):
            m.d.comb += set_claim.eq(_one_hot(in_bank))
        m.d.sync += claimed.eq((claimed | set_claim) & ~clear_claim)
        with m.If(close):
            m.d.sync += [in_bank.eq(_following(in_bank)), in_claimed.eq(0)]
        with m.Elif(take):
            m.d.sync += in_claimed.eq(1)

        # stage 1: the move and its position, registered
        s1 = Signal(_Item)
        s1_valid = Signal(1)
        s1_planes, s1_state = Signal(PLANES), Signal(BoardState)
        m.d.sync += [s1_valid.eq(take | close), s1.move.eq(self.moves_in.payload), s1.close.eq(close),
                     s1.bank.eq(in_bank), s1.order.eq(head_order),
                     s1_planes.eq(self.planes), s1_state.eq(self.state)]
        if early:   # the position's first bin, beside the item
            s1_first, s2_first = Signal(range(BINS)), Signal(range(BINS))
            m.d.sync += [s1_first.eq(head_bin[0]), s2_first.eq(s1_first)]

        # stage 2: the bin and the check flag, registered
        s1_view = BoardView(s1_planes, s1_state)
        mover, victim = Signal(3), Signal(3)        # piece types, the victim of en passant a pawn
        m.d.comb += [mover.eq(s1_view.type_at(s1.move.frm)),
                     victim.eq(Mux(s1.move.en_passant, PieceType.PAWN, s1_view.type_at(s1.move.to)))]
        m.submodules.check = check = CheckFlag()
        m.d.comb += [check.move.eq(s1.move), check.planes.eq(s1_planes), check.state.eq(s1_state),
                     check.mover.eq(mover)]
        # the contract's capture_bin without a multiplier: (queen - victim) * 6 as two shifts
        assert PieceType.KING == (1 << 2) + (1 << 1) and capture_bin(PieceType.QUEEN, PieceType.PAWN) == 0
        capture_bin_, rank = Signal(5, name="capture_bin"), Signal(3)
        m.d.comb += [rank.eq(PieceType.QUEEN - victim),
                     capture_bin_.eq((rank << 2) + (rank << 1) + mover - PieceType.PAWN)]
        s2 = Signal(_Item)
        s2_valid = Signal(1)
        s2_bin = Signal(range(BINS))
        kept = (s1.order != Order.CAPTURES) | s1.move.capture | s1.close
        m.d.sync += [s2_valid.eq(s1_valid & kept), s2.eq(s1), s2.move.check.eq(check.check),
                     s2_bin.eq(Mux(s1.order == Order.SQUARE, QUIET_BIN,
                                   Mux(s1.move.capture, capture_bin_,
                                       Mux(s1.move.promotion != 0, PROMOTION_BIN, QUIET_BIN))))]

        # ---- the banks: the moves, and per bin a linked list (head, tail, next pointers)
        m.submodules.entries = entries = Memory(shape=Move, depth=BANKS * BANK_MOVES, init=[])
        m.submodules.links = links = Memory(shape=index_shape, depth=BANKS * BANK_MOVES, init=[])
        entry_write, link_write = entries.write_port(), links.write_port()
        entry_read, link_read = entries.read_port(), links.read_port()
        # per bank and bin (address Cat(bin, bank)): the first and the last move of its list, in
        # small memories read combinationally (LUT RAM; a register file would be 96-way decoders)
        m.submodules.heads = heads = Memory(shape=index_shape, depth=BANKS * BINS, init=[])
        m.submodules.tails = tails = Memory(shape=index_shape, depth=BANKS * BINS, init=[])
        head_write, tail_write = heads.write_port(), tails.write_port()

        def read(memory, address):
            port = memory.read_port(domain="comb")
            m.d.comb += port.addr.eq(address)
            return port.data
        filled = Array(Signal(BINS, name=f"filled{b}") for b in range(BANKS))     # the bins with moves
        counts = Array(Signal(range(BANK_MOVES + 1), name=f"count{b}") for b in range(BANKS))
        closed = Signal(BANKS)          # a bank's position is complete: it may be emitted
        cleared = Signal(BANKS)         # a bank's emission ended: it is empty again

        # stage 2 writes a move into its bank's next entry and links it behind its bin's tail
        slot = Cat(s2_bin, s2.bank)
        s2_filled = filled[s2.bank]
        s2_count = counts[s2.bank]
        write = s2_valid & ~s2.close
        m.d.comb += [
            entry_write.addr.eq(Cat(s2_count[:len(s2_count) - 1], s2.bank)), entry_write.data.eq(s2.move),
            entry_write.en.eq(write),
            link_write.addr.eq(Cat(read(tails, slot), s2.bank)), link_write.data.eq(s2_count),
            link_write.en.eq(write & _bit(s2_filled, s2_bin)),
        ]
        m.d.comb += [tail_write.addr.eq(slot), tail_write.data.eq(s2_count), tail_write.en.eq(write),
                     head_write.addr.eq(slot), head_write.data.eq(s2_count),
                     head_write.en.eq(write & ~_bit(s2_filled, s2_bin))]
        if early:       # per bank, its position's first bin
            firsts = Array(Signal(range(BINS), name=f"first{b}") for b in range(BANKS))
        for b in range(BANKS):
            with m.If(cleared[b]):
                m.d.sync += [filled[b].eq(0), counts[b].eq(0)]
            with m.Elif(write & (s2.bank == b)):
                m.d.sync += [filled[b].eq(filled[b] | _bin_bit(s2_bin)),
                             counts[b].eq(counts[b] + 1)]
                if early:
                    m.d.sync += firsts[b].eq(s2_first)
        close_bank = Signal(BANKS)
        with m.If(s2_valid & s2.close):
            m.d.comb += close_bank.eq(_one_hot(s2.bank))

        # ---- emission: the closed banks in turn, each bin's list in order, a move a cycle
        out_bank = Signal(range(BANKS))
        following = _following(out_bank)
        have = Signal(1)                # the read ports hold the entry ``current``
        current = Signal(index_shape)
        current_bin = Signal(range(BINS))
        out_filled = filled[out_bank]
        out_closed = _bit(closed, out_bank)
        transfer = self.moves.valid & self.moves.ready
        at_tail = current == read(tails, Cat(current_bin, out_bank))
        # the bank's bins not yet begun, kept in a register: the next bin is its lowest, with no
        # comparison against the current bin on the path to the read address
        pending, new_pending = Signal(BINS), Signal(BINS)
        any_later, next_bin = _lowest(pending, BINS)
        any_first, first_bin = _lowest(out_filled, BINS)
        any_next, next_first = _lowest(filled[following], BINS)
        head_later, head_first = read(heads, Cat(next_bin, out_bank)), read(heads, Cat(first_bin, out_bank))
        head_following = read(heads, Cat(next_first, following))
        issue, issue_index, issue_bin = Signal(1), Signal(index_shape), Signal(range(BINS))
        issue_bank = Signal(range(BANKS))
        m.d.comb += [issue_bank.eq(out_bank), new_pending.eq(pending)]

        # (module functions, not closures: a variable a closure reads loses its name in the RTLIL)
        e = SimpleNamespace(m=m, issue=issue, index=issue_index, bin=issue_bin, bank=issue_bank, finish=finish,
                            new_pending=new_pending)
        onward = (at_tail, link_read.data, current_bin, any_later, head_later, next_bin, pending,
                  _bit(closed, following) & (ends.r_level >= 2) & any_next, following, head_following, next_first,
                  filled[following])
        complete = out_closed & ends.r_rdy          # upstream's done for it is in too
        if early:
            # ``ahead``: the move at ``current`` is the bank's first, issued before the bank was
            # complete (its bin the position's first, so no move can come before it); the next
            # waits for the bank (after its transfer with nothing presented). Meanwhile the link
            # word of ``current`` is read again every cycle, as moves still join its bin, and the
            # bins not yet begun follow the bank's.
            ahead, early_issue = Signal(1), Signal(1)
            with m.If(have & transfer & (~ahead | complete) | ~have & ahead & complete):
                _advance(e, *onward)
            with m.Elif(have):
                pass                        # the early move waits for its transfer, or for the bank
            with m.Elif(~ahead & complete):
                _begin_bank(e, any_first, head_first, first_bin, out_filled)
            with m.Elif(~ahead & any_first & (first_bin == firsts[out_bank])):
                m.d.comb += [issue.eq(1), issue_index.eq(head_first), issue_bin.eq(first_bin), early_issue.eq(1),
                             new_pending.eq(out_filled & ~_bin_bit(first_bin))]
            with m.If(early_issue):
                m.d.sync += ahead.eq(1)
            with m.Elif(issue | finish):
                m.d.sync += ahead.eq(0)
            with m.If(~issue & ahead):
                m.d.sync += pending.eq(out_filled & ~_bin_bit(current_bin))
        else:
            with m.If(have):
                with m.If(transfer):
                    _advance(e, *onward)
            with m.Elif(complete):
                _begin_bank(e, any_first, head_first, first_bin, out_filled)
        m.d.comb += [
            entry_read.addr.eq(Cat(issue_index, issue_bank)), link_read.addr.eq(Cat(issue_index, issue_bank)),
            entry_read.en.eq(issue), link_read.en.eq(issue),
            self.moves.valid.eq(have), self.moves.payload.eq(entry_read.data),
        ]
        if early:
            with m.If(~issue & ahead):
                m.d.comb += [link_read.addr.eq(Cat(current, out_bank)), link_read.en.eq(1)]
        with m.If(issue):
            m.d.sync += [have.eq(1), current.eq(issue_index), current_bin.eq(issue_bin), pending.eq(new_pending)]
        with m.Elif(transfer):
            m.d.sync += have.eq(0)
        with m.If(finish):
            m.d.comb += [cleared.eq(_one_hot(out_bank)), clear_claim.eq(_one_hot(out_bank))]
            m.d.sync += out_bank.eq(following)
        m.d.sync += closed.eq((closed | close_bank) & ~cleared)

        # ---- done and the counters: segments between dones, as the fast core counts them
        m.d.comb += ends.r_en.eq(finish)
        result = Signal(Counters)
        done = Signal(1)
        active = (in_flight != 0) | begin
        seg = StreamCount(m, self.moves.valid, self.moves.ready, restart=finish, cycle=active, name="seg_")
        with m.If(finish):
            cycles, moves, stalls = seg.through_this_cycle()
            m.d.sync += [result.cycles.eq(cycles), result.moves.eq(moves), result.stalls.eq(stalls),
                         Cat(result.steps, result.promotion_nodes).eq(ends.r_data)]
        m.d.sync += done.eq(finish)
        m.d.comb += [self.done.eq(done), self.counters.eq(result), self.busy.eq(in_flight != 0)]
        return m
