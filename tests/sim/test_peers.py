"""The CPU perft programs bench perft measures, against stand-in programs that speak the same
lines: Stockfish's go perft over UCI, and Gigantua's perft printed on a terminal up to its closing
prompt."""

import sys

import pytest

from hwmovegen.sim.peers.gigantua import GigantuaError, find_gigantua, gigantua_perft
from hwmovegen.sim.peers.stockfish import StockfishError, find_stockfish, stockfish_perft

FAKE_STOCKFISH = """\
import sys, time
for line in sys.stdin:
    line = line.strip()
    if line == "uci":
        print("id name Fakefish 1"); print("uciok")
    elif line == "isready":
        print("readyok")
    elif line.startswith("go perft"):
        depth = int(line.split()[2])
        if depth > 5:
            time.sleep(30)
        print("e2e4: 1"); print(""); print(f"Nodes searched: {20 ** depth}")
    elif line == "quit":
        break
    sys.stdout.flush()
"""

FAKE_GIGANTUA = """\
import sys, time
fen, depth = sys.argv[1], int(sys.argv[2])
if depth > 4:
    time.sleep(30)
for d in range(1, depth + 1):
    end = time.process_time() + 0.05 * 10 ** (d - 2)        # CPU time that grows with the depth
    while time.process_time() < end:
        pass
    print(f"Perft {d}: {20 ** d} {d}ms {d}.5 MNodes/s")
if fen == "broken":
    sys.exit(3)
sys.stdout.write("\\nPress any key to exit...")
sys.stdout.flush()
sys.stdin.read(1)
"""


def fake_program(folder, name, text):
    """A Python script that stands in for a program: its path."""
    script = folder / name
    script.write_text(f"#!{sys.executable}\n" + text)
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def fake_engine(tmp_path):
    return fake_program(tmp_path, "fakefish", FAKE_STOCKFISH)


@pytest.fixture
def fake_gigantua(tmp_path):
    return fake_program(tmp_path, "gigantua", FAKE_GIGANTUA)


def test_perft_over_uci(fake_engine):
    nodes, seconds, name, clock = stockfish_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 3, fake_engine)
    assert (nodes, name) == (8000, "Fakefish 1") and seconds > 0 and clock in ("cpu", "wall")


def test_a_slow_engine_times_out(fake_engine):
    with pytest.raises(StockfishError, match="within 1 s"):
        stockfish_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 6, fake_engine, timeout=1)


def test_gigantua_perft_by_cpu_time(fake_gigantua):
    nodes, seconds, clock = gigantua_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 3, fake_gigantua)
    assert nodes == 8000 and clock in ("cpu", "timer")
    # depth 3 alone (500 ms), without depths 1-2 (55 ms) or Python's start-up (whose processor time
    # varies by some 15 ms between runs on a loaded machine: the perfts' times stand well above it)
    if clock == "cpu":
        assert 0.35 < seconds < 0.54


def test_a_slow_gigantua_times_out(fake_gigantua):
    with pytest.raises(GigantuaError, match="within 1 s"):
        gigantua_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 5, fake_gigantua, runs=1, timeout=1)


def test_a_gigantua_that_stops_early(fake_gigantua):
    with pytest.raises(GigantuaError, match="stopped before perft 2"):
        gigantua_perft("broken", 2, fake_gigantua, runs=1)


@pytest.mark.parametrize("name, find, perft, error", [
    ("stockfish", find_stockfish, lambda fen: stockfish_perft(fen, 1), StockfishError),
    ("gigantua", find_gigantua, lambda fen: gigantua_perft(fen, 1), GigantuaError),
])
def test_found_through_the_environment(name, find, perft, error, tmp_path, monkeypatch):
    program = fake_program(tmp_path, name, FAKE_STOCKFISH if name == "stockfish" else FAKE_GIGANTUA)
    monkeypatch.setenv(f"HWMOVEGEN_{name.upper()}", program)
    assert find() == program
    monkeypatch.setenv(f"HWMOVEGEN_{name.upper()}", program + "-missing")
    assert find() is None
    with pytest.raises(error, match=f"no {name}"):
        perft("8/8/8/8/8/8/8/K6k w - - 0 1")
