"""The notebooks run top to bottom, and each .ipynb matches its jupytext .py twin."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

# each notebook runs a whole study end to end (20-30 s): run by .ci/run (pytest -m slow)
pytestmark = pytest.mark.slow

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.py"))


def test_notebooks_found():
    assert {p.stem for p in NOTEBOOKS} >= {"01_study_walkthrough", "02_custom_plots"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom(path, tmp_path):
    # the Jupyter stack is imported by the tests that run (slow), not at collection
    import jupytext
    import nbclient
    import nbformat

    nb = jupytext.read(path)
    client = nbclient.NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError with the cell and traceback on failure
    errors = [
        out
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert errors == []
    pngs = [
        base64.b64decode(out["data"]["image/png"])
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    ]
    assert len(pngs) >= 3  # the figures were drawn and displayed
    # embedded at screen size, not print resolution (a 7 in figure at 110 dpi: 770 px)
    widths = [struct.unpack(">I", png[16:20])[0] for png in pngs]
    assert max(widths) <= 1600, widths
    assert len(nbformat.writes(nb).encode()) < 2_000_000


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_ipynb_is_clean_and_in_sync(path):
    import jupytext

    ipynb = path.with_suffix(".ipynb")
    assert ipynb.exists(), f"run: jupytext --sync {path.name}"
    paired = jupytext.read(ipynb)
    script = jupytext.read(path)
    assert [(c.cell_type, c.source) for c in paired.cells] == [
        (c.cell_type, c.source) for c in script.cells
    ], f"{ipynb.name} differs from {path.name}; run: jupytext --sync {path.name}"
    for cell in paired.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, "strip the outputs"
