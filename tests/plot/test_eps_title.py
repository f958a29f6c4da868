"""An EPS/PS file names itself in ``%%Title``, not the temporary file it was written as."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from rrmap.plot import save
from rrmap.plot._render import render


@pytest.mark.parametrize("name", ["map.eps", "Karte é.ps"])
def test_a_saved_postscript_file_is_titled_with_its_own_name(tmp_path, monkeypatch, name):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the same CreationDate in both files
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    (tmp_path / "saved").mkdir()
    (tmp_path / "direct").mkdir()
    target = save(fig, tmp_path / "saved" / name)
    # matplotlib writing the file under its own name directly: byte for byte the same
    render(fig, name.rsplit(".", 1)[1], 300, tmp_path / "direct" / name)
    plt.close(fig)
    assert target.read_bytes() == (tmp_path / "direct" / name).read_bytes()
    head = target.read_bytes()[:1024].decode("ascii")
    titles = [line for line in head.splitlines() if line.startswith("%%Title")]
    # matplotlib's own encoding of the name: ASCII, other characters as "?"
    assert titles == ["%%Title: " + name.encode("ascii", "replace").decode("ascii")]
    assert [p.name for p in (tmp_path / "saved").iterdir()] == [name]  # no temporary file


def test_a_ggplot_saved_as_eps_is_titled_with_its_own_name(tmp_path):
    import pandas as pd
    from plotnine import aes, geom_point, ggplot

    p = ggplot(pd.DataFrame({"x": [0, 1], "y": [1, 0]}), aes("x", "y")) + geom_point()
    target = save(p, tmp_path / "gg.eps", width="2in", height="2in")
    head = target.read_bytes()[:1024].decode("ascii")
    titles = [line for line in head.splitlines() if line.startswith("%%Title")]
    assert titles == ["%%Title: gg.eps"]
    assert [q.name for q in tmp_path.iterdir()] == ["gg.eps"]
