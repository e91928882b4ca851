"""``hwmovegen formal``: the formal properties, checked by SymbiYosys."""

import json
import sys

from ..sim.drivers.formal import ENGINE, ENGINES, PROPERTIES, FormalError, run_property
from .common import FlowError, add_core, add_json, print_table
from .validate import MAX_FORMAL_DEPTH, MAX_TIMEOUT, output_dir, whole

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser(
        "formal", help="formal verification of the generator, host link, legality stage and applier (SymbiYosys)",
        description="Check the formal properties (hwmovegen.rtl.formal) with SymbiYosys and an SMT solver: "
                    "bounded model checking to a depth, k-induction proofs, covers. A failure writes the "
                    "counterexample as a VCD, prints the offending position as a FEN and exits 1.")
    p.add_argument("--property", choices=list(PROPERTIES), metavar="NAME", action="append",
                   help="check this property, in the order given; repeat it for more (default: all): "
                        + ", ".join(PROPERTIES))
    p.add_argument("--depth", type=whole(1, MAX_FORMAL_DEPTH), metavar="N",
                   help="steps for bmc and cover, the induction length for a proof (default: each "
                        "property's own)")
    p.add_argument("--workdir", metavar="DIR", type=output_dir,
                   help="keep the sby runs here (default: a temporary folder, kept only for a failure)")
    p.add_argument("--engine", choices=ENGINES, metavar="ENGINE",
                   help=f"the sby engine for every property (default {ENGINE!r}): " + ", ".join(map(repr, ENGINES)))
    p.add_argument("--timeout", type=whole(1, MAX_TIMEOUT), metavar="S",
                   help="give up on a property after S seconds (at most a day)")
    add_core(p)
    add_json(p)


def run(args):
    names = list(dict.fromkeys(args.property)) if args.property else list(PROPERTIES)
    results = []
    for name in names:
        spec = PROPERTIES[name]
        depth = args.depth or spec.depth_for(args.core)
        if not args.json:
            where = f"{args.core} core, " if spec.per_core else ""
            print(f"hwmovegen: formal: {name} ({where}{spec.mode_for(args.core)} {depth}) ...", file=sys.stderr,
                  flush=True)
        try:
            result = run_property(name, args.core, args.depth, workdir=args.workdir, timeout=args.timeout,
                                  engine=args.engine)
        except FormalError as error:
            raise FlowError(str(error)) from None
        results.append(result)
    bad = [r for r in results if r.status != "pass"]
    if args.json:
        for result in results:
            print(json.dumps(result.as_dict()))
        return 1 if bad else 0
    print_table(["property", "core", "engine", "depth", "seconds", "result"],
                [[r.property, r.core, r.engine, r.reach, f"{r.seconds:.1f}", r.status.upper()] for r in results],
                "<<<<><")
    for result in bad:
        print(f"\n{result.property}: {result.status.upper()}" + (f" ({result.message})" if result.message else ""))
        for name in result.failed:
            print(f"  {'unreached cover' if result.mode == 'cover' else 'failed'}: {name}")
        if result.vcd:
            print(f"  counterexample: {result.vcd}")
        if result.fen:
            print(f"  position: {result.fen}")
    return 1 if bad else 0
