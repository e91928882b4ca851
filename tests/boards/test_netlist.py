"""Netlist simulation: the synthesized (and routed) netlists in Verilator with the vendor cell models,
move for move, counter for counter and cycle for cycle against the RTL's compiled model."""

import json
import re

import pytest

from hwmovegen.boards.netlist import NoRoutedNetlist, check_netlist, netlist_library
from hwmovegen.cli import main
from hwmovegen.sim.model.epd import cpw_records
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig


def _boards(count=12):
    return [record.board for record in cpw_records()] + random_boards(count, seed=7)


def test_the_ecp5_synthesized_netlist_is_the_rtl():
    """The walker's ROMs are DP16KD block RAMs (their INITVAL parameters, read by the project's
    model of the cell); under backpressure every move, counter and clock cycle is the RTL's. (The
    fast core's netlist compiles for about 8 minutes here: `synth --check-netlist` checks it.)"""
    result = check_netlist("ecp5-85f", GeneratorConfig(), _boards(), "synth", ready_probability=0.7, seed=3)
    assert result.differences == []
    assert result.positions == 19 and result.moves > 400 and result.clock_cycles > result.cycles > 0


def test_the_ecp5_routed_netlist_is_the_rtl():
    """nextpnr's placed and routed netlist (its JSON read back by Yosys), in the 756-ball package whose
    pins carry the core's ports: the same moves, counters and cycles."""
    result = check_netlist("ecp5-85f", GeneratorConfig(), _boards(), "routed", ready_probability=0.7, seed=3)
    assert result.differences == []
    assert result.positions == 19 and result.moves > 400


def test_a_changed_rom_is_found():
    """One block RAM's contents changed in the netlist (the lowest bit of each of its words flipped):
    the check must see it."""
    def tamper(text):
        start = text.index("DP16KD #(")
        end = text.index(")", text.index(") \\", start))
        flip = sum(1 << (20 * word) for word in range(16))      # bit 0 of the row's sixteen 20-bit slots
        cell = re.sub(r"\.INITVAL_([0-9A-F]{2})\(320'h([0-9a-f]+)\)",
                      lambda m: f".INITVAL_{m[1]}(320'h{int(m[2], 16) ^ flip:080x})", text[start:end])
        return text[:start] + cell + text[end:]
    result = check_netlist("ecp5-85f", GeneratorConfig(), _boards(), "synth", tamper=tamper)
    assert result.differences, "a netlist with a changed ROM passed"


def test_the_up5k_has_too_few_pins_for_a_routed_netlist_of_the_core():
    with pytest.raises(NoRoutedNetlist, match="239 bits, the device has 39 pins"):
        netlist_library("ice40-up5k", GeneratorConfig(), "routed")


def test_the_command_counts_what_it_compared(capsys):
    assert main(["synth", "--target", "ecp5-85f", "--check-netlist", "synth", "--random", "5", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["positions"] == 12 and result["differences"] == [] and result["moves"] > 0
    assert main(["synth", "--target", "gw2ar-18", "--check-netlist", "synth"]) == 2
    assert "netlist simulation is for ecp5-85f, ice40-up5k" in capsys.readouterr().err
