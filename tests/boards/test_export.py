# amaranth: UnusedElaboratable=no
"""`hwmovegen export`: the netlist's ports are the ones the port table describes, field for
field from rtl/types.py; the netlist and the instantiation template compile (Verilator)."""

import json
import re
import subprocess

import pytest

from hwmovegen.boards.export import export
from hwmovegen.rtl import MoveGenerator
from hwmovegen.rtl.ports import GENERATOR_NOTES, describe
from hwmovegen.rtl.types import BoardState, Counters, Move, PerftCounters, pack, unpack
from hwmovegen.sim.harness.toolchain import verilator
from hwmovegen.sim.verilator.build import BUILD_ARGS
from hwmovegen.tables.contracts import GeneratorConfig

MOVE_BITS = Move.as_shape().size        # the payload width, from the one definition of Move


def module_ports(verilog, name):
    """(name, direction, width) of the ports the top module declares."""
    body = verilog[verilog.index(f"module {name}("):]
    body = body[:body.index("endmodule")]
    return {(m[3], m[1], int(m[2] or 0) + 1)
            for m in re.finditer(r"^\s*(input|output)\s+(?:\[(\d+):0\]\s+)?(\w+);", body, re.M)}


def described(description):
    return {(p["name"], p["direction"], p["width"]) for p in description["ports"]}


def fields(description, port):
    (entry,) = [p for p in description["ports"] if p["name"] == port]
    return {f["name"]: (f["lsb"], f["msb"]) for f in entry["fields"]}


def layout_fields(shape):
    """A layout's fields as bit ranges, found through ``pack`` (rtl/types.py): each field
    alone at its largest value."""
    names = list(unpack(shape, 0))
    out = {}
    for name in names:
        def word(value):
            return pack(shape, {n: value if n == name else 0 for n in names})
        width = 1
        while True:
            try:
                word((1 << (width + 1)) - 1)
            except ValueError:
                break
            width += 1
        bits = word((1 << width) - 1)
        out[name] = ((bits & -bits).bit_length() - 1, bits.bit_length() - 1)
    return out


def lint(folder, name):
    """Verilator, lint only, on the netlist with the template included into a module."""
    (folder / "wrap.v").write_text(f'module wrap(input clk, input rst);\n`include "{name}_inst.vh"\nendmodule\n')
    script, _ = verilator()
    done = subprocess.run([script, "--lint-only", *BUILD_ARGS, "--top-module", "wrap", f"-I{folder}",
                           str(folder / "wrap.v"), str(folder / f"{name}.v")], capture_output=True, text=True)
    assert done.returncode == 0 and "%Error" not in done.stderr, done.stderr[-3000:]


def test_the_walker_netlist_has_the_described_ports_and_compiles(tmp_path):
    description = export(tmp_path, GeneratorConfig(core="walker"))
    verilog = (tmp_path / "movegen.v").read_text()
    assert module_ports(verilog, "movegen") == described(description)
    assert "initial begin" in verilog and "nodes[2501] = " in verilog      # the dense ROM, inlined
    assert fields(description, "moves__payload") == layout_fields(Move)
    assert fields(description, "counters") == layout_fields(Counters)
    assert fields(description, "load__state") == layout_fields(BoardState)
    assert fields(description, "load__rank_planes") == {f"[{k}]": (8 * k, 8 * k + 7) for k in range(4)}
    assert json.loads((tmp_path / "movegen.ports.json").read_text()) == {
        k: v for k, v in description.items() if k != "files"}
    table = (tmp_path / "movegen.ports.md").read_text()
    assert f"| `moves__payload` | out | {MOVE_BITS} | Move: `frm` [5:0], `to` [11:6]" in table
    lint(tmp_path, "movegen")


def test_a_perft_array_is_exported_through_its_ports(tmp_path):
    description = export(tmp_path, GeneratorConfig(core="walker", perft_engines=2), name="perft2")
    verilog = (tmp_path / "perft2.v").read_text()
    assert module_ports(verilog, "perft2") == described(description)
    assert {p["name"] for p in description["ports"]} >= {"depth", "start", "busy", "done", "counters"}
    assert fields(description, "counters") == layout_fields(PerftCounters)
    assert description["perft_engines"] == 2 and description["legal"]
    assert all(port["note"] for port in description["ports"])
    lint(tmp_path, "perft2")


def test_every_port_of_every_generator_has_a_meaning():
    for core in ("walker", "fast"):
        for legal in (False, True):
            assert all(port.note for port in describe(MoveGenerator(core=core, legal=legal), GENERATOR_NOTES))


def test_rtlil(tmp_path):
    description = export(tmp_path, GeneratorConfig(core="walker", legal=True), fmt="rtlil", name="legal_movegen")
    text = (tmp_path / "legal_movegen.il").read_text()
    assert description["netlist"] == "legal_movegen.il" and "module \\legal_movegen\n" in text
    top = text[text.index("module \\legal_movegen\n"):]
    assert re.search(rf"wire width {MOVE_BITS} output \d+ +\\moves__payload\n", top)
    assert re.search(r"wire width 1 input \d+ +\\all_moves\n", top)
