"""The one-way tower: tables <- rtl <- sim <- boards <- cli. A module imports only its own
layer and the layers below it (the package root, cli/toplevel, sits above them all)."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
LEVELS = {"tables": 0, "rtl": 1, "sim": 2, "boards": 3, "cli": 4}
PACKAGE_ROOT = ROOT / "cli" / "toplevel"       # hwmovegen itself, not a folder of cli


def imports_of(path, layer, subpackage=()):
    """The layers a module imports: `from ..x import`, `from hwmovegen.x import`, `import hwmovegen.x`.
    ``subpackage``: the folders between the layer and the module (``("formal",)`` for rtl/formal/)."""
    tree = ast.parse(path.read_text(), str(path))
    package = (layer, *subpackage)          # the module's package below hwmovegen
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                names = [node.module] if node.module else [alias.name for alias in node.names]
                for name in names:
                    target = (*base, *name.split("."))
                    if target:
                        yield target[0], node.lineno
            elif node.module and node.module.startswith("hwmovegen."):
                yield node.module.split(".")[1], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("hwmovegen."):
                    yield alias.name.split(".")[1], node.lineno


def test_no_layer_imports_upwards():
    upward = []
    for layer, level in LEVELS.items():
        for path in sorted((ROOT / layer).rglob("*.py")):
            if PACKAGE_ROOT in path.parents:
                continue
            subpackage = path.relative_to(ROOT / layer).parent.parts
            for imported, line in imports_of(path, layer, subpackage):
                if imported in LEVELS and LEVELS[imported] > level:
                    upward.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert not upward, upward


def test_the_check_sees_an_upward_import(tmp_path):
    """A test that cannot fail is a defect: an upward import is reported."""
    module = tmp_path / "model.py"
    module.write_text("from ..cli import main\nfrom hwmovegen.boards import synth\nfrom .x import y\n")
    assert [name for name, _ in imports_of(module, "sim")] == ["cli", "boards", "sim"]
    # from a subpackage (rtl/formal/): one dot more to the layers
    nested = tmp_path / "harness.py"
    nested.write_text("from ...sim import model\nfrom ..core import PLANES\nfrom .. import types\n"
                      "from ...tables import chain\n")
    assert [name for name, _ in imports_of(nested, "rtl", ("formal",))] == ["sim", "rtl", "rtl", "tables"]


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
