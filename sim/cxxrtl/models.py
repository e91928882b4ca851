"""The Python wrappers of the compiled models: a generator as a backend
(:class:`CxxrtlBackend`), a perft array (:class:`CxxrtlPerft`), the leaf counter
(:class:`CxxrtlLeafCounter`), the search engine (:class:`CxxrtlSearch`); the ``Verilator*``
classes are the same wrappers over the Verilator models of the same designs and drivers (the leaf
counter's alone is not built with Verilator)."""

import ctypes
import time

from ...rtl.types import PerftCounters, unpack
from ...tables.contracts import GeneratorConfig
from ..harness import trace as cycle_trace
from ..harness.backend import Backend, PerftSimulator
from ..harness.wire import counters_from_word, move_from_word, position_bytes, word_from_move
from ..model import Generation
from .bindings import (CompiledModel, generator_library, hostlink_functions, open_model, perft_functions,
                       search_functions)
from ...tables.search import MAX_SEARCH_PLIES
from ..harness.search import request_word, result_from_words
from .build import build_hostlink_model, build_leafcount_model, build_perft_model, build_search_model

__all__ = ["CxxrtlBackend", "CxxrtlPerft", "CxxrtlLeafCounter", "CxxrtlSearch", "CxxrtlHostLink",
           "VerilatorBackend", "VerilatorPerft", "VerilatorLeafCounter", "VerilatorSearch", "VerilatorHostLink"]

MOVES_PER_POSITION = 512        # pseudo-legal streams stay far below this
MAX_CYCLES = 100_000            # per position: a generation takes a few hundred
TRACE_CAPACITY = 1 << 16        # cycles a trace of one position may take (loading included)


class CxxrtlBackend(CompiledModel, Backend):
    """The RTL compiled with CXXRTL: millions of simulated cycles per second.

    A batch runs back to back when the core copies the board at start (the next position
    is loaded while one generates; ``overlap=False`` runs them one at a time);
    ``last_span`` is then the cycles from the batch's first start to its last done (else 0).
    """
    name = "cxxrtl"
    hardware = True
    traces = True
    backpressure = True
    compiled = True

    def __init__(self, config=GeneratorConfig(), ready_probability=1.0, seed=1, log=None, overlap=None):
        self.config = config
        can_overlap = config.contract.load_while_busy and not config.legal
        self.overlap = can_overlap if overlap is None else overlap and can_overlap
        self.last_span = 0
        self.ready_probability = ready_probability
        self.ready_threshold = 65536 if ready_probability >= 1 else int(ready_probability * 65536)
        self.seed = seed
        self.log = log
        self.core_seconds = 0.0     # wall time spent inside the C++ driver
        self.core_cpu_seconds = 0.0     # this process's processor time in it (other load aside)

    def library(self):
        return generator_library(self.config, self.log, self.simulator)

    def created(self):
        self._stat_words = self._lib.hwmg_stat_words()
        if self.order is not None:      # the ordering stage's shared ray logic is hierarchy
            self._lib.hwmg_hierarchical(self._handle, 1)

    def reseed(self, seed):
        self.reset(seed)

    @property
    def clock_cycles(self):
        """Every cycle simulated so far by this backend, loading included."""
        return self._lib.hwmg_clock_cycles(self._handle) if self._handle else 0

    def run_positions(self, positions):
        """Generations for model Positions, in one call into C++."""
        return self.run_images([position_bytes(p) for p in positions])

    def run_images(self, images):
        """Generations for position images (``hwmovegen.rtl.types``), in one call into C++."""
        self.prepare()
        count = len(images)
        if not count:
            return []
        blob = b"".join(images)
        capacity = MOVES_PER_POSITION * count
        moves = (ctypes.c_uint32 * capacity)()
        stats = (ctypes.c_uint32 * (self._stat_words * count))()
        failed = ctypes.c_int(-1)
        span = ctypes.c_uint64(0)
        start, cpu = time.perf_counter(), time.process_time()
        total = self._lib.hwmg_generate(self._handle, count, blob, moves, capacity, stats,
                                        self.ready_threshold, MAX_CYCLES, int(self.overlap), ctypes.byref(failed),
                                        ctypes.byref(span))
        self.core_seconds += time.perf_counter() - start
        self.core_cpu_seconds += time.process_time() - cpu
        self.last_span = span.value if self.overlap else 0
        if total < 0:
            what = {-1: "too many moves", -2: f"no done within {MAX_CYCLES} cycles",
                    -3: "the design needs more than one eval per cycle"}.get(total, str(total))
            raise RuntimeError(f"hardware failed on position {failed.value}: {what}")
        words = moves[:total]
        results, offset = [], 0
        for index in range(count):
            taken, *chunks = stats[index * self._stat_words:(index + 1) * self._stat_words]
            counters = counters_from_word(sum(chunk << (32 * i) for i, chunk in enumerate(chunks)))
            # One at a time, the moves taken between two dones are the position's own; back
            # to back the next position's first moves may pass before this done, so the
            # counter splits the stream, and every move must still have left before its done.
            n = counters["moves"] if self.overlap else taken - offset
            if counters["moves"] != n or offset + n > taken:
                raise RuntimeError(f"hardware move counter ({counters['moves']}) disagrees with the "
                                   f"stream ({taken - offset} moves by its done) at position {index}")
            results.append(Generation([move_from_word(w) for w in words[offset:offset + n]],
                                      counters["steps"], counters["promotion_nodes"],
                                      counters["cycles"], counters["stalls"]))
            offset += n
        if offset != total:
            raise RuntimeError(f"the hardware counted {offset} moves but streamed {total}")
        return results

    def run(self, boards):
        return self.run_images([position_bytes(b) for b in boards])

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle
        trace from the cycle that takes ``start`` to its ``done`` (:mod:`.trace`), checked
        against its counters."""
        self.prepare()
        buffer = (ctypes.c_uint32 * TRACE_CAPACITY)()
        self._lib.hwmg_trace(self._handle, buffer, TRACE_CAPACITY)
        try:
            result = self.run_images([position_bytes(board)])[0]
            length = self._lib.hwmg_trace_length(self._handle)
        finally:
            self._lib.hwmg_trace(self._handle, None, 0)
        if length > TRACE_CAPACITY:
            raise RuntimeError(f"the trace took {length} cycles, more than the {TRACE_CAPACITY} recorded")
        samples = cycle_trace.window([cycle_trace.sample_from_word(word) for word in buffer[:length]])
        cycle_trace.check(result, samples)
        return result, samples

    def generate(self, board):
        return self.run_images([position_bytes(board)])[0]


class CxxrtlPerft(CompiledModel, PerftSimulator):
    """A :class:`~hwmovegen.rtl.perft.PerftArray` compiled with CXXRTL: whole perft trees
    walked in the simulated hardware."""
    SLICE = 2_000_000           # cycles per call into C++, between progress updates

    def library(self):
        lib = perft_functions(build_perft_model(self.config, log=self.log, simulator=self.simulator))
        self._words = lib.hwmg_counter_words()
        return lib

    @property
    def clock_cycles(self):
        """The cycles simulated since the model was created (loads included)."""
        return self._lib.hwmg_clock_cycles(self._handle) if self._handle else 0

    def run(self, board, depth, progress=None):
        """The PerftCounters (a dict) of a walk of ``depth`` plies below ``board``;
        ``progress(cycles)`` after every slice of simulated cycles."""
        self.prepare()
        if self._lib.hwmg_perft_start(self._handle, position_bytes(board), depth):
            raise RuntimeError("the perft array is busy: it did not take the start")
        words = (ctypes.c_uint32 * self._words)()
        while True:
            status = self._lib.hwmg_perft_run(self._handle, self.SLICE, words)
            if progress:
                progress(self.SLICE)
            if status:
                return unpack(PerftCounters, sum(word << (32 * i) for i, word in enumerate(words)))


class CxxrtlLeafCounter(CompiledModel):
    """A :class:`~hwmovegen.rtl.leafcount.LeafCounter` compiled with CXXRTL: positions loaded
    one after another, each followed by its moves one a cycle."""
    NULL = 1 << 31              # a move word that counts the position itself (the counter's ``null``)

    def __init__(self, log=None):
        self.log = log

    def library(self):
        lib = open_model(build_leafcount_model(log=self.log, simulator=self.simulator), clock=True)
        lib.hwmg_count.restype = ctypes.c_long
        lib.hwmg_count.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p,
                                   ctypes.c_void_p, ctypes.c_void_p]
        return lib

    def count(self, jobs):
        """Per job ``(image, moves)`` (a position image and a list of model Moves, None for the
        position itself), the counts in the same shape."""
        self.prepare()
        words = [self.NULL if move is None else word_from_move(move) for _, moves in jobs for move in moves]
        blob = b"".join(image for image, _ in jobs)
        counts = (ctypes.c_int * len(jobs))(*[len(moves) for _, moves in jobs])
        moves = (ctypes.c_uint32 * max(len(words), 1))(*words)
        out = (ctypes.c_uint32 * max(len(words), 1))()
        taken = self._lib.hwmg_count(self._handle, len(jobs), blob, counts, moves, out)
        if taken < 0:
            raise RuntimeError("the leaf counter's model needs more than one eval per cycle")
        if taken != len(words):
            raise RuntimeError(f"the leaf counter gave {taken} counts for {len(words)} moves")
        result, offset = [], 0
        for _, job_moves in jobs:
            result.append(list(out[offset:offset + len(job_moves)]))
            offset += len(job_moves)
        return result


class CxxrtlSearch(CompiledModel):
    """A :class:`~hwmovegen.rtl.search.SearchEngine` compiled with CXXRTL: one search per call
    into C++, answered as the model's search (:func:`~hwmovegen.sim.harness.search.result_from_words`)."""
    MAX_CYCLES = 1 << 40

    def __init__(self, config, log=None):
        self.config = config
        self.log = log

    def library(self):
        lib = search_functions(build_search_model(self.config, log=self.log, simulator=self.simulator))
        self._words = lib.hwmg_request_words(), lib.hwmg_result_words(), lib.hwmg_counter_words()
        return lib

    NEVER = (1 << 64) - 1       # abort_after: no abort at a given cycle

    @property
    def clock_cycles(self):
        """Every cycle simulated so far, the history loads and starts included."""
        return self._lib.hwmg_clock_cycles(self._handle) if self._handle else 0

    def search(self, request, stop_flag=None, abort_after=None):
        """The engine's answer to a model :class:`~hwmovegen.sim.model.search.SearchRequest`.
        ``stop_flag``: a ``ctypes.c_int`` another thread may set while this call runs (ctypes
        lets go of the GIL): the driver reads it every cycle and, once it is non-zero, raises the
        engine's ``abort``; ``abort_after``: raise it that many cycles after ``start`` (as
        :meth:`~hwmovegen.sim.harness.search.PysimSearch.search`). Aborted, the engine answers as at
        a node limit of the nodes it had counted."""
        self.prepare()
        request_words, result_words, counter_words = self._words
        word = request_word(request)
        request_in = (ctypes.c_uint32 * request_words)(*[word >> (32 * i) & 0xFFFFFFFF for i in range(request_words)])
        history = (ctypes.c_uint64 * max(len(request.history), 1))(*request.history)
        result = (ctypes.c_uint32 * result_words)()
        counters = (ctypes.c_uint32 * counter_words)()
        pv = (ctypes.c_uint32 * MAX_SEARCH_PLIES)()
        status = self._lib.hwmg_search(self._handle, position_bytes(request.position), request_in, history,
                                       len(request.history), self.MAX_CYCLES, result, counters, pv,
                                       MAX_SEARCH_PLIES, None if stop_flag is None else ctypes.byref(stop_flag),
                                       self.NEVER if abort_after is None else abort_after)
        if status:
            raise RuntimeError({-1: "the search engine is busy: it did not take the start",
                                -2: "the search did not finish"}.get(status, str(status)))
        return result_from_words(sum(w << (32 * i) for i, w in enumerate(result)),
                                 sum(w << (32 * i) for i, w in enumerate(counters)), list(pv))


class CxxrtlHostLink(CompiledModel):
    """A dev board's whole top level (:class:`~hwmovegen.rtl.hostlink.HostLinkTop`, with the search
    engine if ``search``) compiled, reached through its pins: :meth:`run` drives the rx pin a level a
    cycle and returns the bytes the board sent on tx meanwhile, decoded as the host's UART would."""

    def __init__(self, config, divisor, idle_timeout, log=None, search=False):
        self.config = config
        self.divisor = divisor
        self.idle_timeout = idle_timeout
        self.log = log
        self.search = search
        self._out = ctypes.create_string_buffer(1 << 16)

    def library(self):
        return hostlink_functions(build_hostlink_model(self.config, self.divisor, self.idle_timeout, self.log,
                                                       self.search, self.simulator))

    def created(self):
        self._lib.hwmg_set_divisor(self._handle, self.divisor)
        # the ordering stage's shared ray logic is hierarchy (the search engine's generator has it)
        if self.config.order is not None or self.search:
            self._lib.hwmg_hierarchical(self._handle, 1)

    def clock_cycles(self):
        self.prepare()
        return self._lib.hwmg_clock_cycles(self._handle)

    def _received(self, count):
        if count < 0:
            raise RuntimeError("the compiled board did not settle in one evaluation a cycle")
        if count > len(self._out):      # a stretch this long would be the caller's bug
            raise RuntimeError(f"{count} bytes received in one stretch, room for {len(self._out)}")
        return self._out.raw[:count]

    def run(self, levels):
        """A cycle per byte of ``levels`` (0 or 1 on the rx pin); the bytes received on tx."""
        self.prepare()
        return self._received(self._lib.hwmg_run(self._handle, len(levels), bytes(levels), self._out,
                                                 len(self._out)))

    def idle(self, cycles, stop_after=1 << 30):
        """Up to ``cycles`` cycles with the line idle, stopping once ``stop_after`` bytes came:
        (the bytes, the cycles run)."""
        self.prepare()
        ran = ctypes.c_long()
        got = self._lib.hwmg_idle(self._handle, cycles, self._out, len(self._out), stop_after, ctypes.byref(ran))
        return self._received(got), ran.value

    def busy(self):
        """Whether the board is serving a request or a byte is on its tx line."""
        self.prepare()
        return bool(self._lib.hwmg_busy(self._handle))

    def board_reset(self):
        """Press the board's reset for a cycle."""
        self.prepare()
        self._lib.hwmg_board_reset(self._handle)


class VerilatorBackend(CxxrtlBackend):
    """The generator compiled by Verilator (flattened, one eval a clock edge), driven as
    :class:`CxxrtlBackend`'s model is: the same streams, counters and cycles."""
    name = simulator = "verilator"


class VerilatorPerft(CxxrtlPerft):
    """The perft array compiled by Verilator."""
    name = simulator = "verilator"


class VerilatorHostLink(CxxrtlHostLink):
    """A dev board's top level compiled by Verilator."""
    name = simulator = "verilator"


class VerilatorLeafCounter(CxxrtlLeafCounter):
    """The leaf counter compiled by Verilator (in half CXXRTL's compile time)."""
    name = simulator = "verilator"


class VerilatorSearch(CxxrtlSearch):
    """The search engine compiled by Verilator."""
    name = simulator = "verilator"
