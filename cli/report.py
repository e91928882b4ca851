"""``hwmovegen report``: boards with the generated moves, cycle timelines, a summary over the
cores and the synthesis figures, in one self-contained HTML page."""

import json
from pathlib import Path

from ..boards.synth import RATED_STAGES, BadRequest, DoesNotFit, SynthError, rated_synth, saved_report
from ..boards.targets import TARGETS
from ..rtl import CORES
from ..sim.drivers.bench import RATE_POSITIONS
from ..sim.model import Position, echo_fen, generate
from ..sim.model.positions import random_boards
from ..sim.harness.toolchain import ToolMissing
from .common import (CliError, FlowError, add_backend, add_core, add_json, add_layout, add_legal, add_positions,
                     add_ready, backend, config, log, positions, print_rows, progress, stages)
from .validate import MAX_REPORT_RANDOM, MAX_SEED, folder_for, whole
from .report_page import CoreSweep, Entry, PositionView, SynthRow, page

__all__ = ["register", "run"]

INSTALL = "pip install 'hwmovegen[report]'"


def register(subparsers):
    p = subparsers.add_parser("report", help="an HTML page: boards with the moves, cycle timelines, summary and "
                                             "synthesis charts",
                              description="Write DIR/index.html, one self-contained page (inline SVG, nothing "
                                          "fetched): each position's board with an arrow per generated move and "
                                          "its cycle timeline from the simulation; a summary of moves per cycle "
                                          "over the positions (or a seeded random sweep) for every core; the "
                                          "synthesis figures of every target and core from the last reports of "
                                          "`hwmovegen synth` (or run now with --synth). Needs " + INSTALL + ".")
    add_positions(p)
    add_backend(p, hardware_only=True)
    add_layout(p)
    add_core(p)
    add_legal(p)
    p.add_argument("--random", type=whole(1, MAX_REPORT_RANDOM), metavar="N",
                   help="summary over N positions from seeded random games (default: over the positions shown; "
                        f"at most {MAX_REPORT_RANDOM:,})")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1, help="seed of --random and of --ready (default 1)")
    add_ready(p)
    p.add_argument("--synth", action="store_true",
                   help="synthesize every core for every target now (many minutes) instead of reading the last "
                        "reports of `hwmovegen synth`")
    p.add_argument("--out", metavar="DIR", type=folder_for("index.html"), required=True, help="folder of the page (index.html)")
    add_json(p)


def run(args):
    try:
        import matplotlib  # noqa: F401 (the report extra, checked only for this command)
        import yowasp_wavedrom  # noqa: F401 (the report extra)
    except ImportError as error:
        raise CliError(f"report needs the plotting libraries ({error.name} is not installed): {INSTALL}") from None

    records = positions(args)
    chosen = backend(args, ready_probability=args.ready, seed=args.seed)
    say = log(args)

    views = []
    bar = progress(args, len(records))
    try:
        for record in records:
            try:
                result, samples = chosen.trace(record.board)
            except RuntimeError as error:
                raise FlowError(f"{record.fen}: {error}") from None
            views.append(_view(record, result, samples, args))
            bar.update()
    finally:
        bar.close()

    if args.random:
        bar = progress(args, args.random, what="making positions")
        try:
            boards, names = random_boards(args.random, seed=args.seed, progress=bar.update), None
        finally:
            bar.close()
        what = f"{args.random} random positions (seed {args.seed})"
    else:
        boards = [record.board for record in records]
        names = [record.name or record.fen for record in records]
        what = f"the {len(boards)} position{'s' if len(boards) > 1 else ''} above"
    names = names or [echo_fen(board) for board in boards]
    sweeps = [_sweep(args, core, boards) for core in CORES]

    rows = _synth_rows(args, say)
    missing = [f"{row.target} {row.core}" for row in rows if row.report is None]
    if missing and say:
        say(f"no synthesis report yet for {', '.join(missing)}: the page shows them as missing "
            "(hwmovegen synth --target T --core C keeps one; report --synth runs them all)")

    config = (f"{args.core} core, {args.layout} layout, "
              + ("legal moves (legality stage)" if args.legal else "pseudo-legal moves")
              + f", simulated with {chosen.name}, moves.ready "
              + ("always high" if args.ready >= 1 else f"high with probability {args.ready} (seed {args.seed})"))
    note = ("Synthesized now (--synth)" if args.synth else "The last report hwmovegen synth kept") + (
        " for each target and core" + (" with the legality stage" if args.legal else "")
        + f" ({args.layout} layout): the routed fmax and the area in a register harness; moves/s is the fmax times "
          f"the core's moves per cycle over {RATE_POSITIONS} random positions (seed 1) in one batch.")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    path.write_text(page(views, args.core, config, sweeps, names, what, rows, note), encoding="utf-8")

    differ = [view for view in views if not view.matches]
    if args.json:
        print(json.dumps({
            "page": str(path), "backend": chosen.name, "core": args.core, "layout": args.layout, "legal": args.legal,
            "positions": [{"fen": echo_fen(view.board), "moves": [m.uci() for m in view.stream],
                           **{key: value for key, value in view.counters.items() if key != "moves"},
                           "matches_model": view.matches} for view in views],
            "summary": {"positions": what, "cores": [{
                "core": s.core, "back_to_back": s.back_to_back, "positions": len(s.moves), "moves": sum(s.moves),
                "cycles": s.span or sum(s.cycles), "stalls": s.stalls,
                "moves_per_cycle": round(s.moves_per_cycle, 4)} for s in sweeps]},
            "synthesis": [{"target": row.target, "core": row.core, "layout": row.layout, "legal": row.legal,
                           "report": ("missing" if row.report is None else
                                      "does not fit" if "does_not_fit" in row.report else "present")}
                          for row in rows],
        }))
    else:
        moves = sum(len(view.stream) for view in views)
        cycles = sum(view.counters["cycles"] for view in views)
        print_rows([
            ("page", str(path)),
            ("positions", f"{len(views)} on the {args.core} core: {moves} {'legal ' if args.legal else ''}moves "
                          f"in {cycles} cycles"),
            *[(s.core, f"{s.moves_per_cycle:.4f} moves/cycle {'back to back' if s.back_to_back else 'one at a time'} "
                       f"over {what}") for s in sweeps],
        ])
    if differ:
        raise FlowError(f"{len(differ)} of {len(views)} streams differ from the golden model (marked on the "
                        "page; hwmovegen compare says where)")
    return 0


def _entries(stream, pseudo):
    """The core's moves in its order: those of the stream numbered, the others (dropped) not."""
    entries, taken = [], 0
    for move in pseudo:
        if taken < len(stream) and stream[taken] == move:
            taken += 1
            entries.append(Entry(move, taken))
        else:
            entries.append(Entry(move, None))
    if taken < len(stream):     # not the model's subsequence: the stream as it came, then the rest
        entries = ([Entry(move, i + 1) for i, move in enumerate(stream)]
                   + [Entry(move, None) for move in pseudo if move not in stream])
    return entries


def _view(record, result, samples, args):
    position = Position.from_board(record.board, check=False)
    pseudo = generate(position, args.layout).moves
    expected = generate(position, args.layout, legal=True).moves if args.legal else pseudo
    counters = {"moves": len(result.moves), **result.counters()}
    if args.legal:
        entries = _entries(result.moves, pseudo)
        dropped = sum(entry.number is None for entry in entries)
        counters.update(generated=len(result.moves) + dropped, dropped=dropped)
    else:
        entries = [Entry(move, i + 1) for i, move in enumerate(result.moves)]
    return PositionView(record.name, record.board, entries, counters, samples, result.moves,
                        result.moves == expected)


def _sweep(args, core, boards):
    """Every position on ``core``, in batches of the standard size (back to back where the core can)."""
    chosen = backend(args, core=core, ready_probability=args.ready, seed=args.seed)
    results, span = [], 0
    bar = progress(args, len(boards))
    try:
        for first in range(0, len(boards), RATE_POSITIONS):
            chunk = boards[first:first + RATE_POSITIONS]
            try:
                results.extend(chosen.run(chunk))
            except RuntimeError as error:
                raise FlowError(f"the {core} core: {error}") from None
            span += chosen.last_span
            bar.update(len(chunk))
    finally:
        bar.close()
    return CoreSweep(core, bool(span), [len(r.moves) for r in results], [r.cycles for r in results],
                     sum(r.stalls for r in results), span)


def _synth_rows(args, say):
    rows = []
    for name, target in TARGETS.items():
        for core in CORES:
            if args.synth:
                if say:
                    say(f"synthesizing the {core} core{' with the legality stage' if args.legal else ''} for the "
                        f"{name} (minutes)")
                try:
                    with stages(args, RATED_STAGES, f"synthesis of the {core} core for the {name}") as stage:
                        rated_synth(name, config(args, core=core), stage=stage, log=say)
                except DoesNotFit:
                    pass        # kept as this configuration's verdict
                except (BadRequest, ToolMissing) as error:
                    raise CliError(str(error)) from None
                except SynthError as error:
                    raise FlowError(str(error)) from None
            rows.append(SynthRow(name, target.device, core, args.layout, args.legal,
                                 saved_report(name, config(args, core=core))))
    return rows
