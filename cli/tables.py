"""``hwmovegen tables``: the ROM layouts' sizes, and the block RAMs they take on each target."""

import json

from ..boards.targets import TARGETS
from ..rtl import generator_roms
from ..tables import LAYOUTS, get_layout
from ..tables.slots import slot_report
from .common import add_core, add_json, print_table

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser("tables", help="report the ROM layouts' sizes and block RAMs per target",
                              description="Sizes of the Sandström ROM images, and the block RAMs a core's "
                                          "ROMs take on each target (as synthesis maps them).")
    p.add_argument("--layout", choices=list(LAYOUTS), help="only this layout (default: all)")
    p.add_argument("--target", choices=list(TARGETS), help="only this target (default: all)")
    add_core(p)
    add_json(p)


def _report(layout, core, targets):
    roms = generator_roms(layout, core)
    report = get_layout(layout).report()
    report["core"] = core
    report["block_rams"] = {t.name: t.block_rams(roms) for t in targets}
    report["block_rams_available"] = {t.name: t.bram_capacity for t in targets}
    return report


def _run_slots(args, targets):
    """The fast core reads no ROM: its one table, the slots of each piece kind, is logic."""
    report = slot_report()
    report["core"] = args.core
    report["block_rams"] = {t.name: t.block_rams(generator_roms("dense", args.core)) for t in targets}
    if args.json:
        print(json.dumps(report))
        return 0
    print_table(["table", "kinds", "slots/kind", "entries", "entry", "total"]
                + [f"{t.name} {t.bram_cell}" for t in targets],
                [[report["layout"], report["kinds"], report["slots_per_kind"], report["entries"],
                  f'{report["entry_bits"]} bit', f'{report["total_bits"]} bit']
                 + [f'{report["block_rams"][t.name]} / {t.bram_capacity}' for t in targets]],
                "<>>>>>" + ">" * len(targets))
    print("(the fast core's table: a direction and a ray type per slot, in logic; it reads no ROM)")
    return 0


def run(args):
    targets = [TARGETS[args.target]] if args.target else list(TARGETS.values())
    if not generator_roms("dense", args.core):     # a core without ROMs (the fast core) has its slots
        return _run_slots(args, targets)
    names = [args.layout] if args.layout else list(LAYOUTS)
    reports = [_report(name, args.core, targets) for name in names]
    if args.json:
        print(json.dumps(reports if len(reports) > 1 else reports[0]))
        return 0
    header = ["layout", "nodes", "word", "node ROM", "head ROM", "total"] + [f"{t.name} {t.bram_cell}"
                                                                           for t in targets]
    rows = [[r["layout"], r["nodes"], f'{r["word_bits"]} bit', f'{r["node_rom_depth"]} x {r["word_bits"]}',
             f'{r["head_rom_depth"]} x {r["head_word_bits"]}', f'{r["total_kbit"]} Kbit']
            + [f'{r["block_rams"][t.name]} / {t.bram_capacity}' for t in targets] for r in reports]
    print_table(header, rows, "<>>>>>" + ">" * len(targets))
    print(f"(block RAMs of the {args.core} core's ROMs)")
    return 0
