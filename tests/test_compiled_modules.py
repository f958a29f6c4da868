"""The links that give a new pycache prefix the compiled modules installed packages have."""

from __future__ import annotations

import importlib.util
import os
import sys

from compiled_modules import _link_installed_modules


def _package(root, tag):
    """A package with one module and its compiled module in ``__pycache__``."""
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    source = root / "pkg" / "mod.py"
    source.write_text("x = 1\n")
    compiled = root / "pkg" / "__pycache__" / f"mod.{tag}.pyc"
    compiled.write_bytes(b"compiled")
    (root / "pkg" / "__pycache__" / f"mod.{tag}.opt-1.pyc").write_bytes(b"optimised")
    return source, compiled


def test_the_prefix_links_where_python_looks_and_only_once(tmp_path, monkeypatch):
    tag = sys.implementation.cache_tag
    repo, installed, prefix = tmp_path / "repo", tmp_path / "site", tmp_path / "prefix"
    repo.mkdir()
    source, compiled = _package(installed, tag)
    _package(repo, tag)  # the project's own modules are compiled into the prefix, not linked
    monkeypatch.setattr(sys, "path", [str(repo), str(installed)])
    monkeypatch.setattr(sys, "pycache_prefix", str(prefix))

    _link_installed_modules(prefix, repo)

    looked_up = importlib.util.cache_from_source(str(source))
    assert os.path.samefile(looked_up, compiled)
    linked = sorted(p.name for p in prefix.rglob("*.pyc"))
    assert linked == [f"mod.{tag}.pyc"]  # neither the optimised one nor the project's
    compiled.unlink()  # a second run finds the prefix linked and walks nothing
    (installed / "pkg" / "__pycache__" / f"other.{tag}.pyc").write_bytes(b"later")
    _link_installed_modules(prefix, repo)
    assert sorted(p.name for p in prefix.rglob("*.pyc")) == linked
