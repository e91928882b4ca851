import os
import tempfile

import pytest

from hwmovegen.sim.epd import bundled_suites
from hwmovegen.sim.positions import random_boards


# Compiled CXXRTL models go to a cache that is new for every test run, so the
# suite always exercises the real build instead of an earlier run's library.
os.environ["HWMOVEGEN_CACHE"] = tempfile.mkdtemp(prefix="hwmovegen-test-cache-")


@pytest.fixture(scope="session")
def suite():
    """The 133 bundled perft positions (7 CPW, then the 126 of perftsuite)."""
    return bundled_suites()


@pytest.fixture(scope="session")
def random_1000():
    return random_boards(1000, seed=2026)
