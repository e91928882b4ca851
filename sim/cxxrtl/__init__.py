"""Compiled simulation through CXXRTL and the machine's g++: :mod:`.rtlil` prepares a design's
RTLIL, :mod:`.build` compiles models (cached, loaded and wrapped by :mod:`..harness.compiled`),
:mod:`.models` names the wrappers (a generator backend, a perft array, the leaf counter)."""

from ..harness.compiled import BackendUnavailable, builds, use_builds
from .build import CXXRTL, build_leafcount_model, build_model, build_perft_model
from .models import CxxrtlBackend, CxxrtlLeafCounter, CxxrtlPerft

__all__ = ["BackendUnavailable", "CXXRTL", "build_model", "build_perft_model", "build_leafcount_model", "builds",
           "use_builds", "CxxrtlBackend", "CxxrtlPerft", "CxxrtlLeafCounter"]
