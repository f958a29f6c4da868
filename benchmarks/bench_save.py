"""Benchmark: saving the figures rrmap makes, now and before.

``rrmap.plot.save`` (or a figure's own ``savefig``) writes a figure laid out by its
constrained layout. Matplotlib prints such a figure in two draws: a first one that
renders nothing, only to run the layout, then the draw that prints. The layout now runs
at the start of the draw that prints, and the first draw is left out (PDF, SVG, rasters;
EPS and a tight bounding box as before).

For this checkout and a git worktree of ``--baseline``, each in a fresh interpreter, on
the example points: the CPU time of saving each figure in each format (best of
``--repeat``, runs alternating between the trees), the draws it took, and whether the
file is the same (dates, SVG's object ids and the encoding of SVG's embedded images
left aside; PNG compared pixel by pixel).

Usage::

    python benchmarks/bench_save.py [--baseline e8f9d94] [--repeat 3]
"""

from __future__ import annotations

from bench_speed import _compare_against

#: Run in a child interpreter with the tree on sys.path: prints {case: [cpu, draws,
#: digest of the file]} as JSON.
_CHILD = r"""
import base64, hashlib, io, json, re, time, warnings
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from PIL import Image
import rrmap
from rrmap.plot import plot_agreement, plot_proportions, plot_rrmap_by_rater, plot_rrmap_grid

warnings.simplefilter("ignore")
pts = rrmap.points(rrmap.datasets.load_example_ratings())
draws = []
real = Figure.draw
Figure.draw = lambda self, r: draws.append(1) or real(self, r)


def pixels(data):
    image = np.asarray(Image.open(io.BytesIO(data)))
    return hashlib.sha256(image.tobytes()).hexdigest()


def digest(data, fmt):
    if fmt == "png":
        return pixels(data)
    data = re.sub(rb"/CreationDate \([^)]*\)|<dc:date>[^<]*</dc:date>", b"", data)
    data = re.sub(
        rb"data:image/png;base64,\s*([A-Za-z0-9+/=\s]+)",
        lambda m: pixels(base64.b64decode(m[1])).encode(),
        data,
    )
    ids = {}
    data = re.sub(
        rb"\b(?:[pm]|image)[0-9a-f]{10}\b", lambda m: ids.setdefault(m[0], b"%d" % len(ids)), data
    )
    return hashlib.sha256(data).hexdigest()


figures = {
    "by rater, 85 mm": lambda: plot_rrmap_by_rater(pts, "movement", width="85mm"),
    "by rater, 180 mm": lambda: plot_rrmap_by_rater(pts, "movement", width="180mm"),
    "grid, 180 mm": lambda: plot_rrmap_grid(pts, width="180mm"),
    "proportions": lambda: plot_proportions(pts),
    "agreement": lambda: plot_agreement(pts),
}
plt.close(getattr(figures["agreement"](), "figure", None) or "all")  # fonts warmed
out = {}
for name, make in figures.items():
    for fmt in ("pdf", "svg", "png"):
        made = make()
        fig = getattr(made, "figure", made)
        buffer = io.BytesIO()
        draws.clear()
        t = time.process_time()
        fig.savefig(buffer, format=fmt, dpi=300)
        cpu = time.process_time() - t
        out[f"{name}, {fmt}"] = [cpu, len(draws), digest(buffer.getvalue(), fmt)]
        plt.close("all")
print(json.dumps(out))
"""


def main() -> None:
    cases = _compare_against(__doc__, "e8f9d94", _CHILD, " of savefig")
    print(
        f"{'case':<24} {'now':>6} {'draws':>5} {'baseline':>8} {'draws':>5} {'ratio':>6}"
        f" {'same file':>9}"
    )
    for case, now, old, a, b in cases:
        print(
            f"{case:<24} {now:6.2f} {a[1]:>5} {old:8.2f} {b[1]:>5} {old / now:6.2f}"
            f" {'yes' if a[2] == b[2] else 'NO':>9}"
        )


if __name__ == "__main__":
    main()
