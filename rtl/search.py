"""Search in hardware: fail-hard negamax alpha-beta with quiescence, node for node the golden
model's (:mod:`hwmovegen.sim.search`, ``docs/search.md``).

:class:`SearchEngine` is built from the perft engine's parts: a legal generator with the ordering
stage (its order chosen per position: ``mvv-lva`` for a full-width node and a quiescence node
in check, ``captures`` for the others, whose captures alone the fast core streams: a node with no
legal capture is no stalemate if its king has a legal step, else its whole position is generated
again, uncounted), the :class:`~.apply.MoveApplier`'s make and unmake, a
move list per ply (:class:`~.perft.MoveLists`). Beside the board, :class:`~.evaluate.PositionTerms`
keeps the evaluation and the Polyglot key on every square the applier writes, and
:class:`~.evaluate.InCheck` tells a check from the planes, so that a quiescence node stands pat
on the spot, without a generation.

The walk is one FSM over an explicit stack: per ply the window (alpha, beta; the current ply's in
registers), the depth left (0: a quiescence node, with its quiescence ply ``q``), the move list's
cursor and end, the move made from it, the halfmove clock and the key (for repetitions along the
path). The principal variation is a triangular table in a memory: row ``p`` is the line from ply
``p``, copied from row ``p + 1`` behind the move that raised alpha, a word a cycle.

A node is entered (``ENTER``) with the board already its own: the draw rules first (ply > 0: the
halfmove clock, the path's keys in parallel, the request's history keys through a filter of 1024
bits that only sends a likely match to a scan of the history memory), then stand pat or a
generation, then its moves, each made (``MAKE``), searched and unmade (``RETURN``, ``SCORE``).

Overlaps keep the cycles down, none changing what is searched: the unmake runs on while the
FSM scores the child (nothing reads the board until the next make, which waits for the applier), and
a node that stands pat, or whose list has ended while the applier is idle, unmakes in the cycle it
knows its value; below the root a node's first move is made as it arrives (``EARLY``: it is the first in the
ordering stage's order, and a move at all is what the generation's end would have said), while a
collector finishes the list beside the search (the node's ``NEXT`` waits for its end); a
generation may start while the list before it still fills (it is ``queued``, its moves behind
that list's), so its latency hides under that list's last moves; and a quiescence node not in check
takes its first capture from the board (``CAPTURE``: :class:`~.capture.FirstCapture`, a few cycles
after the board settles; made from its register, the list being the generation's alone), its
generation started beside it if the generator is idle, else only once
that capture has not cut off (the node is ``lazy`` until ``NEXT``). So does a full-width node below
the root not in check: with its generation started at once (``COLLECT`` takes the board's capture if
it comes before the generation's first move), or lazy as above when the generator is busy.
"""

from amaranth import Array, Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..tables.contracts import CORE_NAMES, LAYOUT_NAMES, MAX_MOVES, SELECTABLE
from ..tables.search import (BOUNDS, COUNTERS, MATE, MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE, MAX_SEARCH_PLIES,
                             SCORE_BITS)
from .apply import MoveApplier
from .board import LoadSignature
from .capture import FIRST_CAPTURE_DELAY, FirstCapture
from .evaluate import InCheck, PositionTerms, follow_board
from .movegen import MoveGenerator
from .order import Order
from .options import Options
from .perft import LIST_BITS, MoveLists
from .types import Move

__all__ = ["SearchRequest", "SearchResult", "SearchCounters", "RootFilter", "SEARCH_COUNTER_NAMES",
           "SEARCH_COUNTER_WIDTH", "HistorySignature", "SearchControlSignature", "SearchEngine", "SearchArray",
           "FILTER_BITS", "search_design"]

SEARCH_COUNTER_WIDTH = 48
FILTER_BITS = 10            # the history filter: a bit per value of the key's low bits
_PAWN = 1
Score = signed(SCORE_BITS)

# the model's counters (tables/search.py), then where the cycles go
SEARCH_COUNTER_NAMES = COUNTERS + ("cycles", "generate_cycles", "first_move_cycles", "apply_cycles", "pv_cycles",
                                   "draw_cycles")
SearchCounters = data.StructLayout({name: SEARCH_COUNTER_WIDTH for name in SEARCH_COUNTER_NAMES})
SearchCounters.__doc__ = """The counters of a search: ``nodes`` (the root and every position made),
``qnodes`` (nodes entered through quiescence), ``cutoffs`` (beta cutoffs, stand pat included),
``generations`` (the nodes that generate their moves: a node that takes its first capture from the
board counts one whether its generation runs beside it, later or never),
as the model counts them; ``cycles`` from the cycle
that takes ``start`` to ``done``, and of those: ``generate_cycles`` (the FSM waiting on a
generation: to start it, then until its ``done``, or its first move where that is made at once),
``first_move_cycles`` (of those, until its first move or its ``done``), ``apply_cycles`` (waiting
on a make or an unmake; an unmake's writes under the scoring are not counted), ``pv_cycles``
(copying lines of the triangular table), ``draw_cycles`` (scanning the history memory)."""


def _bound(score, request):
    """The index into BOUNDS of ``score`` against the request's window (as the model reports it)."""
    return Mux(score >= request.beta, BOUNDS.index("lower"),
               Mux(score <= request.alpha, BOUNDS.index("upper"), BOUNDS.index("exact")))


class SearchRequest(data.Struct):
    """What a search is asked: sampled with ``start``."""
    depth: range(MAX_DEPTH + 1)                 # full-width plies, 1 to MAX_DEPTH
    quiescence: range(MAX_QUIESCENCE + 1)       # Q: quiescence plies below the horizon, at most
    alpha: Score
    beta: Score
    node_limit: 32                              # 0: none
    hint: Move                                  # tried first at the root if legal (frm, to, promotion)
    hint_valid: 1
    halfmove_clock: 8                           # at the root (100 or more: every child a draw)
    history: range(MAX_HISTORY + 1)             # history keys written (HistorySignature)


class SearchResult(data.Struct):
    """A search's answer, held from ``done`` until the next ``start``."""
    best: Move
    best_valid: 1                               # 0: the root has no legal move
    score: Score
    bound: range(len(BOUNDS))                   # an index into tables.search.BOUNDS
    aborted: 1
    pv_length: range(MAX_SEARCH_PLIES + 1)


class RootFilter(data.Struct):
    """The root moves a split's engine takes, of the ordered root list (the hint first): moves
    ``first``, ``first + stride``, ... at most ``count`` of them (0: all), as the model's
    ``root_first``, ``root_stride``, ``root_count``; sampled with ``start``."""
    first: range(MAX_MOVES)
    stride: range(1, MAX_MOVES)
    count: range(MAX_MOVES)


class HistorySignature(wiring.Signature):
    """The keys of the game's earlier positions since the last irreversible move, written
    before ``start`` (``en``: key ``key`` at ``index``)."""

    def __init__(self):
        super().__init__({"en": Out(1), "index": Out(range(MAX_HISTORY)), "key": Out(64)})


class SearchControlSignature(wiring.Signature):
    """The engine's ports but its ``load``, from its side: what a host (the host link's
    executor) drives and reads (see :class:`SearchEngine`)."""

    def __init__(self, max_plies=MAX_SEARCH_PLIES):
        super().__init__({
            "history": In(HistorySignature()),
            "request": In(SearchRequest),
            "start": In(1),
            "abort": In(1),
            "busy": Out(1),
            "done": Out(1),
            "result": Out(SearchResult),
            "counters": Out(SearchCounters),
            "pv_index": In(range(max_plies)),
            "pv_move": Out(Move),
        })


class SearchEngine(wiring.Component):
    """Searches the loaded position: alpha-beta to ``request.depth`` plies, then quiescence.

    Ports
    -----
    load : In(LoadSignature)
        The root position (as for the perft engine); written while idle.
    history : In(HistorySignature)
        The history keys, written while idle.
    request : In(SearchRequest)
        Sampled with ``start``, taken when idle.
    start, abort : In(1)
        ``abort`` stops a running search before its next make, as a node limit does.
    busy, done : Out(1)
        ``done`` pulses once the search is over and the board holds the root again.
    result : Out(SearchResult)
    counters : Out(SearchCounters)
    pv_index, pv_move : In, Out(Move)
        The principal variation, read a move at a time (``pv_move`` is move ``pv_index`` of it,
        combinationally).
    root : In(RootFilter), best_root : Out(range(MAX_MOVES))
        With ``root_filter`` only (a :class:`SearchArray`'s engines): the root moves to take, and
        where the best move stands in the ordered root list. Without, every root move is taken
        and the engine is built as it always was.
    """

    def __init__(self, *, layout="dense", core="fast", max_plies=MAX_SEARCH_PLIES, root_filter=False):
        options = Options("SearchEngine")
        options.choice("core", core, CORE_NAMES)
        options.choice("layout", layout, LAYOUT_NAMES)
        options.count("max_plies", max_plies, 2, MAX_SEARCH_PLIES)
        options.done()
        self.layout, self.core, self.max_plies, self.root_filter = layout, core, max_plies, root_filter
        # the fast core streams a quiescence node's captures alone (captures_only)
        self.generator = MoveGenerator(layout=layout, core=core, legal=True, editable=True, order=SELECTABLE,
                                       legal_count=True, captures=core == "fast", early=True)
        # the unmake as short as the make (the stack's top read ahead)
        self.applier = MoveApplier(max_plies, prefetch=True)
        self.terms = PositionTerms()
        self.in_check = InCheck()
        # a quiescence node's first capture from the board, made before its generation ends (or starts)
        self.first_capture = FirstCapture()
        # for tests, not ports: the FSM acts on the stand-pat score this cycle (``terms.ready``
        # must be high then: a stale score would go unnoticed wherever it happens to be equal), on
        # ``checked``, the registered check flag, and on ``key``, the registered key (each must be
        # the board's as it stands then)
        self.score_read = Signal(1)
        self.checked, self.check_read = Signal(1, name="checked"), Signal(1, name="check_read")
        self.key, self.key_read = Signal(64, name="key"), Signal(1, name="key_read")
        super().__init__({
            "load": In(LoadSignature()),
            **SearchControlSignature(max_plies).members,
            **({"root": In(RootFilter), "best_root": Out(range(MAX_MOVES))} if root_filter else {}),
        })

    def elaborate(self, platform):
        m = Module()
        P = self.max_plies
        m.submodules.generator = gen = self.generator
        m.submodules.applier = applier = self.applier
        m.submodules.terms = terms = self.terms
        m.submodules.in_check = in_check = self.in_check
        m.submodules.first_capture = first_capture = self.first_capture
        m.d.comb += [first_capture.planes.eq(gen.planes), first_capture.state.eq(gen.board_state)]
        # its answer is the board's once nothing was written for FIRST_CAPTURE_DELAY cycles
        wrote = (self.load.clear | self.load.rank_en | self.load.state_en | applier.edit.square_en |
                 applier.edit.state_en)
        calm = Signal(FIRST_CAPTURE_DELAY)      # bit k: no write k + 1 cycles ago, nor since
        m.d.sync += calm.eq(Mux(wrote, 0, Cat(1, calm[:-1])))
        settled = calm[-1]
        m.submodules.lists = lists = MoveLists(P * MAX_MOVES, read_addr=True)
        wiring.connect(m, wiring.flipped(self.load), gen.load)
        wiring.connect(m, applier.edit, gen.edit)
        m.d.comb += [applier.planes.eq(gen.planes), applier.state.eq(gen.board_state)]
        follow_board(m, gen.planes, gen.board_state, applier.edit, terms, in_check)

        # ---- the request, latched at start
        request = Signal(SearchRequest)
        counters = Signal(SearchCounters)
        result = Signal(SearchResult)
        m.d.comb += [self.counters.eq(counters), self.result.eq(result)]

        # ---- the stack: a frame per ply
        ply = Signal(range(P))
        def frames(shape, name):
            return Array(Signal(shape, name=f"{name}{p}") for p in range(P))
        alphas, betas = frames(Score, "alpha"), frames(Score, "beta")
        depths, qs = frames(range(MAX_DEPTH + 1), "depth"), frames(range(MAX_QUIESCENCE + 1), "q")
        indices, ends = frames(range(MAX_MOVES + 1), "index"), frames(range(MAX_MOVES + 1), "end")
        clocks = frames(range(101), "clock")
        resets_clock, next_clock = Signal(1), Signal(range(101))       # the child's clock, from MAKE
        keys = frames(64, "key")
        pv_lengths = frames(range(P + 1), "pv_length")
        made = frames(Move, "made")
        # the node took its first capture from the board: its list is not generated yet
        lazies = frames(1, "lazy")
        depth, q = depths[ply], qs[ply]
        # the current frame's window, in registers: the stack keeps an ancestor's, saved in MAKE and
        # restored on its unmake (through `ply`'s multiplexers into the comparisons of SCORE and
        # EXPAND, the frame's window was the engine's critical path)
        alpha, beta = Signal(Score, name="frame_alpha"), Signal(Score, name="frame_beta")
        # the current frame's flags, registered: set wherever `ply` changes (``enter_frame``), so the
        # FSM's conditions read no frame through `ply`'s multiplexers (depth[ply] == 0 into the next
        # state was the engine's critical path); for tests, ``frame_agrees`` says they match the frame
        quiescent = Signal(1, name="quiescent")         # depth == 0
        last_q = Signal(1, name="last_q")               # q == request.quiescence
        at_root = Signal(1, name="at_root")             # ply == 0
        self.frame_agrees = Signal(1, name="frame_agrees")

        def enter_frame(new_ply, new_depth_zero, new_last_q, new_alpha, new_beta):
            m.d.sync += [ply.eq(new_ply), quiescent.eq(new_depth_zero), last_q.eq(new_last_q),
                         at_root.eq(new_ply == 0), alpha.eq(new_alpha), beta.eq(new_beta)]

        def pop_frame():
            """`ply` back to the parent's frame, its flags and window read from its registers."""
            up = (ply - 1)[:len(ply)]
            enter_frame(up, depths[up] == 0, qs[up] == request.quiescence, alphas[up], betas[up])

        # ---- the principal variation: row p, column k at Cat(k, p)
        column_bits = (P - 1).bit_length()
        # (a power of two deep: the copy port's address names row ply + 1 in every state, and
        # CXXRTL refuses a read out of bounds)
        m.submodules.pv = pv = Memory(shape=Move, depth=1 << (column_bits + len(ply)), init=[])
        pv_write, pv_copy, pv_out = pv.write_port(), pv.read_port(transparent_for=()), pv.read_port(domain="comb")
        m.d.comb += [pv_out.addr.eq(Cat(self.pv_index, Const(0, len(ply)))), self.pv_move.eq(pv_out.data)]
        column = Signal(range(P + 1))

        # ---- the history: a memory of keys, and a filter of their low bits
        # (a power of two deep: a scan reads one word past the last key)
        m.submodules.history = history = Memory(shape=64, depth=1 << MAX_HISTORY.bit_length(), init=[])
        history_write, history_read = history.write_port(), history.read_port(transparent_for=())
        m.d.comb += [history_write.en.eq(self.history.en), history_write.addr.eq(self.history.index),
                     history_write.data.eq(self.history.key)]
        filter_ = Signal(1 << FILTER_BITS)
        scanned = Signal(range(MAX_HISTORY + 1))        # history keys read (filter build, node scan)
        # the board's key, registered: read only in ENTER, a cycle after the board became the node's;
        # combinational, its en-passant part (the own pawns beside the pushed one, from the planes)
        # into the path's 17 key comparisons was the engine's longest path
        key = self.key
        m.d.sync += key.eq(terms.key)

        # ---- the side to move in check, registered: the board is the node's own from ENTER on, and
        # only EXPAND (after ENTER or HISTORY) and EXPANDED (after a generation) read it; combinational,
        # the king's rays over the planes into `ret` were the engine's critical path
        checked = self.checked
        m.d.sync += checked.eq(in_check.check)

        # ---- scores
        ret = Signal(Score)                 # the value the node at `ply` returns
        child = Signal(signed(SCORE_BITS + 1))
        m.d.comb += child.eq(-ret)
        stand = terms.score
        mated = Signal(Score)
        m.d.comb += mated.eq(ply - MATE)    # -(MATE - ply)

        # ---- the root's answer
        best, best_valid, aborted = Signal(Move), Signal(1), Signal(1)
        abort_asked = Signal(1)
        with m.If(self.abort):
            m.d.sync += abort_asked.eq(1)

        # ---- generation: the moves into the generating ply's list, from 1 on (the hint at 0), by
        # the collector below, which runs on past the node's first move (``early``: made before
        # the generation's end, the collector finishing the list meanwhile). A generation started
        # while a list is still filling is ``queued``: its moves follow that list's end, and its
        # first one may come in the cycle of that end's ``done``: it waits a cycle, for its list.
        filling, early, queued = Signal(1), Signal(1), Signal(1)
        fill_ply, queued_ply = Signal(range(P)), Signal(range(P))
        found_hint = Signal(1)
        written = Signal(range(MAX_MOVES + 1))
        seen_first = Signal(1)
        order = Signal(Order)
        only = Signal(1)            # the captures alone (a captures core)
        again = Signal(1)           # the node's generation again, whole: not counted twice
        regen = Signal(1)           # the generation of a node that took its first capture from the board
        # the node's first move is the board's capture (``first_capture.move``, a register), made
        # from there: never written to the list (its generation writes it there), so the collector
        # and the list's write port are the generator's alone
        from_board = Signal(1)
        moves = gen.moves
        hint = request.hint
        is_hint = (fill_ply == 0) & request.hint_valid & (moves.payload.frm == hint.frm) & \
            (moves.payload.to == hint.to) & (moves.payload.promotion == hint.promotion)
        m.d.comb += [
            moves.ready.eq(~(queued & gen.done)),
            gen.order.eq(order), gen.all_moves.eq(0),
            *([gen.captures_only.eq(only)] if gen.captures else []),
            lists.write_data.eq(moves.payload),
            applier.commands.payload.move.eq(Mux(from_board, first_capture.move, lists.read_data)),
        ]
        list_slot = Signal(LIST_BITS)
        collecting = Signal(1)      # in COLLECT: the read address is the first move's, made at the end
        m.d.comb += [lists.addr.eq(Cat(list_slot, fill_ply)),
                     lists.read_addr.eq(Cat(Mux(collecting, ~found_hint, indices[ply][:LIST_BITS]), ply))]
        m.d.comb += list_slot.eq(Mux(is_hint, 0, written + 1))

        def count(name, by=1):
            m.d.sync += counters[name].eq(counters[name] + by)

        # ---- the root filter: a countdown to the next own root move, the own moves taken, the
        # root list's index of the next move (so of the best one)
        filtered = self.root_filter
        if filtered:
            root = Signal(RootFilter)
            root_skip, root_taken = Signal(range(MAX_MOVES)), Signal(range(MAX_MOVES + 1))
            root_index, best_root = Signal(range(MAX_MOVES + 1)), Signal(range(MAX_MOVES))
            m.d.comb += self.best_root.eq(best_root)

        # an abort asked, or the node limit reached: no more makes
        # (the limit's comparison registered: `nodes` changes in MAKE, and nothing reads `stopping`
        # before the child's EXPAND, three cycles on; its 48-bit carry chain fed the next state)
        stopping, reached = Signal(1), Signal(1)
        limit = request.node_limit
        m.d.sync += reached.eq((limit != 0) & (counters.nodes >= limit))
        m.d.comb += stopping.eq(abort_asked | reached)

        def leave():
            """The node's value is known (``ret``, set beside): below the root its unmake goes now, as
            RETURN's would a cycle later, and SCORE follows; RETURN if the applier is busy."""
            m.d.comb += [applier.commands.valid.eq(~at_root), applier.commands.payload.unmake.eq(1)]
            with m.If(~at_root & applier.commands.ready):
                pop_frame()
                m.next = "SCORE"
            with m.Else():
                m.next = "RETURN"

        def expanded():
            """The generation's end: the node's moves counted (EXPANDED waits here only for the
            stand-pat score). Its first move is made at once (its list word, addressed in
            COLLECT, read now), but at the root, once the search is to stop and when no capture
            came (a quiescence node with a king step): NEXT's."""
            m.d.comb += self.check_read.eq(1)
            # (a node that took its first capture from the board goes on with its second)
            m.d.sync += [indices[ply].eq(Mux(regen, 2, ~found_hint)), ends[ply].eq(written + 1), regen.eq(0)]
            none = ~found_hint & (written == 0)
            proceed = Signal(1)
            with m.If(proceed):
                with m.If(at_root | stopping | none | regen):
                    m.next = "NEXT"
                with m.Else():
                    m.next = "MAKE"
            with m.If(~quiescent):
                with m.If(none):
                    m.d.sync += ret.eq(Mux(checked, mated, 0))
                    m.next = "RETURN"
                with m.Else():
                    m.d.comb += proceed.eq(1)
            with m.Elif(checked):
                with m.If(none):
                    m.d.sync += ret.eq(mated)
                    m.next = "RETURN"
                with m.Elif(last_q):
                    with m.If(terms.ready):     # (after a generation it is)
                        m.d.comb += self.score_read.eq(1)
                        m.d.sync += ret.eq(Mux(stand >= beta, beta, Mux(stand <= alpha, alpha, stand)))
                        m.next = "RETURN"
                    with m.Else():
                        m.next = "EXPANDED"
                with m.Else():
                    m.d.comb += proceed.eq(1)
            with m.Elif(gen.legal_moves == 0):      # the captures of a stalemate: none
                if gen.captures:
                    # no legal capture: a legal king step says no stalemate; without one, the
                    # whole position tells (the same generation, again)
                    with m.If(~only):
                        m.d.sync += ret.eq(0)
                        m.next = "RETURN"
                    with m.Elif(~gen.king_step):
                        m.d.sync += [only.eq(0), again.eq(1)]
                        m.next = "GENERATE"
                    with m.Else():
                        m.d.comb += proceed.eq(1)
                else:
                    m.d.sync += ret.eq(0)
                    m.next = "RETURN"
            with m.Else():
                m.d.comb += proceed.eq(1)

        # the collector: every move of the generation into its ply's list; the end's count, when
        # the node took its first move early
        taken = Signal(1)
        m.d.comb += taken.eq(moves.valid & moves.ready)
        with m.If(filling & taken):
            m.d.comb += lists.write.eq(1)
            # the root's first move (the hint's if it comes): its answer until a move raises alpha
            # (a filtered engine's first root move is its first own one: taken in NEXT)
            if not filtered:
                with m.If((fill_ply == 0) & (is_hint | ((written == 0) & ~found_hint))):
                    m.d.sync += [best.eq(moves.payload), best_valid.eq(1)]
            with m.If(is_hint):
                m.d.sync += found_hint.eq(1)
            with m.Else():
                m.d.sync += written.eq(written + 1)
        starting, ending = Signal(1), Signal(1)     # a generation starts (GENERATE) / ends
        m.d.comb += ending.eq(filling & gen.done)
        with m.If(ending):
            with m.If(early):
                m.d.sync += ends[fill_ply].eq(written + 1)
            with m.If(queued):      # the queued generation's moves come next
                m.d.sync += [queued.eq(0), fill_ply.eq(queued_ply), written.eq(0), found_hint.eq(0),
                             early.eq(0)]
            with m.Else():
                m.d.sync += filling.eq(0)
        with m.If(starting):        # (never while one is queued)
            with m.If(filling & ~ending):       # behind the list still filling
                m.d.sync += [queued.eq(1), queued_ply.eq(ply)]
            with m.Else():
                m.d.sync += [filling.eq(1), fill_ply.eq(ply), written.eq(0), found_hint.eq(0), early.eq(0)]
        # a full-width node below the root, not in check: its first capture may come from the board
        board_first, board_ready = Signal(1), Signal(1)
        m.d.comb += board_first.eq(~quiescent & ~checked & ~at_root)
        # a first move taken before the end: below the root (its hint, its filter), unless the
        # node's answer is its stand pat (in check at the last quiescence ply). Whether the search
        # is to stop is EARLY's to see, as for every make: decided here, an abort that came in the
        # cycle the first move did took a walk other than a node limit's (2 cycles more)
        take_early = Signal(1)
        m.d.comb += take_early.eq(~at_root & ~(quiescent & checked & last_q))
        # in COLLECT, before the generation's first move is written: the board's first capture
        # instead, if the node was ``board_ready`` (``board_first`` in EXPAND), from registers only;
        # a stop is EARLY's to see. (Made from the board's register, not written into the list: there
        # it held the collector's ready, which the ordering stage's read follows in the same cycle)
        board_capture = Signal(1)
        m.d.comb += board_capture.eq(collecting & board_ready & ~queued & ~regen & settled & first_capture.found &
                                     (written == 0) & ~gen.done)

        def made_now():
            """The board's capture is the node's first move: made next (no list word to read
            first), unless the search is to stop (EARLY sees to that)."""
            with m.If(stopping):
                m.next = "EARLY"
            with m.Else():
                m.next = "MAKE"

        idle = Signal(1)
        with m.FSM(name="search"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(self.start):
                    # (the root's depth is 1 or more)
                    enter_frame(0, 0, self.request.quiescence == 0, self.request.alpha, self.request.beta)
                    m.d.sync += [request.eq(self.request), counters.eq(0), counters.cycles.eq(1),
                                 counters.nodes.eq(1), aborted.eq(0), abort_asked.eq(0),
                                 best_valid.eq(0), filter_.eq(0), scanned.eq(0),
                                 depths[0].eq(self.request.depth), qs[0].eq(0),
                                 clocks[0].eq(Mux(self.request.halfmove_clock > 100, 100,
                                                  self.request.halfmove_clock))]
                    if filtered:
                        m.d.sync += [root.eq(self.root), root_skip.eq(self.root.first), root_taken.eq(0),
                                     root_index.eq(0), best_root.eq(self.root.first)]
                    m.d.comb += terms.scan.eq(1)
                    m.next = "PREPARE"
            with m.State("PREPARE"):
                # the terms add the board up (64 cycles); meanwhile the history keys fill the filter
                m.d.comb += history_read.addr.eq(scanned)
                with m.If(scanned != request.history):
                    m.d.sync += scanned.eq(scanned + 1)
                with m.If(scanned != 0):
                    # an OR with a one-hot word, not a bit_select assignment: the same bits, but one
                    # 1024-bit operation instead of a comparison per bit (a third of the simulation
                    # model's code)
                    m.d.sync += filter_.eq(filter_ | (Const(1, 1) << history_read.data[:FILTER_BITS]))
                with m.If(~terms.busy & (scanned == request.history)):     # the last key lands now
                    m.next = "ENTER"

            with m.State("ENTER"):          # a node: the board is its own
                m.d.comb += self.key_read.eq(1)
                m.d.sync += [pv_lengths[ply].eq(0), keys[ply].eq(key), scanned.eq(0), lazies[ply].eq(0)]
                with m.If(quiescent):
                    count("qnodes")
                repeated = Signal(1)
                m.d.comb += repeated.eq(Cat((p < ply) & (keys[p] == key) for p in range(P)).any())
                with m.If(~at_root & ((clocks[ply] >= 100) | repeated)):
                    m.d.sync += ret.eq(0)
                    m.next = "RETURN"
                with m.Elif(~at_root & filter_.bit_select(key[:FILTER_BITS], 1)):
                    m.next = "HISTORY"
                with m.Else():
                    m.next = "EXPAND"
            with m.State("HISTORY"):        # the filter's hit: the history keys, one a cycle
                count("draw_cycles")
                m.d.comb += history_read.addr.eq(scanned)
                m.d.sync += scanned.eq(scanned + 1)
                with m.If((scanned != 0) & (history_read.data == keys[ply])):
                    m.d.sync += ret.eq(0)
                    m.next = "RETURN"
                with m.Elif(scanned == request.history):
                    m.next = "EXPAND"
            with m.State("EXPAND"):         # stand pat, or a generation in the node's order
                m.d.comb += self.check_read.eq(1)
                m.d.sync += board_ready.eq(board_first)
                with m.If(~quiescent | checked):
                    m.d.sync += [order.eq(Order.MVV_LVA), only.eq(0)]
                    # below the root a full-width node not in check heads its list with its first
                    # capture from the board too (no hint goes before it): beside its generation if
                    # the generator is idle (COLLECT takes whichever comes first), else alone
                    with m.If(board_first & ~(gen.start_ready & ~filling)):
                        m.next = "CAPTURE"
                    with m.Else():
                        m.next = "GENERATE"
                with m.Elif(~terms.ready):
                    pass                    # the registered score is a cycle or two behind the board
                with m.Elif(stand >= beta):
                    m.d.comb += self.score_read.eq(1)
                    count("cutoffs")
                    m.d.sync += ret.eq(beta)
                    leave()
                with m.Else():
                    m.d.comb += self.score_read.eq(1)
                    with m.If(stand > alpha):
                        m.d.sync += alpha.eq(stand)
                    with m.If(last_q):
                        m.d.sync += ret.eq(Mux(stand > alpha, stand, alpha))
                        leave()
                    with m.Else():
                        m.d.sync += [order.eq(Order.CAPTURES), only.eq(1)]
                        m.next = "CAPTURE"
            with m.State("CAPTURE"):        # the first capture from the board, else a generation
                count("generate_cycles")
                count("first_move_cycles")
                with m.If(settled):
                    with m.If(first_capture.found):
                        # made from the board's register (the list's first word is its
                        # generation's). The node's generation (counted now, as the model counts a
                        # node's, whenever it runs) starts now if the generator is idle, the
                        # collector filling the list beside the search as for a move made early;
                        # else it waits until this move has not cut off (NEXT)
                        count("generations")
                        m.d.sync += [indices[ply].eq(1), from_board.eq(1)]
                        with m.If(gen.start_ready & ~filling):
                            m.d.comb += [gen.start.eq(1), starting.eq(1)]
                            m.d.sync += early.eq(1)
                        with m.Else():
                            m.d.sync += lazies[ply].eq(1)
                        made_now()
                    with m.Else():
                        m.next = "GENERATE"
            with m.State("GENERATE"):
                count("generate_cycles")
                count("first_move_cycles")
                m.d.comb += gen.start.eq(gen.start_ready & ~queued)
                with m.If(gen.start_ready & ~queued):
                    m.d.comb += starting.eq(1)
                    with m.If(~again & ~regen):
                        count("generations")
                    m.d.sync += [seen_first.eq(0), again.eq(0)]
                    m.next = "COLLECT"
            with m.State("COLLECT"):        # the node's moves arrive (the collector writes them)
                count("generate_cycles")
                m.d.comb += collecting.eq(1)
                ours = ~queued              # the stream is this node's generation's
                with m.If(ours & (taken | gen.done)):
                    m.d.sync += seen_first.eq(1)
                with m.Elif(~seen_first):
                    count("first_move_cycles")
                with m.If(ours & gen.done):
                    expanded()
                with m.Elif(board_capture):
                    # the board told the first capture before the generation: made from the board's
                    # register (the generation writes the same move into the list's first word)
                    m.d.comb += self.check_read.eq(1)
                    m.d.sync += [indices[ply].eq(1), early.eq(1), from_board.eq(1)]
                    made_now()
                with m.Elif(ours & taken & (written == 0) & take_early & ~regen):
                    # below the root a first move says what the end would (the node has a move,
                    # and takes it): it is made now, the list finished beside the search
                    m.d.comb += self.check_read.eq(1)
                    m.d.sync += [indices[ply].eq(1), early.eq(1)]
                    m.next = "EARLY"
                with m.Elif(ours & regen & (written >= 2)):
                    # the first capture's node: its second move is in the list, the rest comes
                    # beside the search
                    m.d.sync += [indices[ply].eq(2), early.eq(1), regen.eq(0)]
                    m.next = "NEXT"
            with m.State("EARLY"):          # the first move's word (written the cycle before) is read now
                count("generate_cycles")
                with m.If(stopping & lazies[ply]):      # (a first capture's node has no list to wait for)
                    m.d.sync += [aborted.eq(1), from_board.eq(0)]
                    m.next = "UNWIND"
                with m.Elif(stopping):
                    m.d.sync += from_board.eq(0)
                    m.next = "NEXT"
                with m.Else():
                    m.next = "MAKE"
            with m.State("EXPANDED"):
                expanded()

            with m.State("NEXT"):           # the next move of this ply (its list word read now)
                own = filling & (fill_ply == ply)
                with m.If((own & (indices[ply] > written)) | (queued & (queued_ply == ply))):
                    pass                    # the list's next word, or its end, is not there yet
                with m.Elif(lazies[ply]):
                    # the first capture did not cut off: the node's list, its captures in quiescence
                    # (even when the search is to stop: only makes wait for that, so an abort is a
                    # node limit's search)
                    m.d.sync += [order.eq(Mux(quiescent, Order.CAPTURES, Order.MVV_LVA)), only.eq(quiescent),
                                 lazies[ply].eq(0), regen.eq(1)]
                    m.next = "GENERATE"
                with m.Elif(~own & (indices[ply] == ends[ply])):       # (a filling list's end is not known)
                    m.d.sync += ret.eq(alpha)
                    leave()
                if filtered:
                    with m.Elif(at_root & (root_skip != 0)):      # another engine's move: passed by
                        m.d.sync += [indices[0].eq(indices[0] + 1), root_skip.eq(root_skip - 1),
                                     root_index.eq(root_index + 1)]
                    with m.Elif(at_root & (root.count != 0) & (root_taken == root.count)):
                        m.d.sync += ret.eq(alpha)       # its share taken: the root's list ends here
                        m.next = "RETURN"
                    with m.Elif(at_root & ~best_valid):
                        m.next = "FIRST"        # its first own move: the answer until one raises alpha
                with m.Elif(stopping):
                    m.d.sync += aborted.eq(1)
                    m.next = "UNWIND"
                with m.Else():
                    m.next = "MAKE"
            if filtered:
                with m.State("FIRST"):      # the list word addressed in NEXT is read now
                    m.d.sync += [best.eq(lists.read_data), best_valid.eq(1)]
                    m.next = "NEXT"
            with m.State("MAKE"):
                count("apply_cycles")
                move = applier.commands.payload.move
                m.d.comb += [applier.commands.valid.eq(1), applier.commands.payload.unmake.eq(0)]
                with m.If(applier.commands.ready):
                    m.d.sync += from_board.eq(0)
                    pawn = gen.planes[0].bit_select(move.frm, 1) & ~gen.planes[1].bit_select(move.frm, 1) & \
                        ~gen.planes[2].bit_select(move.frm, 1)
                    below = ply + 1
                    m.d.sync += [
                        made[ply].eq(move), indices[ply].eq(indices[ply] + 1),
                        counters.nodes.eq(counters.nodes + 1),
                        alphas[ply].eq(alpha), betas[ply].eq(beta),     # the parent's, kept
                        depths[below].eq(Mux(quiescent, 0, depth - 1)),
                        qs[below].eq(Mux(quiescent, q + 1, 0)),
                        # the child's halfmove clock, written in MAKING: from the list's block RAM
                        # through the planes at the move's square into the frame's register was the
                        # engine's longest path
                        resets_clock.eq(move.capture | pawn),
                        next_clock.eq(Mux(clocks[ply] >= 100, 100, clocks[ply] + 1)),
                    ]
                    enter_frame(below, quiescent | (depth == 1),
                                Mux(quiescent, q + 1 == request.quiescence, request.quiescence == 0), -beta, -alpha)
                    if filtered:
                        with m.If(at_root):
                            m.d.sync += [root_skip.eq(root.stride - 1), root_taken.eq(root_taken + 1),
                                         root_index.eq(root_index + 1)]
                    m.next = "MAKING"
            with m.State("MAKING"):
                count("apply_cycles")
                m.d.sync += clocks[ply].eq(Mux(resets_clock, 0, next_clock))
                with m.If(~applier.busy):
                    m.next = "ENTER"

            def unmake(state, then):
                """``state`` unmakes the move that led here, then goes on to ``then`` while the
                applier writes (what follows reads no board until its next make, which waits for
                the applier); at the root, once the board is the root's again: FINISH."""
                with m.State(state):
                    with m.If(at_root):
                        with m.If(~applier.busy & ~filling):
                            m.next = "FINISH"
                    with m.Else():
                        count("apply_cycles")
                        m.d.comb += [applier.commands.valid.eq(1), applier.commands.payload.unmake.eq(1)]
                        with m.If(applier.commands.ready):
                            pop_frame()
                            m.next = then

            unmake("RETURN", "SCORE")       # `ret` is the node's value: back to its parent
            with m.State("SCORE"):          # the child's value, negated, against the window
                with m.If(child >= beta):
                    count("cutoffs")
                    m.d.sync += ret.eq(beta)
                    m.next = "RETURN"
                with m.Elif(child > alpha):
                    m.d.sync += [alpha.eq(child), column.eq(0)]
                    with m.If(at_root):
                        m.d.sync += best.eq(made[0])
                        if filtered:
                            m.d.sync += best_root.eq(root_index - 1)
                    m.next = "LINE"
                with m.Else():
                    m.next = "NEXT"
            with m.State("LINE"):           # pv[ply] = made[ply], then pv[ply + 1]
                count("pv_cycles")
                below = pv_lengths[(ply + 1)[:len(ply)]]
                m.d.comb += [pv_copy.addr.eq(Cat(column[:column_bits], ply + 1)),
                             pv_write.addr.eq(Cat(column[:column_bits], ply)), pv_write.en.eq(1),
                             pv_write.data.eq(Mux(column == 0, made[ply], pv_copy.data))]
                m.d.sync += column.eq(column + 1)
                with m.If(column == below):
                    m.d.sync += pv_lengths[ply].eq(below + 1)
                    m.next = "NEXT"

            unmake("UNWIND", "UNWIND")      # aborted: every move unmade, back to the root

            with m.State("FINISH"):
                score = Mux(aborted, alpha, ret)       # (the root's frame)
                m.d.sync += [
                    result.best.eq(best), result.best_valid.eq(best_valid),
                    result.score.eq(score), result.aborted.eq(aborted),
                    result.pv_length.eq(pv_lengths[0]),
                    result.bound.eq(_bound(score, request)),
                ]
                m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"

        m.d.comb += self.busy.eq(~idle)
        with m.If(~idle):
            count("cycles")
        m.d.comb += self.frame_agrees.eq(idle | ((quiescent == (depth == 0)) &
                                                 (last_q == (q == request.quiescence)) & (at_root == (ply == 0))))
        return m


class SearchArray(wiring.Component):
    """``engines`` search engines splitting the root moves (``docs/search.md``, "Several engines"),
    behind :class:`SearchEngine`'s ports, node for node the model's
    :func:`~hwmovegen.sim.model.search.split_search`.

    Phase 1: engine 0 searches root move 0 alone with the request's window. Unless it failed
    high, was aborted or the root has no move, phase 2: every engine ``k`` searches root moves
    ``1 + k``, ``1 + k + engines``, ... with alpha raised to phase 1's score, all at once. Then the
    engines' answers are looked at one a cycle: the answer is the one with the highest score above
    phase 1's (ties: the best move first in root order), else phase 1's; the counters are the sums
    over every run, ``cycles`` the array's own. Nothing else is shared: each engine has its own
    board (all loaded at once), history memory, move lists and PV table. ``abort`` reaches every
    engine; the node limit holds per run. The PV is read from the answering engine's table: phase
    1's line stays in engine 0's root row unless engine 0 raises alpha in phase 2, and then phase 1
    is not the answer.
    """

    def __init__(self, engines, *, layout="dense", core="fast", max_plies=MAX_SEARCH_PLIES):
        options = Options("SearchArray")
        options.count("engines", engines, 2, MAX_MOVES - 1)
        options.done()
        self.engines = [SearchEngine(layout=layout, core=core, max_plies=max_plies, root_filter=True)
                        for _ in range(engines)]
        self.layout, self.core, self.max_plies = layout, core, max_plies
        super().__init__({
            "load": In(LoadSignature()),
            **SearchControlSignature(max_plies).members,
        })

    def elaborate(self, platform):
        m = Module()
        engines, N = self.engines, len(self.engines)
        summed = [name for name in SEARCH_COUNTER_NAMES if name != "cycles"]     # cycles: the array's own
        request = Signal(SearchRequest)
        phase2 = Signal(1)
        bound = Signal(Score)               # phase 1's score: phase 2's alpha
        abort_asked = Signal(1)
        with m.If(self.abort):
            m.d.sync += abort_asked.eq(1)
        for k, engine in enumerate(engines):
            m.submodules[f"engine{k}"] = engine
            wiring.connect(m, wiring.flipped(self.load), engine.load)
            wiring.connect(m, wiring.flipped(self.history), engine.history)
            m.d.comb += [
                engine.request.eq(request), engine.request.alpha.eq(Mux(phase2, bound, request.alpha)),
                engine.root.first.eq(Mux(phase2, 1 + k, 0)), engine.root.stride.eq(Mux(phase2, N, 1)),
                engine.root.count.eq(Mux(phase2, 0, 1)),
                engine.abort.eq(self.abort | abort_asked), engine.pv_index.eq(self.pv_index),
            ]
        results = Array(engine.result.as_value() for engine in engines)
        tallies = Array(engine.counters.as_value() for engine in engines)
        best_roots = Array(engine.best_root for engine in engines)

        counters, result = Signal(SearchCounters), Signal(SearchResult)
        answer, answer_root = Signal(SearchResult), Signal(range(MAX_MOVES))
        winner = Signal(range(N))           # whose PV table is read
        improved = Signal(1)                # an engine's answer is taken
        aborted = Signal(1)                 # any run was
        finished = Signal(N)
        at = Signal(range(N))
        m.d.comb += [self.counters.eq(counters), self.result.eq(result),
                     self.pv_move.eq(Array(engine.pv_move.as_value() for engine in engines)[winner])]

        idle = Signal(1)
        with m.FSM(name="split"):
            with m.State("IDLE"):
                m.d.comb += idle.eq(1)
                with m.If(self.start):
                    m.d.sync += [request.eq(self.request), phase2.eq(0), abort_asked.eq(0), counters.eq(0),
                                 counters.cycles.eq(1), winner.eq(0), improved.eq(0), finished.eq(0)]
                    m.next = "FIRST"
            with m.State("FIRST"):
                m.d.comb += engines[0].start.eq(1)
                m.next = "PHASE1"
            with m.State("PHASE1"):
                with m.If(engines[0].done):
                    first = engines[0].result
                    m.d.sync += [answer.eq(first), answer_root.eq(0), bound.eq(first.score),
                                 aborted.eq(first.aborted)]
                    for name in summed:
                        m.d.sync += counters[name].eq(engines[0].counters[name])
                    with m.If(abort_asked | first.aborted | ~first.best_valid | (first.score >= request.beta)):
                        m.next = "FINISH"
                    with m.Else():
                        m.d.sync += phase2.eq(1)
                        m.next = "SPLIT"
            with m.State("SPLIT"):
                m.d.comb += [engine.start.eq(1) for engine in engines]
                m.next = "PHASE2"
            with m.State("PHASE2"):
                dones = Cat(engine.done for engine in engines)
                m.d.sync += [finished.eq(finished | dones), at.eq(0)]
                with m.If((finished | dones).all()):
                    m.next = "COMBINE"
            with m.State("COMBINE"):        # engine `at`'s answer and counters
                theirs, tally = SearchResult(results[at]), SearchCounters(tallies[at])
                with m.If((theirs.score > answer.score) |
                          (improved & (theirs.score == answer.score) & (best_roots[at] < answer_root))):
                    m.d.sync += [answer.eq(theirs), answer_root.eq(best_roots[at]), winner.eq(at),
                                 improved.eq(1)]
                with m.If(theirs.aborted):
                    m.d.sync += aborted.eq(1)
                for name in summed:
                    m.d.sync += counters[name].eq(counters[name] + tally[name])
                m.d.sync += at.eq(at + 1)
                with m.If(at == N - 1):
                    m.next = "FINISH"
            with m.State("FINISH"):
                score = answer.score
                m.d.sync += [result.eq(answer), result.aborted.eq(aborted),
                             result.bound.eq(_bound(score, request))]
                m.next = "DONE"
            with m.State("DONE"):
                m.d.comb += self.done.eq(1)
                m.next = "IDLE"
        m.d.comb += self.busy.eq(~idle)
        with m.If(~idle):
            m.d.sync += counters.cycles.eq(counters.cycles + 1)
        return m


def search_design(config):
    """The search hardware ``config`` names: its ``search_engines`` on its layout and core (one: a
    :class:`SearchEngine`, more: a :class:`SearchArray`)."""
    if config.search_engines == 1:
        return SearchEngine(layout=config.layout, core=config.core)
    return SearchArray(config.search_engines, layout=config.layout, core=config.core)
