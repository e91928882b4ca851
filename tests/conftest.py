import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from hwmovegen.sim.model.epd import bundled_suites
from hwmovegen.sim.model.positions import random_boards


def pytest_configure(config):
    """Compiled models go to a cache that is new for every test run (so the suite always exercises
    the real build) and is removed when the run ends; the parallel workers share it (a model is
    built once, under the build's lock, and found by the others). A developer iterating on one test
    may name a cache to keep in ``HWMOVEGEN_TEST_CACHE``; CI never sets it."""
    if hasattr(config, "workerinput"):             # a pytest-xdist worker: the controller's cache
        config.hwmovegen_cache, config.hwmovegen_cache_owned = config.workerinput["hwmovegen_cache"], False
        return
    kept = os.environ.get("HWMOVEGEN_TEST_CACHE")
    config.hwmovegen_cache = kept or tempfile.mkdtemp(prefix="hwmovegen-cache-")
    config.hwmovegen_cache_owned = not kept


def pytest_sessionstart(session):
    """The controller runs each YoWASP tool of the synthesis flows once, side by side, before the
    workers start (about a second when they are cached). Each tool's WebAssembly is compiled to machine
    code on its first run and then cached (Yosys's: 81 processor-seconds, 44 s on two processors); on
    a machine that has never run them, the workers would each compile the same tools at once."""
    if hasattr(session.config, "workerinput"):
        return
    from hwmovegen.boards.synth import _TOOLS
    from hwmovegen.sim.harness.toolchain import ToolMissing, tool
    runs = []
    for name in (script for _, script in _TOOLS.values() if script.startswith("yowasp-")):
        try:
            runs.append(subprocess.Popen([tool(name), "--help"], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))
        except ToolMissing:         # the tests that need it say so
            pass
    for run in runs:
        run.wait()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    node.workerinput["hwmovegen_cache"] = node.config.hwmovegen_cache


def pytest_unconfigure(config):
    if getattr(config, "hwmovegen_cache_owned", False):
        shutil.rmtree(config.hwmovegen_cache, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def model_cache(request):
    """The run's model cache (``pytest_configure``) as ``HWMOVEGEN_CACHE`` for the session."""
    path = request.config.hwmovegen_cache
    saved = os.environ.get("HWMOVEGEN_CACHE")
    os.environ["HWMOVEGEN_CACHE"] = str(path)
    yield Path(path)
    if saved is None:
        os.environ.pop("HWMOVEGEN_CACHE", None)
    else:
        os.environ["HWMOVEGEN_CACHE"] = saved


@pytest.fixture(scope="session")
def suite():
    """The 133 bundled perft positions (7 CPW, then the 126 of perftsuite)."""
    return bundled_suites()


@pytest.fixture(scope="session")
def random_1000():
    return random_boards(1000, seed=2026)


@pytest.fixture(scope="session")
def perft_array():
    """``perft_array(engines=1, count_leaves=True)``: a prepared perft array, one per configuration
    for the whole run, on the simulator the command line picks for it (``perft --in-hardware``'s
    tests then find the same models). Preparing one elaborates the PerftArray to find its model in
    the cache (10 to 40 s a configuration, the compile aside), so the tests share them."""
    from hwmovegen.sim.backends import default_backend
    from hwmovegen.sim.drivers.hwperft import HardwarePerft
    from hwmovegen.tables.contracts import GeneratorConfig
    arrays = {}

    def get(engines=1, count_leaves=True):
        if (engines, count_leaves) not in arrays:
            config = GeneratorConfig(perft_engines=engines, count_leaves=count_leaves)
            array = HardwarePerft(default_backend(config), config)
            array.prepare()
            arrays[engines, count_leaves] = array
        return arrays[engines, count_leaves]
    return get


@pytest.fixture(scope="session")
def search_board():
    """``search_board()``: a host client on a fresh dev-board top with the search engine (fast core),
    compiled once for the whole run (Verilator: CXXRTL took about 13 CPU minutes of g++ over it) and
    shared by the tests; ``uci --sim`` and ``board --sim --search`` find it in the run's cache."""
    from hwmovegen.boards.client import CompiledDevBoard, HostClient
    CompiledDevBoard().prepare()

    def make():
        board = CompiledDevBoard()
        board.prepare()
        return HostClient(board, timeout=5.0)
    return make


@pytest.fixture(scope="session")
def search_engine():
    """The search engine (fast core) compiled with Verilator (the search's default simulator, the
    fastest to build and to run) and prepared once for the whole run: the model ``hwmovegen uci
    --backend verilator --core fast`` loads from the same cache, so its tests add no compile."""
    from hwmovegen.sim.backends import HardwareSearch
    from hwmovegen.sim.cxxrtl import VerilatorSearch
    from hwmovegen.tables.contracts import GeneratorConfig
    engine = HardwareSearch(VerilatorSearch, GeneratorConfig(core="fast"))
    engine.prepare()
    return engine


@pytest.fixture(scope="session")
def search_array():
    """Two search engines splitting the root moves (a SearchArray, fast core) compiled with Verilator
    once for the whole run (99 s of Verilator and g++ here on an idle machine, 166 s loaded): the model
    ``hwmovegen search --engines 2 --backend verilator`` and ``bench search --engines 2`` load."""
    from hwmovegen.sim.backends import HardwareSearch
    from hwmovegen.sim.cxxrtl import VerilatorSearch
    from hwmovegen.tables.contracts import GeneratorConfig
    engine = HardwareSearch(VerilatorSearch, GeneratorConfig(core="fast", search_engines=2))
    engine.prepare()
    return engine
