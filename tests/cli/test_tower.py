"""The one-way tower: tables <- rtl <- sim <- boards <- cli. A module imports only its own
layer and the layers below it (the package root, cli/toplevel, sits above them all). Inside sim/
the rooms stack the same way: model <- harness, peers <- cxxrtl, verilator <- backends <- drivers."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
LEVELS = {"tables": 0, "rtl": 1, "sim": 2, "boards": 3, "cli": 4}
PACKAGE_ROOT = ROOT / "cli" / "toplevel"       # hwmovegen itself, not a folder of cli
SIM_ROOMS = {"model": 0, "harness": 1, "peers": 1, "cxxrtl": 2, "verilator": 2, "backends": 3, "drivers": 4}


def imports_of(path, layer, subpackage=(), depth=1):
    """The layers a module imports: `from ..x import`, `from hwmovegen.x import`, `import hwmovegen.x`.
    ``subpackage``: the folders between the layer and the module (``("formal",)`` for rtl/formal/).
    ``depth`` 2: the layer and the room below it (``("sim", "model")``), a tuple."""
    for target, line in _targets(path, layer, subpackage):
        yield (target[0] if depth == 1 else tuple(target[:depth])), line


def _targets(path, layer, subpackage):
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
                        yield target, node.lineno
            elif node.module and node.module.startswith("hwmovegen."):
                names = [alias.name for alias in node.names]
                for name in names:
                    yield (*node.module.split(".")[1:], name), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("hwmovegen."):
                    yield tuple(alias.name.split(".")[1:]), node.lineno


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


def sim_room(parts):
    """The room of a module of sim/ (``parts``: its path below sim/), None for sim/__init__."""
    room = parts[0].removesuffix(".py")
    return None if room == "__init__" else room


def room_violations(path, parts):
    """Imports of a sim/ module (at ``parts`` below sim/) from a room above its own."""
    room = sim_room(parts)
    level = SIM_ROOMS[room]
    subpackage = tuple(parts[:-1])
    found = []
    for target, line in imports_of(path, "sim", subpackage, depth=2):
        if target[0] == "sim" and len(target) > 1 and target[1] in SIM_ROOMS and SIM_ROOMS[target[1]] > level:
            found.append(f"{'/'.join(parts)}:{line} ({room}) imports sim/{target[1]}")
    return found


def test_sim_rooms_import_downwards():
    rooms = {sim_room(path.relative_to(ROOT / "sim").parts) for path in (ROOT / "sim").rglob("*.py")} - {None}
    assert rooms == set(SIM_ROOMS), rooms ^ set(SIM_ROOMS)
    upward = []
    for path in sorted((ROOT / "sim").rglob("*.py")):
        parts = path.relative_to(ROOT / "sim").parts
        if sim_room(parts):
            upward += room_violations(path, parts)
    assert not upward, upward


def test_the_room_check_sees_an_upward_import(tmp_path):
    """The model importing a simulator, or a simulator the drivers, is reported."""
    module = tmp_path / "movegen.py"
    module.write_text("from ..harness.wire import position_bytes\nfrom .order import order_moves\n"
                      "from ...tables import rays\n")
    assert room_violations(module, ("model", "movegen.py")) == ["model/movegen.py:1 (model) imports sim/harness"]
    module.write_text("from ..drivers import compare\nfrom hwmovegen.sim.backends import get_backend\n"
                      "from ..model import Position\n")
    assert room_violations(module, ("cxxrtl", "models.py")) == [
        "cxxrtl/models.py:1 (cxxrtl) imports sim/drivers", "cxxrtl/models.py:2 (cxxrtl) imports sim/backends"]


def test_the_model_imports_only_tables():
    # the golden model is sim/model/: its modules import tables/ and each other, nothing else
    for path in sorted((ROOT / "sim" / "model").rglob("*.py")):
        parts = path.relative_to(ROOT / "sim").parts
        imported = {target for target, _ in imports_of(path, "sim", tuple(parts[:-1]), depth=2)}
        outside = {target for target in imported if target[0] != "tables" and target != ("sim", "model")}
        assert not outside, (path.name, outside)
    # the legality rule stands alone; the order uses only it
    def relative(name):
        return {node.module for node in ast.walk(ast.parse((ROOT / "sim" / "model" / name).read_text()))
                if isinstance(node, ast.ImportFrom) and node.level == 1}

    assert relative("movegen.py") <= {"legality", "order"}, relative("movegen.py")
    assert relative("order.py") <= {"legality"}, relative("order.py")
    assert not relative("legality.py"), relative("legality.py")
