"""The README's examples are true: every ```sh block after a ``<!-- readme-check -->`` marker is
run, and each command's output must equal the lines that follow it in the block.

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

README = Path(__file__).parents[2] / "README.md"
BLOCK = re.compile(r"(<!-- readme-check -->\n```sh\n)(.*?)(```)", re.S)


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
                          cwd=README.parent, timeout=600)
    return done.stdout.rstrip("\n").splitlines()


def run_block(block):
    """(command, expected, got) for every command of a block, run in order."""
    return [(command, expected, run(command)) for command, expected in commands(block)]


def test_readme_examples_print_what_the_readme_says():
    text = README.read_text()
    blocks = BLOCK.findall(text)
    assert len(blocks) >= 6, "the README's checked examples went missing"
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(run_block, [block for _, block, _ in blocks]))
    failures = []
    updated = text
    for (opening, block, closing), outcome in zip(blocks, outcomes):
        new_block = ""
        for command, expected, got in outcome:
            if got != expected:
                failures.append(f"$ {command}\n  README: {expected}\n  now:    {got}")
            new_block += "$ " + command + "\n" + "".join(line + "\n" for line in got)
        updated = updated.replace(opening + block + closing, opening + new_block + closing)
    if os.environ.get("HWMOVEGEN_UPDATE_README") and failures:
        README.write_text(updated)
        return
    assert not failures, "\n".join(failures)
