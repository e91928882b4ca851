"""Dev boards: a target on a PCB with a clock, a USB serial bridge and LEDs; their bitstreams.

The generator behind the UART host link (:class:`~hwmovegen.rtl.hostlink.HostLinkTop`)
on the board's serial bridge, LED 0 lit while a request runs. Everything that can
be refused is refused before the flow starts: an unknown board, a layout whose
ROMs do not fit the board's FPGA, a baud rate its clock cannot divide, an output
folder that cannot be written.
"""

import importlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Elaboratable, Module
from amaranth.lib import io

from ..tables.contracts import GeneratorConfig
from ..rtl.hostlink import HostLinkTop
from ..rtl.uart import MIN_DIVISOR
from .synth import BadRequest, DoesNotFit, tool_environment, check_fits, check_out_dir, run_flow
from .targets import TARGETS

__all__ = ["DevBoard", "DEV_BOARDS", "get_dev_board", "DevBoardTop", "check_baud", "check_search_fits",
           "build_bitstream", "MIN_BAUD", "MAX_BAUD", "BAUD_TOLERANCE", "SEARCH_LOGIC_CELLS"]

BAUD_TOLERANCE = 0.02   # a UART tolerates a few percent between the two ends' bit rates
# the rates a bitstream is built for: from the slowest a USB serial bridge offers commonly to the
# fastest the 12 MHz iCEBreaker divides (4 clock cycles a bit); a rate like 7 would build a
# bitstream no host can talk to in any reasonable time
MIN_BAUD, MAX_BAUD = 1_200, 3_000_000
# the search engine's logic cells in its first synthesis (ECP5-85F, docs/search.md): a board whose
# FPGA has fewer cannot hold it, and is refused before the flow starts
SEARCH_LOGIC_CELLS = 33_088


@dataclass(frozen=True)
class DevBoard:
    name: str
    module: str             # amaranth_boards module and platform class
    platform_class: str
    bitstream_suffix: str
    target: str             # the FPGA, a key of TARGETS

    def platform(self):
        return getattr(importlib.import_module(self.module), self.platform_class)()


DEV_BOARDS = {board.name: board for board in (
    DevBoard("icebreaker", "amaranth_boards.icebreaker", "ICEBreakerPlatform", ".bin", "ice40-up5k"),
    DevBoard("ulx3s-85f", "amaranth_boards.ulx3s", "ULX3S_85F_Platform", ".bit", "ecp5-85f"),
    DevBoard("tangnano20k", "hwmovegen.boards.gowin", "TangNano20kPlatform", ".fs", "gw2ar-18"),
)}


def get_dev_board(name):
    if name not in DEV_BOARDS:
        raise KeyError(f"unknown board {name!r} (choose from {', '.join(DEV_BOARDS)})")
    return DEV_BOARDS[name]


def check_baud(clock_hz, baud):
    """The UART divisor for ``baud`` on a ``clock_hz`` clock, or BadRequest."""
    if baud <= 0:
        raise BadRequest(f"--baud must be positive, not {baud}")
    divisor = round(clock_hz / baud)
    if divisor < MIN_DIVISOR:
        raise BadRequest(f"--baud {baud} is too fast for a {clock_hz / 1e6:g} MHz clock "
                         f"(at most {int(clock_hz // MIN_DIVISOR)})")
    if not MIN_BAUD <= baud <= MAX_BAUD:
        raise BadRequest(f"--baud {baud:,} is outside {MIN_BAUD:,} to {MAX_BAUD:,}")
    error = abs(clock_hz / divisor - baud) / baud
    if error > BAUD_TOLERANCE:
        raise BadRequest(f"--baud {baud:,} cannot be divided from a {clock_hz / 1e6:g} MHz clock within the "
                         f"UART's {100 * BAUD_TOLERANCE:g}% tolerance (off by {100 * error:.1f}%)")
    return divisor


class DevBoardTop(Elaboratable):
    """The host-link top on a dev board: its UART (the USB serial bridge), LED 0 lit while busy."""

    def __init__(self, config=GeneratorConfig(), baud=115_200, search=False):
        self.config = config
        self.baud = baud
        self.search = search

    def elaborate(self, platform):
        m = Module()
        link = HostLinkTop.for_clock(platform.default_clk_frequency, self.baud, self.config, search=self.search)
        m.submodules.link = link
        # every subsignal raw (the ULX3S's UART also has RTS/DTR), buffered here
        subsignals = platform.lookup("uart", 0).ios
        uart = platform.request("uart", 0, dir={sub.name: "-" for sub in subsignals})
        m.submodules.rx = rx = io.Buffer("i", uart.rx)
        m.submodules.tx = tx = io.Buffer("o", uart.tx)
        m.submodules.led = led = io.Buffer("o", platform.request("led", 0, dir="-"))
        m.d.comb += [link.rx.eq(rx.i), tx.o.eq(link.tx), led.o.eq(link.busy)]
        return m


def check_search_fits(board_name):
    """Refuse (BadRequest, one line) the search engine on a board whose FPGA cannot hold it."""
    board = get_dev_board(board_name)
    target = TARGETS[board.target]
    if target.logic_capacity < SEARCH_LOGIC_CELLS:
        roomy = [name for name, other in DEV_BOARDS.items()
                 if TARGETS[other.target].logic_capacity >= SEARCH_LOGIC_CELLS]
        raise BadRequest(f"--search: the search engine (about {SEARCH_LOGIC_CELLS:,} logic cells on the ECP5) does "
                         f"not fit the {board.name}'s {target.device} ({target.logic_capacity:,}); build it for "
                         f"{', '.join(roomy)}")


def build_bitstream(board_name, out_dir, config=GeneratorConfig(), baud=115_200, stage=None, search=False):
    """Build the bitstream of the generator ``config`` names for a dev board into ``out_dir``;
    return a report dict. Its ``legal``: with the legality stage (GENERATE may then ask for
    legal moves); ``order``: with the ordering stage (GENERATE may then ask for an order);
    ``perft_engines``: a perft array of that many engines beside the generator (PERFT), counting
    the last ply where the target has room for the leaf counter. ``stage(name)``: as the flow
    enters each of :data:`~.synth.STAGES`. ``search``: the search engine beside the generator
    (SEARCH; refused on a board that cannot hold it)."""
    layout, core, legal, order, perft_engines = (config.layout, config.core, config.legal, bool(config.order),
                                                 config.perft_engines)
    board = get_dev_board(board_name)
    target = TARGETS[board.target]
    platform = board.platform()
    check_baud(platform.default_clk_frequency, baud)
    if search:
        check_search_fits(board_name)
    check_fits(target, config)
    bitstream = f"hwmovegen-{board.name}{board.bitstream_suffix}"
    check_out_dir(out_dir, files=[bitstream])
    tool_environment(platform)     # a missing tool is reported before anything is built
    out_dir = Path(out_dir)
    build_dir = out_dir / "build"
    start = time.perf_counter()
    try:
        parsed = run_flow(platform, DevBoardTop(target.engines_of(config), baud, search),
                          build_dir, stage=stage)
    except DoesNotFit as error:
        stage = (" and the legality stage" if legal else "") + (" and the ordering stage" if order else "") + \
            (f" and {perft_engines} perft engine{'s' if perft_engines > 1 else ''}" if perft_engines else "") + \
            (" and the search engine" if search else "")
        raise DoesNotFit(f"the {core} core with the host link{stage} does not fit the {target.device} of the "
                         f"{board.name}: {error}, the device has {target.logic_capacity}") from None
    bitstream = out_dir / bitstream
    shutil.copyfile(build_dir / f"top{board.bitstream_suffix}", bitstream)
    util = parsed["utilization"]
    return {
        "board": board.name,
        "target": board.target,
        "fpga": target.device,
        "layout": layout,
        "core": core,
        "legal": legal,
        "order": order,
        "perft_engines": perft_engines,
        "search": search,
        "baud": baud,
        "clock_mhz": platform.default_clk_frequency / 1e6,
        "fmax_mhz": round(parsed["fmax_mhz"], 2) if parsed["fmax_mhz"] else None,
        "logic_cells": util.get(target.logic_cell, {}).get("used"),
        "logic_cell_kind": target.logic_cell,
        "brams": util.get(target.bram_cell, {}).get("used"),
        "utilization": {cell: f'{u["used"]}/{u["available"]}' for cell, u in util.items() if u["used"]},
        "bitstream": str(bitstream),
        "seconds": round(time.perf_counter() - start, 1),
    }
