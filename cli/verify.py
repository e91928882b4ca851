"""``hwmovegen compare`` and ``hwmovegen bench``: hardware against the model, and figures."""

import json
import math

from ..sim.drivers.bench import (PERFT_BENCH, RATE_POSITIONS, SEARCH_BENCH, SEARCH_BENCH_DEPTH, SEARCH_PEERS,
                                 SIM_BENCH, SIM_BENCH_PERFT_DEPTH, SIM_BENCH_SEARCH_DEPTH, hardware_perft_rows,
                                 perft_rows, position_rows, search_rows, simulator_rows, stage_overhead, stream_rate)
from ..sim.drivers.compare import compare
from ..sim.model.epd import bundled_suites, cpw_records, read_epd_files
from ..sim.model.positions import random_boards
from ..boards.synth import saved_report
from ..boards.targets import TARGETS, get_target
from ..sim.backends import DEFAULT_BACKEND, get_search_backend, offer
from ..sim.cxxrtl import BackendUnavailable, CxxrtlBackend
from ..sim.drivers.hwperft import HardwarePerft
from ..sim.peers.gigantua import find_gigantua
from ..sim.peers.stockfish import find_stockfish
from .common import (CliError, FlowError, add_backend, add_cluster, add_core, add_json, add_layout, add_legal,
                     add_order, add_perft_engines, add_ready, backend, check_cluster, cluster_rows, cluster_session,
                     config, log, positive_int, print_rows, print_table, progress)
from ..tables.search import MAX_DEPTH, MAX_SEARCH_ENGINES
from .validate import (MAX_RANDOM, MAX_REPEAT, MAX_SEED, add_force, check_engines, check_perft_depth,
                       whole)

__all__ = ["register", "run"]


def register(subparsers):
    p = subparsers.add_parser("compare", help="hardware against the golden model (move for move) and python-chess",
                              description="Run the hardware on every position and check its stream against "
                                          "the golden model move for move, its cycles against the bound, and "
                                          "its legal subset against python-chess. Without positions: the "
                                          "bundled perft suites.")
    p.add_argument("--epd", metavar="FILE", nargs="+", action="extend", help="position files to compare")
    p.add_argument("--random", type=whole(1, MAX_RANDOM), metavar="N",
                   help=f"add N positions from seeded random games (at most {MAX_RANDOM:,})")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1, help="seed of --random and of --ready (default 1)")
    p.add_argument("--jobs", type=positive_int, default=1,
                   help="worker processes (default 1; at most one per processor)")
    add_cluster(p)
    add_ready(p)
    add_backend(p, hardware_only=True)
    add_layout(p)
    add_core(p)
    add_legal(p)
    add_order(p)
    add_json(p)

    p = subparsers.add_parser("bench", help="moves per cycle, simulated cycles per second, perft timings",
                              description="Per CPW position: moves, steps, cycles, moves per cycle and "
                                          "simulated cycles per second (compiled backend); then perft from "
                                          "the start position through the hardware, the model and python-chess.")
    p.add_argument("what", nargs="?", choices=("moves", "perft", "search", "sim"), default="moves",
                   help="moves (default): the generator's figures; perft: whole trees in the hardware (perft "
                        "arrays) against python-chess, Stockfish and Gigantua; search: the search engine "
                        "(compiled) on the CPW positions and three middlegames, beside the Deep Blue chip "
                        "and Belle; sim: per design, each compiled simulator's compile seconds and simulated "
                        "cycles per second (CXXRTL, Verilator)")
    add_perft_engines(p, help="perft: the large array (default: the largest with a saved fitting 'synth "
                        "--perft-engines' report for --target, else 8); search (--engines N): N search engines "
                        f"splitting the root moves, 1 to {MAX_SEARCH_ENGINES} (default 1)")
    p.add_argument("--target", default="ecp5-85f", choices=list(TARGETS),
                   help="perft, search: whose routed fmax projects nodes/s (default ecp5-85f)")
    p.add_argument("--depth", type=positive_int,
                   help=f"perft depth from the start position (default 4); search: the full-width depth, 1 to "
                        f"{MAX_DEPTH} (default {SEARCH_BENCH_DEPTH})")
    p.add_argument("--repeat", type=whole(1, MAX_REPEAT), default=2000,
                   help="generations per position for the cycles/s figures (default 2000)")
    add_layout(p)
    add_core(p)
    add_legal(p)
    add_order(p)
    add_force(p)
    add_json(p)
    p.set_defaults(backend="cxxrtl")


def run(args):
    return {"compare": _compare, "bench": _bench}[args.command](args)


def _compare(args):
    check_cluster(args)
    if args.cluster and args.jobs != 1:
        raise CliError("give --jobs or --cluster, not both")
    boards = [record.board for record in read_epd_files(args.epd or [])]
    if args.random:
        boards += _random_boards(args)
    if not args.epd and not args.random:
        boards = [record.board for record in bundled_suites()]
    # built once: validates, builds, says if it falls back; the workers build theirs from it
    chosen = backend(args, ready_probability=args.ready, seed=args.seed)
    bar = progress(args, len(boards))
    cluster = None
    try:
        if args.cluster:
            with cluster_session(args) as session:
                summary, cluster = session.compare(boards, chosen, progress=bar.update)
        else:
            summary = compare(boards, chosen, jobs=args.jobs, progress=bar.update)
    finally:
        bar.close()
    if args.json:
        print(json.dumps({**summary.as_dict(), **({"cluster": cluster} if cluster else {})}))
        return 1 if summary.mismatches else 0
    for mismatch in summary.mismatches[:5]:
        print(mismatch.report())
    if len(summary.mismatches) > 5:
        print(f"... and {len(summary.mismatches) - 5} more mismatches")
    print_rows([
        ("backend", f"{summary.backend} ({summary.core} core, {summary.layout} layout"
                    f"{', legality stage' if summary.legal else ''}"
                    f"{f', {summary.order} order' if summary.order else ''})"),
        ("positions", summary.positions),
        ("moves", summary.moves),
        ("legal moves", summary.legal_moves),
        ("steps", summary.steps),
        ("cycles", summary.cycles),
        *([("batch cycles", f"{summary.span}  (back to back, first start to last done)")] if summary.span else []),
        ("stalls", summary.stalls),
        ("moves/cycle", f"{summary.moves_per_cycle:.4f}" if summary.cycles else "-"),
        *([("checkmates", summary.checkmates), ("stalemates", summary.stalemates)] if summary.ends_known else []),
        ("mismatches", len(summary.mismatches)),
        ("seconds", f"{_three_figures(summary.seconds)}  (the comparison alone, "
                    f"{summary.positions / summary.seconds if summary.seconds else 0:,.0f} positions/s)"),
        *(cluster_rows(cluster, "batch", "batches") if cluster else []),
    ])
    return 1 if summary.mismatches else 0


def _random_boards(args):
    """``--random``'s positions, with a bar of their making (seconds at 100,000)."""
    bar = progress(args, args.random, unit="pos", what="making positions")
    try:
        return random_boards(args.random, seed=args.seed, progress=bar.update)
    finally:
        bar.close()


def _three_figures(seconds):
    """Seconds to three significant figures: the bundled suites' 133 positions take a few hundredths
    of a second, which one decimal showed as 0.0."""
    return f"{seconds:.{max(0, 2 - math.floor(math.log10(seconds)))}f}" if seconds > 0 else "0"


def _bench(args):
    if args.what == "perft":
        return _bench_perft(args)
    if args.what == "search":
        return _bench_search(args)
    if args.what == "sim":
        return _bench_sim(args)
    args.depth = args.depth or 4
    # the tree runs through cxxrtl, the model and python-chess: the model is the slowest
    check_perft_depth(args.depth, "model", force=args.force)
    if args.order == "captures":
        raise CliError("bench's perft needs every move: --order captures leaves the quiet ones out (use mvv-lva)")
    chosen = backend(args)
    if not chosen.compiled:
        raise FlowError("bench measures the compiled backend: it needs a C++ compiler (g++)")
    positions = position_rows(chosen, cpw_records(), args.repeat)
    perfts = perft_rows(chosen, args.depth)
    rate = stream_rate(chosen)
    overhead = order_overhead = None
    if args.legal:
        overhead = stage_overhead(CxxrtlBackend(config(args, order=None), log=log(args), overlap=False),
                                  CxxrtlBackend(config(args, legal=False, order=None), log=log(args), overlap=False))
    if args.order:
        order_overhead = stage_overhead(CxxrtlBackend(config(args), log=log(args), overlap=False),
                                        CxxrtlBackend(config(args, order=None), log=log(args), overlap=False))
    if args.json:
        out = {"backend": chosen.name, "core": args.core, "layout": args.layout, "legal": args.legal,
               **({"order": args.order} if args.order else {}),
               "positions": positions, "stream_moves_per_cycle": round(rate, 4),
               "stream_positions": RATE_POSITIONS, "perft_depth": args.depth, "perft": perfts}
        if overhead:
            out["legality_extra_cycles"] = {"mean": round(overhead[0], 2), "max": overhead[1]}
        if order_overhead:
            out["order_extra_cycles"] = {"mean": round(order_overhead[0], 2), "max": order_overhead[1]}
        print(json.dumps(out))
        return 0
    print(f"{'position':<20}{'moves':>6}{'steps':>7}{'cycles':>8}{'moves/cycle':>13}{'in a batch':>12}"
          f"{'sim cycles/s':>15}{'end to end':>13}")
    for row in positions:
        print(f"{row['name']:<20}{row['moves']:>6}{row['steps']:>7}{row['cycles']:>8}"
              f"{row['moves_per_cycle']:>13.3f}{row['batch_moves_per_cycle']:>12.3f}"
              f"{row['sim_cycles_per_second']:>15,}{row['end_to_end_cycles_per_second']:>13,}")
    total_moves = sum(r["moves"] for r in positions)
    total_cycles = sum(r["cycles"] for r in positions)
    print(f"{'all':<20}{total_moves:>6}{sum(r['steps'] for r in positions):>7}{total_cycles:>8}"
          f"{total_moves / total_cycles:>13.3f}")
    print(f"\n{RATE_POSITIONS} random positions (seed 1) in one batch: {rate:.4f} "
          + ("legal " if args.legal else "") + (f"{args.order}-ordered " if args.order else "") + "moves/cycle"
          + (" (back to back)" if chosen.overlap else " (one at a time, loads not counted)"))
    if overhead:
        print(f"legality stage: {overhead[0]:.2f} extra cycles per position on average, {overhead[1]} at most "
              "(against the core alone, one position at a time)")
    if order_overhead:
        print(f"ordering stage: {order_overhead[0]:.2f} extra cycles per position on average, {order_overhead[1]} "
              "at most (against the same generator without it, one position at a time)")
    print(f"\nperft({args.depth}) from the start position")
    for row in perfts:
        print(f"  {row['generator']:<38}{row['nodes']:>10}{row['seconds']:>8.2f} s"
              f"{row['nodes_per_second']:>12,} nodes/s")
    return 0


_PEERS = {
    "stockfish": ("Stockfish", "stockfish", "HWMOVEGEN_STOCKFISH", "'go perft' over UCI, one thread",
                  "from 'go' to 'Nodes searched'"),
    "gigantua": ("Gigantua", "gigantua", "HWMOVEGEN_GIGANTUA", "its perft (bitboards, one thread)",
                 "of a run to the depth less a run one ply shallower"),
}


def _peer_line(peer, path, rows, engines):
    """The bench perft table's footnote for one CPU perft program."""
    title, binary, variable, how, span = _PEERS[peer]
    if path is None:
        return f"{title}: no {binary} binary on PATH (or ${variable}): not measured"
    measured = [row[peer] for row in rows if peer in row]
    errors = [m["error"] for m in measured if "error" in m]
    versions = {m.get("version") for m in measured} - {None}
    clocks = {m.get("clock") for m in measured} - {None}
    clock = ("CPU time" if clocks == {"cpu"} else "own timer" if clocks == {"timer"}
             else "wall time" if clocks == {"wall"} else "CPU time or its own clock")
    name = ", ".join(sorted(versions - {title}))       # Stockfish says which; Gigantua does not
    return (f"{title}: {name + ' ' if name else ''}{how}, best of three, its {clock} {span}; "
            f"vs {title} = the {engines}-engine projection / {title}" + (f" ({errors[0]})" if errors else ""))


def _largest_array(args):
    """The engines of the largest array with a saved fitting synth report, else 3 counting
    engines (about what an ECP5-85F holds) or 8 streaming ones."""
    fitting = [n for n in range(64, 1, -1)
               if (report := saved_report(args.target, config(args, perft_engines=n)))
               and not report.get("does_not_fit")]
    return fitting[0] if fitting else 3 if get_target(args.target).leaf_counter else 8


def _bench_perft(args):
    check_engines(args.perft_engines, args.force)
    large = args.perft_engines or _largest_array(args)
    fmax = {}
    for engines in sorted({1, large}):
        report = saved_report(args.target, config(args, perft_engines=engines))
        if report and not report.get("does_not_fit"):
            fmax[engines] = report["fmax_mhz"]
    target = get_target(args.target)        # its engines are the ones its reports are of
    arrays = [HardwarePerft("cxxrtl", target.engines_of(config(args, perft_engines=n)), log=log(args))
              for n in sorted({1, large})]
    try:
        for array in arrays:
            array.prepare()
    except BackendUnavailable as error:
        raise FlowError(str(error)) from None
    peers = {"stockfish": find_stockfish(), "gigantua": find_gigantua()}
    bar = progress(args, len(PERFT_BENCH) * len(arrays), unit="tree")
    try:
        rows = hardware_perft_rows(arrays, fmax, peers, progress=bar.update)
    finally:
        bar.close()
    wrong = [row["name"] for row in rows for run in row["arrays"] if run["nodes"] != row["published"]]
    if args.json:
        print(json.dumps({"core": args.core, "layout": args.layout, "target": args.target, "fmax_mhz": fmax,
                          **{peer: path is not None for peer, path in peers.items()}, "positions": rows}))
        return 1 if wrong else 0
    sizes = [array.engines for array in arrays]
    header = ["position", "depth", "nodes"]
    for n in sizes:
        header += [f"cycles ({n})", f"nodes/cycle/engine ({n})", f"M nodes/s ({n})"]
    header += ["python-chess", "Stockfish", "Gigantua", "vs Stockfish", "vs Gigantua"]
    table = []
    for row in rows:
        cells = [row["name"], row["depth"], f'{row["arrays"][0]["nodes"]:,}']
        for run in row["arrays"]:
            projected = run["projected_nodes_per_s"]
            cells += [f'{run["cycles"]:,}', f'{run["nodes"] / run["cycles"] / run["engines"]:.2f}',
                      f"{projected / 1e6:,.1f}" if projected else "-"]
        cells.append(f'{row["python_chess"]["nodes_per_s"] / 1e6:.2f} M')
        peer_rows = [row.get(peer, {}) for peer in peers]
        cells += [f'{peer["nodes_per_s"] / 1e6:,.1f} M' if "nodes_per_s" in peer else "-" for peer in peer_rows]
        cells += [f'{peer["ratio"]:.2f}x' if peer.get("ratio") else "-" for peer in peer_rows]
        table.append(cells)
    print_table(header, table, "<>>" + ">>>" * len(sizes) + ">>>>>")
    print(f"\n{args.core} core; cycles from cycle-accurate simulation (CXXRTL) of the perft array, from start to "
          "the last engine's done; M nodes/s = nodes x routed fmax / cycles, fmax from the last 'hwmovegen synth "
          f"--perft-engines N --target {args.target}' of each array: "
          + ", ".join(f"{n} engine{'s' if n > 1 else ''} {fmax[n]} MHz" if n in fmax else
                      f"{n} engine{'s' if n > 1 else ''}: no report (run synth)" for n in sizes))
    print("python-chess: its legal move generator, bulk-counted, two plies shallower (the same positions)")
    for peer, path in peers.items():
        print(_peer_line(peer, path, rows, sizes[-1]))
    for name in wrong:
        print(f"MISMATCH: the hardware's count for {name} is not the published one")
    return 1 if wrong else 0


def _bench_sim(args):
    simulators = [name for name in ("cxxrtl", "verilator") if offer(name).missing() is None]
    if not simulators:
        raise FlowError(f"bench sim measures the compiled simulators: {offer('cxxrtl').missing()}")
    bar = progress(args, len(SIM_BENCH) * len(simulators), unit="model")
    try:
        rows = simulator_rows(simulators, log=log(args), progress=bar.update)
    except BackendUnavailable as error:
        raise FlowError(str(error)) from None
    finally:
        bar.close()
    if args.json:
        print(json.dumps({"simulators": simulators, "designs": rows}))
        return 0
    header = ["design"]
    for name in simulators:
        header += [f"{name} compile s", f"{name} cycles/s"]
    if len(simulators) == 2:
        header.append("speed-up")
    table = []
    for row in rows:
        cells = [row["design"]]
        for name in simulators:
            seconds = row[name]["compile_seconds"]
            cells += ["-" if seconds is None else f"{seconds:.0f}", f'{row[name]["cycles_per_second"]:,}']
        if len(simulators) == 2:
            cells.append(f'{row["verilator"]["cycles_per_second"] / row["cxxrtl"]["cycles_per_second"]:.1f}x')
        table.append(cells)
    print_table(header, table, "<" + ">" * (len(header) - 1))
    print(f"\ncompile s: the model's last compile on this machine (Yosys, then the simulator and g++); cycles/s: "
          f"simulated clock cycles per second of this process's processor time (the wall time on an idle "
          f"machine): the generators on batches of random positions "
          f"(loading included), the perft models on perft({SIM_BENCH_PERFT_DEPTH}) of the start position, the "
          f"search engine on the bench search positions to depth {SIM_BENCH_SEARCH_DEPTH}")
    if "verilator" not in simulators:
        print(f"verilator: {offer('verilator').missing()}")
    return 0


def _engines_that_fit(report):
    """How many search engines the report's device holds by its logic cells and block RAMs."""
    counts = [report[f"{kind}_available"] // report[kind] for kind in ("logic_cells", "brams") if report.get(kind)]
    return min(counts) if counts else None


def _bench_search(args):
    depth = args.depth or SEARCH_BENCH_DEPTH
    if depth > MAX_DEPTH:
        raise CliError(f"--depth {depth}: the search engine searches 1 to {MAX_DEPTH} plies")
    split = args.perft_engines or 1
    if args.perft_engines and getattr(args, "engines_option", None) != "--engines":
        raise CliError("bench search: --perft-engines names a perft array; give the search engines as --engines N")
    if split > MAX_SEARCH_ENGINES:
        raise CliError(f"--engines {split}: a search array has 1 to {MAX_SEARCH_ENGINES} engines")
    # the array's own report if it was synthesized, else the one engine's fmax (the array not routed)
    report, routed = None, True
    for count in dict.fromkeys((split, 1)):
        report = saved_report(args.target, config(args, perft_engines=0, search_engines=count), search=True)
        if report and not report.get("does_not_fit"):
            routed = count == split
            break
    fits = report and not report.get("does_not_fit")
    fmax = report["fmax_mhz"] if fits else None
    engines = _engines_that_fit(report) if fits and split == 1 else None
    # on Verilator, which builds the engine in a fraction of CXXRTL's time (the cycles are the same
    # on both: tests/sim/test_verilator_backend.py); CXXRTL where it is missing
    why = offer("cxxrtl").missing()
    if why is not None:
        raise FlowError(f"bench search measures the compiled search engine: {why}")
    try:
        engine = get_search_backend(DEFAULT_BACKEND, core=args.core, log=log(args), engines=split)
        engine.prepare()
    except BackendUnavailable as error:
        raise FlowError(str(error)) from None
    bar = progress(args, len(SEARCH_BENCH), unit="position")
    try:
        rows = search_rows(engine, depth, fmax, progress=bar.update)
    finally:
        bar.close()
    nodes, cycles = sum(row["nodes"] for row in rows), sum(row["cycles"] for row in rows)
    total = {"nodes": nodes, "cycles": cycles, "cycles_per_node": round(cycles / nodes, 2),
             "cycles_in": {part: sum(row["cycles_in"][part] for row in rows) for part in rows[0]["cycles_in"]}}
    if fmax:
        total["projected_nodes_per_s"] = round(nodes * fmax * 1e6 / cycles)
        if engines:
            total["engines_per_device"] = engines
            total["projected_nodes_per_s_per_device"] = engines * total["projected_nodes_per_s"]
    peers = [{"name": name, "cycles_per_node": per_node, "nodes_per_s": rate} for name, per_node, rate in SEARCH_PEERS]
    if args.json:
        for row in rows:
            print(json.dumps({"core": args.core, "target": args.target, **({"engines": split} if split > 1 else {}),
                              **row}))
        print(json.dumps({"core": args.core, "target": args.target, **({"engines": split} if split > 1 else {}),
                          "fmax_mhz": fmax,
                          **({} if routed else {"fmax_of": "one engine"}), "total": total, "peers": peers}))
        return 0
    header = ["position", "best", "score", "nodes", "qnodes", "cycles", "cycles/node", "first move", "make/unmake",
              "M nodes/s", "time to depth"]
    table = []

    def share(part, whole):     # an array's parts are its engines' work, summed: no share of its own cycles
        return f"{part / whole:.0%}" if split == 1 else "-"
    for row in rows:
        parts = row["cycles_in"]
        table.append([row["name"], row["best"] or "-", row["score_text"], f'{row["nodes"]:,}', f'{row["qnodes"]:,}',
                      f'{row["cycles"]:,}', f'{row["cycles_per_node"]:.1f}',
                      share(parts["first_move"], row["cycles"]), share(parts["apply"], row["cycles"]),
                      f'{row["projected_nodes_per_s"] / 1e6:.2f}' if fmax else "-",
                      f'{row["time_to_depth_ms"]:.2f} ms' if fmax else "-"])
    parts = total["cycles_in"]
    table.append(["all", "", "", f"{nodes:,}", f'{sum(row["qnodes"] for row in rows):,}', f"{cycles:,}",
                  f'{total["cycles_per_node"]:.1f}', share(parts["first_move"], cycles), share(parts["apply"], cycles),
                  f'{total["projected_nodes_per_s"] / 1e6:.2f}' if fmax else "-", ""])
    print_table(header, table, "<<>>>>>>>>>")
    print(f"\ndepth {depth}, quiescence {rows[0]['quiescence']}, {args.core} core; cycles from cycle-accurate "
          f"simulation ({engine.name.replace('cxxrtl', 'CXXRTL').replace('verilator', 'Verilator')}) of the "
          + ("search engine" if split == 1 else f"search array of {split} engines splitting the root moves (counters: "
             "the sums over every engine's runs, cycles: the array's)") + ", from start to done")
    labels = (("generate", "generating (start to done)"), ("first_move", "of which waiting for the first move"),
              ("apply", "make/unmake"), ("pv", "PV copies"), ("draw", "history scans"))
    if split > 1:
        print(f"the engines' cycles, summed over every run (the array's own: {cycles:,}, its engines side by side): "
              + ", ".join(f"{label} {parts[part]:,}" for part, label in labels))
    else:
        print("where the cycles go (all positions): "
              + ", ".join(f"{label} {parts[part] / cycles:.0%}" for part, label in labels)
              + f", the rest (entering nodes, stand pat, scoring) "
                f"{1 - (parts['generate'] + parts['apply'] + parts['pv'] + parts['draw']) / cycles:.0%}")
    if fmax and split > 1:
        print(f"projected at the routed {fmax} MHz of the last 'hwmovegen synth --search"
              f"{f' --engines {split}' if routed else ''} --target {args.target} --core {args.core}'"
              f"{'' if routed else ' (one engine: the array not routed)'}: "
              f"{total['projected_nodes_per_s'] / 1e6:.2f} M nodes/s for the array of {split} engines")
    elif fmax:
        line = (f"projected at the routed {fmax} MHz of the last 'hwmovegen synth --search --target {args.target} "
                f"--core {args.core}': {total['projected_nodes_per_s'] / 1e6:.2f} M nodes/s per engine")
        if engines == 1:
            line += "; one engine fits the device by its cells and block RAMs"
        elif engines:
            line += (f"; {engines} engines fit the device by its cells and block RAMs: "
                     f"{total['projected_nodes_per_s_per_device'] / 1e6:.2f} M nodes/s if they split the root "
                     "at one engine's rate each ('bench search --engines N' measures a split)")
        print(line)
    else:
        print(f"M nodes/s: no fitting 'hwmovegen synth --search --target {args.target} --core {args.core}' report"
              + (f" (nor one of --engines {split})" if split > 1 else ""))
    for peer in peers:
        print(f"{peer['name']}: {peer['nodes_per_s'] / 1e6:.2f} M positions/s"
              + (f", about {peer['cycles_per_node']} cycles a position" if peer["cycles_per_node"] else ""))
    return 0
