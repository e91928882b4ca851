"""``hwmovegen export``: the generator, the legal generator or a perft array as one Verilog file."""

import json
from pathlib import Path

from ..boards.export import FORMATS, export, title
from ..boards.synth import BadRequest
from ..sim.harness.toolchain import ToolMissing
from .common import CliError, add_core, add_json, add_layout, add_perft_engines, config, print_rows
from .validate import add_force, check_engines, output_dir

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser(
        "export", help="write the generator as a standalone Verilog file with its port table",
        description="Write a generator (--legal: with the legality stage) or a perft array (--perft-engines N) "
                    "as one standalone netlist for another design flow (Amaranth's Verilog backend, every "
                    "submodule and ROM in the file), with its port table (NAME.ports.md, NAME.ports.json: "
                    "each port's bit fields) and an instantiation template (NAME_inst.vh).")
    add_core(p)
    add_layout(p)
    p.add_argument("--legal", action="store_true", help="the legal generator: the core behind the legality stage")
    add_perft_engines(p, help="a perft array of N engines (each with the legality stage) instead of the generator")
    p.add_argument("--name", metavar="TOP", help="the top module's name (default: movegen, perft_array "
                                                 "with --perft-engines)")
    p.add_argument("--out", required=True, type=output_dir, metavar="DIR",
                   help="the folder to write into (made if missing, in an existing folder)")
    p.add_argument("--format", choices=list(FORMATS), default="verilog",
                   help="verilog (default) or rtlil (Yosys's own format)")
    add_force(p)
    add_json(p)


def run(args):
    check_engines(args.perft_engines, args.force, "--perft-engines", "export")
    try:
        description = export(args.out, config(args), name=args.name, fmt=args.format)
    except (BadRequest, ToolMissing) as error:
        raise CliError(str(error)) from None
    if args.json:
        print(json.dumps(description))
        return 0
    netlist, table, ports_json, template = description["files"]
    ports = description["ports"]
    print_rows([
        ("module", f'{description["module"]} ({title(description)})'),
        ("netlist", f'{netlist} ({args.format}, {Path(netlist).stat().st_size:,} bytes)'),
        ("ports", f'{len(ports)}: {sum(p["width"] for p in ports if p["direction"] == "input")} input bits, '
                  f'{sum(p["width"] for p in ports if p["direction"] == "output")} output bits'),
        ("port table", f"{table}, {ports_json}"),
        ("template", template),
    ])
    return 0
