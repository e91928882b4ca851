"""Board top-levels (generator + UART host link) and their bitstream flow."""

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Module, Elaboratable
from amaranth.lib import io

from ..rtl.hostlink import HostLinkTop
from .synth import run_flow

__all__ = ["BOARDS", "BoardTop", "build_board"]


@dataclass(frozen=True)
class Board:
    name: str
    platform_name: str      # class in amaranth_boards
    module: str
    bitstream: str          # suffix of the file to program
    fpga: str


BOARDS = {
    "icebreaker": Board("icebreaker", "ICEBreakerPlatform", "amaranth_boards.icebreaker", ".bin",
                        "iCE40 UP5K"),
    "ulx3s-85f": Board("ulx3s-85f", "ULX3S_85F_Platform", "amaranth_boards.ulx3s", ".bit",
                       "ECP5 LFE5U-85F"),
}


class BoardTop(Elaboratable):
    """The host-link top on a board: its UART (the USB serial bridge), LED 0 lit while busy."""

    def __init__(self, layout="dense", baud=115_200):
        self.layout = layout
        self.baud = baud

    def elaborate(self, platform):
        m = Module()
        link = HostLinkTop(clock_hz=platform.default_clk_frequency, baud=self.baud, layout=self.layout)
        m.submodules.link = link
        # every subsignal raw (the ULX3S's UART also has RTS/DTR), buffered here
        subsignals = platform.lookup("uart", 0).ios
        uart = platform.request("uart", 0, dir={sub.name: "-" for sub in subsignals})
        m.submodules.rx = rx = io.Buffer("i", uart.rx)
        m.submodules.tx = tx = io.Buffer("o", uart.tx)
        m.submodules.led = led = io.Buffer("o", platform.request("led", 0, dir="-"))
        m.d.comb += [link.rx.eq(rx.i), tx.o.eq(link.tx), led.o.eq(link.busy)]
        return m


def build_board(board_name, out_dir, layout="dense", baud=115_200):
    """Build the bitstream for a board into ``out_dir``; return a report dict."""
    if board_name not in BOARDS:
        raise KeyError(f"unknown board {board_name!r} (choose from {', '.join(BOARDS)})")
    board = BOARDS[board_name]
    import importlib
    platform = getattr(importlib.import_module(board.module), board.platform_name)()
    out_dir = Path(out_dir)
    build_dir = out_dir / "build"
    start = time.perf_counter()
    parsed = run_flow(platform, BoardTop(layout, baud), build_dir)
    bitstream = out_dir / f"hwmovegen-{board.name}{board.bitstream}"
    shutil.copyfile(build_dir / f"top{board.bitstream}", bitstream)
    util = parsed["utilization"]
    return {
        "board": board.name,
        "fpga": board.fpga,
        "layout": layout,
        "baud": baud,
        "clock_mhz": platform.default_clk_frequency / 1e6,
        "fmax_mhz": round(parsed["fmax_mhz"], 2) if parsed["fmax_mhz"] else None,
        "utilization": {cell: f'{u["used"]}/{u["available"]}' for cell, u in util.items() if u["used"]},
        "bitstream": str(bitstream),
        "seconds": round(time.perf_counter() - start, 1),
    }
