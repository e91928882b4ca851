"""``hwmovegen search``: its text and JSON output, read back against the model's search."""

import json

import chess
import pytest

from hwmovegen.cli import main
from hwmovegen.sim.model import Position
from hwmovegen.sim import backends as search_backends
from hwmovegen.sim.model.search import SearchRequest, search, split_search
from hwmovegen.sim.backends import get_search_backend, register_search

from ..helpers import KIWIPETE

BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output(capsys):
    code, out, err = run(capsys, "search", "--fen", BACK_RANK, "--depth", "2")
    assert code == 0 and err == ""
    rows = dict(line.split(None, 1) for line in out.splitlines())
    assert rows["best"] == "a1a8" and rows["score"] == "mate 1 (exact)" and rows["pv"] == "a1a8"
    model = search(SearchRequest(Position.from_fen(BACK_RANK), 2))
    assert rows["nodes"] == f"{model.nodes:,}" and rows["generations"] == f"{model.generations:,}"
    assert "aborted" not in rows


def test_json_one_object_per_position(capsys, tmp_path):
    epd = tmp_path / "two.epd"
    epd.write_text(f"{BACK_RANK}\n{KIWIPETE}\n")
    code, out, err = run(capsys, "search", "--epd", str(epd), "--depth", "1", "--quiescence", "2", "--json")
    assert code == 0 and err == ""
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["fen"] for o in objects] == [BACK_RANK, KIWIPETE]
    for o in objects:
        model = search(SearchRequest(Position.from_fen(o["fen"]), 1, quiescence=2))
        assert o == {"fen": o["fen"], "backend": "model", "depth": 1, "quiescence": 2, "window": [-32001, 32001],
                     **model.as_dict()}
        assert chess.Move.from_uci(o["best"]) in chess.Board(o["fen"]).legal_moves


def test_window_nodes_and_hint(capsys):
    code, out, _ = run(capsys, "search", "--fen", KIWIPETE, "--depth", "1", "--quiescence", "1", "--nodes", "2",
                       "--hint", "a2a3", "--window", "-100", "100", "--json")
    result = json.loads(out)
    assert code == 0 and result["aborted"] and result["nodes"] == 2 and result["best"] == "a2a3"
    assert result["window"] == [-100, 100]
    code, out, _ = run(capsys, "search", "--fen", KIWIPETE, "--depth", "1", "--quiescence", "1", "--nodes", "2")
    assert code == 0 and "aborted" in out and "node limit 2 reached" in out


def test_the_halfmove_clock_comes_from_the_fen(capsys):
    code, out, _ = run(capsys, "search", "--fen", "4k3/8/8/8/8/8/8/3QK3 w - - 99 80", "--depth", "1", "--json")
    assert code == 0 and json.loads(out)["score"] == 0
    code, out, _ = run(capsys, "search", "--fen", "4k3/8/8/8/8/8/8/3QK3 w - - 0 80", "--depth", "1", "--json")
    assert code == 0 and json.loads(out)["score"] > 500


def test_a_backend_registers(monkeypatch):
    monkeypatch.setattr(search_backends, "REGISTRY", dict(search_backends.REGISTRY))

    class Echo:
        name = "echo"

        def __init__(self, config, log=None):
            self.core = config.core

        def run(self, request, stop=None):
            return search(request, stop)

    register_search("pysim", Echo)
    assert get_search_backend("pysim", core="fast").core == "fast"
    assert "pysim" in search_backends.search_backends()


def test_engines_split_the_root(capsys):
    code, out, err = run(capsys, "search", "--fen", KIWIPETE, "--depth", "1", "--engines", "2", "--json")
    model = split_search(SearchRequest(Position.from_fen(KIWIPETE), 1), 2)
    assert code == 0 and err == "" and model.engines
    assert json.loads(out) == {"fen": KIWIPETE, "backend": "model", "engines": 2, "depth": 1, "quiescence": 4,
                               "window": [-32001, 32001], **model.as_dict()}
    code, out, _ = run(capsys, "search", "--fen", BACK_RANK, "--depth", "2", "--engines", "3")
    rows = dict(line.split(None, 1) for line in out.splitlines())
    assert code == 0 and rows["engines"] == "3, splitting the root moves" and rows["score"] == "mate 1 (exact)"


@pytest.mark.parametrize("value, message", [("0", "at least 1"), ("17", "at most 16"), ("two", "whole number")])
def test_bad_engines_are_one_line(capsys, value, message):
    code, out, err = run(capsys, "search", "--fen", BACK_RANK, "--depth", "1", "--engines", value)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
