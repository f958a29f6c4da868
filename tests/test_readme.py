"""The README's Python example is short (tests/test_docs.py runs it as written, on the
shipped example data, and checks what it prints and writes)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example_is_one_short_block():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(code.strip().splitlines()) <= 10
