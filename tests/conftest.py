import pytest

from hwmovegen.sim.epd import bundled_suites
from hwmovegen.sim.positions import random_boards


@pytest.fixture(scope="session")
def suite():
    """The 133 bundled perft positions (7 CPW, then the 126 of perftsuite)."""
    return bundled_suites()


@pytest.fixture(scope="session")
def random_1000():
    return random_boards(1000, seed=2026)
