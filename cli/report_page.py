"""The HTML page of ``hwmovegen report``: boards (python-chess's SVG), timelines (WaveDrom),
charts (matplotlib), all inline in one file.

Several SVG documents share the page, so each is inlined by :func:`inline_svg`: its ids get a
prefix of its own and its style sheets are scoped to it (WaveDrom's and matplotlib's would
otherwise restyle every SVG of the page). The plotting libraries are imported here, on use:
they are the ``report`` extra.
"""

import html
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib import metadata

import chess
import chess.svg

from ..sim.model import echo_fen
from ..tables.contracts import core_contract
from ..sim.harness.trace import stalls, transfers

__all__ = ["KINDS", "move_kind", "Entry", "PositionView", "CoreSweep", "SynthRow", "page"]

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

# move kind -> (arrow colour, WaveDrom data colour: 4 orange, 5 blue, 7 green, 8 purple, 9 red)
KINDS = {
    "quiet": ("#2f6fd0", "5"),
    "capture": ("#d0312d", "9"),
    "en passant": ("#e07b00", "4"),
    "promotion": ("#8e3ccb", "8"),
    "castling": ("#1f9a3a", "7"),
}
DROPPED = "#8a8a8a"
CORE_COLOURS = {"walker": "#2f6fd0", "fast": "#e07b00"}
SQUARE = chess.svg.SQUARE_SIZE
LANES = (("start", "start"), ("busy", "busy"), ("moves.valid", "moves_valid"), ("moves.ready", "moves_ready"),
         ("done", "done"))


def move_kind(move):
    """The kind a move is drawn as: promotion, castling, en passant, capture or quiet."""
    if move.promotion:
        return "promotion"
    if move.castle:
        return "castling"
    if move.en_passant:
        return "en passant"
    return "capture" if move.capture else "quiet"


@dataclass
class Entry:
    """A move the core generated: its place in the stream (``number``, from 1), or None if
    the legality stage dropped it."""
    move: object
    number: int | None


@dataclass
class PositionView:
    name: str
    board: chess.Board
    entries: list           # Entry, in the core's order
    counters: dict          # name -> value, as `moves --json` prints them (plus generated/dropped with --legal)
    samples: list           # the cycle trace, start to done
    stream: list            # the moves that left, in order
    matches: bool           # the stream equals the golden model's


@dataclass
class CoreSweep:
    core: str
    back_to_back: bool
    moves: list             # per position
    cycles: list            # per position
    stalls: int
    span: int               # back to back: the batches' spans (else 0)

    @property
    def rates(self):
        return [m / c if c else 0.0 for m, c in zip(self.moves, self.cycles)]

    @property
    def moves_per_cycle(self):
        """Over the spans back to back (as ``compare`` and ``bench`` count), else over the positions' cycles."""
        cycles = self.span or sum(self.cycles)
        return sum(self.moves) / cycles if cycles else 0.0


@dataclass
class SynthRow:
    target: str
    device: str
    core: str
    layout: str
    legal: bool
    report: dict | None     # the saved report, None when missing


# ---- inlining SVG ----------------------------------------------------------------------

def _without_at_rules(css):
    """A style sheet without its @-rules (WaveDrom's dark-mode @media inverts the whole page)."""
    out, i = [], 0
    while i < len(css):
        if css[i] == "@":
            depth, j = 0, i
            while j < len(css):
                if css[j] == "{":
                    depth += 1
                elif css[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                elif css[j] == ";" and depth == 0:
                    break
                j += 1
            i = j + 1
        else:
            out.append(css[i])
            i += 1
    return "".join(out)


def _scoped_css(css, scope):
    """The style sheet with every selector turned into a class of this SVG's own: ``.c`` into
    ``.scope-c``, an element name ``t`` into ``.scope-t-`` and ``*`` into ``.scope--``
    (:func:`inline_svg` puts those on the elements). Class selectors, unlike a descendant
    selector under the SVG's id, also reach the copies ``<use>`` makes (WaveDrom draws its
    waves so). Returns the sheet and the element names it styles."""
    rules, elements = [], set()
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", _without_at_rules(css)):
        scoped = []
        for selector in (part.strip() for part in selectors.split(",")):
            if selector == "*" or re.fullmatch(r"[a-zA-Z]\w*", selector):
                elements.add(selector)
                scoped.append(f".{scope}-{'' if selector == '*' else selector}-")
            elif re.fullmatch(r"\.[\w-]+", selector):
                scoped.append(f".{scope}-{selector[1:]}")
            else:
                raise ValueError(f"cannot scope the CSS selector {selector!r}")
        rules.append(",".join(scoped) + "{" + body + "}")
    return "".join(rules), elements


def inline_svg(root, prefix, css_class):
    """Markup for an SVG element tree inside the page: ids and references prefixed, style
    sheets turned into classes of its own (:func:`_scoped_css`), metadata dropped; the
    SVG's id is ``prefix``."""
    if isinstance(root, str):
        root = ET.fromstring(root)
    parents = {child: parent for parent in root.iter() for child in parent}
    for element in list(root.iter(f"{{{SVG_NS}}}metadata")):
        parents[element].remove(element)
    url = re.compile(r"url\(#([^)]+)\)")
    styled = set()
    for element in root.iter(f"{{{SVG_NS}}}style"):
        element.text, elements = _scoped_css(url.sub(lambda m: f"url(#{prefix}-{m[1]})", element.text or ""),
                                             prefix)
        styled |= elements
    for element in root.iter():
        for name, value in element.attrib.items():
            if name == "id":
                element.set(name, f"{prefix}-{value}")
            elif name in ("href", f"{{{XLINK_NS}}}href") and value.startswith("#"):
                element.set(name, f"#{prefix}-{value[1:]}")
            elif "url(#" in value:
                element.set(name, url.sub(lambda m: f"url(#{prefix}-{m[1]})", value))
        if styled:
            tag = element.tag.rpartition("}")[2]
            classes = [f"{prefix}-{c}" for c in element.get("class", "").split()]
            classes += [f"{prefix}-{tag}-"] if tag in styled else []
            classes += [f"{prefix}--"] if "*" in styled else []
            if classes:
                element.set("class", " ".join(classes))
    root.set("id", prefix)
    root.set("class", " ".join([css_class, *root.get("class", "").split()]))
    return ET.tostring(root, encoding="unicode")


# ---- boards ----------------------------------------------------------------------------

def _q(tag):
    return f"{{{SVG_NS}}}{tag}"


def _points(text):
    return [tuple(float(v) for v in point.split(",")) for point in text.split()]


def board_svg(view, prefix):
    """The position with an arrow per generated move (python-chess's arrows, thinned and
    grouped per move with a tooltip), the stream's order numbered at the arrow heads."""
    colours = [DROPPED if e.number is None else KINDS[move_kind(e.move)][0] for e in view.entries]
    arrows = [chess.svg.Arrow(e.move.frm, e.move.to, color=colour) for e, colour in zip(view.entries, colours)]
    root = ET.fromstring(chess.svg.board(view.board, arrows=arrows, size=400))
    drawn = [element for element in root if element.get("class") == "arrow"]
    assert len(drawn) == 2 * len(view.entries), "python-chess draws an arrow as a line and a head"
    for element in drawn:
        root.remove(element)
    labels = {}
    for index, entry in enumerate(view.entries):
        line, head = drawn[2 * index], drawn[2 * index + 1]
        kind = "dropped" if entry.number is None else move_kind(entry.move).replace(" ", "-")
        group = ET.SubElement(root, _q("g"), {"class": f"move {kind}", "data-uci": entry.move.uci()})
        title = f"{entry.number}. " if entry.number else "dropped: "
        ET.SubElement(group, _q("title")).text = title + entry.move.uci() + f" ({move_kind(entry.move)})"
        # a head half python-chess's size, the shaft ending at its base
        tip, *base = _points(head.get("points"))
        scaled = [tip] + [(tip[0] + (x - tip[0]) / 2, tip[1] + (y - tip[1]) / 2) for x, y in base]
        head.set("points", " ".join(f"{x:.1f},{y:.1f}" for x, y in scaled))
        shaft = ((scaled[1][0] + scaled[2][0]) / 2, (scaled[1][1] + scaled[2][1]) / 2)
        line.set("x2", f"{shaft[0]:.1f}")
        line.set("y2", f"{shaft[1]:.1f}")
        line.set("stroke-width", f"{SQUARE * 0.08:.1f}")
        if entry.number is None:
            line.set("stroke-dasharray", "4 3")
        group.extend([line, head])
        if entry.number is not None:
            tail = (float(line.get("x1")), float(line.get("y1")))
            labels.setdefault((entry.move.frm, entry.move.to), [tip, tail, []])[2].append(entry.number)
    numbers = ET.SubElement(root, _q("g"), {"class": "numbers"})
    for tip, tail, values in labels.values():
        length = ((tail[0] - tip[0]) ** 2 + (tail[1] - tip[1]) ** 2) ** 0.5
        x = tip[0] + (tail[0] - tip[0]) * 0.3 * SQUARE / length
        y = tip[1] + (tail[1] - tip[1]) * 0.3 * SQUARE / length
        text = str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"
        ET.SubElement(numbers, _q("rect"), {"x": f"{x - 3.2 * len(text) - 2:.1f}", "y": f"{y - 6:.1f}",
                                            "width": f"{6.4 * len(text) + 4:.1f}", "height": "12", "rx": "4",
                                            "fill": "#fff", "fill-opacity": "0.85"})
        ET.SubElement(numbers, _q("text"), {"x": f"{x:.1f}", "y": f"{y + 3.5:.1f}", "text-anchor": "middle",
                                            "font-size": "10", "font-family": "sans-serif",
                                            "fill": "#000"}).text = text
    return inline_svg(root, prefix, "board-svg")


# ---- timelines -------------------------------------------------------------------------

def _bit_wave(bits):
    wave, last = [], None
    for bit in bits:
        wave.append("." if bit == last else str(bit))
        last = bit
    return "".join(wave)


def timeline_source(samples, stream):
    """The WaveJSON of a generation's cycles: one lane per handshake signal, the moves lane
    with each move labelled in the cycle it leaves (coloured by kind), stalls hatched there
    and raised on a lane of their own."""
    moves = iter(stream)
    wave, data, last = [], [], None
    for sample in samples:
        if sample["moves_valid"] and sample["moves_ready"]:
            move = next(moves)
            wave.append(KINDS[move_kind(move)][1])
            data.append(move.uci())
            last = None
        else:
            char = "x" if sample["moves_valid"] else "z"
            wave.append("." if char == last else char)
            last = char
    stall = [int(s["moves_valid"] and not s["moves_ready"]) for s in samples]
    return {
        "signal": [{"name": name, "wave": _bit_wave([s[field] for s in samples])} for name, field in LANES]
        + [{}, {"name": "moves", "wave": "".join(wave), "data": data},
           {"name": "stall", "wave": _bit_wave(stall)}],
        "head": {"tick": 0, "every": 5},
        "config": {"hscale": 1},
    }


def timeline_svg(samples, stream, prefix):
    from yowasp_wavedrom import render     # the report extra: only when a page is written
    return inline_svg(render(timeline_source(samples, stream)), prefix, "timeline-svg")


# ---- charts ----------------------------------------------------------------------------

def _figure(width, height):
    from matplotlib.figure import Figure       # the report extra: only when a page is written
    return Figure(figsize=(width, height), layout="constrained")


def _figure_svg(figure, prefix):
    import matplotlib       # the report extra: only when a page is written
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": prefix, "font.size": 9}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return inline_svg(buffer.getvalue(), prefix, "chart-svg")


def histogram_svg(sweeps, prefix):
    import matplotlib       # the report extra: only when a page is written
    with matplotlib.rc_context({"font.size": 9}):
        figure = _figure(5.8, 3.0)
        axes = figure.add_subplot()
        top = max([1.0] + [max(s.rates, default=0) for s in sweeps])
        bins = [i / 40 for i in range(int(top * 40) + 2)]
        for sweep in sweeps:
            axes.hist(sweep.rates, bins=bins, histtype="stepfilled", alpha=0.45, color=CORE_COLOURS.get(sweep.core),
                      edgecolor=CORE_COLOURS.get(sweep.core),
                      label=f"{sweep.core}: {sweep.moves_per_cycle:.4f} moves/cycle")
        axes.set_xlabel("moves per cycle of a position")
        axes.set_ylabel("positions")
        axes.legend(loc="upper left")
        return _figure_svg(figure, prefix)


def scatter_svg(sweeps, prefix):
    import matplotlib       # the report extra: only when a page is written
    with matplotlib.rc_context({"font.size": 9}):
        figure = _figure(5.8, 3.0)
        axes = figure.add_subplot()
        for sweep in sweeps:
            axes.scatter(sweep.moves, sweep.cycles, s=9, alpha=0.6, color=CORE_COLOURS.get(sweep.core),
                         label=sweep.core + (" (back to back)" if sweep.back_to_back else ""))
        axes.set_xlabel("moves of a position")
        axes.set_ylabel("cycles of the position")
        axes.legend(loc="upper left")
        return _figure_svg(figure, prefix)


SYNTH_METRICS = (("fmax_mhz", "routed fmax (MHz)"), ("logic_cells", "logic cells"), ("luts", "LUTs"),
                 ("ffs", "flip-flops"), ("brams", "block RAMs"), ("mmoves_per_s", "M moves/s"))


def synth_svg(rows, prefix):
    import matplotlib       # the report extra: only when a page is written
    import matplotlib.patches
    targets = list(dict.fromkeys(row.target for row in rows))
    cores = list(dict.fromkeys(row.core for row in rows))
    with matplotlib.rc_context({"font.size": 8}):
        figure = _figure(9.6, 4.6)
        grid = figure.subplots(2, 3)
        width = 0.8 / len(cores)
        for axes, (key, label) in zip(grid.flat, SYNTH_METRICS):
            highest = max([row.report.get(key) or 0 for row in rows if row.report] + [1])
            for c, core in enumerate(cores):
                for t, target in enumerate(targets):
                    row = next(r for r in rows if r.target == target and r.core == core)
                    x = t + (c - (len(cores) - 1) / 2) * width
                    value = row.report.get(key) if row.report else None
                    if value is None:
                        why = "missing" if row.report is None else (
                            "does not fit" if "does_not_fit" in row.report else "not measured")
                        axes.text(x, highest * 0.03, why, rotation=90, ha="center", va="bottom", fontsize=7,
                                  color="#666")
                        continue
                    axes.bar(x, value, width * 0.9, color=CORE_COLOURS.get(core),
                             label=core if t == 0 else None)
                    axes.text(x, value, f"{value:g}", ha="center", va="bottom", fontsize=7)
            axes.set_title(label)
            axes.set_xticks(range(len(targets)), targets)
            axes.set_ylim(0, highest * 1.18)
        handles = [matplotlib.patches.Patch(color=CORE_COLOURS.get(core), label=core) for core in cores]
        figure.legend(handles=handles, loc="outside lower center", ncols=len(cores))
        return _figure_svg(figure, prefix)


# ---- the page ----------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1280px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
.config { color: #555; margin-top: 0; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: 1.6em; height: 0.35em; vertical-align: middle; margin-right: 0.4em; }
.swatch.dropped { background: repeating-linear-gradient(90deg, #8a8a8a 0 5px, transparent 5px 8px); }
article.position { border-top: 1px solid #eee; padding-top: 0.5em; }
article h3 { font-weight: 600; } article h3 code { font-weight: normal; color: #555; font-size: 0.85em; }
.row { display: flex; gap: 1.5em; align-items: flex-start; flex-wrap: wrap; }
.board-svg { width: 400px; height: 400px; flex: none; }
.side { flex: 1; min-width: 320px; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.15em 0.6em; text-align: right; border-bottom: 1px solid #eee; white-space: nowrap; }
th:first-child, td.text { text-align: left; }
.verdict.ok { color: #1f7a33; } .verdict.bad { color: #b00020; font-weight: bold; }
ul.moves { columns: 5 6em; list-style: none; padding: 0; font-family: ui-monospace, monospace; font-size: 0.85em; }
ul.moves li { break-inside: avoid; border-left: 4px solid; padding-left: 0.3em; margin-bottom: 1px; }
ul.moves li.dropped { color: #888; text-decoration: line-through; border-left-style: dashed; }
ul.moves .n { display: inline-block; min-width: 2em; color: #555; }
.timeline { overflow-x: auto; margin: 0.6em 0 1.2em; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.chart-svg { max-width: 100%; height: auto; }
.missing { color: #b00020; } .nofit { color: #8a5a00; }
.wide { overflow-x: auto; }
"""


def _e(value):
    return html.escape(str(value))


def _legend():
    items = [f'<span><i class="swatch" style="background:{colour}"></i>{_e(kind)}</span>'
             for kind, (colour, _) in KINDS.items()]
    items.append('<span><i class="swatch dropped"></i>dropped by the legality stage</span>')
    return '<p class="legend">' + "".join(items) + "</p>"


def _counter_rows(view, core):
    c = view.counters
    rows = [("moves", "moves", c["moves"])]
    if "generated" in c:
        rows += [("generated", "pseudo-legal moves generated", c["generated"]),
                 ("dropped", "dropped by the legality stage", c["dropped"])]
    rows += [("steps", "steps (" + core_contract(core).work_name + ")", c["steps"]),
             ("promotion_nodes", "promotion nodes", c["promotion_nodes"]),
             ("cycles", "cycles", c["cycles"]), ("stalls", "stall cycles", c["stalls"])]
    rate = f'{c["moves"] / c["cycles"]:.3f}' if c["cycles"] else "-"
    out = "".join(f'<tr data-counter="{key}"><th>{_e(label)}</th><td>{_e(value)}</td></tr>'
                  for key, label, value in rows)
    return out + f'<tr data-counter="moves_per_cycle"><th>moves per cycle</th><td>{rate}</td></tr>'


def _position_html(index, view, core):
    items = []
    for entry in view.entries:
        kind = move_kind(entry.move)
        if entry.number is None:
            items.append(f'<li class="dropped" data-uci="{entry.move.uci()}" style="border-color:{DROPPED}" '
                         f'title="dropped ({_e(kind)})"><span class="n">-</span>{entry.move.uci()}</li>')
        else:
            items.append(f'<li class="{kind.replace(" ", "-")}" data-uci="{entry.move.uci()}" '
                         f'data-number="{entry.number}" style="border-color:{KINDS[kind][0]}" title="{_e(kind)}">'
                         f'<span class="n">{entry.number}</span>{entry.move.uci()}</li>')
    verdict = ('<p class="verdict ok">the stream equals the golden model\'s, move for move</p>' if view.matches else
               '<p class="verdict bad">the stream DIFFERS from the golden model\'s (run hwmovegen compare)</p>')
    title = f"{index}. {_e(view.name)} " if view.name else f"{index}. "
    return (f'<article class="position" id="position-{index}" data-fen="{_e(echo_fen(view.board))}">'
            f'<h3>{title}<code>{_e(echo_fen(view.board))}</code></h3>'
            f'<div class="row"><div class="board">{board_svg(view, f"board-{index}")}</div>'
            f'<div class="side"><table class="counters">{_counter_rows(view, core)}</table>{verdict}'
            f'<ul class="moves">{"".join(items)}</ul></div></div>'
            f'<div class="timeline" data-cycles="{len(view.samples) - 1}" '
            f'data-transfers="{len(transfers(view.samples))}" data-stalls="{len(stalls(view.samples))}">'
            f'{timeline_svg(view.samples, view.stream, f"timeline-{index}")}</div></article>')


SHOWN_ROWS = 50     # per-position rows in the summary's table; beyond, the charts only


def _summary_html(sweeps, names, what):
    rows = []
    for sweep in sweeps:
        rates = sweep.rates
        mean = sum(rates) / len(rates) if rates else 0
        cycles = sweep.span or sum(sweep.cycles)
        rows.append(f'<tr data-core="{sweep.core}"><td class="text">{sweep.core}</td>'
                    f'<td class="text">{"back to back" if sweep.back_to_back else "one at a time"}</td>'
                    f'<td>{len(sweep.moves)}</td><td data-key="moves">{sum(sweep.moves)}</td>'
                    f'<td data-key="cycles">{cycles}</td><td data-key="stalls">{sweep.stalls}</td>'
                    f'<td data-key="moves_per_cycle">{sweep.moves_per_cycle:.4f}</td><td>{mean:.4f}</td>'
                    f'<td>{min(rates, default=0):.3f}</td><td>{max(rates, default=0):.3f}</td></tr>')
    out = (f'<p>Every core over {what}, in one batch per core as the CXXRTL backend runs it (back to back for a '
           f'core that copies the board at start: then a position\'s cycles begin where the previous one\'s '
           f'ended, and the batch\'s cycles are its span from the first start to the last done).</p>'
           f'<table class="sweep"><tr><th>core</th><th>run</th><th>positions</th><th>moves</th><th>cycles</th>'
           f'<th>stalls</th><th>moves/cycle</th><th>mean per position</th><th>min</th><th>max</th></tr>'
           + "".join(rows) + "</table>"
           f'<div class="charts">{histogram_svg(sweeps, "chart-histogram")}{scatter_svg(sweeps, "chart-scatter")}</div>')
    if len(names) <= SHOWN_ROWS:
        head = "".join(f"<th>{s.core} moves</th><th>{s.core} cycles</th><th>{s.core} moves/cycle</th>" for s in sweeps)
        body = []
        for i, name in enumerate(names):
            cells = "".join(f'<td data-core="{s.core}" data-key="moves">{s.moves[i]}</td>'
                            f'<td data-core="{s.core}" data-key="cycles">{s.cycles[i]}</td>'
                            f'<td>{s.rates[i]:.3f}</td>' for s in sweeps)
            body.append(f'<tr data-index="{i}"><td class="text">{_e(name)}</td>{cells}</tr>')
        out += (f'<div class="wide"><table class="per-position"><tr><th>position</th>{head}</tr>' + "".join(body)
                + "</table></div>")
    else:
        out += f"<p>{len(names)} positions: the per-position figures are in the charts (or <code>hwmovegen moves --json</code>).</p>"
    return out


def _synth_html(rows):
    body = []
    for row in rows:
        name = f'<td class="text">{_e(row.device)}</td><td class="text">{row.core}{" + legality" if row.legal else ""}</td>'
        attrs = f'data-target="{row.target}" data-core="{row.core}"'
        report = row.report
        if report is None:
            command = (f"hwmovegen synth --target {row.target} --core {row.core}"
                       + (f" --layout {row.layout}" if row.layout != "dense" else "") + (" --legal" if row.legal else ""))
            body.append(f'<tr {attrs} class="missing">{name}<td colspan="9" class="text missing">missing: run '
                        f'<code>{command}</code> (or <code>hwmovegen report --synth</code>)</td></tr>')
        elif "does_not_fit" in report:
            body.append(f'<tr {attrs} class="nofit">{name}<td colspan="9" class="text nofit">'
                        f'{_e(report["does_not_fit"])} ({_e(report.get("saved", ""))})</td></tr>')
        else:
            def cell(key, value=None):
                value = report.get(key) if value is None else value
                return f'<td data-key="{key}">{"-" if value is None else _e(value)}</td>'
            body.append(
                f'<tr {attrs}>{name}'
                + cell("fmax_mhz") + cell("goal_mhz")
                + cell("logic_cells", f'{report["logic_cells"]} / {report["logic_cells_available"]}')
                + cell("luts") + cell("ffs") + cell("brams", f'{report["brams"]} / {report["brams_available"]}')
                + cell("moves_per_cycle") + cell("mmoves_per_s")
                + f'<td class="text">seed {_e(report.get("seed"))}, {_e(report.get("saved", ""))}</td></tr>')
    return ('<div class="wide"><table class="synth"><tr><th>target</th><th>core</th><th>fmax (MHz, routed)</th><th>goal</th>'
            '<th>logic cells</th><th>LUTs</th><th>FFs</th><th>block RAMs</th><th>moves/cycle</th><th>M moves/s</th>'
            '<th>report</th></tr>' + "".join(body) + "</table></div>"
            f'<div class="charts">{synth_svg(rows, "chart-synthesis")}</div>')


def _dropped_note(views):
    if not any("generated" in view.counters for view in views):
        return ""
    return ("<p>With the legality stage the hardware's stream holds the legal moves only: the moves it dropped "
            "are the golden model's pseudo-legal stream less that stream (grey, dashed, not numbered).</p>")


def page(views, core, config, sweeps, sweep_names, sweep_what, synth_rows, synth_note):
    """The whole page as a string."""
    version = metadata.version("hwmovegen")
    positions = "".join(_position_html(i + 1, view, core) for i, view in enumerate(views))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>hwmovegen report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{STYLE}</style></head>
<body>
<header><h1>hwmovegen report</h1>
<p class="config">{_e(config)}; hwmovegen {_e(version)}</p>
<p><a href="#positions">positions</a> · <a href="#summary">summary</a> · <a href="#synthesis">synthesis</a></p>
</header>
<section id="positions"><h2>Positions</h2>
<p>Each position generated on its own: an arrow per generated move, numbered in the stream's order at its head
(hover for the move), the counters of the hardware, and the cycles from the one that takes <code>start</code>
to <code>done</code> as the simulation recorded them, each move labelled in the cycle it leaves.</p>
{_dropped_note(views)}{_legend()}
{positions}
</section>
<section id="summary"><h2>Summary</h2>
{_summary_html(sweeps, sweep_names, sweep_what)}
</section>
<section id="synthesis"><h2>Synthesis</h2>
<p>{_e(synth_note)}</p>
{_synth_html(synth_rows)}
</section>
</body></html>
"""
