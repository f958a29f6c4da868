"""Benchmark: drawing the raters × categories grid as a notebook shows it, now and before.

A grid made on screen (not :func:`~rrmap.plot.base._sizing.off_screen`) is drawn at each
display, and again after each zoom or pan. Its panels follow each other's limits: they
were shared axes (joined once laid out), and each drawing then looked every panel's
limits up through all its siblings; they are now linked through their limits' callbacks,
with the ticks kept fixed until a panel moves.

For this checkout and a git worktree of ``--baseline`` (default ``a8e0a8c``: shared
axes), each in a fresh interpreter, on the example (3 raters) and on 10 raters (the
example's E1 as R0 … R9) at 180 mm: the CPU seconds of building the figure, of its first
drawing, of a drawing after one panel is zoomed, best of ``--repeat`` (runs alternating
between the trees), and whether the first drawing's pixels are the same in both trees.

Usage::

    python benchmarks/bench_grid_draw.py [--baseline a8e0a8c] [--repeat 3]
"""

from __future__ import annotations

from bench_speed import _compare_against

#: Run in a child interpreter with the tree on sys.path: prints {case: [cpu, digest]}.
_CHILD = r"""
import hashlib, json, time, warnings
import matplotlib
matplotlib.use("Agg")
import numpy as np
import pandas as pd
import rrmap
from rrmap.plot import plot_rrmap_grid

warnings.simplefilter("ignore")
pts = rrmap.points(rrmap.datasets.load_example_ratings())
e1 = pts[pts["expert"] == "E1"]
ten = pd.concat([e1.assign(expert=f"R{i}") for i in range(10)], ignore_index=True)
ten.attrs = pts.attrs
plot_rrmap_grid(pts, width="85mm")  # imports and fonts loaded before the clock starts
out = {}
for label, data in (("3 raters", pts), ("10 raters", ten)):
    t = time.process_time()
    fig = plot_rrmap_grid(data, width="180mm")
    built = time.process_time() - t
    t = time.process_time()
    fig.canvas.draw()
    drawn = time.process_time() - t
    pixels = hashlib.sha256(np.asarray(fig.canvas.buffer_rgba()).tobytes()).hexdigest()
    fig.axes[0].set_xlim(-1.0, 1.0)
    t = time.process_time()
    fig.canvas.draw()
    zoomed = time.process_time() - t
    out[f"{label}: build"] = [built, ""]
    out[f"{label}: draw"] = [drawn, pixels]
    out[f"{label}: draw zoomed"] = [zoomed, ""]
print(json.dumps(out))
"""


def main() -> None:
    cases = _compare_against(__doc__, "a8e0a8c", _CHILD, " of each step")
    print(f"{'case':<22} {'now':>6} {'baseline':>8} {'ratio':>6} {'same pixels':>11}")
    for case, now, old, a, b in cases:
        same = "" if not a[1] else ("yes" if a[1] == b[1] else "NO")
        print(f"{case:<22} {now:6.3f} {old:8.3f} {old / now:6.2f} {same:>11}")


if __name__ == "__main__":
    main()
