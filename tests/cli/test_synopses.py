"""Every command's synopsis in the README and docs/ names exactly the options its --help lists
(argparse writes --help and the usage line from the parser, so the parser is the reference)."""

import re
from pathlib import Path

import pytest

from hwmovegen.cli import build_parser

ROOT = Path(__file__).parents[2]
# a synopsis: a line that starts with 'hwmovegen COMMAND' (a run is written '$ hwmovegen ...'),
# continued on the lines indented under it
SYNOPSIS = re.compile(r"(?m)^hwmovegen ([a-z]+)\b(.*(?:\n {3,}.*)*)")


def _commands():
    parser = build_parser()
    sub = next(action for action in parser._actions if action.choices and action.dest == "command")
    return {name: {option for action in command._actions for option in action.option_strings
                   if option.startswith("--") and option != "--help"}
            for name, command in sub.choices.items()}


def _synopses():
    found = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name, body in SYNOPSIS.findall(path.read_text()):
            found.setdefault(name, set()).update(re.findall(r"--[a-z][a-z-]*", body))
    return found


@pytest.mark.parametrize("command", sorted(_commands()))
def test_the_synopsis_names_the_options_of_help(command):
    synopses = _synopses()
    assert command in synopses, f"no synopsis of {command} in the README or docs/"
    options = _commands()[command]
    assert synopses[command] == options, (f"{command}: missing {sorted(options - synopses[command])}, "
                                          f"not an option {sorted(synopses[command] - options)}")
