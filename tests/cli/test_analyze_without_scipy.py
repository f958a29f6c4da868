"""``rrmap analyze`` on the example imports no part of scipy: the effect sizes' distances
come from the engine's own (scipy.spatial alone cost the command 0.33 s of start-up)."""

from __future__ import annotations

import pytest
from command_imports import modules_loaded

import rrmap


@pytest.mark.slow  # a further start-up check: tests/rank/test_rank_fit_start_up.py keeps one
def test_analyze_imports_no_scipy(tmp_path):
    args = [str(rrmap.datasets.example_ratings_path()), "--out", str(tmp_path / "out")]
    args += ["--no-figures", "--quiet", "--permutations", "99", "--bootstrap", "50"]
    modules, res = modules_loaded("analyze", *args)
    scipy = [m for m in modules if m.split(".")[0] == "scipy"]
    assert scipy == [], res.stdout[-500:] + res.stderr[-500:]
    assert (tmp_path / "out" / "tests.csv").is_file()
