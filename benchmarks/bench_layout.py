"""Benchmark: fitting the raters × categories grid (``plot_rrmap_grid``), now and before.

The grid's height is fitted so that its panels keep their aspect: a constrained layout
measures the panels, the height is set from that measure, and a further layout checks it.
Where the legends lie under the rows, their spacer rows' height ratios are set from the
first measure; the height used to be computed as if the first layout had been made with
those ratios, so a third layout corrected it.

For this checkout and a git worktree of ``--baseline``, each in a fresh interpreter, on
the example (3 raters) and on 10 raters (the example's E1 as R0 … R9), at 85 mm and
180 mm: the CPU time of ``plot_rrmap_grid`` (best of ``--repeat``, runs alternating
between the trees), the layout passes it ran, and the largest difference of the figure's
height and of the Axes' positions between the two trees (the same figure: differences of
rounding only).

Usage::

    python benchmarks/bench_layout.py [--baseline e7a42f9] [--repeat 3]
"""

from __future__ import annotations

from bench_speed import _compare_against

#: Run in a child interpreter with the tree on sys.path: prints {case: [cpu, passes,
#: height, positions]} as JSON.
_CHILD = r"""
import json, sys, time
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
import rrmap
from rrmap.plot import plot_rrmap, plot_rrmap_grid
from rrmap.plot.figures import layouts

from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from rrmap.plot import add_legend

passes, draws = [], []
execute, draw = ConstrainedLayoutEngine.execute, Figure.draw
ConstrainedLayoutEngine.execute = lambda self, fig: passes.append(1) or execute(self, fig)
Figure.draw = lambda fig, renderer: draws.append(1) or draw(fig, renderer)
pts = rrmap.points(rrmap.datasets.load_example_ratings())
e1 = pts[pts["expert"] == "E1"]
raw = rrmap.datasets.load_example_ratings()
raw = raw[raw["expert"] == "E1"]
ten = pd.concat([raw.assign(expert=f"R{i}") for i in range(10)])
ten.attrs = raw.attrs
ten = rrmap.points(ten)
plot_rrmap(e1, "movement")  # fonts and caches warmed
plt.close("all")


def user(layout, shape, colors):
    fig, axs = plt.subplots(*shape, figsize=(7, 3.5 * shape[0]), layout=layout)
    for ax, color in zip(axs.flat, colors):
        plot_rrmap(e1, color, ax=ax)
    return fig


def shared(layout):
    fig, axs = plt.subplots(1, 3, figsize=(7, 3), layout=layout)
    for ax, rater in zip(axs, ["E1", "E2", "E3"]):
        plot_rrmap(pts[pts["expert"] == rater], "movement", ax=ax, legend=False)
    add_legend(fig)
    return fig


cases = {
    f"grid, {name}, {width}": (lambda p=points, w=width: plot_rrmap_grid(p, width=w))
    for name, points in (("3 raters", pts), ("10 raters", ten))
    for width in ("85mm", "180mm")
}
cases["ax=, 1 x 2, constrained"] = lambda: user("constrained", (1, 2), ["movement", "modality"])
cases["ax=, 1 x 2, no engine"] = lambda: user(None, (1, 2), ["movement", "modality"])
cases["ax=, 2 x 3, constrained"] = lambda: user(
    "constrained", (2, 3), ["movement", "criterion", "modality", None, "movement", None]
)
cases["add_legend, constrained"] = lambda: shared("constrained")
cases["add_legend, no engine"] = lambda: shared(None)
out = {}
for name, make in cases.items():
    passes.clear()
    draws.clear()
    t = time.process_time()
    fig = make()
    cpu = time.process_time() - t
    out[name] = [
        cpu,
        f"{len(draws)} / {len(passes)}",
        fig.get_figheight(),
        [list(ax.get_position().bounds) for ax in fig.axes],
    ]
    plt.close("all")
print(json.dumps(out))
"""


def main() -> None:
    cases = _compare_against(__doc__, "e7a42f9", _CHILD, "")
    print("draws / layouts: the figure's draws and its constrained layout passes")
    print(
        f"{'case':<26} {'now':>6} {'draws / layouts':>15} {'baseline':>8} "
        f"{'draws / layouts':>15} {'ratio':>6}"
        f" {'max |Δ height|':>15} {'max |Δ position|':>17}"
    )
    for case, now, old, a, b in cases:
        dh = abs(a[2] - b[2])
        dp = max(
            abs(x - y) for p, q in zip(a[3], b[3], strict=True) for x, y in zip(p, q, strict=True)
        )
        print(
            f"{case:<26} {now:6.2f} {a[1]:>15} {old:8.2f} {b[1]:>15} {old / now:6.2f}"
            f" {dh:15.1e} {dp:17.1e}"
        )


if __name__ == "__main__":
    main()
