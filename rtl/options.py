"""Component options, checked at construction: every problem found, then one error naming them
all (as Amaranth's ``lib/fifo.py`` and ``lib/memory.py`` check theirs before building anything)."""

__all__ = ["Options"]


class Options:
    """The checks of one component's options.

    ``check(ok, problem)`` notes ``problem`` (what is wrong, for people) unless ``ok``;
    ``done()`` raises a :exc:`ValueError` naming the component and every problem noted.

    Parameters
    ----------
    owner : str
        The component's name, first in the error.
    """

    def __init__(self, owner):
        self.owner = owner
        self.problems = []

    def check(self, ok, problem):
        if not ok:
            self.problems.append(problem)

    def flag(self, name, value):
        """``value`` is a bool."""
        self.check(isinstance(value, bool), f"{name} must be True or False, not {value!r}")

    def count(self, name, value, low, high=None):
        """``value`` is an int from ``low`` to ``high`` (no bound: None)."""
        ok = isinstance(value, int) and not isinstance(value, bool) and low <= value and (high is None or value <= high)
        span = f"at least {low}" if high is None else f"from {low} to {high}"
        self.check(ok, f"{name} must be an integer {span}, not {value!r}")

    def choice(self, name, value, choices):
        """``value`` is one of ``choices``."""
        self.check(value in choices, f"unknown {name} {value!r} (choose from {', '.join(map(str, choices))})")

    def done(self):
        if self.problems:
            raise ValueError(f"{self.owner}: " + "; ".join(self.problems))
