"""The README's and the docs' examples are true: every ```sh block after a ``<!-- readme-check -->``
marker, in README.md and in every docs/*.md page, is run from the repository's root, and each command's
output must equal the lines that follow it in the block.

The blocks run two at a time (each block's commands in order): the commands are separate processes,
most of them single-threaded, so the second core would otherwise sit idle; no two blocks write the
same file.

Regenerate the blocks after a change that alters the output (then read the diff):

    HWMOVEGEN_UPDATE_README=1 pytest tests/cli/test_readme.py
"""

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- readme-check -->\n```sh\n)(.*?)(```)", re.S)
# The checked blocks and their commands in the README and docs/ (17 blocks, 31 commands, all in the
# README, before the split; 25 and 40 with the search and perft --epd examples, 26 and 42 with the
# search's engines): a block that goes missing fails the test.
CHECKED_BLOCKS = 26
CHECKED_COMMANDS = 42


def pages():
    """The README, then the docs pages in name order."""
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def commands(block):
    """(command, expected output lines) for every '$ ' line of a block."""
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def run(command):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)
    return done.stdout.rstrip("\n").splitlines()


def run_block(block):
    """(command, expected, got) for every command of a block, run in order."""
    return [(command, expected, run(command)) for command, expected in commands(block)]


def checked_blocks():
    """(page, (opening, block, closing)) for every checked block of every page."""
    return [(page, found) for page in pages() for found in BLOCK.findall(page.read_text())]


def test_no_checked_example_went_missing():
    blocks = checked_blocks()
    assert len(blocks) >= CHECKED_BLOCKS, f"{len(blocks)} checked blocks, {CHECKED_BLOCKS} expected"
    assert sum(len(commands(block)) for _, (_, block, _) in blocks) >= CHECKED_COMMANDS
    assert BLOCK.findall(README.read_text()), "the README's tour lost its checked examples"


def test_readme_examples_print_what_the_readme_says():
    blocks = checked_blocks()
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(run_block, [block for _, (_, block, _) in blocks]))
    failures = []
    updated = {page: page.read_text() for page in pages()}
    for (page, (opening, block, closing)), outcome in zip(blocks, outcomes):
        new_block = ""
        for command, expected, got in outcome:
            if got != expected:
                failures.append(f"{page.relative_to(ROOT)}: $ {command}\n  page: {expected}\n  now:  {got}")
            new_block += "$ " + command + "\n" + "".join(line + "\n" for line in got)
        updated[page] = updated[page].replace(opening + block + closing, opening + new_block + closing)
    if os.environ.get("HWMOVEGEN_UPDATE_README") and failures:
        for page, text in updated.items():
            if text != page.read_text():
                page.write_text(text)
        return
    assert not failures, "\n".join(failures)
