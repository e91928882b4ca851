"""--cluster on compare and perft: the same output as one process, the cluster's figures in
--json, one-line errors, and no Dask at all without the option."""

import json
import subprocess
import sys

from hwmovegen.cli import main

from ..helpers import KIWIPETE


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_without_the_option_dask_is_not_imported():
    # each command's own path, not its figures: the perft array in pysim, one ply (no compile)
    program = ("import sys; from hwmovegen.cli import main; main(['perft', '--depth', '2']); "
               "main(['perft', '--in-hardware', '--backend', 'pysim', '--depth', '1']); "
               "main(['compare', '--random', '5']); "
               "print(sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed'}), "
               "'hwmovegen.sim.drivers.cluster' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "[] False"
    # the check sees Dask when it is there
    done = subprocess.run([sys.executable, "-c", "import sys, distributed; print('dask' in sys.modules)"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def test_compare_on_the_cluster_is_the_compare_of_one_process(capsys):
    code, out, _ = run(capsys, "compare", "--random", "300", "--json")
    alone = json.loads(out)
    code, out, _ = run(capsys, "compare", "--random", "300", "--cluster", "local:2", "--json")
    spread = json.loads(out)
    assert code == 0 and not spread["mismatches"]
    cluster = spread.pop("cluster")
    assert {**spread, "seconds": 0} == {**alone, "seconds": 0}
    assert cluster["workers"] == 2 and cluster["tasks"] == 2 and cluster["scheduler"] == "local:2"
    assert sum(w["cycles"] for w in cluster["per_worker"]) == alone["cycles"]


def test_perft_on_the_cluster_prints_what_one_process_prints(capsys):
    argv = ["perft", "--in-hardware", "--fen", KIWIPETE, "--depth", "2", "--divide"]
    code, alone, _ = run(capsys, *argv)
    code, spread, err = run(capsys, *argv, "--cluster", "local:2")
    assert code == 0 and spread == alone and spread.endswith("Nodes searched: 2039\n")
    assert "# cluster local:2, 2 workers, 48 subtrees (below the root's moves" in err
    code, out, _ = run(capsys, "perft", "--fen", KIWIPETE, "--depth", "3", "--backend", "model", "--cluster", "local:2",
                       "--json")
    result = json.loads(out)
    assert code == 0 and result["nodes"] == 97862 and result["cluster"]["tasks"] == 48


def test_an_unreachable_scheduler_is_one_line(capsys):
    import dask
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        code, out, err = run(capsys, "perft", "--depth", "2", "--cluster", "tcp://127.0.0.1:9")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err


def test_without_dask_it_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, out, err = run(capsys, "perft", "--depth", "2", "--cluster", "local:2")
    assert code == 2 and err.strip() == "hwmovegen: error: --cluster needs Dask: pip install 'hwmovegen[cluster]'"
