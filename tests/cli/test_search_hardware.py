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
    assert hardware.pop("cycles") > hardware["nodes"] and hardware.pop("backend") == "pysim"
    model.pop("backend")
    assert hardware == model and hardware["score_text"] == "mate 1"
