import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rrmap.comparison import bhattacharyya
from rrmap.zones import QUALITY_LEVELS, Thresholds, classify


def test_levels_are_ordered_like_the_paper_tables():
    q = classify([3.0, 0.0, 0.0, 0.0], [1.0, 0.5, 1.4, 1.0])
    assert list(q.categories) == list(QUALITY_LEVELS) == ["excellent", "fair", "stereotype", "bad"]
    assert q.ordered
    assert list(q) == ["bad", "stereotype", "fair", "excellent"]


def test_excellent_extent_on_the_delta_zero_axis():
    # sqrt(2R / (1 + R^2)) = 0.98  <=>  0.9604 R^2 - 2R + 0.9604 = 0
    c = 0.98**2
    lo, hi = (1 - np.sqrt(1 - c**2)) / c, (1 + np.sqrt(1 - c**2)) / c
    assert lo == pytest.approx(1 / hi, rel=1e-14)  # BC(0, R) = BC(0, 1/R)
    eps = 1e-6
    q = classify([0] * 4, [lo - eps, lo + eps, hi - eps, hi + eps])
    assert list(q) == ["fair", "excellent", "excellent", "fair"]
    # docs/method.md states the extent to 4 decimals: 0.7512 < R < 1.3313 are excellent,
    # one step further out on either side is not
    q = classify([0] * 4, [0.7511, 0.7512, 1.3313, 1.3314])
    assert list(q) == ["fair", "excellent", "excellent", "fair"]


def test_excellent_extent_on_the_r_one_axis():
    # exp(-Δ²/8) = 0.98  <=>  |Δ| = sqrt(-8 ln 0.98)
    edge = np.sqrt(-8 * np.log(0.98))
    assert round(edge, 4) == 0.4020
    eps = 1e-6
    q = classify([-edge - eps, -edge + eps, edge - eps, edge + eps], [1.0] * 4)
    assert list(q) == ["fair", "excellent", "excellent", "fair"]
    q = classify([-0.4021, -0.4020, 0.4020, 0.4021], [1.0] * 4)
    assert list(q) == ["fair", "excellent", "excellent", "fair"]


def test_excellent_region_lies_inside_the_fair_rectangle():
    d, r = np.meshgrid(np.linspace(-3, 3, 1201), np.linspace(0.01, 3, 1201))
    excellent = bhattacharyya(d, r) > 0.98
    assert excellent.sum() > 1000
    assert np.all(np.abs(d[excellent]) < 2)
    assert np.all((r[excellent] >= 2 / 3) & (r[excellent] <= 1.5))


@pytest.mark.parametrize(
    ("delta", "r", "expected"),
    [
        (0.0, 0.5, "stereotype"),
        (1.99, 0.6, "stereotype"),
        (2.0, 0.6, "bad"),  # the Δ bound is strict
        (-1.99, 2 / 3, "fair"),  # 2/3 belongs to fair
        (0.0, 1.5, "fair"),  # 3/2 belongs to fair
        (0.0, 1.5001, "bad"),
        (0.0, 0.01, "stereotype"),
        (5.0, 1.0, "bad"),
    ],
)
def test_zone_boundaries(delta, r, expected):
    assert classify([delta], [r])[0] == expected


def test_delta_bound_option():
    assert classify([1.98], [1.0])[0] == "fair"
    assert classify([1.98], [1.0], thresholds=Thresholds(delta_bound=1.96))[0] == "bad"


def test_bad_thresholds_are_rejected_all_at_once():
    with pytest.raises(ValueError, match=r"excellent_bc.*delta_bound"):
        Thresholds(excellent_bc=1.5, delta_bound=-1)


@given(
    st.floats(-10, 10, allow_nan=False),
    st.floats(1e-3, 10, allow_nan=False),
    st.floats(0.5, 0.999),
    st.floats(0.5, 3.0),
)
def test_zone_precedence(delta, r, bc_cut, band):
    th = Thresholds(excellent_bc=bc_cut, delta_bound=band)
    got = classify([delta], [r], thresholds=th)[0]
    bc = float(bhattacharyya(delta, r))
    if bc > bc_cut:
        expected = "excellent"
    elif abs(delta) < band and r < th.stereotype_r:
        expected = "stereotype"
    elif abs(delta) < band and th.stereotype_r <= r <= th.fair_r:
        expected = "fair"
    else:
        expected = "bad"
    assert got == expected


def test_given_bc_is_used():
    # a point of the fair rectangle declared excellent through its BC
    assert classify([1.0], [1.2], bc=[0.99])[0] == "excellent"
    assert isinstance(classify([0.0], [1.0]), pd.Categorical)
