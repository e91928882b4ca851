"""The figures the README and the docs quote in prose agree with the table they came from.

The synthesis table (docs/synthesis.md, one row per synthesized configuration) is the source of every
routed fmax and logic-cell count; the README's headline table and every sentence that names a design
(the walker, the fast core, either with a stage, a perft array's engines) beside a target (ECP5, UP5K)
and quotes a figure in MHz or cells must give that row's figure. A sentence about another measurement (a
board build, a stage placed by itself, an earlier build or another seed) says so in words the check
knows (``OTHER_MEASUREMENT``) and is left alone. The errors table is the source of the largest perft
array taken without ``--force``, which cli/validate.py defines.
"""

import re
from pathlib import Path

import pytest

from hwmovegen.cli.validate import LARGEST_ARRAY

ROOT = Path(__file__).parents[2]
SYNTHESIS = ROOT / "docs" / "synthesis.md"
COMMANDS = ROOT / "docs" / "commands.md"

TARGETS = {"iCE40 UP5K (SG48)": "up5k", "ECP5-85F (speed 6)": "ecp5"}
TARGET_WORDS = re.compile(r"ECP5|UP5K|iCE40")
# Design names in prose, the longest first (an alternation takes the first that matches at a place);
# an array's engines are named by their number ("three fast engines": "perft array, 3 fast engines").
COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11}
DESIGNS = [
    (r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|\d+) (?:walker|fast) engines?", None),
    (r"fast core with the legality and ordering stages|fast \+ legality \+ ordering",
     "fast + legality + ordering"),
    (r"fast core with the ordering stage|fast \+ ordering", "fast + ordering"),
    (r"walker with the ordering stage|walker \+ ordering", "walker + ordering"),
    (r"fast core with the legality stage|fast \+ legality|behind the fast core the pair", "fast + legality"),
    (r"walker with the (?:legality )?stage|walker \+ legality", "walker + legality"),
    (r"fast core", "fast"),
    (r"walker", "walker"),
]
# A possessive ("the walker's own fmax") names a design in passing, not the one a figure belongs to.
DESIGN_WORDS = re.compile("(?:" + "|".join(f"({pattern})" for pattern, _ in DESIGNS) + ")(?!'s)", re.I)
# A figure, unless it is a difference or a remainder ("-300 logic cells", "leaving 1,638 logic cells").
FIGURE = re.compile(r"(?<![-+\d,.])(?<!leaving )(\d[\d,]*(?:\.\d+)?) (MHz|(?:logic )?cells)\b(?! more| fewer| less)")
# Words that mark a clause about a figure the synthesis table does not hold.
OTHER_MEASUREMENT = re.compile(r"\b(?:before|earlier|replaced|by itself|placed alone|seeds|seed [2-9]|"
                               r"build --board|host link|iCEBreaker|ULX3S|constraint)\b", re.I)


def number(text):
    return float(text.replace(",", ""))


def synthesis_rows(text):
    """{(target, design): {"fmax", "goal", "cells"}} from the synthesis table (dense layout for the
    walker; the rows that do not fit have no figures)."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 6 or cells[0] not in TARGETS or not cells[3].endswith("MHz"):
            continue
        target, design, layout, fmax, goal, logic = cells[:6]
        design = re.sub(r" \(.*\)$", "", design)          # "(last ply streamed)"
        if layout == "butterfly":
            design += " butterfly"
        rows[(TARGETS[target], design)] = {"fmax": number(fmax.split()[0]), "goal": number(goal.split()[0]),
                                           "cells": number(logic.split(" / ")[0]), "rate": cells[9]}
    return rows


def prose(text):
    """The sentences of a page outside code blocks and tables (each list item and paragraph split at
    the end of each sentence), with the commands and the emphasis taken out: they name nothing."""
    text = re.sub(r"```.*?```", "\n\n", text, flags=re.S)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("|")]
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*[*-] )", "\n".join(lines))
    for paragraph in paragraphs:
        paragraph = re.sub(r"`[^`]*`", "", " ".join(paragraph.split())).replace("*", "")
        yield from re.split(r"(?<=[.:])\s+(?=[A-Z(])", paragraph)


def parts(sentence):
    """The sentence with its parentheses blanked, and (start, end, exempt, text) of the parts a figure belongs to: each clause between semicolons outside
    parentheses, and each parenthesis on its own; a part is about another measurement if its words say
    so, a parenthesis also if its clause's do."""
    outer = re.sub(r"\([^()]*\)", lambda m: "(" + " " * (len(m[0]) - 2) + ")", sentence)
    clauses, at = [], 0
    for clause in outer.split(";"):
        clauses.append((at, at + len(clause), bool(OTHER_MEASUREMENT.search(clause)), clause))
        at += len(clause) + 1
    found = list(clauses)
    for paren in re.finditer(r"\([^()]*\)", sentence):
        enclosing = next(exempt for start, end, exempt, _ in clauses if start <= paren.start() < end)
        at = paren.start()
        for clause in paren[0].split(";"):
            found.append((at, at + len(clause), enclosing or bool(OTHER_MEASUREMENT.search(clause)), clause))
            at += len(clause) + 1
    return outer, found


def design_name(match):
    if match.lastindex == 1:
        count, core = match[0].lower().split()[:2]
        count = COUNTS.get(count) or int(count)
        return f"perft array, {count} {core} engine{'s' if count > 1 else ''}"
    return DESIGNS[match.lastindex - 1][1]


def attribute(mentions, start, end, at):
    """The mention a figure at ``at`` belongs to within [start, end): the last before it, else the nearest."""
    inside = [m for m in mentions if start <= m.start() and m.end() <= end]
    before = [m for m in inside if m.end() <= at]
    if before:
        return before[-1]
    return min(inside, key=lambda m: abs(m.start() - at), default=None)


def quotes(sentence):
    """(design, target, kind, value) for every figure of a sentence that names a design and a target:
    the design named last before the figure in its part (else the nearest there; else the same in the
    sentence outside parentheses), the target likewise."""
    outer, found = parts(sentence)
    designs, outer_designs = list(DESIGN_WORDS.finditer(sentence)), list(DESIGN_WORDS.finditer(outer))
    targets, outer_targets = list(TARGET_WORDS.finditer(sentence)), list(TARGET_WORDS.finditer(outer))
    for start, end, exempt, text in found:
        if exempt:
            continue
        for figure in FIGURE.finditer(text):
            at = start + figure.start()
            paren = sentence[start:end] == text and outer[start:end] != text
            design = (attribute(designs if paren else outer_designs, start, end, at)
                      or attribute(outer_designs, 0, len(outer), at))
            target = (attribute(targets if paren else outer_targets, start, end, at)
                      or attribute(outer_targets, 0, len(outer), at))
            if design is None or target is None:
                continue
            name = design_name(design)
            if "butterfly" in sentence and name == "walker":
                name += " butterfly"
            kind = "fmax" if figure[2] == "MHz" else "cells"
            yield name, "ecp5" if target[0] == "ECP5" else "up5k", kind, number(figure[1])


def disagreements(rows, text):
    """Every prose figure of ``text`` that is not its row's: (sentence, design, target, quoted, table)."""
    found = []
    for sentence in prose(text):
        for design, target, kind, value in quotes(sentence):
            row = rows.get((target, design))
            if row is None:
                continue          # a configuration the table does not hold (it does not fit there)
            allowed = {row["fmax"], row["goal"]} if kind == "fmax" else {row["cells"]}
            if value not in allowed:
                found.append((sentence, design, target, value, row[kind]))
    return found


def headline_disagreements(rows, text):
    """The README's headline table: each cell "F MHz, C logic cells" against the synthesis row."""
    found = []
    columns = None
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[:2] == ["design", "moves/cycle"]:
            columns = ["ecp5" if "ECP5" in cell else "up5k" for cell in cells[2:]]
            continue
        if columns is None or not line.startswith("|") or set(cells[0]) <= {"-"}:
            if not line.startswith("|"):
                columns = None
            continue
        design = cells[0].replace("fast core", "fast")
        for target, cell in zip(columns, cells[2:]):
            for value, unit in FIGURE.findall(cell):
                kind = "fmax" if unit == "MHz" else "cells"
                row = rows[(target, design)]
                if number(value) != row[kind]:
                    found.append((line, design, target, number(value), row[kind]))
    return found


def pages():
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


ROWS = synthesis_rows(SYNTHESIS.read_text())


def test_the_synthesis_table_is_read():
    assert ROWS[("ecp5", "fast")]["fmax"] == 124.25 and ROWS[("up5k", "walker + legality")]["cells"] == 3649
    assert ("up5k", "fast + legality") not in ROWS and ("ecp5", "walker butterfly") in ROWS
    assert len(ROWS) >= 14


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_prose_figures_agree_with_the_synthesis_table(page):
    found = disagreements(ROWS, page.read_text())
    assert not found, "\n".join(f"{design} on {target}: {quoted} in prose, {table} in the synthesis table:\n  "
                                f"{sentence}" for sentence, design, target, quoted, table in found)


def test_the_headline_table_quotes_the_synthesis_table():
    readme = (ROOT / "README.md").read_text()
    assert "| design | moves/cycle |" in readme
    assert not headline_disagreements(ROWS, readme)


def test_the_largest_array_without_force_is_the_tools():
    errors = COMMANDS.read_text()
    assert f"| `--engines`, `--perft-engines` | 1 to 64; beyond {LARGEST_ARRAY} only with `--force` |" in errors
    for page in pages():
        for quoted in re.findall(r"more than\s+(\d+)\s+engines", page.read_text()):
            assert int(quoted) == LARGEST_ARRAY, f"{page.name}: more than {quoted} engines"


def test_the_perft_example_projects_at_its_arrays_fmax():
    """The in-hardware perft example's --fmax is its array's routed fmax on the ECP5-85F, and its
    projection that row's nodes/s."""
    example = re.search(r"\$ hwmovegen perft --in-hardware (.*)\n(?:.*\n){2}# projected ([\d,.]+ M) nodes/s",
                        COMMANDS.read_text())
    options = example[1]
    engines = int(re.search(r"--engines (\d+)", options)[1])
    core = "fast" if "--core fast" in options else "walker"
    row = ROWS[("ecp5", f"perft array, {engines} {core} engine{'s' if engines > 1 else ''}")]
    assert number(re.search(r"--fmax ([\d.]+)", options)[1]) == row["fmax"]
    assert row["rate"] == f"{example[2]} nodes"


# The check can fail: the disagreements this test was written for, fed to it as they stood.
@pytest.mark.parametrize("snippet, design, target, quoted", [
    ("the **fast** core decides a whole piece per clock from the occupancy and emits a move every cycle "
     "(0.997 moves per cycle back to back, 128 MHz on an ECP5).", "fast", "ecp5", 128.0),
    ("**The fast core** meets its ECP5 goal (124.25 MHz, 4.0 times the walker's moves per second) and fits "
     "the UP5K, but misses the UP5K's 60 MHz: 30.8 MHz.", "fast", "up5k", 30.8),
    ("On the UP5K the walker with the stage takes 3,664 logic cells, 1,473 more than the walker alone.",
     "walker + legality", "up5k", 3664.0),
    ("The fast core with the ordering stage runs at 63.24 MHz in 7,893 logic cells and 4 block RAMs on the "
     "ECP5.", "fast + ordering", "ecp5", 7893.0),
])
def test_a_wrong_figure_is_found(snippet, design, target, quoted):
    found = disagreements(ROWS, snippet)
    assert [(d, t, q) for _, d, t, q, _ in found] == [(design, target, quoted)]


def test_a_wrong_headline_figure_is_found():
    table = ("| design | moves/cycle | ECP5-85F | iCE40 UP5K |\n|---|---|---|---|\n"
             "| fast core | 0.9994 | 128 MHz, 3749 logic cells | 34.71 MHz, 4933 logic cells |\n")
    assert [(d, t, q) for _, d, t, q, _ in headline_disagreements(ROWS, table)] == [("fast", "ecp5", 128.0)]


def test_another_measurement_said_in_words_is_left_alone():
    assert not disagreements(ROWS, "On the UP5K the fast core routed at 30.81 MHz before the interfaces "
                                   "became signatures.")
