"""Compiled simulation through CXXRTL (or Verilator) and the machine's g++: :mod:`.rtlil` prepares a design's
RTLIL, :mod:`.build` compiles and caches models, :mod:`.bindings` loads them through ctypes, and
:mod:`.models` wraps them for Python (a generator backend, a perft array, the leaf counter)."""

from .build import (BackendUnavailable, build_hostlink_model, build_leafcount_model, build_model, build_perft_model,
                    build_search_model, builds, use_builds)
from .models import (CxxrtlBackend, CxxrtlHostLink, CxxrtlLeafCounter, CxxrtlPerft, CxxrtlSearch, VerilatorBackend,
                     VerilatorHostLink, VerilatorLeafCounter, VerilatorPerft, VerilatorSearch)

__all__ = ["BackendUnavailable", "build_model", "build_perft_model", "build_leafcount_model", "builds",
           "use_builds", "build_search_model", "build_hostlink_model", "CxxrtlBackend", "CxxrtlHostLink", "CxxrtlPerft",
           "CxxrtlLeafCounter", "CxxrtlSearch", "VerilatorBackend", "VerilatorHostLink", "VerilatorLeafCounter",
           "VerilatorPerft", "VerilatorSearch"]
