"""compare: the hardware against the model at scale, and a check that can fail."""

from dataclasses import replace

from hwmovegen.sim.backends import get_backend
from hwmovegen.sim.drivers.compare import compare
from hwmovegen.sim.model import generate
from hwmovegen.sim.model.positions import random_boards
from hwmovegen.tables.contracts import GeneratorConfig


def test_butterfly_layout_compiled(suite):
    summary = compare([r.board for r in suite], get_backend("cxxrtl", GeneratorConfig("butterfly")))
    assert summary.positions == 133 and not summary.mismatches


def test_compare_ten_thousand_random_positions():
    summary = compare(random_boards(10_000, seed=1), get_backend("cxxrtl", GeneratorConfig("dense")), jobs=2)
    assert summary.positions == 10_000
    assert not summary.mismatches, summary.mismatches[0].report()
    assert summary.moves > 300_000 and summary.stalls == 0
    assert summary.cycles <= summary.steps + 3 * summary.promotion_nodes + 4 * summary.positions


def test_compare_under_random_backpressure():
    backend = get_backend("cxxrtl", GeneratorConfig("dense"), ready_probability=0.3, seed=9)
    summary = compare(random_boards(1000, seed=4), backend)
    assert not summary.mismatches and summary.stalls > summary.positions


def test_a_broken_model_is_caught(monkeypatch):
    """The check can fail: a model that drops a move makes compare report the mismatch."""
    import hwmovegen.sim.drivers.compare as compare_module

    def dropping_last_move(position, layout="dense", legal=False, order=None):
        result = generate(position, layout, legal=legal, order=order)
        if position.white_to_move:
            result.moves = result.moves[:-1]
        return result

    monkeypatch.setattr(compare_module, "generate", dropping_last_move)
    summary = compare(random_boards(5, seed=2), get_backend("cxxrtl", GeneratorConfig("dense")))
    assert summary.mismatches
    report = summary.mismatches[0].report()
    assert "MISMATCH" in report and "first difference at move" in report


def test_ordered_legal_stream_compiled(suite):
    """The fast core, the legality stage and the ordering stage (MVV-LVA) compiled (Verilator builds it
    in a quarter of CXXRTL's time), under
    backpressure: every suite position and 1,500 random ones, move for move with check flags."""
    boards = [r.board for r in suite] + random_boards(1500, seed=21)
    backend = get_backend("verilator", GeneratorConfig("dense", "fast", legal=True, order="mvv-lva"),
                          ready_probability=0.5, seed=3)
    summary = compare(boards, backend)
    assert summary.positions == 1633
    assert not summary.mismatches, summary.mismatches[0].report()
    assert summary.stalls > summary.positions


def test_a_wrong_check_flag_is_caught(monkeypatch, suite):
    """The check flags are compared: a model that forgets them makes compare report it."""
    import hwmovegen.sim.drivers.compare as compare_module

    def no_flags(position, layout="dense", legal=False, order=None):
        result = generate(position, layout, legal=legal, order=order)
        result.moves = [replace(move, check=False) for move in result.moves]
        return result

    monkeypatch.setattr(compare_module, "generate", no_flags)
    backend = get_backend("verilator", GeneratorConfig("dense", "fast", legal=True, order="mvv-lva"))
    summary = compare([r.board for r in suite[:7]], backend)
    assert summary.mismatches and all(m.reason == "same moves, different flags" for m in summary.mismatches)
