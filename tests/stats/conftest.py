"""The reference library dcor, imported on first use and run on one worker.

Importing dcor compiles its numba code: about 10 s of CPU in every process that imports it.
Imported at the top of a test module, it cost each pytest worker those seconds while
collecting, in every run, whichever tests it ran. As a fixture it is imported by the worker
that runs a test asking for it, and every such test is grouped on one worker
(``--dist loadgroup`` in pyproject.toml), so a run pays the import once.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dcor():
    """The dcor package (energy statistics and tests: the reference of rrmap.stats)."""
    import dcor

    return dcor


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "dcor" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("dcor"))
