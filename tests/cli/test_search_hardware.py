"""``hwmovegen search --backend pysim|cxxrtl``: the hardware's search engine behind the CLI,
its JSON equal to the model's but for the cycles."""

import json

from hwmovegen.cli import main
from hwmovegen.sim.backends import search_backends

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"


def _json(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_the_hardware_backends_are_offered():
    assert {"pysim", "cxxrtl"} <= set(search_backends())


def test_pysim_backend_answers_as_the_model(capsys):
    common = ("search", "--fen", MATE_IN_ONE, "--depth", "1", "--core", "fast", "--json")
    model = _json(capsys, *common)
    hardware = _json(capsys, *common, "--backend", "pysim")
    cycles = hardware.pop("cycles")
    assert cycles > hardware["nodes"] and hardware.pop("backend") == "pysim"
    assert hardware.pop("cycles_per_node") == round(cycles / hardware["nodes"], 2)
    model.pop("backend")
    assert hardware == model and hardware["score_text"] == "mate 1"


def test_a_saved_synth_search_report_projects_nodes_per_second(monkeypatch, tmp_path):
    """``search`` on a hardware backend projects nodes/s at the fmax of the last ``synth --search``
    (kept apart from the generator's reports of the same core)."""
    from hwmovegen.boards.synth import _save_report, saved_report
    from hwmovegen.cli.search import projection, search_fmax
    from hwmovegen.sim.model.search import SearchResult
    from hwmovegen.tables.contracts import GeneratorConfig
    monkeypatch.setenv("HWMOVEGEN_CACHE", str(tmp_path))
    assert search_fmax("ecp5-85f", "fast") is None
    _save_report({"target": "ecp5-85f", "layout": "dense", "core": "fast", "legal": True, "perft_engines": 0,
                  "order": True, "search": True, "seed": 1, "fmax_mhz": 40.0})
    assert search_fmax("ecp5-85f", "fast") == 40.0 and search_fmax("ecp5-85f", "walker") is None
    assert saved_report("ecp5-85f", GeneratorConfig(core="fast", legal=True, order="select")) is None
    result = SearchResult(None, 0, "exact", nodes=100, cycles=2500)
    assert projection(result, 40.0) == {"cycles_per_node": 25.0, "fmax_mhz": 40.0, "projected_nodes_per_s": 1_600_000}
    assert projection(result, None) == {"cycles_per_node": 25.0}
    assert projection(SearchResult(None, 0, "exact", nodes=100), 40.0) == {}


def test_engines_on_the_compiled_array(capsys, search_array):
    """``search --engines 2 --backend verilator``: the array the session's ``search_array`` built,
    its answer the model's split but for the cycles; ``bench search --engines 2`` measures it."""
    common = ("search", "--fen", MATE_IN_ONE, "--depth", "2", "--core", "fast", "--engines", "2", "--json")
    model = _json(capsys, *common)
    hardware = _json(capsys, *common, "--backend", "verilator")
    cycles = hardware.pop("cycles")
    assert hardware.pop("cycles_per_node") == round(cycles / hardware["nodes"], 2)
    assert hardware.pop("backend") == "verilator" and model.pop("backend") == "model"
    assert hardware == model and model["engines"] == 2 and model["score_text"] == "mate 1"
    assert main(["bench", "search", "--engines", "2", "--depth", "1", "--core", "fast", "--json"]) == 0
    *rows, total = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert total["engines"] == 2 and total["total"]["nodes"] == sum(row["nodes"] for row in rows)
    assert all(row["engines"] == 2 and row["cycles"] > row["nodes"] for row in rows)
