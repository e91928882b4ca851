"""compare and perft on a real Dask cluster (LocalCluster, 2 worker processes): the same
results as one process, exact counts when a worker dies or a task fails."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import chess
import pytest

from hwmovegen.sim.drivers import cluster
from hwmovegen.sim.drivers.compare import compare
from hwmovegen.sim.drivers.hwperft import HardwarePerft
from hwmovegen.sim.model.perft import divide
from hwmovegen.sim.backends import default_backend, get_backend
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import KIWIPETE, POSITION3

POSITION3_DEPTH5 = 674_624      # published


@pytest.fixture(scope="module")
def session():
    with cluster.Session("local:2") as session:
        yield session


def test_specs_and_splits():
    assert cluster.parse_spec("local:3") == ("local", 3)
    assert cluster.parse_spec("tcp://10.0.0.1:8786") == ("address", "tcp://10.0.0.1:8786")
    for bad in ("local:0", "local:x", "", "a b"):
        with pytest.raises(ValueError):
            cluster.parse_spec(bad)
    assert [cluster.split_ply(depth) for depth in (1, 2, 4, 5, 6)] == [0, 1, 1, 2, 2]
    assert cluster.split_ply(1, divide=True) == 1
    board = chess.Board()
    nodes = cluster.subtrees(board, 2, lambda b: list(b.legal_moves))
    assert len(nodes) == 400 and nodes[0][0] == "g1h3"
    # a double push keeps its en-passant square in the FEN, as on the board itself
    after = dict(cluster.subtrees(board, 1, lambda b: list(b.legal_moves)))
    assert chess.Board(after["e2e4"]).ep_square == chess.E3 and chess.Board(after["e2e3"]).ep_square is None


def test_compare_equals_one_process(session):
    boards = random_boards(600, seed=5)
    backend = get_backend("cxxrtl", GeneratorConfig("dense"), ready_probability=0.5, seed=3)
    alone = compare(boards, backend)
    spread, report = session.compare(boards, backend)      # the workers build theirs as this one is
    assert not alone.mismatches and alone.stalls > 0
    assert {**spread.as_dict(), "seconds": 0} == {**alone.as_dict(), "seconds": 0}
    assert report["workers"] == 2 and report["tasks"] == 3
    assert sum(w["tasks"] for w in report["per_worker"]) == 3
    assert sum(w["cycles"] for w in report["per_worker"]) == alone.cycles


def test_hardware_perft_equals_one_process(session, perft_array):
    board = chess.Board(POSITION3)
    array = perft_array()
    alone = array.perft(board, 4)
    generator = get_backend(default_backend(GeneratorConfig(legal=True)), GeneratorConfig(legal=True))
    root = [move.to_chess() for move in generator.generate(board).moves]
    alone_divide = array.divide(board, 4, root)
    run, report = session.hardware_perft(array, board, 4, ply=2, divide=True)
    assert run.nodes == alone.nodes == 43_238
    assert run.divide == alone_divide.divide
    assert report["split_ply"] == 2 and report["tasks"] == 191
    assert run.counters["interior"] == alone.counters["interior"] - 1 - len(root)     # the plies above, not walked
    run, report = session.hardware_perft(array, chess.Board(KIWIPETE), 1)
    assert run.nodes == 48 and report["tasks"] == 1 and report["split_ply"] == 0


@pytest.mark.parametrize("count_leaves", [True, False])
def test_the_workers_walk_the_clients_array(session, count_leaves, perft_array):
    """Split at the root's moves, the workers walk what one process's divide walks: every
    counter equal, the leaf counter's among them (none in the engine that streams the last ply)."""
    board = chess.Board(KIWIPETE)
    array = perft_array(count_leaves=count_leaves)
    root = [move.to_chess() for move in get_backend(default_backend(GeneratorConfig(legal=True)), GeneratorConfig(legal=True)).generate(board).moves]
    alone = array.divide(board, 3, root)
    run, report = session.hardware_perft(array, board, 3, ply=1, divide=True)
    assert run.counters == alone.counters and run.divide == alone.divide and run.nodes == 97_862
    assert (run.counters["leaf_parents"] > 0) == count_leaves and report["tasks"] == 48


def test_host_driven_perft_equals_one_process(session):
    board = chess.Board(KIWIPETE)
    chosen = get_backend("cxxrtl")
    nodes, _, counts, report = session.perft(chosen, board, 3, divide=True)
    assert counts == divide(board, 3, chosen.generate) and nodes == 97_862
    assert report["tasks"] == 48 and sum(w["cycles"] for w in report["per_worker"]) > 0
    model = get_backend("model", GeneratorConfig(legal=True))
    nodes, _, counts, _ = session.perft(model, board, 1, divide=True)
    assert nodes == 48 and counts == divide(board, 1, model.generate, legal=True)
    nodes, _, _, _ = session.perft(model, board, 2)
    assert nodes == 2039


def test_a_failing_task_is_retried_and_the_count_stays_exact(session, tmp_path):
    marker = tmp_path / "fail-once"
    marker.write_text("")
    task = cluster._hardware_perft_task

    def fails_once(marker, *args):      # the first task to run, wherever, raises once
        try:
            os.remove(marker)
        except FileNotFoundError:
            return task(*args)
        raise RuntimeError("injected failure")

    board = chess.Board(KIWIPETE)
    tasks = [(fails_once, (str(marker), fen, 2, HardwarePerft(default_backend(GeneratorConfig(perft_engines=1))).settings))
             for _, fen in cluster.subtrees(board, 1, lambda b: list(b.legal_moves))]
    results, _ = session.gather(tasks)
    assert not marker.exists() and sum(r["nodes"] for r in results) == 97_862

    def always_fails(*args):
        raise RuntimeError("injected failure")
    with pytest.raises(RuntimeError, match="injected failure"):
        session.gather([(always_fails, ())])


def test_a_worker_with_other_sources_is_refused(session, monkeypatch):
    monkeypatch.setattr(cluster, "source_digest", lambda: "0" * 16)      # the client's sources, as if edited since
    with pytest.raises(cluster.ClusterFailed, match="runs another hwmovegen"):
        session.gather([(cluster._perft_task, (chess.STARTING_FEN, 1, "model", GeneratorConfig()))])


def test_a_killed_worker_is_replaced_and_the_count_stays_exact(session, perft_array):
    """A worker killed (SIGKILL) with tasks in flight: the scheduler runs them again elsewhere."""
    pids = session.client.run(os.getpid)
    killed = []

    def kill_a_busy_worker(_):
        if killed:
            return
        busy = [worker for worker, keys in session.client.processing().items() if keys and worker in pids]
        if busy:
            killed.append(busy[0])
            os.kill(pids[busy[0]], signal.SIGKILL)

    run, report = session.hardware_perft(perft_array(), chess.Board(POSITION3), 5,
                                         progress=kill_a_busy_worker)
    assert killed and run.nodes == POSITION3_DEPTH5
    assert report["split_ply"] == 2 and sum(w["tasks"] for w in report["per_worker"]) == report["tasks"] == 191
    session.client.wait_for_workers(2, timeout=60)
    assert killed[0] not in session.client.scheduler_info()["workers"]


@pytest.fixture
def scheduler(tmp_path):
    """A scheduler and a worker as separate processes (`dask scheduler`, `dask worker`):
    the scheduler's address, and the scheduler's process."""
    dask = str(Path(sys.executable).parent / "dask")
    file = tmp_path / "scheduler.json"
    started = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(file)], stderr=subprocess.DEVNULL)]
    try:
        for _ in range(300):
            if file.exists() and file.read_text():
                break
            time.sleep(0.1)
        # one process (no nanny), so that killing it leaves nothing behind
        started.append(subprocess.Popen([dask, "worker", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                         "--scheduler-file", str(file)], stderr=subprocess.DEVNULL))
        yield json.loads(file.read_text())["address"], started[0]
    finally:
        for process in reversed(started):
            process.kill()
            process.wait()


def test_a_scheduler_by_address_and_its_loss(scheduler):
    address, process = scheduler
    with cluster.Session(address) as remote:
        assert remote.workers == 1
        nodes, _, _, report = remote.perft(get_backend("model"), chess.Board(KIWIPETE), 2)
        assert nodes == 2039 and report["scheduler"] == address
        done = []

        def lose_the_scheduler(_):
            done.append(1)
            if len(done) == 2:
                process.kill()
        with pytest.raises(cluster.ClusterUnreachable, match="lost the Dask scheduler"):
            remote.perft(get_backend("model"), chess.Board(KIWIPETE), 3, progress=lose_the_scheduler)
