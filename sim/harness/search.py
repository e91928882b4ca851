"""Search in the simulated hardware: a :class:`~hwmovegen.rtl.search.SearchEngine` asked what the
golden model's search is asked (:class:`~hwmovegen.sim.model.search.SearchRequest`), its answer a
:class:`~hwmovegen.sim.model.search.SearchResult` with the hardware's cycles, so that the two compare field by field.

The host writes the root, the history keys and the request, starts the engine and reads the
result, the principal variation and the counters; it decides nothing. ``pysim`` runs the engine in
Amaranth's simulator (small searches, :class:`PysimSearch`); ``cxxrtl`` compiled
(:class:`hwmovegen.sim.cxxrtl.CxxrtlSearch`). Both register as search backends in
:mod:`hwmovegen.sim.backends`.
"""

import chess

from ...rtl.search import SearchCounters, SearchRequest as RequestLayout, SearchResult as ResultLayout
from ...rtl.types import Move as MoveLayout, pack, unpack
from ...tables.contracts import GeneratorConfig
from ...tables.search import BOUNDS, MAX_DEPTH, MAX_HISTORY, MAX_QUIESCENCE, SCORE_BITS
from ..model.search import SearchResult
from .wire import move_from_word

__all__ = ["request_word", "result_from_words", "PysimSearch", "check_request"]

_SCORE_MASK = (1 << SCORE_BITS) - 1


def _signed(value, bits=SCORE_BITS):
    return value - (1 << bits) if value >> (bits - 1) else value


def check_request(request):
    """Refuse (ValueError, one line) what the engine cannot hold."""
    if not 1 <= request.depth <= MAX_DEPTH:
        raise ValueError(f"depth {request.depth} is outside what the search engine holds (1 to {MAX_DEPTH})")
    if request.quiescence > MAX_QUIESCENCE:
        raise ValueError(f"quiescence {request.quiescence} is above the engine's {MAX_QUIESCENCE} plies")
    if len(request.history) > MAX_HISTORY:
        raise ValueError(f"{len(request.history)} history keys: the engine holds {MAX_HISTORY}")
    if request.node_limit >= 1 << 32:
        raise ValueError(f"node limit {request.node_limit} does not fit 32 bits")


def _hint(request):
    """The hint's (frm, to, promotion), or None."""
    if request.hint is None:
        return None
    try:
        move = chess.Move.from_uci(request.hint)
    except ValueError:
        return None
    return (move.from_square, move.to_square, move.promotion or 0) if move else None


def request_word(request):
    """The engine's ``request`` port value for a model :class:`.search.SearchRequest`."""
    check_request(request)
    hint = _hint(request)
    hint_word = pack(MoveLayout, {"frm": hint[0], "to": hint[1], "promotion": hint[2], "capture": 0, "double": 0,
                                  "en_passant": 0, "castle": 0, "check": 0}) if hint else 0
    return pack(RequestLayout, {
        "depth": request.depth, "quiescence": request.quiescence,
        "alpha": request.alpha & _SCORE_MASK, "beta": request.beta & _SCORE_MASK,
        "node_limit": request.node_limit, "hint": hint_word, "hint_valid": int(hint is not None),
        "halfmove_clock": min(request.halfmove, 100), "history": len(request.history),
    })


def result_from_words(result_word, counters_word, pv_words):
    """A model :class:`.search.SearchResult` of the engine's result, counters and PV words, with
    ``cycles``; the hardware's own counters as ``hardware`` (a dict)."""
    fields = unpack(ResultLayout, result_word)
    counters = unpack(SearchCounters, counters_word)
    best = move_from_word(fields["best"]) if fields["best_valid"] else None
    answer = SearchResult(best, _signed(fields["score"]), BOUNDS[fields["bound"]],
                          [move_from_word(word) for word in pv_words[:fields["pv_length"]]],
                          counters["nodes"], counters["qnodes"], counters["cutoffs"], counters["generations"],
                          bool(fields["aborted"]), counters["cycles"])
    answer.hardware = counters
    return answer


class PysimSearch:
    """A SearchEngine (a SearchArray with ``config.search_engines`` > 1) in Amaranth's simulator
    (``dut``). One simulator serves every search: it is reset to the design's initial state before
    each, as a new one would start, without elaborating and compiling the design again (seconds)."""
    name = "pysim"

    def __init__(self, config=GeneratorConfig(core="fast"), log=None):
        from ...rtl.search import search_design     # elaborated only when a search is simulated
        self.dut = search_design(config)
        self._sim = self._job = None

    def prepare(self):
        """Nothing to build: the design is elaborated with the simulator."""

    def search(self, request, stop_flag=None, abort_after=None, watch=None, max_cycles=None):
        """The engine's answer to ``request``; ``stop_flag``: a ``ctypes.c_int`` another thread may
        set meanwhile, read every cycle: once non-zero, ``abort`` is raised (as the compiled
        driver does); ``abort_after``: raise ``abort`` for a cycle that many cycles after ``start``;
        ``watch``: called with the simulator's context in every cycle of the search (a test's
        monitor of the engine's inner signals); ``max_cycles``: no ``done`` by then raises
        :class:`~.pysim.GenerationTimeout` (a test's guard against a hung engine)."""
        from amaranth.sim import Simulator
        self._job = (request, stop_flag, abort_after, watch, max_cycles, {})
        if self._sim is None:
            self._sim = Simulator(self.dut)
            self._sim.add_clock(1e-8)
            self._sim.add_testbench(self._bench)
        else:
            self._sim.reset()       # every signal and memory to its initial value, the bench restarted
        self._sim.run()
        words = self._job[-1]
        return result_from_words(words["result"], words["counters"], words["pv"])

    async def _bench(self, ctx):
        """The testbench of the current job: load, history, start, the cycles to done, the answer."""
        from . import pysim as tb
        dut = self.dut
        request, stop_flag, abort_after, watch, max_cycles, words = self._job
        await tb.load(ctx, dut, request.position)
        for index, key in enumerate(request.history):
            ctx.set(dut.history.en, 1)
            ctx.set(dut.history.index, index)
            ctx.set(dut.history.key, key)
            await ctx.tick()
        ctx.set(dut.history.en, 0)
        ctx.set(dut.request.as_value(), request_word(request))
        ctx.set(dut.start, 1)
        await ctx.tick()
        ctx.set(dut.start, 0)
        cycle = 0
        while not ctx.get(dut.done):
            if cycle == max_cycles:
                raise tb.GenerationTimeout(f"the search engine gave no done in {max_cycles} cycles")
            ctx.set(dut.abort, cycle == abort_after or stop_flag is not None and stop_flag.value != 0)
            if watch:
                watch(ctx)
            await ctx.tick()
            cycle += 1
        ctx.set(dut.abort, 0)
        words["result"] = ctx.get(dut.result.as_value())
        words["counters"] = ctx.get(dut.counters.as_value())
        pv = []
        for index in range(unpack(ResultLayout, words["result"])["pv_length"]):
            ctx.set(dut.pv_index, index)
            pv.append(ctx.get(dut.pv_move.as_value()))
        words["pv"] = pv
