"""``rrmap analyze`` on the example imports no part of scipy: the effect sizes' distances
come from the engine's own (scipy.spatial alone cost the command 0.33 s of start-up)."""

from __future__ import annotations

import subprocess
import sys

import rrmap


def test_analyze_imports_no_scipy(tmp_path):
    code = (
        "import sys\n"
        "from rrmap.cli import main\n"
        "try: main(sys.argv[1:])\n"
        "except SystemExit: pass\n"
        "print('SCIPY:' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy')))\n"
    )
    args = [str(rrmap.datasets.example_ratings_path()), "--out", str(tmp_path / "out")]
    args += ["--no-figures", "--quiet", "--permutations", "99", "--bootstrap", "50"]
    out = subprocess.run(
        [sys.executable, "-c", code, "analyze", *args], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "SCIPY:", out.stdout[-500:] + out.stderr[-500:]
    assert (tmp_path / "out" / "tests.csv").is_file()
