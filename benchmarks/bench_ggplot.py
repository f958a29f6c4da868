"""Benchmark: drawing ``ggrrmap`` plots, now and before.

``RRMapPlot.draw`` lays the plot out for its figure on drafts: plotnine draws the plot
(without the points and the background) with its legends beside the panels, then below
them, each rearranged until nothing is cropped, and keeps the arrangement whose panels
are the largest. A draft costs about as much as the final draw.

For this checkout and a git worktree of ``--baseline``, each in a fresh interpreter, on
the example points: the CPU time of ``p.draw()`` (best of ``--repeat``, runs alternating
between the trees), the drafts it drew, and the largest difference between the two
trees' figures: the Axes' positions and the legends' boxes (inches), and whether every
text (string and position) is the same.

Usage::

    python benchmarks/bench_ggplot.py [--baseline 3090d03] [--repeat 3]
"""

from __future__ import annotations

from bench_speed import _compare_against

#: Run in a child interpreter with the tree on sys.path: prints {case: [cpu, drafts,
#: boxes, texts]} as JSON.
_CHILD = r"""
import json, time, warnings
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from plotnine import facet_wrap, ggplot, labs, theme
import rrmap
from rrmap.plot import ggrrmap, theme_rrmap

warnings.simplefilter("ignore")
pts = rrmap.points(rrmap.datasets.load_example_ratings())
e1 = pts[pts["expert"] == "E1"]
draws = []
real = ggplot.draw
ggplot.draw = lambda self, *a, **k: draws.append(1) or real(self, *a, **k)
plt.close(ggrrmap(e1, "movement").draw())  # fonts and caches warmed

cases = {
    "single, 7 x 5 in": lambda: ggrrmap(pts, "movement"),
    "single, no colour": lambda: ggrrmap(pts),
    "single, 3.5 x 3 in": lambda: ggrrmap(pts, "movement") + theme(figure_size=(3.5, 3)),
    "facets 1 x 3, 7 x 3 in": lambda: (
        ggrrmap(pts, "movement") + facet_wrap("expert") + theme(figure_size=(7, 3))
    ),
    "facets 2 x 2, 7 x 5 in": lambda: ggrrmap(pts, "expert") + facet_wrap("modality"),
    "theme_rrmap, 7 x 3 in": lambda: (
        ggrrmap(pts, "movement") + theme_rrmap() + theme(figure_size=(7, 3))
    ),
    "long title, 3.5 x 3.5 in": lambda: (
        ggrrmap(e1, "movement")
        + labs(title="Expert E1 on the five movements, reference against generated images")
        + theme(figure_size=(3.5, 3.5))
    ),
}
out = {}
for name, make in cases.items():
    plot = make()
    draws.clear()
    t = time.process_time()
    fig = plot.draw()
    cpu = time.process_time() - t
    fig.canvas.draw()
    inch = fig.dpi_scale_trans.inverted()
    boxes = [list(ax.get_position().bounds) for ax in fig.axes]
    boxes += [
        list(leg.get_window_extent().transformed(inch).bounds)
        for leg in fig.legends + [a for ax in fig.axes for a in ax.artists]
    ]
    texts = sorted(
        (t.get_text(), round(t.get_window_extent().x0, 1), round(t.get_window_extent().y0, 1))
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_visible() and t.get_text()
    )
    out[name] = [cpu, len(draws) - 1, boxes, texts]
    plt.close("all")
print(json.dumps(out))
"""


def main() -> None:
    cases = _compare_against(__doc__, "3090d03", _CHILD, " of p.draw()")
    print(
        f"{'case':<26} {'now':>6} {'drafts':>6} {'baseline':>8} {'drafts':>6} {'ratio':>6}"
        f" {'max |Δ box|':>12} {'same texts':>10}"
    )
    for case, now, old, a, b in cases:
        if len(a[2]) != len(b[2]):
            box = "artists differ"
        else:
            d = max(
                abs(x - y)
                for p, q in zip(a[2], b[2], strict=True)
                for x, y in zip(p, q, strict=True)
            )
            box = f"{d:.1e}"
        print(
            f"{case:<26} {now:6.2f} {a[1]:>6} {old:8.2f} {b[1]:>6} {old / now:6.2f}"
            f" {box:>12} {'yes' if a[3] == b[3] else 'NO':>10}"
        )


if __name__ == "__main__":
    main()
