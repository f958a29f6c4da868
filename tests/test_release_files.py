"""What a release needs: a licence, a citation, a changelog and extras that say what they add."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

import rrmap

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_licence_file_is_the_licence_pyproject_names():
    assert _pyproject()["project"]["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_the_citation_file_names_this_version_and_the_study():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == rrmap.__version__
    assert cff["license"] == "MIT"
    study = cff["preferred-citation"]
    assert study["doi"] == "10.3390/jimaging11120429"
    assert study["authors"][0]["family-names"] == "Deliège"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert study["doi"] in readme


def test_the_changelog_lists_this_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(rrmap.__version__)}\] - \d{{4}}-\d\d-\d\d$", text, re.M)
    assert "## [Unreleased]" in text


def test_the_all_extra_holds_every_feature_extra_and_the_readme_lists_them():
    extras = _pyproject()["project"]["optional-dependencies"]
    features = sorted(set(extras) - {"all", "test", "docs", "release"})
    assert extras["all"] == [f"rrmap[{','.join(features)}]"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in [*features, "all"]:
        assert f"| `{name}` |" in readme, name


def test_every_docs_page_is_in_the_site_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            for v in node.values():
                yield from pages(v)
        elif isinstance(node, list):
            for v in node:
                yield from pages(v)

    listed = set(pages(config["nav"]))
    on_disk = {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert on_disk == listed
    assert config["strict"] is True
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in readme and "mkdocs build --strict" in (
        ROOT / ".ci" / "run"
    ).read_text(encoding="utf-8")
