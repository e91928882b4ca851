"""``hwmovegen report``: the page parses, shows every position as ``moves --json`` gives it (a board
arrow and a timeline label per move), its summary equals ``moves --json`` per core, and its
synthesis section shows the saved reports, and the missing ones as missing."""

import json
import sys
from html.parser import HTMLParser

import chess
import pytest

import hwmovegen.boards.synth as synth_module
from hwmovegen.boards.targets import TARGETS
from hwmovegen.cli import main
from hwmovegen.sim.model import Position, generate
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig

from ..helpers import EN_PASSANT, KIWIPETE, PROMOTION_CAPTURE

LEGALITY = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1"      # en passant exposes the king on the rank


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all(self, test=lambda node: True):
        for child in self.children:
            if isinstance(child, Node):
                if test(child):
                    yield child
                yield from child.all(test)

    def find(self, tag=None, cls=None, **attrs):
        return [n for n in self.all() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]


class Page(HTMLParser):
    """The page as a tree, with html.parser (void HTML elements, self-closed SVG elements)."""
    VOID = {"meta", "br", "img", "link", "input", "hr"}

    def __init__(self, text):
        super().__init__()
        self.root = self.current = Node("#document", {})
        self.feed(text)
        self.close()
        assert self.current is self.root, f"unclosed <{self.current.tag}>"

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(Node(tag, attrs, self.current))

    def handle_endtag(self, tag):
        assert self.current.tag == tag, f"</{tag}> closes <{self.current.tag}>"
        self.current = self.current.parent

    def handle_data(self, data):
        self.current.children.append(data)


def report(capsys, tmp_path, *argv):
    out = tmp_path / "report"
    code = main(["report", *argv, "--out", str(out)])
    captured = capsys.readouterr()
    page = (out / "index.html").read_text() if (out / "index.html").exists() else None
    return code, captured.out, captured.err, page and Page(page).root


def moves_json(capsys, *argv):
    assert main(["moves", "--json", *argv]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def expected_kind(board, uci):
    """The kind of a move as python-chess sees it."""
    move = chess.Move.from_uci(uci)
    if move.promotion:
        return "promotion"
    if board.is_castling(move):
        return "castling"
    if board.is_en_passant(move):
        return "en-passant"
    return "capture" if board.is_capture(move) else "quiet"


def timeline_labels(article):
    """The labels of the timeline's moves lane, in cycle order."""
    timeline, = article.find("div", "timeline")
    lanes = [g for g in timeline.find("g") if g.attrs.get("id", "").split("-")[-1].startswith("wavelane_")
             and "draw" not in g.attrs["id"]]
    moves, = [lane for lane in lanes if lane.find("text") and lane.find("text")[0].text() == "moves"]
    return [text.text() for text in moves.find("text")[1:] if text.text()]


@pytest.fixture
def synth_cache(tmp_path, monkeypatch):
    """The synthesis reports in a folder of this test's own."""
    folder = tmp_path / "synth-cache"
    folder.mkdir()
    monkeypatch.setattr(synth_module, "cache_dir", lambda *parts: folder)
    return folder


def counters_of(article):
    return {row.attrs["data-counter"]: row.find("td")[0].text() for row in article.find("tr")}


@pytest.mark.parametrize("core", ["walker", "fast"])
def test_the_page_shows_each_position_as_moves_json_does(core, capsys, tmp_path, synth_cache):
    epd = tmp_path / "three.epd"
    epd.write_text(f"{KIWIPETE} ;id \"kiwipete\"\n{PROMOTION_CAPTURE}\n{EN_PASSANT}\n")
    code, out, err, page = report(capsys, tmp_path, "--epd", str(epd), "--core", core)
    assert code == 0 and out.splitlines()[0] == f"page       {tmp_path / 'report' / 'index.html'}"
    articles = page.find("article", "position")
    assert len(articles) == 3
    for article, fen in zip(articles, (KIWIPETE, PROMOTION_CAPTURE, EN_PASSANT)):
        expected, = moves_json(capsys, "--fen", fen, "--core", core)
        board = chess.Board(fen)
        assert article.attrs["data-fen"] == board.fen()
        # one board, an arrow per move in the stream's order, told apart by kind
        svgs = article.find("svg", "board-svg")
        assert len(svgs) == 1 and len(article.find("svg")) == 2       # the board and the timeline
        arrows = svgs[0].find("g", "move")
        assert [a.attrs["data-uci"] for a in arrows] == expected["moves"]
        assert [a.classes()[1] for a in arrows] == [expected_kind(board, uci) for uci in expected["moves"]]
        assert all(len(a.find("line")) == 1 and len(a.find("polygon")) == 1 for a in arrows)
        items = article.find("ul", "moves")[0].find("li")
        assert [(li.attrs["data-uci"], li.attrs["data-number"]) for li in items] == [
            (uci, str(i + 1)) for i, uci in enumerate(expected["moves"])]
        # the counters beside the board
        counters = counters_of(article)
        assert {key: int(counters[key]) for key in ("moves", "steps", "promotion_nodes", "cycles", "stalls")} == {
            "moves": len(expected["moves"]), **{k: expected[k] for k in ("steps", "promotion_nodes", "cycles",
                                                                          "stalls")}}
        # the timeline: a labelled move per move of the stream, where it left
        assert timeline_labels(article) == expected["moves"]
        timeline, = article.find("div", "timeline")
        assert timeline.attrs["data-cycles"] == str(expected["cycles"])
        assert timeline.attrs["data-transfers"] == str(len(expected["moves"]))
        assert "equals the golden model" in article.find("p", "verdict")[0].text()
    kinds = {a.classes()[1] for article in articles for a in article.find("g", "move")}
    assert kinds == {"quiet", "capture", "castling", "promotion", "en-passant"}
    # the summary: every core over these positions, as `moves --json` runs them in one batch
    for summary_core in ("walker", "fast"):
        batch = moves_json(capsys, "--epd", str(epd), "--core", summary_core)
        cells = [(int(td.text()), td.attrs["data-key"]) for td in page.find("td", data_core=summary_core)]
        assert cells == [(value, key) for line in batch
                         for value, key in ((len(line["moves"]), "moves"), (line["cycles"], "cycles"))]
        row, = page.find("table", "sweep")[0].find("tr", data_core=summary_core)
        total = {td.attrs["data-key"]: td.text() for td in row.find("td") if "data-key" in td.attrs}
        assert int(total["moves"]) == sum(len(line["moves"]) for line in batch)
        if summary_core == "walker":        # one at a time: the positions' own cycles
            assert int(total["cycles"]) == sum(line["cycles"] for line in batch)
    assert len(page.find("svg", "chart-svg")) == 3      # histogram, moves and cycles, synthesis


def test_the_page_is_self_contained(capsys, tmp_path, synth_cache):
    code, _, _, page = report(capsys, tmp_path, "--fen", KIWIPETE)
    assert code == 0
    assert not page.find("script") and not page.find("link") and not page.find("img") and not page.find("iframe")
    for node in page.all():
        for name, value in node.attrs.items():
            if name in ("href", "src", "xlink:href"):
                assert value.startswith("#"), (node.tag, name, value)
            assert "url(http" not in (value or "")
    ids = [node.attrs["id"] for node in page.all() if "id" in node.attrs]
    assert len(ids) == len(set(ids)), "ids repeat across the inline SVGs"
    for style in page.find("style"):        # WaveDrom's dark mode would invert the whole page
        assert "prefers-color-scheme" not in style.text() and ":root" not in style.text()


def test_legal_shows_the_moves_the_stage_dropped(capsys, tmp_path, synth_cache):
    code, _, _, page = report(capsys, tmp_path, "--fen", LEGALITY, "--legal")
    assert code == 0
    expected, = moves_json(capsys, "--fen", LEGALITY, "--legal")
    board = chess.Board(LEGALITY)
    article, = page.find("article", "position")
    # the position as the hardware saw it, its en-passant square kept (b5c6 is pseudo-legal only)
    assert article.attrs["data-fen"] == LEGALITY and article.find("h3")[0].find("code")[0].text() == LEGALITY
    arrows = article.find("svg", "board-svg")[0].find("g", "move")
    pseudo = generate(Position.from_board(board)).uci()
    assert [a.attrs["data-uci"] for a in arrows] == pseudo
    dropped = [a.attrs["data-uci"] for a in arrows if "dropped" in a.classes()]
    assert sorted(dropped) == sorted(u for u in pseudo if not board.is_legal(chess.Move.from_uci(u))) != []
    assert [a.attrs["data-uci"] for a in arrows if "dropped" not in a.classes()] == expected["moves"]
    counters = counters_of(article)
    assert (int(counters["moves"]), int(counters["generated"]), int(counters["dropped"])) == (
        len(expected["moves"]), len(pseudo), len(dropped))
    assert int(counters["cycles"]) == expected["cycles"]
    assert timeline_labels(article) == expected["moves"]


def test_backpressure_shows_stalls_on_the_timeline(capsys, tmp_path, synth_cache):
    code, out, _, page = report(capsys, tmp_path, "--fen", KIWIPETE, "--ready", "0.5", "--json")
    result = json.loads(out)
    assert code == 0 and result["positions"][0]["stalls"] > 0
    article, = page.find("article", "position")
    counters = counters_of(article)
    timeline, = article.find("div", "timeline")
    assert timeline.attrs["data-stalls"] == counters["stalls"] == str(result["positions"][0]["stalls"])
    assert timeline_labels(article) == result["positions"][0]["moves"]
    expected, = moves_json(capsys, "--fen", KIWIPETE)
    assert result["positions"][0]["moves"] == expected["moves"]


def test_a_random_sweep(capsys, tmp_path, synth_cache):
    code, out, _, page = report(capsys, tmp_path, "--random", "60", "--seed", "3", "--json")
    summary = json.loads(out)["summary"]
    assert code == 0 and summary["positions"] == "60 random positions (seed 3)"
    boards = random_boards(60, seed=3)
    moves = sum(len(generate(Position.from_board(b)).moves) for b in boards)
    for core in summary["cores"]:
        assert core["positions"] == 60 and core["moves"] == moves
        row, = page.find("table", "sweep")[0].find("tr", data_core=core["core"])
        cells = {td.attrs["data-key"]: td.text() for td in row.find("td") if "data-key" in td.attrs}
        assert int(cells["moves"]) == moves and int(cells["cycles"]) == core["cycles"]
        assert cells["moves_per_cycle"] == f'{moves / core["cycles"]:.4f}'
    assert [c["back_to_back"] for c in summary["cores"]] == [False, True]
    assert not page.find("table", "per-position")       # 60 positions: the charts only
    histogram = page.find("svg", id="chart-histogram")
    assert len(histogram) == 1 and "moves per cycle of a position" in histogram[0].text()
    assert len(page.find("article", "position")) == 1   # the start position is still shown


def test_synthesis_shows_the_saved_reports_and_the_missing_ones(capsys, tmp_path, synth_cache):
    saved = {"target": "ecp5-85f", "layout": "dense", "core": "walker", "legal": False, "seed": 1,
             "fmax_mhz": 58.19, "goal_mhz": 125, "logic_cells": 1643, "logic_cells_available": 83640, "luts": 1357,
             "ffs": 970, "brams": 4, "brams_available": 208, "moves_per_cycle": 0.5527, "mmoves_per_s": 32.2,
             "saved": "2026-01-01 00:00 UTC"}
    (synth_cache / "ecp5-85f-walker-dense.json").write_text(json.dumps(saved))
    (synth_cache / "ice40-up5k-fast-dense.json").write_text(json.dumps(
        {"target": "ice40-up5k", "layout": "dense", "core": "fast", "legal": False, "does_not_fit": "too big"}))
    code, _, err, page = report(capsys, tmp_path)
    assert code == 0 and "no synthesis report yet for ice40-up5k walker, ecp5-85f fast" in err
    rows = {(r.attrs["data-target"], r.attrs["data-core"]): r for r in page.find("table", "synth")[0].find("tr")
            if "data-target" in r.attrs}
    assert len(rows) == 2 * len(TARGETS)       # each target's walker and fast core
    cells = {td.attrs["data-key"]: td.text() for td in rows["ecp5-85f", "walker"].find("td") if "data-key" in td.attrs}
    assert cells == {"fmax_mhz": "58.19", "goal_mhz": "125", "logic_cells": "1643 / 83640", "luts": "1357",
                     "ffs": "970", "brams": "4 / 208", "moves_per_cycle": "0.5527", "mmoves_per_s": "32.2"}
    assert "too big" in rows["ice40-up5k", "fast"].text() and "nofit" in rows["ice40-up5k", "fast"].classes()
    for missing in (("ice40-up5k", "walker"), ("ecp5-85f", "fast")):
        assert "missing" in rows[missing].classes()
        assert f"hwmovegen synth --target {missing[0]} --core {missing[1]}" in rows[missing].text()
    chart, = page.find("svg", id="chart-synthesis")
    texts = [t.text() for t in chart.find("text")]
    assert "58.19" in texts and "32.2" in texts and texts.count("missing") == 6 * (len(rows) - 2) and texts.count("does not fit") == 6


def test_synth_option_runs_and_keeps_every_configuration(capsys, tmp_path, synth_cache, monkeypatch):
    runs = []

    def fake_synth(target, config, build_dir, seed, stage=None, search=False):
        layout, core, legal = config.layout, config.core, config.legal
        runs.append((target, core, legal))
        if (target, core) == ("ice40-up5k", "fast"):
            raise synth_module.DoesNotFit("the placer needs 9999 logic cells")
        return {"target": target, "layout": layout, "core": core, "legal": legal, "seed": seed, "fmax_mhz": 50.0,
                "goal_mhz": 60, "logic_cells": 10, "logic_cells_available": 20, "luts": 5, "ffs": 6, "brams": 1,
                "brams_available": 30}

    monkeypatch.setattr(synth_module, "synth", fake_synth)
    monkeypatch.setattr(synth_module, "_stream_rate", lambda config, log=None: 0.5)
    code, _, err, page = report(capsys, tmp_path, "--synth", "--legal")
    assert code == 0 and "no synthesis report" not in err
    assert sorted(runs) == sorted((t, c, True) for t in TARGETS for c in ("walker", "fast"))
    assert synth_module.saved_report("ecp5-85f", GeneratorConfig(core="fast", legal=True))["mmoves_per_s"] == 25.0
    assert synth_module.saved_report("ice40-up5k", GeneratorConfig(core="fast", legal=True))["does_not_fit"].endswith("9999 logic cells")
    rows = [r for r in page.find("table", "synth")[0].find("tr") if "data-target" in r.attrs]
    assert [("nofit" in r.classes(), "missing" in r.classes()) for r in rows] == [
        (False, False), (True, False)] + [(False, False)] * (2 * len(TARGETS) - 2)


def test_a_stream_that_differs_from_the_model_is_marked_and_fails(capsys, tmp_path, synth_cache, monkeypatch):
    import hwmovegen.cli.report as report_module

    def broken(position, layout="dense", legal=False):
        result = generate(position, layout, legal)
        result.moves = result.moves[:-1]
        return result

    monkeypatch.setattr(report_module, "generate", broken)
    code, _, err, page = report(capsys, tmp_path, "--fen", KIWIPETE)
    assert code == 1 and err.splitlines()[-1] == ("hwmovegen: error: 1 of 1 streams differ from the golden model "
                                                  "(marked on the page; hwmovegen compare says where)")
    assert "DIFFERS" in page.find("p", "verdict")[0].text()


@pytest.mark.parametrize("argv, message", [
    (["--fen", "rnbqkbnr/pppppppp/8/8 w"], "bad FEN"),
    (["--fen", "8/8/8/8/8/8/8/K7 w - - 0 1"], "no king"),
    (["--backend", "pysim", "--ready", "0.5"], "needs the cxxrtl or verilator backend"),
    (["--backend", "model"], "invalid choice"),
    (["--random", "0"], "at least 1"),
    (["--ready", "0"], "probability"),
])
def test_bad_input_is_one_line_and_no_page(argv, message, capsys, tmp_path):
    code, out, err, page = report(capsys, tmp_path, *argv)
    assert code == 2 and out == "" and page is None
    assert err.startswith("hwmovegen: error: ") and len(err.splitlines()) == 1 and message in err, err


def test_an_output_folder_that_is_a_file(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    code = main(["report", "--out", str(tmp_path / "file")])
    err = capsys.readouterr().err
    assert code == 2 and "is not a folder" in err and len(err.splitlines()) == 1


def test_without_the_plotting_libraries_it_says_what_to_install(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err, page = report(capsys, tmp_path)
    assert code == 2 and out == "" and page is None
    assert err == ("hwmovegen: error: report needs the plotting libraries (matplotlib is not installed): "
                   "pip install 'hwmovegen[report]'\n")
