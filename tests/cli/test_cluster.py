"""--cluster on compare and perft: the same output as one process, the cluster's figures in
--json, one-line errors, and no Dask at all without the option."""

import json
import socket
import ssl
import subprocess
import sys

import pytest

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


def test_a_plain_address_off_this_machine_is_refused_unless_insecure(capsys):
    code, out, err = run(capsys, "perft", "--depth", "2", "--cluster", "tcp://192.0.2.7:8786")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "a plain tcp:// scheduler runs whatever any host that reaches its port sends" in err
    assert "use tls://192.0.2.7:8786 with --certs DIR" in err
    code, _, err = run(capsys, "perft", "--depth", "2", "--cluster", "192.0.2.7:8786")    # tcp, Dask's default
    assert code == 2 and "plain tcp://" in err
    code, _, err = run(capsys, "perft", "--depth", "2", "--cluster", "tls://192.0.2.7:8786")
    assert code == 2 and "give --certs DIR" in err
    code, _, err = run(capsys, "perft", "--depth", "2", "--certs", "somewhere")
    assert code == 2 and err.strip() == "hwmovegen: error: --certs goes with --cluster"
    import dask
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        # allowed, then not reached (a port nothing listens on): the refusal came before any connection
        code, _, err = run(capsys, "perft", "--depth", "2", "--cluster", "tcp://192.0.2.7:9", "--insecure")
    assert code == 2 and "cannot reach the Dask scheduler at tcp://192.0.2.7:9" in err


def test_cluster_certs_writes_a_ca_and_a_pair_per_role(capsys, tmp_path):
    code, out, _ = run(capsys, "cluster", "certs", str(tmp_path / "certs"), "--json")
    files = json.loads(out)["files"]
    assert code == 0 and sorted(files) == sorted(["ca.pem", "ca-key.pem"] + [f"{role}{end}" for role in
                                                   ("scheduler", "worker", "client") for end in (".pem", "-key.pem")])
    assert all((tmp_path / "certs" / name).stat().st_mode & 0o077 == 0 for name in files if name.endswith("key.pem"))
    code, out, err = run(capsys, "cluster", "certs", str(tmp_path / "certs"))
    assert code == 2 and out == "" and "already holds ca.pem" in err and len(err.strip().splitlines()) == 1


def test_a_tls_cluster_refuses_a_client_without_its_certificate(capsys, tmp_path):
    import dask
    from distributed import LocalCluster
    from distributed.security import Security
    for name in ("ours", "theirs"):
        assert run(capsys, "cluster", "certs", str(tmp_path / name))[0] == 0
    ours = tmp_path / "ours"
    security = Security(require_encryption=True, tls_ca_file=str(ours / "ca.pem"),
                        **{f"tls_{role}_{part}": str(ours / f"{role}{end}") for role in ("scheduler", "worker", "client")
                           for part, end in (("cert", ".pem"), ("key", "-key.pem"))})
    with dask.config.set({"distributed.comm.timeouts.connect": "3s"}), \
            LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tls://", host="127.0.0.1",
                         security=security, dashboard_address=None) as local:
        address = local.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        argv = ["perft", "--depth", "2", "--backend", "model", "--json", "--cluster", address]
        code, out, _ = run(capsys, *argv, "--certs", str(ours))
        assert code == 0 and json.loads(out)["nodes"] == 400 and json.loads(out)["cluster"]["workers"] == 1
        # a certificate of another CA: the scheduler does not take it (nor the client the scheduler's)
        code, out, err = run(capsys, *argv, "--certs", str(tmp_path / "theirs"))
        assert code == 2 and out == "" and f"cannot reach the Dask scheduler at {address}" in err
        # no certificate at all: plain TCP to the TLS port (on the loopback, so not refused before)
        plain = address.replace("tls://", "tcp://")
        code, out, err = run(capsys, *argv[:-1], plain)
        assert code == 2 and out == "" and f"cannot reach the Dask scheduler at {plain}" in err
        # the CA alone, no client certificate: mutual TLS wants one
        alone = tmp_path / "ca-only"
        alone.mkdir()
        (alone / "ca.pem").write_bytes((ours / "ca.pem").read_bytes())
        code, _, err = run(capsys, *argv, "--certs", str(alone))
        assert code == 2 and "has no client.pem, client-key.pem" in err
        # and a TLS connection trusting the CA but showing no certificate is cut in its handshake
        host, port = address[len("tls://"):].rsplit(":", 1)
        context = ssl.create_default_context(cafile=str(ours / "ca.pem"))
        context.check_hostname = False
        with socket.create_connection((host, int(port)), timeout=10) as raw, context.wrap_socket(raw) as tls:
            with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED|certificate required"):
                tls.recv(1)
