"""The first author of the RRMap study is Adrien Deliège: one spelling everywhere."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# every text the project writes itself (the FineArtBench data is a third party's)
TEXTS = ("*.md", "*.cff", "*.bib", "*.py", "*.ipynb", "*.toml", "*.yml")
NAME = re.compile(r"\bDeli(?!ght)\w*")


def _files():
    """The project's own texts: hidden folders (``.venv``, ``.git``, caches) and the built
    site are pruned before they are walked, not filtered after."""
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "site"]
        for name in files:
            if any(fnmatch.fnmatch(name, pattern) for pattern in TEXTS):
                yield Path(folder, name)


def test_the_first_author_is_spelt_deliege_everywhere():
    spellings = {}
    for path in _files():
        for name in NAME.findall(path.read_text(encoding="utf-8", errors="replace")):
            spellings.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    # this file spells the name only inside the pattern and the docstring
    assert set(spellings) == {"Deliège"}, spellings


def test_the_citation_file_names_adrien_deliege_first():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert "- family-names: Deliège\n      given-names: Adrien" in text
