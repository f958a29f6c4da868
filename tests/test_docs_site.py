"""The documentation site as a reader sees it: built with ``mkdocs build --strict`` into a
scratch folder (skips without the ``docs`` extra), every page scanned.

- No page shows a raw Sphinx role (``:func:`agreement```): the API index writes them as
  links (``python -m rrmap.cli._reference_docs``), the reference pages through the griffe
  extension of ``docs/_hooks``.
- Signatures are laid out one parameter per line past the line length (ruff formats them,
  and comes with the ``docs`` extra).
- The home page and the README show the RRMap picture drawn by
  ``docs/_scripts/home_picture.py``.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rrmap.cli._reference_docs import api_reference

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "images" / "rrmap_home.png"
#: A role as a docstring writes it, in a page's text once the tags are gone.
RAW_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const|ref|doc):`?\w")
TOOLCHAIN = ("mkdocs", "mkdocstrings_handlers.python", "material")  # the docs extra


def _installed(module: str) -> bool:
    """Whether *module* can be imported (a submodule of a missing package cannot)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _text(page: str) -> str:
    """What a reader sees of an HTML page: no tags, no entities."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    missing = [m for m in TOOLCHAIN if not _installed(m)]
    if missing:
        pytest.skip(
            f"the docs toolchain is not installed ({', '.join(missing)}): pip install -e '.[docs]'"
        )
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "--site-dir", str(out)]
    res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    return out


def test_the_api_index_writes_no_raw_role():
    assert not RAW_ROLE.search(api_reference())
    assert (
        'Summarise <autoref identifier="rrmap.tables.agreement" optional>'
        "<code>agreement</code></autoref>: how often raters agree, and where." in api_reference()
    )


def test_no_page_of_the_site_shows_a_raw_role(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 19
    raw = {
        p.relative_to(site).as_posix(): RAW_ROLE.findall(_text(p.read_text(encoding="utf-8")))
        for p in pages
    }
    assert {page: found for page, found in raw.items() if found} == {}


def test_the_api_index_links_names_to_the_reference(site):
    page = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert (
        '<a class="autorefs autorefs-internal" title="agreement (rrmap.tables.agreement)" '
        'href="../reference/rrmap/#rrmap.tables.agreement"><code>agreement</code></a>' in page
    )
    assert "<autoref" not in page  # every reference resolved: a link, or code


def _signatures(page: str) -> list[str]:
    blocks = re.findall(r'<div class="doc-signature[^"]*"[^>]*>(.*?)</div>', page, flags=re.S)
    return [_text(b).strip() for b in blocks]


def test_signatures_take_one_parameter_per_line(site):
    page = (site / "reference" / "rrmap" / "index.html").read_text(encoding="utf-8")
    signatures = {s.split("(")[0]: s for s in _signatures(page)}
    assert signatures["load_ratings"].startswith(
        "load_ratings(\n    source,\n    *,\n    rater=None,\n"
    )
    assert signatures["points"] == (
        "points(\n    ratings,\n    *,\n    coverage=0.95,\n    z=None,\n    thresholds=None,\n"
        "    reference=None,\n    query=None,\n)"
    )
    every = [s for p in site.glob("reference/*/index.html") for s in _signatures(p.read_text())]
    assert len(every) > 50
    assert max(len(line) for s in every for line in s.splitlines()) <= 88


def test_the_home_page_shows_the_rrmap(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    assert (
        '<img alt="The RRMap of rater E1 of the example data, coloured by movement" '
        'src="images/rrmap_home.png"' in page
    )
    assert (site / "images" / "rrmap_home.png").read_bytes() == PICTURE.read_bytes()
    assert not (site / "_scripts").exists()  # the script that draws it stays out of the site


def test_the_readme_shows_the_picture_and_it_is_small():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        "![The RRMap of rater E1 of the example data, coloured by movement]"
        "(docs/images/rrmap_home.png)" in readme
    )
    assert PICTURE.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert PICTURE.stat().st_size < 300_000


def test_the_picture_script_draws_the_committed_picture(tmp_path):
    pytest.importorskip("matplotlib")
    from PIL import Image

    spec = importlib.util.spec_from_file_location(
        "home_picture", ROOT / "docs/_scripts/home_picture.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    drawn = module.draw(tmp_path / "home.png")
    with Image.open(drawn) as new, Image.open(PICTURE) as committed:
        assert new.size == committed.size == (800, 550)


def test_the_docs_extra_brings_the_signature_formatter():
    """mkdocstrings formats signatures with black or ruff when one is installed and writes
    them on one line otherwise: the ``docs`` extra must bring one."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    docs = extras["project"]["optional-dependencies"]["docs"]
    assert any(re.match(r"(ruff|black)\b", requirement) for requirement in docs), docs
