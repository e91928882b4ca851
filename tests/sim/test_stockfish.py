"""Stockfish's go perft over UCI, against a stand-in engine (a script that speaks the same lines)."""

import sys

import pytest

from hwmovegen.sim.stockfish import StockfishError, find_stockfish, stockfish_perft

FAKE = """\
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


@pytest.fixture
def fake_engine(tmp_path):
    script = tmp_path / "fakefish"
    script.write_text(f"#!{sys.executable}\n" + FAKE)
    script.chmod(0o755)
    return str(script)


def test_perft_over_uci(fake_engine):
    nodes, seconds, name, clock = stockfish_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 3, fake_engine)
    assert (nodes, name) == (8000, "Fakefish 1") and seconds > 0 and clock in ("cpu", "wall")


def test_a_slow_engine_times_out(fake_engine):
    with pytest.raises(StockfishError, match="within 1 s"):
        stockfish_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 6, fake_engine, timeout=1)


def test_found_through_the_environment(fake_engine, monkeypatch):
    monkeypatch.setenv("HWMOVEGEN_STOCKFISH", fake_engine)
    assert find_stockfish() == fake_engine
    monkeypatch.setenv("HWMOVEGEN_STOCKFISH", fake_engine + "-missing")
    assert find_stockfish() is None
    with pytest.raises(StockfishError, match="no stockfish"):
        stockfish_perft("8/8/8/8/8/8/8/K6k w - - 0 1", 1)
