"""Compiled models, whichever simulator made them: the C++ drivers' sources, the cache of built
models, their C interface through ctypes, and the Python wrappers.

A driver (``*_driver.cc`` here, with ``driver.h``) is written once against a model interface
that each simulator gives in a header (``model.h``: :mod:`..cxxrtl`, :mod:`..verilator`); the
ports it names as ``PORT(name)`` are spelled in the simulator's C++ by a generated ``ports.h``.
Models are cached in ``~/.cache/hwmovegen/<simulator>`` (``$HWMOVEGEN_CACHE`` or
``$XDG_CACHE_HOME`` move it) by a hash of everything that decides them, and found again by an
index of the design's name and :func:`.toolchain.source_digest`, without elaborating the design.

A simulator is a :class:`Simulator`: its name, and how it builds the generator, a perft array
and the leaf counter; the wrappers (:class:`CompiledGenerator`, :class:`CompiledPerft`,
:class:`CompiledLeafCounter`) take one as their ``simulator``.
"""

import ctypes
import hashlib
import os
import re
import shutil
import tempfile
import time
from importlib import resources
from pathlib import Path

from ...rtl.types import BoardState, CycleSample, PLANES, PLANE_BYTES, POSITION_BYTES, PerftCounters, byte_length, \
    pack, unpack
from ...tables.contracts import GeneratorConfig
from ..model import Generation
from . import trace as cycle_trace
from .backend import Backend
from .toolchain import cache_dir, source_digest
from .wire import counters_from_word, move_from_word, position_bytes, word_from_move

__all__ = ["BackendUnavailable", "Simulator", "driver_sources", "cached_build", "compile_seconds", "builds", "use_builds",
           "open_model", "CompiledModel", "CompiledGenerator", "CompiledPerft", "CompiledLeafCounter"]


class BackendUnavailable(RuntimeError):
    """The compiled backend cannot be built here (message is one line)."""


class Simulator:
    """A compiled simulator: ``build_generator(config, log)``, ``build_perft(config, log)`` and
    ``build_leafcount(log)`` return the path of a model's shared library, built if not cached."""
    name = None

    def build_generator(self, config, log=None):
        raise NotImplementedError

    def build_perft(self, config, log=None):
        raise NotImplementedError

    def build_leafcount(self, log=None):
        raise NotImplementedError


# -- sources ----------------------------------------------------------------------------------

def formats_header():
    """The position image's layout and the CycleSample field masks for the driver, from
    hwmovegen.rtl.types."""
    fields = cycle_trace.SAMPLE_FIELDS
    masks = "".join(f"constexpr uint32_t TRACE_{name.upper()} = {pack(CycleSample, {n: n == name for n in fields})};\n"
                    for name in fields)
    return (f"// generated from hwmovegen/rtl/types.py\n"
            f"constexpr int PLANES = {PLANES};\n"
            f"constexpr int PLANE_BYTES = {PLANE_BYTES};\n"
            f"constexpr int STATE_BYTES = {byte_length(BoardState)};\n"
            f"constexpr int POSITION_BYTES = {POSITION_BYTES};\n"
            + masks)


_PORT = re.compile(r"\bPORT\((\w+)\)")


def driver_sources(driver_name, model_header, spell):
    """The files a driver is compiled from: the driver, ``driver.h``, ``model.h`` (the text of
    the simulator's ``model_header``), ``formats.h`` and ``ports.h``, which names every port the
    driver uses in the simulator's C++ (``spell(name)``: ``top.p_busy``, ``top->busy``)."""
    here = resources.files(__package__)
    sources = {name: here.joinpath(name).read_text() for name in (driver_name, "driver.h")}
    names = sorted({name for text in sources.values() for name in _PORT.findall(text) if name != "name"})
    sources["ports.h"] = ("// generated: the ports the driver uses, in the simulator's C++\n#pragma once\n"
                          "#define PORT(name) PORT_##name\n"
                          + "".join(f"#define PORT_{name} {spell(name)}\n" for name in names))
    sources["model.h"] = model_header
    sources["formats.h"] = formats_header()
    return sources


# -- the cache --------------------------------------------------------------------------------

_BUILDS = {}        # (simulator, design name) -> the library this process found or built (recorded only)
_KNOWN = {}         # (simulator, design name) -> a library another process found (use_builds: a cluster's workers)


def builds():
    """The cache folders (``<simulator>/<folder>``) of the models this process has built or found."""
    return sorted(f"{library.parent.parent.name}/{library.parent.name}" for library in _BUILDS.values())


def use_builds(folders):
    """Take the models of ``folders`` (:func:`builds` of a process with the same sources,
    which sim/drivers/cluster.py checks) from this cache where present, without elaborating their
    designs again to find their keys."""
    for folder in folders:
        simulator, _, name = folder.partition("/")
        library = cache_dir(simulator) / name / "model.so"
        if library.exists():
            _KNOWN[simulator, name.rsplit("-", 1)[0]] = library


def cached_build(simulator, name, settings, build):
    """The library of the design ``name`` (naming it fully for given sources) on ``simulator``,
    found by the index of name, :func:`.toolchain.source_digest` and ``settings`` (the compiler
    and its flags: a text), or ``build()`` (a path to a ``model.so``) if not indexed."""
    if (simulator, name) in _KNOWN:
        return _KNOWN[simulator, name]
    key = hashlib.sha256("\0".join([source_digest(), settings]).encode()).hexdigest()[:20]
    index = cache_dir(simulator, "index") / f"{name}-{key}"
    try:
        library = cache_dir(simulator) / index.read_text().strip() / "model.so"
    except OSError:
        library = None
    if library is None or not library.exists():
        library = build()
        temporary = index.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(library.parent.name + "\n")
        os.replace(temporary, index)
    _BUILDS[simulator, name] = library
    return library


def build_folder(simulator, name, key_parts, compile_in):
    """``<cache>/<simulator>/<name>-<key>/model.so``, the key a hash of ``key_parts`` (texts:
    every source and setting the model depends on); if absent, ``compile_in(folder)`` makes
    ``model.so`` in a fresh folder, which then takes the final name, with the seconds the build
    took (:func:`compile_seconds`)."""
    key = hashlib.sha256("\0".join(key_parts).encode()).hexdigest()[:20]
    root = cache_dir(simulator)
    final = root / f"{name}-{key}"
    library = final / "model.so"
    if library.exists():
        return library
    work = Path(tempfile.mkdtemp(dir=root, prefix="build-"))
    try:
        start = time.perf_counter()
        compile_in(work)
        (work / "seconds").write_text(f"{time.perf_counter() - start:.1f}\n")
        try:
            os.replace(work, final)
        except OSError:         # another process finished the same build first
            pass
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return library


def compile_seconds(library):
    """The wall seconds the build of ``library`` took, or None (built before they were kept)."""
    try:
        return float((Path(library).parent / "seconds").read_text())
    except (OSError, ValueError):
        return None


# -- the C interface --------------------------------------------------------------------------

_LIBRARIES = {}


def open_model(path, clock=False):
    """A compiled model's library with the signatures every driver shares (``clock``: and its
    cycle count)."""
    lib = ctypes.CDLL(str(path))
    lib.hwmg_create.restype = ctypes.c_void_p
    lib.hwmg_create.argtypes = [ctypes.c_uint64]
    lib.hwmg_destroy.argtypes = [ctypes.c_void_p]
    if clock:
        lib.hwmg_clock_cycles.restype = ctypes.c_uint64
        lib.hwmg_clock_cycles.argtypes = [ctypes.c_void_p]
    return lib


def generator_library(simulator, config, log=None):
    """The compiled generator loaded with its C signatures (once per process)."""
    key = simulator.name, config.layout, config.core, config.legal, config.order
    if key in _LIBRARIES:
        return _LIBRARIES[key]
    lib = open_model(simulator.build_generator(config, log=log), clock=True)
    lib.hwmg_generate.restype = ctypes.c_long
    lib.hwmg_generate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                                  ctypes.c_uint32, ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_uint64)]
    lib.hwmg_trace.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    lib.hwmg_hierarchical.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.hwmg_trace_length.restype = ctypes.c_long
    lib.hwmg_trace_length.argtypes = [ctypes.c_void_p]
    _LIBRARIES[key] = lib
    return lib


class CompiledModel:
    """A compiled model loaded on first use: subclasses give :meth:`library` (the loaded
    library with its signatures), ``simulator`` and ``seed``; :meth:`prepare` creates the
    simulator."""
    simulator = None
    seed = 0
    _lib = _handle = None

    @property
    def name(self):
        return self.simulator.name

    def library(self):
        raise NotImplementedError

    def created(self):
        """Called once the simulator exists (subclasses read sizes from the library)."""

    def prepare(self):
        """Build (or find in the cache) and load the compiled model; called on first use."""
        if self._handle is None:
            self._lib = self.library()
            self._handle = self._lib.hwmg_create(self.seed)
            self.created()

    def __del__(self):
        if self._handle is not None and self._lib is not None:
            self._lib.hwmg_destroy(self._handle)
            self._handle = None
MOVES_PER_POSITION = 512        # pseudo-legal streams stay far below this
MAX_CYCLES = 100_000            # per position: a generation takes a few hundred
TRACE_CAPACITY = 1 << 16        # cycles a trace of one position may take (loading included)


class CompiledGenerator(CompiledModel, Backend):
    """The generator's RTL compiled (by the subclass's ``simulator``): millions of simulated
    cycles per second.

    A batch runs back to back when the core copies the board at start (the next position
    is loaded while one generates; ``overlap=False`` runs them one at a time);
    ``last_span`` is then the cycles from the batch's first start to its last done (else 0).
    """
    hardware = True
    compiled = True             # built before use (prepare), by a simulator that may be missing
    traces = True
    backpressure = True

    def __init__(self, config=GeneratorConfig(), ready_probability=1.0, seed=1, log=None, overlap=None):
        self.config = config
        can_overlap = config.contract.load_while_busy and not config.legal
        self.overlap = can_overlap if overlap is None else overlap and can_overlap
        self.last_span = 0
        self.ready_threshold = 65536 if ready_probability >= 1 else int(ready_probability * 65536)
        self.seed = seed
        self.log = log
        self.core_seconds = 0.0     # wall time spent inside the C++ driver

    def library(self):
        return generator_library(self.simulator, self.config, self.log)

    def created(self):
        self._stat_words = self._lib.hwmg_stat_words()
        if self.order is not None:      # CXXRTL: the ordering stage's shared ray logic is hierarchy
            self._lib.hwmg_hierarchical(self._handle, 1)

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
        start = time.perf_counter()
        total = self._lib.hwmg_generate(self._handle, count, blob, moves, capacity, stats,
                                        self.ready_threshold, MAX_CYCLES, int(self.overlap), ctypes.byref(failed),
                                        ctypes.byref(span))
        self.core_seconds += time.perf_counter() - start
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


class CompiledPerft(CompiledModel):
    """A :class:`~hwmovegen.rtl.perft.PerftArray` compiled: whole perft trees
    walked in the simulated hardware."""
    SLICE = 2_000_000           # cycles per call into C++, between progress updates

    def __init__(self, config, log=None):
        self.config = config
        self.log = log

    def library(self):
        lib = open_model(self.simulator.build_perft(self.config, log=self.log))
        lib.hwmg_perft_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.hwmg_perft_run.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p]
        self._words = lib.hwmg_counter_words()
        return lib

    def run(self, image, depth, progress=None):
        """The PerftCounters (a dict) of a walk of ``depth`` plies from the position image;
        ``progress(cycles)`` after every slice of simulated cycles."""
        self.prepare()
        if self._lib.hwmg_perft_start(self._handle, image, depth):
            raise RuntimeError("the perft array is busy: it did not take the start")
        words = (ctypes.c_uint32 * self._words)()
        while True:
            status = self._lib.hwmg_perft_run(self._handle, self.SLICE, words)
            if progress:
                progress(self.SLICE)
            if status:
                return unpack(PerftCounters, sum(word << (32 * i) for i, word in enumerate(words)))


class CompiledLeafCounter(CompiledModel):
    """A :class:`~hwmovegen.rtl.leafcount.LeafCounter` compiled: positions loaded
    one after another, each followed by its moves one a cycle."""
    NULL = 1 << 31              # a move word that counts the position itself (the counter's ``null``)

    def __init__(self, log=None):
        self.log = log

    def library(self):
        lib = open_model(self.simulator.build_leafcount(log=self.log), clock=True)
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
