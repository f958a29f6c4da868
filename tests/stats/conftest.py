"""The reference library dcor, imported on first use.

Importing dcor compiles its numba code: about 10 s of CPU in every process that imports it.
Imported at the top of a test module, it cost every pytest worker those seconds while
collecting, in every run and tier, whether or not the worker ran a test that uses it.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dcor():
    """The dcor package (energy statistics and tests: the reference of rrmap.stats)."""
    import dcor

    return dcor
