"""The registry of simulators and the interfaces it lists: what a backend offers is declared,
never probed (no compile: the classes are read, not built)."""

import re
from pathlib import Path

import pytest

from hwmovegen.sim import backends
from hwmovegen.sim.backends import (HARDWARE_BACKENDS, PERFT_BACKENDS, REGISTRY, Backend, PerftSimulator, get_backend,
                                    offer, register_search, resolve)
from hwmovegen.sim.drivers.hwperft import HardwarePerft

ROOT = Path(__file__).parents[2]
PROBE = re.compile(r"\bhasattr\(|getattr\((?:self\.)?_?(?:backend|chosen|probe|sim|generator|transport)\b"
                   r"|\.name\s*[!=]=\s*[\"']|[!=]=\s*[\"'](?:cxxrtl|pysim|model)[\"']")
# the cocotb bench asks the exported netlist which ports it has, not a backend what it can do
NETLIST_PORTS = ROOT / "sim" / "verilator" / "cocotb_testbench.py"


def test_every_entry_is_what_it_says():
    for name, entry in REGISTRY.items():
        assert issubclass(entry.generator, Backend) and entry.generator.name == name
        assert entry.perft is None or issubclass(entry.perft, PerftSimulator) and entry.perft.name == name
    assert HARDWARE_BACKENDS == PERFT_BACKENDS == ("cxxrtl", "verilator", "pysim")


def test_what_a_backend_cannot_do_is_refused_from_its_declaration():
    with pytest.raises(KeyError, match="perft in hardware runs on the cxxrtl or verilator or pysim backend"):
        HardwarePerft("model")
    with pytest.raises(KeyError, match=r"backpressure \(--ready\) needs the cxxrtl or verilator backend"):
        get_backend("pysim", ready_probability=0.5)
    with pytest.raises(KeyError, match="unknown backend 'verilog'"):
        offer("verilog")
    assert resolve("pysim") == "pysim" and resolve("model") == "model"


def test_a_search_engine_registers(monkeypatch):
    monkeypatch.setattr(backends, "REGISTRY", dict(REGISTRY))

    class Engine:
        pass
    register_search("model", Engine)
    assert offer("model").search is Engine and offer("model").generator is REGISTRY["model"].generator
    with pytest.raises(KeyError, match="register its generator first"):
        register_search("verilog", Engine)


def probes(text):
    """The capability probes in a module's text: hasattr, getattr on a backend, a name compared."""
    return [line.strip() for line in text.splitlines() if PROBE.search(line)]


def test_no_capability_probe_is_left():
    found = []
    for layer in ("sim", "cli", "boards"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            if path != NETLIST_PORTS:
                found += [f"{path.relative_to(ROOT)}: {line}" for line in probes(path.read_text())]
    assert not found, found


def test_the_probe_check_can_fail():
    text = ('if hasattr(self._sim, "prepare"):\n    x = getattr(backend, "last_span", 0)\n'
            'if probe.name == "cxxrtl":\n    pass\nif backend == "pysim":\n    pass\nname = entry.name\n'
            'now = getattr(transport, "now", time.monotonic)\nif name == "stockfish":\n    pass\n')
    assert len(probes(text)) == 5
