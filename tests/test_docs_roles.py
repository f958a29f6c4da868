"""The docs site's griffe extension: Sphinx roles in docstrings become autorefs references
to the documented path (skips without griffe, the ``docs`` extra; CI builds the site and
checks the rendered reference pages for raw roles)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

griffe = pytest.importorskip("griffe", reason="griffe comes with the docs extra")

HOOK = Path(__file__).resolve().parents[1] / "docs" / "_hooks" / "sphinx_roles.py"


@pytest.fixture(scope="module")
def loaded():
    spec = importlib.util.spec_from_file_location("sphinx_roles", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loader = griffe.GriffeLoader()
    package = loader.load("rrmap")
    return module, loader, package


@pytest.mark.parametrize(
    ("text", "identifier", "title"),
    [
        # an alias at the package root → where it is documented
        (":func:`rrmap.load_ratings`", "rrmap.ratings.load_ratings", "rrmap.load_ratings"),
        # a module named like its one function → that function
        (":func:`rrmap.points`", "rrmap.points.points", "rrmap.points"),
        # a lazily loaded package's name (listed in its __init__.pyi)
        (
            ":func:`~rrmap.rank.fit_bradley_terry`",
            "rrmap.rank.models.bradley_terry.fit_bradley_terry",
            "fit_bradley_terry",
        ),
        # outside the package: kept, shown as code, never a broken link
        (":class:`pandas.DataFrame`", "pandas.DataFrame", "pandas.DataFrame"),
    ],
)
def test_roles_become_optional_references(loaded, text, identifier, title):
    module, loader, package = loaded
    out = module.rewrite(f"See {text}.", package["analysis"], loader)
    assert out == (
        f'See <autoref identifier="{identifier}" optional><code>{title}</code></autoref>.'
    )


def test_short_names_are_looked_up_in_the_module_then_the_package(loaded):
    module, loader, _ = loaded
    stats = loader.modules_collection["rrmap.stats.designs"]
    out = module.rewrite(":func:`compare_groups` and :func:`energy_test`", stats, loader)
    assert 'identifier="rrmap.stats.designs.compare_groups"' in out
    assert 'identifier="rrmap.stats.energy.energy_test"' in out


def test_a_literal_block_marker_reads_as_a_colon(loaded):
    module, loader, package = loaded
    assert module.rewrite("The statistic is::\n\n    E = 1\n", package, loader) == (
        "The statistic is:\n\n    E = 1\n"
    )
