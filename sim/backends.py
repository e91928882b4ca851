"""Move-generator backends behind one interface.

A backend turns python-chess Boards into :class:`~hwmovegen.sim.model.Generation`
results (moves plus counters). ``model`` walks the tables in Python; the
hardware backends simulate the RTL and add ``cycles`` and ``stalls``.
"""

from .model import Position, generate

__all__ = ["ModelBackend", "BACKENDS", "get_backend"]


class ModelBackend:
    name = "model"
    hardware = False

    def __init__(self, layout="dense"):
        self.layout = layout

    def generate(self, board):
        return generate(Position.from_board(board, check=False), self.layout)

    def run(self, boards):
        return [self.generate(board) for board in boards]


BACKENDS = ("model",)


def get_backend(name, layout="dense", **options):
    if name == "model":
        return ModelBackend(layout)
    raise KeyError(f"unknown backend {name!r} (choose from {', '.join(BACKENDS)})")
