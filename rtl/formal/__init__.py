"""Formal property harnesses: the hardware's contracts as ``Assert``/``Assume``/``Cover``,
a module per component they check, beside it in ``rtl/``.

Each harness is an Amaranth elaboratable whose only port is the clock: every input of the
design under test is free (``AnySeq`` in every cycle, ``AnyConst`` for the whole trace) and
constrained only by ``Assume`` statements, so a model checker (SymbiYosys, run by
:mod:`hwmovegen.sim.formal`) explores every input sequence. Every assertion also drives a
signal ``check__<name>`` and every cover ``cover__<name>``, so that the runner can say from a
trace which one failed. The position is a free constant (``board_planes``, ``board_state``),
constrained only by what a legal FEN implies (:func:`~.harness.legal_position`); the runner
decodes it from a counterexample into a FEN.

The harnesses: :class:`~.core.GeneratorHarness` (``stream``, ``positions``, ``soundness``,
``termination``, ``abort``, ``cover``, for either core), :class:`~.hostlink.HostLinkHarness` (``hostlink``,
``hostlink-cover``), :class:`~.hostlink.ResyncHarness` (``resync``),
:class:`~.hostlink.FramingHarness` (``framing``), :class:`~.hostlink.UartHarness` (``uart``),
:class:`~.legality.LegalityHarness` (``legality``),
:class:`~.apply.ApplyHarness` (``apply``), :class:`~.order.CheckHarness` (``check``,
``check-cover``); what they share is in :mod:`.harness`.
"""

from ..board import BoardView
from .apply import ApplyHarness
from .core import GENERATOR_PROPERTIES, GeneratorHarness
from .harness import legal_position, move_checks
from .hostlink import FramingHarness, HostLinkHarness, ResyncHarness, UartHarness
from .legality import LegalityHarness
from .order import CheckHarness

__all__ = ["BoardView", "legal_position", "move_checks", "GeneratorHarness", "HostLinkHarness",
           "ResyncHarness", "FramingHarness", "UartHarness", "LegalityHarness", "ApplyHarness", "CheckHarness",
           "GENERATOR_PROPERTIES", "PROPERTIES", "harness"]


PROPERTIES = GENERATOR_PROPERTIES + ("hostlink", "hostlink-cover", "resync", "framing", "uart", "legality", "apply",
                                     "check", "check-cover")


def harness(prop, core="walker", layout="dense", core_class=None, **options):
    """The harness of property ``prop`` (one of ``PROPERTIES``)."""
    if prop in GENERATOR_PROPERTIES:
        return GeneratorHarness(prop, core, layout, core_class=core_class, **options)
    if prop in ("hostlink", "hostlink-cover"):
        return HostLinkHarness(prop, core, **options)
    if prop == "resync":
        return ResyncHarness()
    if prop == "framing":
        return FramingHarness()
    if prop == "uart":
        return UartHarness()
    if prop == "legality":
        return LegalityHarness()
    if prop == "apply":
        return ApplyHarness()
    if prop in ("check", "check-cover"):
        return CheckHarness(prop)
    raise KeyError(f"unknown property {prop!r}")
