"""Targets own the device facts: the block RAM rule against shapes measured with Yosys."""

import pytest

from hwmovegen.boards.targets import TARGETS, get_target
from hwmovegen.rtl import generator_roms

# (depth, width, read ports) -> block RAMs that Yosys 0.70's synth_ice40 / synth_ecp5 used
# for a ROM of random contents (measured once with a one-ROM design); synth_gowin (-family gw2a
# and gw5a) used as many BSRAMs as synth_ecp5 DP16KDs for every shape
MEASURED = [
    ((2502, 14, 1), 9, 2), ((2502, 14, 2), 18, 3), ((448, 12, 1), 2, 1), ((1000, 20, 1), 5, 2),
    ((700, 9, 1), 2, 1), ((3000, 5, 1), 4, 1), ((640, 64, 1), 12, 4), ((512, 64, 1), 8, 2),
    ((1536, 24, 2), 18, 3), ((4500, 14, 1), 16, 4), ((300, 30, 1), 4, 1),
]


@pytest.mark.parametrize("shape, ice40, ecp5", MEASURED)
def test_block_ram_rule_matches_yosys(shape, ice40, ecp5):
    assert TARGETS["ice40-up5k"].rom_blocks(*shape) == ice40
    assert TARGETS["ecp5-85f"].rom_blocks(*shape) == ecp5
    assert TARGETS["gw2ar-18"].rom_blocks(*shape) == TARGETS["gw5ast-138"].rom_blocks(*shape) == ecp5


def test_walker_roms_per_target():
    roms = generator_roms("dense", "walker")
    # the node ROM is read on two ports: two copies on iCE40, one true dual-port copy on ECP5
    assert TARGETS["ice40-up5k"].block_rams(roms) == 2 * 9 + 2
    assert TARGETS["ecp5-85f"].block_rams(roms) == 3 + 1


def test_gowin_targets():
    """The Gowin parts: Amaranth's Gowin platform on the PyPI flow, the GW5A's part names
    accepted (Amaranth's own platform refuses them), a part refused beside a wrong family."""
    small, large = get_target("gw2ar-18"), get_target("gw5ast-138")
    assert (small.logic_capacity, small.bram_capacity) == (20736, 46)
    assert (large.logic_capacity, large.bram_capacity) == (138240, 340)
    assert large.logic_capacity > get_target("ecp5-85f").logic_capacity
    platform = large.platform()
    assert (platform.series, platform.size, platform.package, platform.speed) == ("GW5AST", "138", "FPG676A",
                                                                                 "C1/I0")
    assert platform.required_tools == ["yosys", "nextpnr-himbaechel", "gowin_pack"]
    assert "synth_gowin -family {{platform.yosys_family}} " in platform.file_templates["{{name}}.ys"]
    assert (platform.yosys_family, small.platform().yosys_family) == ("gw5a", "gw2a")

    class Mismatched(type(platform)):
        family = "GW2A-18C"
    with pytest.raises(ValueError, match="is not of the family GW2A-18C"):
        Mismatched()


def test_the_tang_nano_20k_is_the_gw2ar_target():
    """The dev board's part is the synthesis target's (its clock, its serial bridge's pins)."""
    from hwmovegen.boards.devboards import check_baud, get_dev_board
    board = get_dev_board("tangnano20k")
    platform, target = board.platform(), get_target(board.target)
    assert (platform.part, platform.family) == (target.platform.part, target.platform.family)
    assert platform.default_clk_frequency == 27e6 and check_baud(27e6, 115_200) == 234
    assert {resource.name for resource in platform.resources.values()} >= {"uart", "led", "clk27"}


def test_unknown_target():
    with pytest.raises(KeyError, match="unknown target"):
        get_target("xc7a35t")
