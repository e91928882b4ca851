"""The one-way tower: tables <- rtl <- sim <- boards <- cli. A module imports only its own
layer and the layers below it (the package root, cli/toplevel, sits above them all)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
LEVELS = {"tables": 0, "rtl": 1, "sim": 2, "boards": 3, "cli": 4}


def imports_of(path, layer):
    """The layers a module imports: `from ..x import`, `from hwmovegen.x import`, `import hwmovegen.x`."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 2 and node.module:
                yield node.module.split(".")[0], node.lineno
            elif node.level == 1:
                yield layer, node.lineno
            elif node.module and node.module.startswith("hwmovegen."):
                yield node.module.split(".")[1], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("hwmovegen."):
                    yield alias.name.split(".")[1], node.lineno


def test_no_layer_imports_upwards():
    upward = []
    for layer, level in LEVELS.items():
        for path in sorted((ROOT / layer).glob("*.py")):
            for imported, line in imports_of(path, layer):
                if imported in LEVELS and LEVELS[imported] > level:
                    upward.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert not upward, upward


def test_the_check_sees_an_upward_import(tmp_path):
    """A test that cannot fail is a defect: an upward import is reported."""
    module = tmp_path / "model.py"
    module.write_text("from ..cli import main\nfrom hwmovegen.boards import synth\nfrom .x import y\n")
    assert [name for name, _ in imports_of(module, "sim")] == ["cli", "boards", "sim"]


def test_the_model_imports_only_tables():
    # the golden model is model.py, its legality rule, legality.py, and its order, order.py
    # (imported relatively; order.py only uses legality.py, legality.py nothing of sim)
    def relative(name):
        return {node.module for node in ast.walk(ast.parse((ROOT / "sim" / name).read_text()))
                if isinstance(node, ast.ImportFrom) and node.level == 1}

    assert relative("model.py") <= {"legality", "order"}, relative("model.py")
    assert relative("order.py") <= {"legality"}, relative("order.py")
    for name in ("model.py", "legality.py", "order.py"):
        imported = {layer for layer, _ in imports_of(ROOT / "sim" / name, "sim") if layer != "sim"}
        assert imported <= {"tables"}, (name, imported)
    assert not [name for name, _ in imports_of(ROOT / "sim" / "legality.py", "sim") if name == "sim"]
