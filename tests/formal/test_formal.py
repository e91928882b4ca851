"""The formal properties at small depths, and bugs injected into copies of the cores that
`hwmovegen formal` must catch (a counterexample VCD, the offending FEN, exit 1)."""

from pathlib import Path

import chess
import pytest
from amaranth import Module, Signal
from amaranth.lib import wiring

from hwmovegen.cli import main
from hwmovegen.rtl import movegen
from hwmovegen.rtl.formal import PROPERTIES as HARNESSES
from hwmovegen.rtl.hostlink import FrameReceiver
from hwmovegen.rtl.order import CheckFlag
from hwmovegen.rtl.walker import WalkerCore
from hwmovegen.sim.drivers.formal import PROPERTIES, read_vcd, run_property


def test_every_harness_has_a_runner_entry():
    assert set(HARNESSES) == set(PROPERTIES)


def test_the_solver_comes_from_this_environment():
    """Each engine's solver command is this Python environment's (a wheel), first on PATH."""
    import os
    from hwmovegen.sim.drivers.formal import SOLVERS, _environment, _solver
    from hwmovegen.sim.harness.toolchain import ToolMissing, tool
    assert _solver("smtbmc --syn yices") == "yices" and _solver("smtbmc z3") == "z3" and _solver("smtbmc") == "yices"
    for spec in PROPERTIES.values():
        solver = _solver(spec.engine)
        path = _environment(spec.engine)["PATH"].split(os.pathsep)
        assert Path(path[0], SOLVERS[solver]) == Path(tool(SOLVERS[solver]))
    with pytest.raises(ToolMissing):
        _environment("smtbmc cvc5")


# (property, core, depth): short runs; docs/formal.md's table has the full depths. The walker
# emits its first move in step 4 and the fast core in step 18, so both cores' short
# soundness runs and the fast core's positions run check emitted moves. The proofs run at
# their own induction length (None): each proves for all time in under a minute.
SHORT = [
    ("abort", "walker", 2),
    ("abort", "fast", 2),
    ("stream", "walker", None),
    ("stream", "fast", None),
    ("positions", "walker", None),
    ("positions", "fast", 19),
    ("resync", "walker", None),
    ("framing", "walker", None),
    ("uart", "walker", None),
    ("soundness", "walker", 5),
    ("soundness", "fast", 19),
    ("termination", "walker", 7),
    ("termination", "fast", 20),
    ("hostlink", "walker", 14),
    # the proof (k=24) takes about 75 s: `hwmovegen formal --property apply`; its basecase's first 17 steps here
    ("apply", "walker", 17),
    # the stage's first verdict leaves in step 17: one verdict checked
    ("legality", "walker", 18),
    # `check` (combinational, every position and move at once) passes in about 100 s: its passing run is
    # `hwmovegen formal --property check`; the suite keeps test_a_wrong_check_flag_is_caught (its failing run)
]


@pytest.mark.parametrize("prop, core, depth", SHORT)
def test_property_holds(prop, core, depth, tmp_path):
    mode = "bmc" if prop == "apply" else None
    result = run_property(prop, core, depth, workdir=tmp_path, mode=mode)
    assert result.status == "pass", result.as_dict()
    if (mode or PROPERTIES[prop].mode_for(core)) == "prove":
        assert result.reach == f"proved (k-induction, k={result.depth})"
    else:
        assert result.reach == f"checked to depth {depth}"


def test_a_proof_without_its_invariants_does_not_close(monkeypatch, tmp_path):
    """The walker's stream proof needs its FIFO's invariants: without them the induction step
    fails from a state reset never reaches, which the runner reports as unproven (its basecase
    passes), not as a counterexample."""
    import hwmovegen.rtl.formal.core as core_harness
    monkeypatch.setattr(core_harness, "fifo_invariants", lambda checks, core: None)
    result = run_property("stream", "walker", workdir=tmp_path)
    assert result.status == "unproven", result.as_dict()
    assert result.reach == "checked to depth 3" and "induction step fails" in result.message
    assert result.fen is None and Path(result.vcd).name == "trace_induct.vcd"


def test_hostlink_cover_reaches_an_error_reply(tmp_path):
    result = run_property("hostlink-cover", "walker", workdir=tmp_path)
    assert result.status == "pass", result.as_dict()


def test_generator_covers_at_a_short_depth(tmp_path):
    """Six steps reach the first kinds of move only: the run fails and names the others."""
    result = run_property("cover", "walker", 6, workdir=tmp_path)
    assert result.status == "fail"
    assert "castling queenside" in result.failed and "castling kingside" in result.failed
    assert "a pawn push" not in result.failed and "a piece move onto an empty square" not in result.failed


def test_an_unreachable_cover_fails(tmp_path):
    """Too short for any reply: the run must fail, naming the covers."""
    result = run_property("hostlink-cover", "walker", 8, workdir=tmp_path)
    assert result.status == "fail"
    assert result.failed == ["a PONG reply to the PING", "an error reply"]


class _Relay(WalkerCore):
    """A walker core inside a relay that may corrupt its stream (``corrupt(m, inner, out)``
    drives the outgoing stream)."""

    inner_class = WalkerCore

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self.inner_class(layout=self.layout)
        wiring.connect(m, wiring.flipped(self.rom), inner.rom)
        m.d.comb += [inner.start.eq(self.start), inner.planes.eq(self.planes), inner.state.eq(self.state),
                     self.start_ready.eq(inner.start_ready), self.busy.eq(inner.busy), self.done.eq(inner.done),
                     self.counters.eq(inner.counters), inner.moves.ready.eq(self.moves.ready)]
        self.corrupt(m, inner.moves, self.moves)
        return m


class CaptureFlagBug(_Relay):
    """Every move flagged as a capture: quiet moves too."""

    @staticmethod
    def corrupt(m, inner, out):
        m.d.comb += [out.valid.eq(inner.valid), out.payload.eq(inner.payload), out.payload.capture.eq(1)]


class DropsValidBug(_Relay):
    """``valid`` drops for a cycle after a stall, with no transfer."""

    @staticmethod
    def corrupt(m, inner, out):
        stalled = Signal(1)
        m.d.sync += stalled.eq(inner.valid & ~out.ready)
        m.d.comb += [out.valid.eq(inner.valid & ~stalled), out.payload.eq(inner.payload)]


def _formal(capsys, *argv):
    code = main(["formal", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_catches_a_soundness_bug(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(movegen.CORES, "walker", movegen.CORES["walker"]._replace(component=CaptureFlagBug))
    code, out, err = _formal(capsys, "--property", "soundness", "--depth", "5", "--workdir", str(tmp_path))
    assert code == 1
    assert "FAIL" in out and "capture flag exactly onto an opponent or en passant" in out
    vcd = Path(out.split("counterexample: ")[1].split()[0])
    assert vcd.is_file() and vcd.suffix == ".vcd"
    fen = out.split("position: ")[1].strip().splitlines()[0]
    board = chess.Board(fen)                    # a FEN python-chess reads
    assert board.king(chess.WHITE) is not None and board.king(chess.BLACK) is not None
    # the trace shows the flagged move: a move on the stream that takes nothing
    signals = read_vcd(vcd)
    assert any(name.startswith("check__") for name in signals)
    assert "hwmovegen: formal: soundness" in err


def test_cli_catches_a_stream_bug(monkeypatch, capsys, tmp_path):
    """The stream's proof (k-induction) on a copy of the walker that drops ``valid`` after a
    stall: a counterexample from reset (the basecase's), not an induction step that fails."""
    monkeypatch.setitem(movegen.CORES, "walker", movegen.CORES["walker"]._replace(component=DropsValidBug))
    code, out, err = _formal(capsys, "--property", "stream", "--depth", "7", "--workdir", str(tmp_path))
    assert code == 1
    assert "valid never drops before the transfer" in out
    assert "checked to depth 7" in out and "FAIL" in out and "proved" not in out
    vcd = Path(out.split("counterexample: ")[1].split()[0])
    assert vcd.is_file() and vcd.name == "trace.vcd"
    assert "position: " in out


def _mutant(component, old, new):
    """A copy of ``component`` whose ``elaborate`` has the source text ``old`` replaced by ``new``
    (once): the same registers, for the harness to find, and one bug."""
    import inspect
    import sys
    import textwrap
    source = textwrap.dedent(inspect.getsource(component.elaborate))
    assert source.count(old) == 1
    namespace = dict(vars(sys.modules[component.__module__]))
    exec(source.replace(old, new), namespace)
    return type(f"Broken{component.__name__}", (component,), {"elaborate": namespace["elaborate"]})


def test_uart_proof_catches_a_receiver_stuck_after_a_break(monkeypatch, tmp_path):
    """A UART receiver that leaves BREAK when the line is low rather than high: after a framing
    error on a line that then goes quiet it is still in BREAK when the next byte starts."""
    import hwmovegen.rtl.formal.hostlink as hostlink_harness
    from hwmovegen.rtl.uart import UARTReceiver
    broken = _mutant(UARTReceiver, "to return high\n            with m.If(line):",
                     "to return high\n            with m.If(~line):")
    monkeypatch.setattr(hostlink_harness, "UARTReceiver", broken)
    result = run_property("uart", "walker", workdir=tmp_path)
    assert result.status == "fail", result.as_dict()
    assert result.failed == ["invariant the receiver is idle on a high line when the byte begins"], result.failed
    assert Path(result.vcd).name == "trace.vcd"


def _resync_bug():
    """A receiver whose DISCARD state waits for a SYNC byte rather than a quiet line: after a bad
    frame it eats the next frame's SYNC and misses that frame."""
    return _mutant(FrameReceiver, "with m.If(idle_expired & ~got):", "with m.If(got & (byte == SYNC)):")


def test_resync_proof_catches_a_receiver_that_never_resynchronises(monkeypatch, tmp_path):
    import hwmovegen.rtl.formal.hostlink as hostlink_harness
    monkeypatch.setattr(hostlink_harness, "FrameReceiver", _resync_bug())
    # a bad frame (2 bytes), the quiet (4 cycles), the PING (4 bytes): within 12 steps from reset
    result = run_property("resync", "walker", 12, workdir=tmp_path)
    assert result.status == "fail", result.as_dict()
    assert result.failed == ["invariant a line quiet past the timeout leaves the receiver hunting"], result.failed
    assert Path(result.vcd).name == "trace.vcd"


def test_cli_json_and_table(capsys, tmp_path):
    # on the walker (4 s); the fast core's (19 s) is docs/formal.md's example and test_property_holds'
    code, out, _ = _formal(capsys, "--property", "abort", "--json", "--workdir", str(tmp_path))
    assert code == 0
    import json
    record = json.loads(out)
    assert record["property"] == "abort" and record["core"] == "walker"
    assert record["reach"] == "proved (k-induction, k=2)" and record["mode"] == "prove"
    code, out, _ = _formal(capsys, "--property", "abort", "--workdir", str(tmp_path))
    assert code == 0
    header, row = out.splitlines()[:2]
    assert header.split() == ["property", "core", "engine", "depth", "seconds", "result"]
    assert row.split()[0] == "abort" and row.split()[-1] == "PASS" and "proved (k-induction, k=2)" in row


def test_cli_engine_runs_another_solver(capsys, tmp_path):
    """``--engine`` runs the other solver (z3, from its wheel) on the word-level netlist."""
    import json
    code, out, _ = _formal(capsys, "--property", "abort", "--engine", "smtbmc z3", "--json",
                           "--workdir", str(tmp_path))
    assert code == 0
    record = json.loads(out)
    assert record["engine"] == "smtbmc z3" and record["reach"] == "proved (k-induction, k=2)"
    assert (tmp_path / "abort-walker" / "check.sby").read_text().count("smtbmc z3") == 1



class PromotionBlindFlag(CheckFlag):
    """The check flag with promotions never checking (the line through their square forgotten)."""

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = CheckFlag()
        m.d.comb += [inner.move.eq(self.move), inner.planes.eq(self.planes), inner.state.eq(self.state),
                     inner.mover.eq(self.mover), self.check.eq(inner.check & (self.move.promotion == 0))]
        return m


def test_a_wrong_check_flag_is_caught(monkeypatch, tmp_path):
    import hwmovegen.rtl.formal.order as order_harness
    monkeypatch.setattr(order_harness, "CheckFlag", PromotionBlindFlag)
    result = run_property("check", "walker", 1, workdir=tmp_path)
    assert result.status == "fail" and result.failed == ["the check flag is exact"]
