"""The README's Python example runs as written (on the shipped example data)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example_runs(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(code.strip().splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "example_ratings.csv").write_bytes(
        (ROOT / "data" / "example_ratings.csv").read_bytes()
    )
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "excellent" in out and "all different" in out
    assert (tmp_path / "results" / "tests.csv").is_file()
    assert (tmp_path / "results" / "report.md").is_file()
