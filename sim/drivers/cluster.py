"""compare and perft as tasks on a Dask cluster (``--cluster``).

Imported only when a command is given ``--cluster``; Dask (``dask.distributed``) is the
optional extra ``hwmovegen[cluster]``. A :class:`Session` connects to a running scheduler
(``dask scheduler`` / ``dask worker``) or starts a ``LocalCluster`` of worker processes, and
cuts the work into independent tasks:

- compare: the batches of :func:`.compare.batches` (``CHUNK`` positions, the same batches and
  backpressure seeds as one process, so the same results);
- perft, in the hardware or host-driven: the subtrees below the root's moves, or below the
  nodes at ply 2 for deep trees, each counted on a worker by the same engine as one process
  (:meth:`.hwperft.HardwarePerft.perft`, :func:`.perft.perft`) and summed here.

Each worker process keeps its compiled model (or perft array) between tasks; the CXXRTL cache
is keyed by a hash and safe to share between processes. A task that raises is retried
(Dask's ``retries``), the tasks of a worker that dies are run again on another by the
scheduler, and results are kept by task number, so reports come in order and counts stay
exact whatever ran where.
"""

import contextlib
import ipaddress
import logging
import os
import threading
import time
from concurrent.futures import CancelledError

import chess

from ...rtl.types import PERFT_COUNTER_NAMES
from ..backends import compiled_backend, get_backend, offer
from ..cxxrtl import builds, use_builds
from ..harness.toolchain import source_digest
from ..model.perft import node_moves, perft
from .compare import Summary, batches, check_batch
from .hwperft import HardwarePerft, PerftRun

__all__ = ["ClusterError", "ClusterUnreachable", "ClusterFailed", "Session", "parse_spec", "check_access", "split_ply",
           "subtrees", "RETRIES", "DEEP"]

RETRIES = 3         # extra tries of a task that raised (a worker that dies does not use one up)
DEEP = 5            # from this depth, perft's tasks are the nodes at ply 2 (400 from the start position)


class ClusterError(Exception):
    """A cluster problem, one line."""


class ClusterUnreachable(ClusterError):
    """No Dask, no scheduler at the address, or the scheduler lost during the run."""


class ClusterFailed(ClusterError):
    """The cluster ran but a task could not complete (its workers kept dying, another hwmovegen)."""


def parse_spec(text):
    """``('local', workers)`` for ``local`` (one per core) or ``local:N``, else ``('address', text)``."""
    if text == "local":
        return "local", os.cpu_count() or 1
    if text.startswith("local:"):
        count = text[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"local:N needs a number of workers of at least 1, not {count!r}")
        return "local", int(count)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"expected a scheduler address (host:port, tcp://host:port, tls://host:port) or local[:N], "
                         f"not {text!r}")
    return "address", text


PLAIN = ("tcp", "ws", "ucx")        # Dask's unencrypted protocols; a bare host:port is tcp
ENCRYPTED = ("tls", "wss")


def _scheme_host(address):
    scheme, _, rest = address.rpartition("://")
    scheme = scheme or "tcp"
    if rest.startswith("["):                        # [IPv6]:port
        host = rest[1:].partition("]")[0]
    else:
        host = rest.rpartition(":")[0] if ":" in rest else rest
    return scheme, host


def _loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False                                # a name: it could be any machine


def check_access(spec, certs=None, insecure=False):
    """Whether ``--cluster spec`` may be used as asked; ValueError (one line) if not. A Dask
    scheduler runs whatever any host that reaches its port sends, so a plain (``tcp://``)
    address off the loopback is refused unless ``insecure``; a ``tls://`` one needs ``certs``,
    the folder of :func:`.certs.make_certificates` (mutual TLS: the client shows its
    certificate, the scheduler and workers theirs, all signed by the cluster's CA)."""
    kind, address = parse_spec(spec)
    if kind == "local":
        if certs is not None:
            raise ValueError("--certs: a local cluster (local[:N]) listens on this machine only and needs none")
        return
    scheme, host = _scheme_host(address)
    if scheme in ENCRYPTED:
        if certs is None:
            raise ValueError(f"--cluster {address}: give --certs DIR, the folder of the cluster's certificates "
                             f"(made by 'hwmovegen cluster certs DIR')")
        from .certs import certificate_paths
        try:
            certificate_paths(certs)
        except FileNotFoundError as error:
            raise ValueError(f"--certs: {error}") from None
    elif certs is not None:
        raise ValueError(f"--certs: {address} is not a TLS address (give tls://host:port)")
    elif scheme in PLAIN and not _loopback(host) and not insecure:
        raise ValueError(f"--cluster {address}: a plain {scheme}:// scheduler runs whatever any host that reaches "
                         f"its port sends; use tls://{address.rpartition('://')[2]} with --certs DIR (see "
                         f"'hwmovegen cluster certs'), or --insecure on a network you trust")


def split_ply(depth, divide=False):
    """The ply whose nodes are perft's tasks: the root itself at depth 1, the root's moves
    below DEEP, the nodes at ply 2 from DEEP (many more, evener tasks); at least the root's
    moves for ``divide``."""
    ply = 0 if depth == 1 else 1 if depth < DEEP else 2
    return max(ply, 1) if divide else ply


def subtrees(board, ply, moves_of):
    """``[(root move UCI or None, FEN)]`` of the nodes ``ply`` moves below ``board``, in the
    order ``moves_of(board)`` gives each node's moves. The FENs keep the en-passant square
    of every double push, as the board itself does."""
    if ply == 0:
        return [(None, board.fen(en_passant="fen"))]
    out = []
    board = board.copy(stack=False)
    for move in moves_of(board):
        board.push(move)
        out += [(move.uci(), fen) for _, fen in subtrees(board, ply - 1, moves_of)]
        board.pop()
    return out


class WrongSources(RuntimeError):
    """Raised on a worker whose hwmovegen differs from the client's."""


# Worker side: what a worker process keeps between tasks, per thread (a worker may run
# several threads; a compiled model's state is not shared between them).
_kept = threading.local()


def _kept_one(kind, key, make):
    store = _kept.__dict__.setdefault(kind, {})
    if key not in store:
        store[key] = make()
    return store[key]


def _run(function, index, digest, models, *args):
    """One task on a worker: (index, result, simulated cycles, worker, seconds). ``models``:
    the client's compiled models, taken from this machine's cache where they are."""
    from distributed import get_worker     # Dask: the optional extra, imported where a task runs
    if digest != source_digest():
        raise WrongSources(f"worker {get_worker().address} runs another hwmovegen (sources {source_digest()}, "
                           f"the client's {digest}): install the same version on every worker")
    use_builds(models)
    start = time.perf_counter()
    result, cycles = function(*args)
    return index, result, cycles, get_worker().address, time.perf_counter() - start


def _compare_task(index, fens, seed, settings):
    backend = _kept_one("compare", tuple(sorted(settings.items())), lambda: get_backend(**settings))
    summary = check_batch(backend, index, fens, seed)
    return summary, summary.cycles


def _hardware_perft_task(fen, depth, settings):
    def make():
        array = HardwarePerft(**settings)       # the client's array: engines, core, layout, leaf counter
        array.prepare()
        return array
    run = _kept_one("arrays", tuple(sorted(settings.items())), make).perft(chess.Board(fen), depth)
    return run.counters, run.cycles


def _perft_task(fen, depth, backend_name, config):
    chosen = _kept_one("backends", (backend_name, config), lambda: get_backend(backend_name, config))
    before = chosen.clock_cycles
    nodes, _ = perft(chess.Board(fen), depth, chosen.generate, config.legal)
    return nodes, chosen.clock_cycles - before


class Session:
    """A Dask client on the scheduler ``spec`` names (:func:`parse_spec`); ``local[:N]``
    starts and, on close, stops a LocalCluster of N one-thread worker processes."""

    def __init__(self, spec, log=None, certs=None, insecure=False):
        try:
            check_access(spec, certs, insecure)
        except ValueError as error:
            raise ClusterUnreachable(str(error)) from None
        kind, value = parse_spec(spec)
        try:
            import dask     # noqa: F401 (the optional extra, loaded only here; the message names it)
            from distributed import Client, LocalCluster
        except ImportError:
            raise ClusterUnreachable("--cluster needs Dask: pip install 'hwmovegen[cluster]'") from None
        from distributed.utils import silence_logging_cmgr     # Dask, the optional extra: only in a session
        self.spec, self.local, self.lost = spec, None, False
        # Dask's logs would report the recovery done here (a worker restarted, results
        # computed again); what fails still reaches the client as an exception. A local
        # cluster's scheduler runs in this process: its errors too.
        self._quiet = contextlib.ExitStack()
        self._quiet.enter_context(silence_logging_cmgr(logging.CRITICAL if kind == "local" else logging.ERROR))
        if kind == "local":
            self.local = LocalCluster(n_workers=value, threads_per_worker=1, processes=True,
                                      dashboard_address=None, silence_logs=logging.CRITICAL)
            self.client = Client(self.local)
        else:
            security = None
            if certs is not None:
                from distributed.security import Security
                from .certs import certificate_paths
                ca, cert, key = map(str, certificate_paths(certs))
                security = Security(require_encryption=True, tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key)
            try:
                self.client = Client(value, security=security)
            except (OSError, ValueError, TypeError) as error:
                self._quiet.close()
                raise ClusterUnreachable(f"cannot reach the Dask scheduler at {value}: {error}") from None
            try:
                self.client.wait_for_workers(1, timeout=_connect_timeout())
            except (TimeoutError, OSError):
                self.close()
                raise ClusterUnreachable(f"the Dask scheduler at {value} has no workers") from None
        self.address = self.client.scheduler.address
        info = self.client.scheduler_info()["workers"]
        self.workers = len(info)
        self.threads = sum(worker["nthreads"] for worker in info.values())
        if log:
            log(f"started a local Dask cluster of {self.workers} worker processes" if self.local else
                f"connected to the Dask scheduler at {value}: {self.workers} workers, {self.threads} threads")

    def close(self):
        try:
            self.client.close()
            if self.local is not None:
                self.local.close(timeout=None if not self.lost else 5)
        except (TimeoutError, OSError):
            if not self.lost:
                raise
        finally:
            self._quiet.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def report(self, stats, tasks, **extra):
        """The cluster's part of a result: where it ran and what each worker did."""
        return {"scheduler": self.spec, "workers": self.workers, "threads": self.threads,
                "tasks": tasks, **extra,
                "per_worker": [{"worker": worker, **numbers} for worker, numbers in sorted(stats.items())]}

    def gather(self, tasks, progress=None, weight=None):
        """Run ``tasks`` (``(function, args)``) on the cluster; their results in task order,
        and per worker its tasks, simulated cycles and busy seconds. ``progress(n)`` as each
        task completes (``weight(args)`` units, else 1)."""
        from distributed import as_completed     # Dask, the optional extra: only in a session
        from distributed.client import FutureCancelledError
        from distributed.comm.core import CommClosedError
        from distributed.scheduler import KilledWorker
        digest, models = source_digest(), builds()
        pending = {self.client.submit(_run, function, index, digest, models, *args, retries=RETRIES, pure=False): index
                   for index, (function, args) in enumerate(tasks)}
        results, stats = [None] * len(tasks), {}
        try:
            for future in as_completed(list(pending)):
                index, result, cycles, worker, seconds = future.result()
                del pending[future]         # released: a worker lost later need not recompute it
                results[index] = result
                entry = stats.setdefault(worker, {"tasks": 0, "cycles": 0, "seconds": 0.0})
                entry["tasks"] += 1
                entry["cycles"] += cycles or 0
                entry["seconds"] = round(entry["seconds"] + seconds, 3)
                if progress:
                    progress(weight(tasks[index][1]) if weight else 1)
        except (FutureCancelledError, CancelledError, CommClosedError) as error:
            self._lost(error)
        except OSError as error:
            if self.client.status == "running":
                raise
            self._lost(error)
        except KilledWorker as error:
            raise ClusterFailed(f"a task killed {RETRIES + 1} workers, the scheduler gave it up: {error}") from None
        except WrongSources as error:
            raise ClusterFailed(str(error)) from None
        finally:
            if pending:
                self.client.cancel(list(pending))
        return results, stats

    def _lost(self, error):
        self.lost = True
        reason = getattr(error, "reason", None) or (str(error).splitlines() or [type(error).__name__])[0]
        raise ClusterUnreachable(f"lost the Dask scheduler at {self.address} ({reason})") from None

    def compare(self, boards, backend, progress=None):
        """:func:`.compare.compare` on the cluster, every worker comparing on a backend built as
        ``backend`` is: (Summary, cluster report)."""
        start = time.perf_counter()
        backend.prepare()       # built here, before the workers load it
        tasks = [(_compare_task, (index, fens, backend.seed, backend.settings)) for index, fens in batches(boards)]
        summaries, stats = self.gather(tasks, progress, weight=lambda args: len(args[1]))
        total = Summary.of(backend.name, backend.config)
        for summary in summaries:
            total.add(summary)
        total.seconds = time.perf_counter() - start
        return total, self.report(stats, len(tasks))

    def hardware_perft(self, array, board, depth, divide=False, ply=None, progress=None, total=None, log=None):
        """``array.perft`` (a :class:`.hwperft.HardwarePerft`; or ``divide``) on the cluster,
        every worker walking its subtrees on a copy of the array: a PerftRun whose counters
        are summed over the subtrees' walks, and the cluster report. The subtrees' roots
        come from the hardware's legality stage, as ``divide``'s do. ``total(n)`` is told the
        number of tasks, ``progress(1)`` as each completes."""
        start = time.perf_counter()
        array.check_depth(depth)
        array.prepare()         # built here, before the workers load it
        roots = array.config.replace(legal=True, order=None, perft_engines=0)
        # a compiled array's roots from the compiled simulator that builds that generator soonest
        simulator = compiled_backend(roots) if offer(array.name).generator.compiled else None
        generator = get_backend(simulator or array.name, roots, log=log)

        def moves_of(node):
            return [move.to_chess() for move in generator.generate(node).moves]
        ply, nodes = self._split(board, depth, divide, ply, moves_of)
        tasks = [(_hardware_perft_task, (fen, depth - ply, array.settings)) for _, fen in nodes] if depth > ply else []
        if total:
            total(len(tasks))
        results, stats = self.gather(tasks, progress)
        counters = {name: sum(result[name] for result in results) for name in PERFT_COUNTER_NAMES}
        leaves = [result["nodes"] for result in results] if depth > ply else [1] * len(nodes)
        counters["nodes"] = sum(leaves)
        counts = _per_root_move(moves_of(board), nodes, leaves) if divide else []
        run = PerftRun(counters["nodes"], counters["cycles"], counters, time.perf_counter() - start, array.engines,
                       counts)
        return run, self.report(stats, len(tasks), split_ply=ply)

    def perft(self, chosen, board, depth, divide=False, ply=None, progress=None, total=None):
        """Host-driven perft (:mod:`.perft`) through the backend ``chosen`` on the cluster, every
        worker generating on a backend of the same name: (nodes, seconds, per root move counts or
        None, cluster report). ``total`` and ``progress`` as in :meth:`hardware_perft`."""
        start = time.perf_counter()
        legal = chosen.legal
        ply, nodes = self._split(board, depth, divide, ply, lambda node: node_moves(node, chosen.generate, legal))
        tasks = [(_perft_task, (fen, depth - ply, chosen.name, chosen.config)) for _, fen in nodes] \
            if depth > ply else []
        if total:
            total(len(tasks))
        results, stats = self.gather(tasks, progress)
        leaves = results if depth > ply else [1] * len(nodes)
        counts = _per_root_move(node_moves(board, chosen.generate, legal), nodes, leaves) if divide else None
        return sum(leaves), time.perf_counter() - start, counts, self.report(stats, len(tasks), split_ply=ply)

    @staticmethod
    def _split(board, depth, divide, ply, moves_of):
        """(ply, its nodes) for a perft of ``depth``: :func:`split_ply` unless ``ply`` is given."""
        ply = split_ply(depth, divide) if ply is None else ply
        if not (1 if divide else 0) <= ply <= depth:
            raise ValueError(f"cannot split a perft of depth {depth} at ply {ply}")
        return ply, subtrees(board, ply, moves_of)


def _per_root_move(root_moves, nodes, leaves):
    """[(uci, leaves)] per root move, in emission order (0 for a move with no node below)."""
    counts = {move.uci(): 0 for move in root_moves}
    for (move, _), count in zip(nodes, leaves):
        counts[move] += count
    return list(counts.items())


def _connect_timeout():
    import dask     # Dask, the optional extra: only in a session
    from dask.utils import parse_timedelta
    return parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"))
