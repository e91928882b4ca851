"""Search backends behind one interface: ``run(request) -> SearchResult`` (:mod:`.search`).

``model`` is the golden model's search. A hardware backend (the RTL search engine simulated)
registers a factory here under its name; the CLI offers every name in ``SEARCH_BACKENDS``.
"""

from .search import search

__all__ = ["ModelSearch", "SEARCH_BACKENDS", "register_search_backend", "get_search_backend"]


class ModelSearch:
    """The golden model's search (the core does not change it: every core emits the same moves)."""
    name = "model"
    hardware = False

    def __init__(self, core="walker", log=None):
        self.core = core

    def run(self, request):
        return search(request)


_FACTORIES = {"model": ModelSearch}
SEARCH_BACKENDS = ["model"]


def register_search_backend(name, factory):
    """Offer ``factory(core=..., log=...)`` (an object with ``name`` and ``run(request)``) as ``name``."""
    _FACTORIES[name] = factory
    if name not in SEARCH_BACKENDS:
        SEARCH_BACKENDS.append(name)


def get_search_backend(name, core="walker", log=None):
    """The search backend ``name`` for ``core``; ``KeyError`` (one line) for an unknown name."""
    if name not in _FACTORIES:
        raise KeyError(f"unknown search backend {name!r} (choose from {', '.join(SEARCH_BACKENDS)})")
    return _FACTORIES[name](core=core, log=log)
