"""``hwmovegen synth``, ``build`` and ``board``: targets, dev boards and the host link."""

import json

import contextlib

from ..boards.bridge import FAULT_KINDS, PtyBridge
from ..boards.client import (CompiledDevBoard, DeviceError, HostClient, LinkError, NotAPort, SerialTransport,
                             SimulatedDevBoard)
from ..boards.faults import fault_run
from ..sim.cxxrtl import BackendUnavailable
from ..sim.model.epd import cpw_records
from ..rtl.protocol import ErrorCode
from ..boards.devboards import DEV_BOARDS, build_bitstream, check_search_fits
from ..boards.synth import RATE_ORDER, RATED_STAGES, STAGES, BadRequest, SynthError, rated_synth
from ..boards.targets import TARGETS
from ..boards.netlist import (NETLIST_STAGES, board_requests, check_board_netlist, check_netlist, check_perft_netlist,
                              check_search_netlist, perft_trees, search_requests)
from ..sim.model.positions import random_boards
from ..sim.drivers.bench import python_chess_perft
from ..sim.model import Position, generate
from ..sim.model.search import SearchRequest, search
from ..tables.search import MAX_DEPTH, MAX_SEARCH_ENGINES
from ..sim.harness.toolchain import ToolMissing
from .common import (CliError, FlowError, add_core, add_json, add_layout, add_legal, add_order, add_perft_engines,
                     add_positions, add_ready, config, log, positions, print_rows, print_table, progress, stages)
from ..tables.contracts import MAX_PLIES, SELECTABLE, core_contract
from .validate import (MAX_RANDOM, MAX_SEED, add_force, baud, check_engines, check_perft_depth,
                       output_dir, positive_int, seconds, whole)

__all__ = ["register", "run"]

MAX_FAULTS = 1_000_000


def register(subparsers):
    p = subparsers.add_parser("synth", help="synthesize, place and route a core; report fmax and area",
                              description="Synthesize the generator with Yosys and place and route it with "
                                          "nextpnr (YoWASP) in a register harness; report routed fmax, "
                                          "logic cells, LUTs, FFs, block RAMs and the critical path.")
    p.add_argument("--target", required=True, choices=list(TARGETS), help="the FPGA to synthesize for")
    add_layout(p)
    add_core(p)
    add_legal(p)
    p.add_argument("--order", action="store_true",
                   help=f"with the ordering stage (its order an input; moves/s measured in {RATE_ORDER} order)")
    add_perft_engines(p, help="the perft array of N engines (each with the legality stage) instead of the generator; "
                              f"with --search (--engines N): N search engines splitting the root moves, 1 to "
                              f"{MAX_SEARCH_ENGINES}")
    p.add_argument("--search", action="store_true",
                   help="the search engine (its own legality and ordering stages) instead of the generator; "
                        "'hwmovegen search' projects nodes/s at its fmax")
    p.add_argument("--out", metavar="DIR", type=output_dir, help="keep the build files in this folder")
    p.add_argument("--seed", type=whole(1, MAX_SEED), default=1,
                   help="nextpnr placement seed (default 1); with --check-netlist, the backpressure's")
    p.add_argument("--check-netlist", choices=NETLIST_STAGES, metavar="STAGE",
                   help="instead of a report: simulate the netlist after STAGE (synth: Yosys's; routed: nextpnr's) "
                        "in Verilator with the vendor cell models against the RTL's compiled model on the CPW "
                        "positions and --random ones, every move, counter and cycle compared (the core's own "
                        f"ports as the top; --order: the ordering stage in {RATE_ORDER} order); with --perft-engines: "
                        "the perft array on perft trees of three CPW positions, every counter and cycle compared; "
                        "with --search: the search engine searching the CPW positions to depths 1 and 2, the best "
                        "move, score, PV, every counter and cycle compared; exit 1 on a difference")
    p.add_argument("--random", type=whole(1, MAX_RANDOM), metavar="N", default=200,
                   help="with --check-netlist: positions from seeded random games beside the CPW ones (default 200)")
    add_ready(p)
    add_force(p)
    add_json(p)

    p = subparsers.add_parser("build", help="build a dev board's bitstream (generator + UART host link)",
                              description="Build a dev board's bitstream: the generator behind the UART host "
                                          "link on the board's USB serial bridge, LED 0 lit while busy.")
    p.add_argument("--board", required=True, choices=list(DEV_BOARDS), help="the dev board")
    p.add_argument("--out", metavar="DIR", type=output_dir, default="build", help="output folder (default: build)")
    add_layout(p)
    add_core(p)
    p.add_argument("--legal", action="store_true",
                   help="with the legality stage: the host may ask for legal moves (board --legal)")
    p.add_argument("--order", action="store_true",
                   help="with the ordering stage: the host may ask for ordered moves with check flags "
                        "(board --order)")
    add_perft_engines(p, help="a perft array of N engines beside the generator: the board runs perft (board --perft)")
    p.add_argument("--search", action="store_true",
                   help="with the search engine beside the generator: the host may ask for searches "
                        "(board --search, uci --port); the ULX3S-85F only")
    p.add_argument("--baud", type=positive_int, default=115_200, help="UART baud rate (default 115200)")
    p.add_argument("--check-netlist", choices=NETLIST_STAGES, metavar="STAGE",
                   help="instead of a bitstream: simulate the board's top level (UART, host link and the stages "
                        "asked for, at --baud on the board's clock; its pins clock, reset, rx, tx and LED 0) as the "
                        "netlist after STAGE (synth: Yosys's; routed: nextpnr's) in Verilator with the vendor cell "
                        "models against the RTL's compiled model: PING, GENERATE of the CPW positions and --random "
                        "ones, PERFT with --perft-engines, three malformed frames; every byte on tx and the cycle it "
                        "came on compared; exit 1 on a difference")
    p.add_argument("--random", type=whole(1, MAX_RANDOM), metavar="N", default=20,
                   help="with --check-netlist: positions from seeded random games beside the CPW ones (default 20)")
    add_force(p)
    add_json(p)

    p = subparsers.add_parser("board", help="generate on a dev board over its UART and check against the model",
                              description="Send positions to a dev board (or its simulation) over the host "
                                          "link and check every stream against the golden model.")
    p.add_argument("--port", help="serial port of the board (pip install 'hwmovegen[serial]')")
    p.add_argument("--sim", action="store_true", help="talk to the simulated board top level instead")
    p.add_argument("--sim-pty", action="store_true",
                   help="the simulated board (compiled) on a pseudo-terminal, reached through pyserial as --port "
                        "reaches a board, at --baud on the iCEBreaker's 12 MHz clock")
    p.add_argument("--faults", type=whole(1, MAX_FAULTS), metavar="N",
                   help=f"with --sim-pty: inject N faults ({', '.join(FAULT_KINDS)}, in turn) on the byte stream "
                        "and the simulated rx pin; print per kind the faults tried and survived (default positions: "
                        "the CPW ones)")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1,
                   help="with --faults: where the faults land (default 1)")
    p.add_argument("--retries", type=whole(0, 100), default=None,
                   help="times a damaged or unanswered request is sent again (default 3, with --faults 6; "
                        "--sim's board loses nothing)")
    add_positions(p)
    p.add_argument("--baud", type=baud, default=115_200, help="with --port: baud rate (default 115200)")
    p.add_argument("--timeout", type=seconds, default=None,
                   help="seconds to wait for a reply (default 2, 1 with --faults; simulated seconds with --sim; "
                        "at most a day)")
    add_layout(p)
    add_core(p)
    add_legal(p)
    add_order(p, stage="the board's ordering stage (build --order; with --sim the simulated board has it)")
    p.add_argument("--perft", type=whole(1, MAX_PLIES), metavar="DEPTH",
                   help="perft to DEPTH in the board's perft array (no host help), checked against python-chess")
    add_perft_engines(p, help="with --sim: the simulated board's perft array (default 1 with --perft)")
    p.add_argument("--search", type=whole(1, MAX_DEPTH), metavar="DEPTH",
                   help="search each position to DEPTH plies in the board's search engine (build --search; "
                        "with --sim the simulated board, compiled with Verilator, has it) and check the best move, "
                        "score, principal variation and every counter against the model's search")
    add_force(p)
    add_json(p)


def run(args):
    if not (args.command == "synth" and args.search):      # there --engines N: the search array's (_synth)
        check_engines(args.perft_engines, args.force, "--perft-engines",
                      {"synth": "synthesize", "build": "build", "board": "simulate"}[args.command])
    try:
        return {"synth": _synth, "build": _build, "board": _board}[args.command](args)
    except (BadRequest, NotAPort) as error:
        raise CliError(str(error)) from None
    except (ToolMissing, BackendUnavailable) as error:
        raise CliError(str(error)) from None
    except (SynthError, LinkError) as error:
        raise FlowError(str(error)) from None


def _flag_config(args):
    """synth's and build's configuration: ``--order`` there is a flag, the stage's order a port."""
    return config(args, order=SELECTABLE if args.order else None)


def _synth(args):
    engines = args.perft_engines or 0
    split = 1
    if args.search and engines and getattr(args, "engines_option", None) == "--engines":
        # --engines N with --search: the search array's engines (--perft-engines is refused below)
        if engines > MAX_SEARCH_ENGINES:
            raise CliError(f"--engines {engines}: a search array has 1 to {MAX_SEARCH_ENGINES} engines")
        split, engines, args.perft_engines = engines, 0, None
    if args.search and (engines or args.order or args.legal):
        raise CliError("--search: the search engine has its own legality and ordering stages and no perft engines "
                       "(leave out --legal, --order and --perft-engines; --engines N asks for N search engines)")
    if args.check_netlist:
        return _check_search_netlist(args, split) if args.search else _check_netlist(args)
    if args.order and engines:
        raise CliError("--order: the perft array has no ordering stage (synthesize --order without --perft-engines)")
    with stages(args, STAGES if args.search else RATED_STAGES, f"synthesis for the {args.target}") as stage:
        report = rated_synth(args.target, _flag_config(args).replace(search_engines=split), build_dir=args.out,
                             seed=args.seed, stage=stage, log=log(args), search=args.search)
    if args.json:
        print(json.dumps(report))
        return 0
    path = report["critical_path"] or {}
    if args.search:
        design = (f'search engine, {report["core"]} core' if split == 1 else
                  f'search array of {split} engines, {report["core"]} core')
        rate = ("nodes/s", "fmax / cycles per node: 'hwmovegen search' and 'bench search' project it from "
                           "their runs' cycles")
    elif engines:
        design = f'perft array of {engines} engine{"s" if engines > 1 else ""}, {report["core"]} core'
        rate = ("nodes/s", f'{report["mnodes_per_s"]} M ({report["nodes_per_cycle"]} nodes/cycle x fmax, '
                           f'perft start position depth 4)' if report["mnodes_per_s"]
                else "- (no C++ compiler to measure nodes/cycle)")
    else:
        design = f'{report["core"]} core'
        rate = ("moves/s", f'{report["mmoves_per_s"]} M ({report["moves_per_cycle"]} moves/cycle x fmax'
                           f'{", " + RATE_ORDER + " order" if report["order"] else ""})'
                if report["mmoves_per_s"] else "- (no C++ compiler to measure moves/cycle)")
    parts = (", legality stage" if report["legal"] and not engines else "") + \
        (", ordering stage" if report["order"] else "")
    if args.search:
        parts = ""
    print_rows([
        ("target", f'{report["target"]} ({design}, {_layout_words(report)}{parts})'),
        ("fmax", f'{report["fmax_mhz"]} MHz routed (goal {report["goal_mhz"]} MHz, '
                 f'constraint {report["constraint_mhz"]} MHz)'),
        ("logic cells", f'{report["logic_cells"]} / {report["logic_cells_available"]} '
                        f'{report["logic_cell_kind"]} '
                        f'({100 * report["logic_cells"] / report["logic_cells_available"]:.1f}%)'),
        ("LUTs", report["luts"]),
        ("FFs", report["ffs"]),
        ("carry cells", report["carries"]),
        ("block RAMs", f'{report["brams"]} / {report["brams_available"]}'),
        *([("SPRAMs", f'{report["sprams"]} / {report["sprams_available"]}')] if "sprams" in report else []),
        rate,
        ("critical path", f'{path.get("from")} -> {path.get("to")}'),
        ("", f'{path.get("delay_ns")} ns, {path.get("logic_levels")} logic levels'),
        ("seconds", report["seconds"]),
    ])
    return 0


def _check_netlist(args):
    if args.perft_engines:
        return _check_perft_netlist(args)
    chosen = config(args, order=RATE_ORDER if args.order else None)
    boards = [record.board for record in cpw_records()] + random_boards(args.random, seed=1)
    result = _run_check(args, len(boards), "pos", lambda update: check_netlist(
        args.target, chosen, boards, args.check_netlist, ready_probability=args.ready, seed=args.seed,
        log=log(args), progress=update))
    if args.json:
        return 1 if result.differences else 0
    parts = (", legality stage" if result.legal else "") + (f", {result.order} order" if result.order else "")
    return _verdict(result, [
        ("netlist", f"{result.stage} netlist on the {result.target} ({result.core} core, {result.layout} layout{parts})"),
        ("against", "the RTL's compiled model (CXXRTL), the same loads, starts and backpressure"),
        ("positions", result.positions),
        ("moves", result.moves),
        ("cycles", f"{result.cycles}  (generations; {result.clock_cycles} clock cycles simulated, loads included)"),
    ])


def _run_check(args, total, unit, check):
    """``check(update)``'s netlist check under a progress bar of ``total`` ``unit``s; printed as one
    JSON object with --json, else its first difference (if any) before the caller's rows."""
    bar = progress(args, total, unit=unit)
    try:
        result = check(bar.update)
    finally:
        bar.close()
    if args.json:
        print(json.dumps(result.as_dict()))
    elif result.differences:
        print(result.differences[0].report())
    return result


def _verdict(result, rows, seconds="the simulations, after the models are built"):
    """A netlist check's ``rows``, then its differences and seconds (``seconds`` says what they
    measure): exit status 1 on a difference."""
    print_rows([*rows, ("differences", len(result.differences)), ("seconds", f"{result.seconds:.1f}  ({seconds})")])
    return 1 if result.differences else 0


def _check_search_netlist(args, split):
    if args.ready != 1:
        raise CliError("--ready: the search engine streams nothing to the host (leave it out with --search)")
    requests = search_requests()
    result = _run_check(args, len(requests), "search", lambda update: check_search_netlist(
        args.target, _flag_config(args).replace(search_engines=split), requests, args.check_netlist,
        log=log(args), progress=update))
    if args.json:
        return 1 if result.differences else 0
    depths = sorted({search["depth"] for search in result.searches})
    return _verdict(result, [
        ("netlist", f"{result.stage} netlist on the {result.target} (search engine{'' if split == 1 else f's: {split}'}, "
                    f"{result.core} core, {result.layout} layout)"),
        ("against", "the RTL's compiled model (Verilator), the same requests; the RTL's answers the model's search's"),
        *((f"depth {depth}", f"{sum(s['depth'] == depth for s in result.searches)} CPW positions, "
                             f"{sum(s['nodes'] for s in result.searches if s['depth'] == depth)} nodes, "
                             f"{sum(s['cycles'] for s in result.searches if s['depth'] == depth)} cycles")
          for depth in depths),
        ("compared", "best move, score, bound, PV, every counter, the clock cycles after each search"),
        ("clock cycles", f"{result.clock_cycles}  (simulated)"),
    ], "the simulations and the model's searches, after the models are built")


def _check_perft_netlist(args):
    if args.order:
        raise CliError("--order: the perft array has no ordering stage (leave out --order or --perft-engines)")
    if args.ready != 1:
        raise CliError("--ready: the perft array streams nothing to the host (leave it out with --perft-engines)")
    trees = perft_trees()
    result = _run_check(args, len(trees), "tree", lambda update: check_perft_netlist(
        args.target, _flag_config(args), trees, args.check_netlist, log=log(args), progress=update))
    if args.json:
        return 1 if result.differences else 0
    return _verdict(result, [
        ("netlist", f"{result.stage} netlist on the {result.target} (perft array of {result.engines} "
                    f"engine{'s' if result.engines > 1 else ''}, {result.core} core, {result.layout} layout"
                    f"{'' if result.count_leaves else ', the last ply streamed'})"),
        ("against", "the RTL's compiled model (Verilator), the same loads and starts"),
        *((f"{tree['name']} d{tree['depth']}", f"{tree['nodes']} nodes, {tree['cycles']} cycles")
          for tree in result.trees),
        ("clock cycles", f"{result.clock_cycles}  (simulated, loads included)"),
    ])


def _check_board_netlist(args):
    if args.search:
        check_search_fits(args.board)       # before the progress bar starts
    records = cpw_records()
    boards = [record.board for record in records] + random_boards(args.random, seed=1)
    chosen = _flag_config(args)
    result = _run_check(args, len(board_requests(chosen, boards, args.search)), "request",
                        lambda update: check_board_netlist(args.board, chosen, boards, args.check_netlist,
                                                           baud=args.baud, log=log(args), progress=update,
                                                           search=args.search))
    if args.json:
        return 1 if result.differences else 0
    parts = (", legality stage" if result.legal else "") + (", ordering stage" if result.order else "") + \
        (f", {result.perft_engines} perft engine{'s' if result.perft_engines > 1 else ''}"
         if result.perft_engines else "") + (", search engine" if result.search else "")
    return _verdict(result, [
        ("netlist", f"{result.stage} netlist of the {result.board}'s top level on the {result.target} "
                    f"({result.core} core, {result.layout} layout{parts}; {args.baud} baud, {result.divisor} "
                    f"cycles a bit)"),
        ("against", "the RTL's compiled model (Verilator), the same bits on rx"),
        ("requests", f"{result.requests}  ({result.bytes_in} bytes on rx, {result.bytes_out} bytes on tx compared "
                     f"with the cycles they came on)"),
        ("clock cycles", f"{result.clock_cycles}  (simulated)"),
    ])


def _layout_words(report):
    """A core without ROMs is synthesized once for every layout (its report is the first layout's)."""
    return f'{report["layout"]} layout' if core_contract(report["core"]).reads_rom else "any layout (no ROM)"


def _build(args):
    if args.check_netlist:
        return _check_board_netlist(args)
    if args.search:
        check_search_fits(args.board)       # before the stages' display starts
    with stages(args, STAGES, f"the {args.board} bitstream") as stage:
        report = build_bitstream(args.board, args.out, _flag_config(args), baud=args.baud, stage=stage,
                                 search=args.search)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f'{report["board"]} ({report["fpga"]}), {report["core"]} core, {report["layout"]} layout, '
          f'{"legality stage, " if report["legal"] else ""}{"ordering stage, " if report["order"] else ""}'
          + (f'{report["perft_engines"]} perft engines, ' if report["perft_engines"] else "")
          + ("search engine, " if report["search"] else "")
          + f'{report["baud"]} baud')
    print(f'clock {report["clock_mhz"]} MHz, routed fmax {report["fmax_mhz"]} MHz')
    print("utilization " + ", ".join(f"{cell} {used}" for cell, used in report["utilization"].items()))
    print(f'bitstream {report["bitstream"]}')
    return 0


def _board(args):
    if sum([args.port is not None, args.sim, args.sim_pty]) != 1:
        raise CliError("give --port PORT (a board), --sim (the simulated board) or --sim-pty (the simulated board "
                       "on a pseudo-terminal)")
    if (args.faults or args.retries is not None and args.sim) and not args.sim_pty:
        raise CliError("--faults needs --sim-pty (the faults are injected between the terminal and the simulated "
                       "board)" if args.faults else "--retries: the in-process simulated board (--sim) loses nothing; "
                       "give --port or --sim-pty")
    if args.faults and args.perft:
        raise CliError("--faults runs generation requests; give --perft without --faults")
    records = positions(args, default_start=not args.faults) or (cpw_records() if args.faults else [])
    if args.perft_engines and not (args.sim or args.sim_pty):
        raise CliError("--perft-engines sets up the simulated board (--sim); a real board has its bitstream's")
    if args.perft and args.order:
        raise CliError("--order orders a position's moves; --perft counts the tree's leaves: give one of them")
    if args.search and (args.perft or args.order or args.legal or args.perft_engines or args.sim_pty or args.faults):
        raise CliError("--search runs searches on --sim or --port: leave out --perft, --perft-engines, --order, "
                       "--legal, --sim-pty and --faults")
    if args.perft and (args.sim or args.sim_pty):
        check_perft_depth(args.perft, "pysim", in_hardware=True, force=args.force, option="--perft")
    timeout = args.timeout = args.timeout or (1.0 if args.faults else 2.0)
    retries = args.retries if args.retries is not None else 6 if args.faults else 0 if args.sim else 3
    engines = args.perft_engines or (1 if args.perft else 0)
    board_config = config(args, order=SELECTABLE if args.order else None, perft_engines=engines)
    if args.faults:
        return _board_faults(args, board_config, records, timeout, retries)
    with contextlib.ExitStack() as stack:
        if args.sim and args.search:     # far too big for pysim: the top compiled, in this process
            transport = CompiledDevBoard(board_config, log=log(args))
        elif args.sim:
            transport = SimulatedDevBoard(board_config)
        elif args.sim_pty:
            bridge = stack.enter_context(PtyBridge(board_config, baud=args.baud, seed=args.seed, log=log(args)))
            transport = SerialTransport(bridge.port, args.baud)
        else:
            transport = SerialTransport(args.port, args.baud)
        return _board_session(args, HostClient(transport, timeout=timeout, retries=retries), records)


def _board_session(args, client, records):
    info = client.ping()
    layout, core = info.layout, info.core
    if args.legal and not info.legality:
        raise CliError("the board's bitstream has no legality stage: build it with --legal, "
                        "or leave out --legal for the pseudo-legal moves")
    if args.order and not info.ordering:
        raise CliError("the board's bitstream has no ordering stage: build it with --order, "
                        "or leave out --order for the core's order")
    if args.perft and not info.perft_engines:
        raise CliError("the board's bitstream has no perft array: build it with --perft-engines N")
    if args.search and not info.search:
        raise CliError("the board's bitstream has no search engine: build it with --search")
    # a bitstream with the ordering stage flags checks in every stream: no order is its square order
    order = args.order or ("square" if info.ordering else None)
    if not args.json:
        stage = (", legality stage" if info.legality else "") + (", ordering stage" if info.ordering else "")
        array = f", {info.perft_engines} perft engine{'s' if info.perft_engines > 1 else ''}" \
            if info.perft_engines else ""
        engine = ", search engine" if info.search else ""
        print(f"# board: protocol {info.version}, {core} core, {layout} layout{stage}{array}{engine}")
    if args.perft:
        return _board_perft(args, client, records)
    if args.search:
        return _board_search(args, client, records)
    failures = 0
    for record in records:
        position = Position.from_board(record.board, check=False)
        moves, counters = client.generate(position, legal=args.legal, order=order)
        expected = generate(position, layout, legal=args.legal, order=order).moves
        matches = moves == expected
        failures += not matches
        uci = [m.uci() for m in moves]
        if args.json:
            counts = {name: value for name, value in counters.items() if name != "moves"}
            flags = {"order": order, "check": [int(m.check) for m in moves]} if order else {}
            print(json.dumps({"fen": record.fen, "backend": _backend_name(args), "core": core,
                              "legal": args.legal, "moves": uci, **flags, **counts, "matches_model": matches}),
                  flush=True)
            continue
        if len(records) > 1:
            print(f"# {record.fen}")
        for move in moves:
            print(move.uci() + ("+" if move.check else ""))
        verdict = "matches the golden model" if matches else "MISMATCH with the golden model"
        print(f"# {verdict}: {len(moves)} moves, {counters['steps']} steps, {counters['cycles']} cycles, "
              f"{counters['stalls']} stall cycles")
    return 1 if failures else 0


def _backend_name(args):
    return "sim" if args.sim else "sim-pty" if args.sim_pty else "board"


def _board_faults(args, board_config, records, timeout, retries):
    """Faults of every kind on the serial path to the simulated board, every answer checked."""
    bar = progress(args, args.faults, unit="fault", what="serial faults")
    try:
        report = fault_run(board_config, [record.board for record in records], args.faults, seed=args.seed,
                           timeout=timeout, retries=retries, baud=args.baud, order=args.order,
                           progress=bar.update, log=log(args))
    finally:
        bar.close()
    kinds = report["faults"]
    if args.json:
        for kind, row in kinds.items():
            print(json.dumps({"kind": kind, **row}))
        print(json.dumps({"kind": "total", **report["totals"], "clean": report["clean"], "losses": report["losses"],
                          "requests": report["requests"], "retries": report["retries"],
                          "retry_causes": report["retry_causes"], "board": report["board"],
                          "seconds": report["seconds"]}))
    else:
        board = report["board"]
        print(f"# {args.faults:,} faults over pyserial to the simulated {board['core']} core, {board['layout']} layout"
              f" ({board['divisor']} cycles a bit, idle timeout {board['idle_timeout']:,} cycles), "
              f"{len(records)} positions, seed {args.seed}")
        header = ("fault", "tried", "survived", "lost", "wrong")
        rows = [(kind, f"{row['tried']:,}", f"{row['survived']:,}", row["lost"], row["wrong"])
                for kind, row in kinds.items()]
        totals = report["totals"]
        rows.append(("total", f"{totals['tried']:,}", f"{totals['survived']:,}", totals["lost"], totals["wrong"]))
        print_table(header, rows, align="<>>>>")
        clean = report["clean"]
        causes = report["retry_causes"]
        print(f"# {clean['requests']:,} clean requests after the faults: {clean['lost']} lost, {clean['wrong']} wrong;"
              f" {report['requests']:,} requests, {report['retries']:,} retries ({causes['line_errors']:,} error"
              f" replies, {causes['timeouts']:,} timeouts, {causes['bad_replies']:,} damaged replies); "
              f"{report['seconds']} s")
        for loss in report["losses"]:
            after = f"the {loss['kind']} fault" if loss["kind"] else "the clean request after fault"
            print(f"# lost: {loss['request']}, {after} {loss['fault']:,}: {loss['error']}")
    failed = report["totals"]["lost"] + report["totals"]["wrong"] + report["clean"]["lost"] + report["clean"]["wrong"]
    return 1 if failed else 0


def _board_perft(args, client, records):
    """Perft of every position walked on the board, checked against python-chess."""
    failures = 0
    for record in records:
        position = Position.from_board(record.board, check=False)
        try:
            answer = client.perft(position, args.perft, timeout=max(args.timeout, 3600.0))
        except DeviceError as error:
            if error.code == ErrorCode.BAD_DEPTH:
                raise CliError(str(error)) from None
            raise
        expected = python_chess_perft(record.board.copy(), args.perft)
        matches = answer["nodes"] == expected
        failures += not matches
        if args.json:
            print(json.dumps({"fen": record.fen, "backend": _backend_name(args), "depth": args.perft,
                              "nodes": answer["nodes"], "cycles": answer["cycles"], "matches": matches}), flush=True)
            continue
        if len(records) > 1:
            print(f"# {record.fen}")
        print(answer["nodes"])
        verdict = "matches python-chess" if matches else f"MISMATCH: python-chess counts {expected}"
        print(f"# {verdict}: perft({args.perft}) in {answer['cycles']:,} cycles of the board's perft array")
    return 1 if failures else 0


def _board_search(args, client, records):
    """Every position searched in the board's search engine, checked against the model's search:
    best move, score, bound, principal variation and every counter (the cycles are the board's)."""
    from .search import result_rows
    failures = 0
    for index, record in enumerate(records):
        request = SearchRequest(Position.from_board(record.board, check=False), args.search,
                                halfmove=record.board.halfmove_clock)
        answer = client.search(request, timeout=max(args.timeout, 3600.0))
        model = search(request)
        matches = answer.as_dict() == {**model.as_dict(), "cycles": answer.cycles} and answer.pv == model.pv
        failures += not matches
        if args.json:
            print(json.dumps({"fen": record.fen, "backend": _backend_name(args), "depth": args.search,
                              **answer.as_dict(), "matches_model": matches}), flush=True)
            continue
        if index:
            print()
        print_rows(result_rows(record.fen, answer))
        if matches:
            print(f"# matches the golden model's search: best move, score, bound, PV, {', '.join(model.counters())}")
        else:
            print(f"# MISMATCH with the golden model's search: {json.dumps(model.as_dict())}")
    return 1 if failures else 0
