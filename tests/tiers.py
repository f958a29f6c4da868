"""The hook of the two tiers: the README's test command and the slow tier (``-m slow``)."""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked ``first_case_by_default`` keeps its first case not marked slow already in
    the default tier; its further cases (sizes, formats, signals, ...) are marked ``slow``,
    which ``.ci/run`` runs. Every property test (hypothesis's ``@given``) is marked
    ``property``: ``.ci/run`` runs them again with all their examples
    (tests/properties.py)."""
    seen = set()
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)  # .ci/run draws all their examples
        marked = item.get_closest_marker
        if marked("first_case_by_default") is None or marked("slow") is not None:
            continue
        key = (item.path, getattr(item, "cls", None), getattr(item, "originalname", item.name))
        if key in seen:
            item.add_marker(pytest.mark.slow)
        seen.add(key)
