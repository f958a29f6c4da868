"""Quality colours apart in grey, and many options each with a look of its own.

Measured before: the closest two quality colours were 13.7 L* apart in grey (excellent
#006D52 at 40.5, bad #D55E00 at 54.2); with 20 criteria, crit00 and crit14 were a blue
circle and a blue hexagon (alike at 5 pt), as were crit02 and crit16 (green diamonds
"D" and "d") and crit08 and crit15.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb

from rrmap.plot import QUALITY_COLORS, panel_artists, plot_rrmap
from rrmap.plot.base._style import style_map

#: Marker shapes that read as one at a glance.
ALIKE = {"o": "round", "h": "round", "H": "round", "p": "round", "8": "round", "d": "D"}


def lightness(colour) -> float:
    """CIELAB L* of an sRGB colour: sRGB → linear light → luminance Y → L*."""
    c = np.asarray(to_rgb(colour))
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = float(lin @ [0.2126, 0.7152, 0.0722])
    return 116 * y ** (1 / 3) - 16 if y > 216 / 24389 else 24389 / 27 * y


def closest_greys(colours) -> float:
    return min(abs(lightness(a) - lightness(b)) for a, b in itertools.combinations(colours, 2))


def test_the_lightness_formula_and_the_old_colours():
    assert abs(lightness("white") - 100.0) < 1e-9
    assert abs(lightness("#777777") - 50.0) < 0.5
    old = ["#006D52", "#56B4E9", "#F0E442", "#D55E00"]
    assert round(closest_greys(old), 1) == 13.7


def test_any_two_quality_colours_are_15_lightness_apart():
    assert closest_greys(QUALITY_COLORS.values()) >= 15.0
    assert round(closest_greys(QUALITY_COLORS.values()), 1) == 15.6  # fair and bad


def look(style):
    colour, marker = style
    return colour, ALIKE.get(marker, marker)


def test_twenty_criteria_look_each_unlike_the_others():
    levels = [f"crit{i:02d}" for i in range(20)]
    styles = style_map(levels, None, None, "criterion")
    looks = [look(styles[lv]) for lv in levels]
    alike = [
        (a, b) for a, b in itertools.combinations(levels, 2) if look(styles[a]) == look(styles[b])
    ]
    assert alike == []
    assert len(set(looks)) == 20
    assert styles["crit00"] == ("#0072B2", "o") and styles["crit14"] == ("#0072B2", "X")


def test_the_legend_of_a_twenty_criteria_map_shows_twenty_looks():
    rng = np.random.default_rng(0)
    pts = pd.DataFrame(
        {
            "delta": rng.normal(0, 0.5, 200),
            "r": rng.uniform(0.5, 1.5, 200),
            "criterion": [f"crit{i % 20:02d}" for i in range(200)],
        }
    )
    ax = plot_rrmap(pts, color="criterion", resolution=20)
    handles = panel_artists(ax).legend.legend_handles
    looks = {(h.get_markerfacecolor(), ALIKE.get(h.get_marker(), h.get_marker())) for h in handles}
    assert len(handles) == 20 and len(looks) == 20
