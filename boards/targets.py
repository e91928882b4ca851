"""Synthesis targets: the FPGA parts and everything the project needs to know about them.

A target owns its device facts: the Amaranth platform used to synthesize a core
alone, the timing goal, the nextpnr names of its logic cells and block RAMs, and
how a ROM maps onto its block RAMs (the shapes a block RAM offers, how many read
ports one copy serves, how many blocks the device has). ``hwmovegen tables
--target`` and ``hwmovegen synth`` both count block RAMs through
:meth:`Target.block_rams`, so they agree.
"""

from dataclasses import dataclass

from amaranth.build import Attrs, Clock, Pins, Resource, Subsignal
from amaranth.vendor import LatticeICE40Platform, LatticePlatform

from .gowin import ApiculaPlatform

__all__ = ["Target", "TARGETS", "get_target"]


def _harness(sin, capture, sout, attrs):
    """The synthesis harness's three pins (boards/synth.py's ``CoreHarness``), each with its direction
    (nextpnr-himbaechel's Gowin frontend refuses a bus of inout pins used as inputs and an output)."""
    return Resource("harness", 0, Subsignal("sin", Pins(sin, dir="i")), Subsignal("capture", Pins(capture, dir="i")),
                    Subsignal("sout", Pins(sout, dir="o")), attrs)


class _UP5KSynthPlatform(LatticeICE40Platform):
    """The iCE40 UP5K in the SG48 package (as on the iCEBreaker); pins for the harness only."""
    device = "iCE40UP5K"
    package = "SG48"
    default_clk = "clk"
    resources = [
        Resource("clk", 0, Pins("35", dir="i"), Clock(80e6), Attrs(GLOBAL=True, IO_STANDARD="SB_LVCMOS")),
        _harness("4", "2", "47", Attrs(IO_STANDARD="SB_LVCMOS")),
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
        _harness("B2", "C2", "C1", Attrs(IO_TYPE="LVCMOS33")),
    ]
    connectors = []


class _GW2AR18SynthPlatform(ApiculaPlatform):
    """The Gowin GW2AR-18 in the QN88 package, speed C8/I7 (as on the Sipeed Tang Nano 20K)."""
    part = "GW2AR-LV18QN88C8/I7"
    family = "GW2A-18C"
    yosys_family = "gw2a"
    default_clk = "clk"
    resources = [
        Resource("clk", 0, Pins("4", dir="i"), Clock(150e6), Attrs(IO_TYPE="LVCMOS33")),
        _harness("15", "16", "17", Attrs(IO_TYPE="LVCMOS33")),
    ]
    connectors = []


class _GW5AST138SynthPlatform(ApiculaPlatform):
    """The Gowin GW5AST-138 in the FPG676 package, speed C1/I0 (as on the Sipeed Tang Mega 138K)."""
    part = "GW5AST-LV138FPG676AC1/I0"
    family = "GW5AST-138C"
    yosys_family = "gw5a"
    default_clk = "clk"
    resources = [
        Resource("clk", 0, Pins("P16", dir="i"), Clock(160e6), Attrs(IO_TYPE="LVCMOS33")),
        _harness("K16", "G15", "F15", Attrs(IO_TYPE="LVCMOS33")),
    ]
    connectors = []


# Gowin's BSRAM (18 Kbit): true dual port up to 18 bits, 36 bits only as a simple dual port
# (one read port), the same shapes as the ECP5's DP16KD (Yosys's gowin/brams.txt)
_BSRAM_SHAPES = ((512, 36, 1), (1024, 18, 2), (2048, 9, 2), (4096, 4, 2), (8192, 2, 2), (16384, 1, 2))
# the BSRAM's Yosys cells: single port, simple and true dual port, ROM (each with its X9 variant)
_BSRAM_CELLS = ("SP", "SDP", "DP", "pROM")


@dataclass(frozen=True)
class Target:
    name: str
    device: str
    platform: type          # an Amaranth platform with a clock and three harness pins
    goal_mhz: float
    logic_cell: str         # nextpnr utilisation key counting logic cells
    logic_capacity: int     # ... and how many the device has
    lut_prefix: str         # Yosys cell names counted as LUTs, flip-flops, carry cells
    ff_prefix: str
    carry_prefix: str
    bram_cell: str
    bram_capacity: int
    bram_prefix: str | tuple    # Yosys cell names (their prefixes) counted as block RAMs
    bram_shapes: tuple      # (depth, width, read ports) configurations of one block RAM
    spram_cell: str = ""    # nextpnr's single-port RAM cell (the UltraPlus's SPRAM), if any
    spram_capacity: int = 0
    # whether a perft engine counts the last ply with the leaf counter (rtl/leafcount.py, about
    # 14,000 logic cells: not on the UP5K, whose engine streams the last ply instead)
    leaf_counter: bool = True

    def engines_of(self, config):
        """``config`` (a :class:`~hwmovegen.tables.contracts.GeneratorConfig`) with its perft engines as
        this target builds them (with the leaf counter or the last ply streamed)."""
        return config.replace(count_leaves=self.leaf_counter)

    def rom_blocks(self, depth, width, read_ports=1):
        """Block RAMs a depth x width ROM with ``read_ports`` synchronous read ports takes.

        As Yosys's ``memory_libmap`` maps it: for a configuration d x w, the ROM is cut
        into ceil(depth / d) address ranges whose words are packed side by side into
        w-bit columns (one block per column), and a ROM with more read ports than a
        block serves is copied. The cheapest configuration wins. (Checked against
        Yosys for a range of shapes; the tests compare it with real synthesis.)
        """
        return min(-(-read_ports // ports) * -(-(-(-depth // d)) * width // w)
                   for d, w, ports in self.bram_shapes)

    def block_rams(self, roms):
        """Block RAMs for a list of ``hwmovegen.rtl.RomUse``."""
        return sum(self.rom_blocks(rom.depth, rom.width, rom.read_ports) for rom in roms)


TARGETS = {target.name: target for target in (
    Target("ice40-up5k", "iCE40 UP5K (SG48)", _UP5KSynthPlatform, 60, "ICESTORM_LC", 5280, "SB_LUT4", "SB_DFF",
           "SB_CARRY", "ICESTORM_RAM", 30, "SB_RAM40_4K", ((256, 16, 1), (512, 8, 1), (1024, 4, 1), (2048, 2, 1)),
           "ICESTORM_SPRAM", 4, leaf_counter=False),
    # DP16KD: true dual port up to 18 bits, 36 bits only with a single read port
    Target("ecp5-85f", "ECP5 LFE5U-85F (speed 6)", _ECP5SynthPlatform, 125, "TRELLIS_COMB", 83640, "LUT4",
           "TRELLIS_FF", "CCU2C", "DP16KD", 208, "DP16KD",
           ((512, 36, 1), (1024, 18, 2), (2048, 9, 2), (4096, 4, 2), (8192, 2, 2), (16384, 1, 2))),
    Target("gw2ar-18", "Gowin GW2AR-18 (C8/I7)", _GW2AR18SynthPlatform, 100, "LUT4", 20736, "LUT", "DFF", "ALU",
           "BSRAM", 46, _BSRAM_CELLS, _BSRAM_SHAPES),
    Target("gw5ast-138", "Gowin GW5AST-138 (C1/I0)", _GW5AST138SynthPlatform, 125, "LUT4", 138240, "LUT", "DFF",
           "ALU", "BSRAM", 340, _BSRAM_CELLS, _BSRAM_SHAPES),
)}


def get_target(name):
    if name not in TARGETS:
        raise KeyError(f"unknown target {name!r} (choose from {', '.join(TARGETS)})")
    return TARGETS[name]
