"""Hardware against the golden model (move for move) and python-chess (legal subset), at scale."""

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

import chess

from ...tables.contracts import GeneratorConfig
from ..backends import get_backend
from ..model.legality import no_moves_verdict
from ..model import Position, cycle_bound, echo_fen, generate, work
from ..model.perft import legal_moves

__all__ = ["Mismatch", "Summary", "check", "compare", "batches", "check_batch", "CHUNK", "first_difference"]

CHUNK = 256     # positions per call into a backend / per worker task


@dataclass
class Mismatch:
    fen: str
    reason: str
    index: int | None = None         # first differing position in the stream
    hardware_move: str | None = None
    model_move: str | None = None
    hardware: list = field(default_factory=list)
    model: list = field(default_factory=list)

    def report(self):
        lines = [f"MISMATCH: {self.fen}", f"  {self.reason}"]
        if self.index is not None:
            lines.append(f"  first difference at move {self.index}: hardware {self.hardware_move or '(end)'}, "
                         f"model {self.model_move or '(end)'}")
        lines.append(f"  hardware ({len(self.hardware)}): {' '.join(self.hardware)}")
        lines.append(f"  model    ({len(self.model)}): {' '.join(self.model)}")
        return "\n".join(lines)


@dataclass
class Summary:
    backend: str
    layout: str
    core: str
    legal: bool = False
    order: str | None = None         # the moves ordered and flagged for check (:mod:`.order`)
    positions: int = 0
    moves: int = 0
    legal_moves: int = 0
    steps: int = 0
    cycles: int = 0
    span: int = 0                    # back to back: cycles from each batch's first start to its last done
    stalls: int = 0
    promotion_nodes: int = 0
    checkmates: int = 0              # with the legality stage (every move): positions without moves,
    stalemates: int = 0              # the side to move in check or not
    seconds: float = 0.0
    mismatches: list = field(default_factory=list)

    @classmethod
    def of(cls, backend, config):
        """An empty Summary of ``config``'s generator on ``backend``."""
        return cls(backend, config.layout, config.core, config.legal, order=config.order)

    def add(self, other):
        for name in ("positions", "moves", "legal_moves", "steps", "cycles", "span", "stalls", "promotion_nodes",
                     "checkmates", "stalemates"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.mismatches.extend(other.mismatches)

    @property
    def moves_per_cycle(self):
        """Back to back, over the batches' spans (idle cycles between positions count);
        else over the positions' own cycles."""
        cycles = self.span or self.cycles
        return self.moves / cycles if cycles else None

    @property
    def ends_known(self):
        """Whether an empty stream is a position without legal moves (every legal move streamed)."""
        return self.legal and self.order != "captures"

    def as_dict(self):
        out = asdict(self)
        if self.order is None:
            del out["order"]
        if not self.ends_known:
            del out["checkmates"], out["stalemates"]
        out["seconds"] = round(self.seconds, 3)
        out["moves_per_cycle"] = round(self.moves_per_cycle, 4) if self.cycles else None
        out["mismatches"] = [asdict(m) for m in self.mismatches]
        return out


def first_difference(a, b):
    """The index of the first place the sequences ``a`` and ``b`` differ (the shorter's length if one
    is the other's beginning)."""
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return index
    return min(len(a), len(b))


def check(board, hardware, model, config=GeneratorConfig()):
    """The first problem with a hardware Generation of the generator ``config`` names, as a
    Mismatch, or None (its ``core``: the work and cycle bound; ``legal``: the model's and the
    hardware's legal streams, and python-chess's legal moves; ``order``: ordered streams,
    python-chess's legal captures alone for ``captures``)."""
    core, legal, order = config.core, config.legal, config.order
    def mismatch(reason, index=None):
        hw, md = hardware.uci(), model.uci()
        return Mismatch(echo_fen(board), reason, index,
                        hw[index] if index is not None and index < len(hw) else None,
                        md[index] if index is not None and index < len(md) else None, hw, md)

    if hardware.moves != model.moves:
        index = first_difference(hardware.moves, model.moves)
        if hardware.uci() == model.uci():
            return mismatch("same moves, different flags", index)
        return mismatch("move stream differs from the golden model", index)
    if hardware.steps != work(model, core):
        return mismatch(f"steps: hardware {hardware.steps}, model {work(model, core)}")
    if hardware.promotion_nodes != model.promotion_nodes:
        return mismatch(f"promotions: hardware {hardware.promotion_nodes}, model {model.promotion_nodes}")
    if hardware.cycles is not None:
        bound = cycle_bound(model, core)
        if hardware.cycles - hardware.stalls > bound:
            return mismatch(f"cycle bound: {hardware.cycles} cycles - {hardware.stalls} stalls > {bound}")
    chosen = [m.to_chess() for m in hardware.moves] if legal else legal_moves(board, hardware.moves)
    reference = set(board.legal_moves)
    if order == "captures":
        reference = {move for move in reference if board.is_capture(move)}
    if set(chosen) != reference or len(chosen) != len(set(chosen)):
        extra = sorted(m.uci() for m in set(chosen) - reference)
        missing = sorted(m.uci() for m in reference - set(chosen))
        return mismatch(f"legal subset differs from python-chess: extra {extra}, missing {missing}")
    return None


def _check_chunk(backend, fens):
    boards = [chess.Board(fen) for fen in fens]
    config = backend.config
    summary = Summary.of(backend.name, config)
    for board, hardware in zip(boards, backend.run(boards)):
        model = generate(Position.from_board(board, check=False), config.layout, legal=config.legal,
                         order=config.order)
        summary.positions += 1
        summary.moves += len(hardware.moves)
        summary.legal_moves += board.legal_moves.count()
        summary.steps += hardware.steps
        summary.cycles += hardware.cycles or 0
        summary.stalls += hardware.stalls or 0
        summary.promotion_nodes += hardware.promotion_nodes
        if summary.ends_known and not hardware.moves:
            end = no_moves_verdict(Position.from_board(board, check=False))
            summary.checkmates += end == "checkmate"
            summary.stalemates += end == "stalemate"
        problem = check(board, hardware, model, config)
        if problem:
            summary.mismatches.append(problem)
    summary.span = backend.last_span
    return summary


def check_batch(backend, index, fens, seed=1):
    """The Summary of batch number ``index`` (FENs) on ``backend``, started afresh with the
    batch's own backpressure seed (derived from ``seed``): the results do not depend on where
    the batch runs (one process, ``jobs``, a cluster)."""
    backend.reseed(seed * 1_000_003 + index + 1)
    return _check_chunk(backend, fens)


def batches(boards):
    """The work of a compare: (index, FENs) per batch of CHUNK positions."""
    fens = [echo_fen(board) for board in boards]     # the workers rebuild exactly these positions
    return list(enumerate(fens[i:i + CHUNK] for i in range(0, len(fens), CHUNK)))


_worker = {}


def _init_worker(settings):
    _worker["backend"] = get_backend(**settings)     # one per worker process, reseeded per batch


def _run_chunk(task):
    return check_batch(_worker["backend"], *task)


def compare(boards, backend, jobs=1, progress=None):
    """Compare every board on ``backend`` (a :class:`~hwmovegen.sim.backends.Backend`, built once
    by the caller; its config names the generator, its ``ready_probability`` the backpressure and
    its ``seed`` the batches' seeds), in ``jobs`` processes (each with a backend of its own);
    ``progress(n)`` is called as positions complete."""
    start = time.perf_counter()
    tasks = [(index, fens, backend.seed) for index, fens in batches(boards)]
    backend.prepare()       # built once here, before any worker needs it
    total = Summary.of(backend.name, backend.config)
    jobs = max(1, min(jobs, len(tasks), os.cpu_count() or 1))

    def add(summary):
        total.add(summary)
        if progress:
            progress(summary.positions)
    if jobs == 1:
        for task in tasks:
            add(check_batch(backend, *task))
    else:
        with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(backend.settings,)) as pool:
            for summary in pool.map(_run_chunk, tasks):
                add(summary)
    total.seconds = time.perf_counter() - start
    return total
