"""Draw the picture of the docs' home page and the README from the shipped example data.

The RRMap of one rater of ``data/example_ratings.csv`` (each point one comparison of a
generated and a historical interval, coloured by movement), 5 in wide at 160 dpi (800 px)::

    python docs/_scripts/home_picture.py        # writes docs/images/rrmap_home.png

Run it again when the example data or the map's drawing change.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import rrmap
from rrmap.plot import plot_rrmap, save

OUT = Path(__file__).resolve().parents[1] / "images" / "rrmap_home.png"
WIDTH = "5in"
DPI = 160


def draw(path: Path = OUT) -> Path:
    """Draw the picture into *path* (PNG) and return it."""
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    ax = plot_rrmap(pts[pts["expert"] == "E1"], "movement", width=WIDTH)
    save(ax, path, dpi=DPI)
    return path


if __name__ == "__main__":
    print(f"wrote {draw(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)}")
