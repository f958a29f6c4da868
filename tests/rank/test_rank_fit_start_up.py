"""``rrmap rank fit`` imports no ``scipy.stats``: the alignment's rank tests and the position
effect's χ² import it when they run (it cost the command 1.3 s of its 2.1–2.9 s)."""

from __future__ import annotations

import pandas as pd
from command_imports import modules_loaded

PREFS = (
    "instance,left,right,winner\n"
    "i1,A,B,left\ni1,B,C,left\ni1,C,A,left\ni1,A,C,left\ni1,B,A,right\n"
    "i2,A,B,left\ni2,B,C,left\ni2,C,A,right\ni2,A,C,left\ni2,B,C,right\n"
)


def test_fit_imports_no_scipy_stats(tmp_path):
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(PREFS, encoding="utf-8")
    out = tmp_path / "ranking.csv"
    modules, res = modules_loaded("rank", "fit", str(prefs), "-o", str(out))
    stats = [m for m in modules if m.startswith("scipy.stats")]
    assert stats == [], res.stdout[-500:] + res.stderr[-500:]
    assert pd.read_csv(out)["candidate"].tolist() == ["A", "B", "C"]
