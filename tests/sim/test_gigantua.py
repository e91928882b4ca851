"""Gigantua's perft as a yardstick, against a stand-in program that prints the same lines and
waits at the same prompt."""

import sys

import pytest

from hwmovegen.sim.gigantua import GigantuaError, find_gigantua, gigantua_perft

FAKE = """\
import sys, time
fen, depth = sys.argv[1], int(sys.argv[2])
if depth > 4:
    time.sleep(30)
for d in range(1, depth + 1):
    end = time.process_time() + 0.005 * 10 ** (d - 2)       # CPU time that grows with the depth
    while time.process_time() < end:
        pass
    print(f"Perft {d}: {20 ** d} {d}ms {d}.5 MNodes/s")
if fen == "broken":
    sys.exit(3)
sys.stdout.write("\\nPress any key to exit...")
sys.stdout.flush()
sys.stdin.read(1)
"""


@pytest.fixture
def fake_gigantua(tmp_path):
    script = tmp_path / "gigantua"
    script.write_text(f"#!{sys.executable}\n" + FAKE)
    script.chmod(0o755)
    return str(script)


def test_perft_by_cpu_time(fake_gigantua):
    nodes, seconds, clock = gigantua_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 3, fake_gigantua)
    assert nodes == 8000 and clock in ("cpu", "timer")
    if clock == "cpu":      # depth 3 alone (50 ms), without depths 1-2 (5.5 ms) or Python's start-up
        assert 0.035 < seconds < 0.054


def test_a_slow_run_times_out(fake_gigantua):
    with pytest.raises(GigantuaError, match="within 1 s"):
        gigantua_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 5, fake_gigantua, runs=1, timeout=1)


def test_a_run_that_stops_early(fake_gigantua):
    with pytest.raises(GigantuaError, match="stopped before perft 2"):
        gigantua_perft("broken", 2, fake_gigantua, runs=1)


def test_found_through_the_environment(fake_gigantua, monkeypatch):
    monkeypatch.setenv("HWMOVEGEN_GIGANTUA", fake_gigantua)
    assert find_gigantua() == fake_gigantua
    monkeypatch.setenv("HWMOVEGEN_GIGANTUA", fake_gigantua + "-missing")
    assert find_gigantua() is None
    with pytest.raises(GigantuaError, match="no gigantua"):
        gigantua_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 1)
