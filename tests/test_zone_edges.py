"""Zones on their edges: integer and one-decimal ratings against exact arithmetic.

Raters write whole numbers (or one decimal), so width ratios of exactly 2:3 and
3:2 and, with z = 1.96, shifts of exactly |Δ| = 2 are common. The reference
here classifies with exact rationals (``fractions.Fraction``) for Δ and R and
with 60-digit decimals for BC (which is never exactly 0.98 for rational
input: a nonzero rational exponent makes exp transcendental). rrmap must agree
on every interval pair, boundaries included, for both z settings.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import rrmap
from rrmap.comparison import compare_bounds
from rrmap.errors import InputError
from rrmap.zones import Thresholds, classify, classify_bounds

# z settings: the paper's 1.96 (exactly 49/25 to its users) and the exact quantile,
# taken as the rational value of the double rrmap uses
Z_SETTINGS = {"1.96": (1.96, F("1.96")), "exact": (rrmap.Z_95, F(rrmap.Z_95))}
BOUNDS = {"2": (2.0, F(2)), "1.96": (1.96, F("1.96"))}


def exact_zone(a1: F, b1: F, a2: F, b2: F, z: F, delta_bound: F) -> str:
    """The zone of one comparison in exact arithmetic (SPEC §2.4, paper thresholds)."""
    w1, w2 = b1 - a1, b2 - a2
    r = w2 / w1
    delta = z * ((a2 + b2) - (a1 + b1)) / w1
    with localcontext() as ctx:
        ctx.prec = 60
        rr = Decimal(r.numerator) / Decimal(r.denominator)
        dd = Decimal(delta.numerator) / Decimal(delta.denominator)
        # BC > 0.98  ⇔  BC² = 2R/(1+R²) · exp(−Δ²/(2(1+R²))) > 0.9604
        bc2 = 2 * rr / (1 + rr * rr) * (-(dd * dd) / (2 * (1 + rr * rr))).exp()
        if bc2 > Decimal("0.9604"):
            return "excellent"
    band = abs(delta) < delta_bound
    if band and r < F(2, 3):
        return "stereotype"
    if band and F(2, 3) <= r <= F(3, 2):
        return "fair"
    return "bad"


def rrmap_zones(bounds: np.ndarray, z: float, delta_bound: float) -> list[str]:
    """rrmap's zones for rows (a1, b1, a2, b2) given as doubles, as a file would give them,
    both ways: from the bounds (exact) and from the doubles Δ, R, BC (4-ulp tolerance),
    which agree on whole numbers and one decimal."""
    th = Thresholds(delta_bound=delta_bound)
    exact = list(classify_bounds(*bounds.T, z=z, thresholds=th))
    d, r, bc = compare_bounds(bounds[:, 0], bounds[:, 1], bounds[:, 2], bounds[:, 3], z=z)
    assert list(classify(d, r, bc, th)) == exact
    return exact


def all_integer_pairs(top: int) -> np.ndarray:
    intervals = [(a, b) for a in range(top + 1) for b in range(a + 1, top + 1)]
    return np.array([(*i, *j) for i in intervals for j in intervals], dtype=float)


@pytest.mark.parametrize("zname", list(Z_SETTINGS))
@pytest.mark.parametrize("bname", list(BOUNDS))
def test_every_integer_interval_pair_on_a_small_scale(zname, bname):
    """All 6,084 pairs of integer intervals on 0–12: every R = 2/3, 3/2 and |Δ| tie included."""
    z, zf = Z_SETTINGS[zname]
    bound, bf = BOUNDS[bname]
    rows = all_integer_pairs(12)
    got = rrmap_zones(rows, z, bound)
    want = [exact_zone(*(F(int(v)) for v in row), zf, bf) for row in rows]
    wrong = [(tuple(rows[i]), got[i], want[i]) for i in range(len(rows)) if got[i] != want[i]]
    assert not wrong, wrong[:10]
    # the grid really exercises the edges
    r = (rows[:, 3] - rows[:, 2]) / (rows[:, 1] - rows[:, 0])
    assert (r == 1.5).sum() > 100 and (np.isclose(r, 2 / 3)).sum() > 100


def edge_pairs(decimals: int):
    """Interval pairs on 0–100 in steps of 10^-decimals, steered onto the zone edges."""
    unit = 10**decimals
    top = 100 * unit

    @st.composite
    def build(draw):
        kind = draw(st.sampled_from(["any", "r=2/3", "r=3/2", "delta=2", "delta=1.96"]))
        if kind == "delta=2":
            # 1.96·K/w1 = 2 with K the difference of the sums: w1 = 49 m, K = ±50 m
            m = draw(st.integers(1, top // 100))
            w1, k = 49 * m, draw(st.sampled_from([-1, 1])) * 50 * m
        else:
            # a multiple of 6 keeps 2/3 and 3/2 of it whole
            w1 = draw(st.integers(1, top)) if kind == "any" else 6 * draw(st.integers(1, top // 9))
            k = draw(st.integers(-top, top))
            if kind == "delta=1.96":
                k = draw(st.sampled_from([-1, 1])) * w1
        a1 = draw(st.integers(0, top - w1))
        w2 = {
            "r=2/3": w1 * 2 // 3,
            "r=3/2": w1 * 3 // 2,
        }.get(kind, draw(st.integers(1, top)))
        w2 = max(1, min(w2, top))
        # a2 + b2 = a1 + b1 + k  →  2 a2 = 2 a1 + w1 + k − w2 (keep the parity right)
        twice = 2 * a1 + w1 + k - w2
        a2 = twice // 2
        a2 = max(0, min(a2, top - w2))
        return tuple(F(v, unit) for v in (a1, a1 + w1, a2, a2 + w2))

    return build()


def check_pairs(pairs, zname, bname, tolerant=True):
    z, zf = Z_SETTINGS[zname]
    bound, bf = BOUNDS[bname]
    # the doubles a CSV gives: float("40.5") is the double nearest to 81/2
    rows = np.array([[float(v) for v in p] for p in pairs])
    if tolerant:
        got = rrmap_zones(rows, z, bound)
    else:
        got = list(classify_bounds(*rows.T, z=z, thresholds=Thresholds(delta_bound=bound)))
    want = [exact_zone(*p, zf, bf) for p in pairs]
    assert got == want, [(p, g, w) for p, g, w in zip(pairs, got, want, strict=True) if g != w]


@given(st.lists(edge_pairs(0), min_size=1, max_size=40))
@example([(F(40), F(60), F(35), F(65))])  # R = 3/2 exactly: fair, not bad
@example([(F(35), F(65), F(40), F(60))])  # R = 2/3 exactly: fair, not stereotype
@example([(F(0), F(49), F(25), F(74))])  # Δ = 2 exactly with z = 1.96: bad
def test_integer_ratings_on_the_edges(pairs):
    for zname in Z_SETTINGS:
        for bname in BOUNDS:
            check_pairs(pairs, zname, bname)


@given(st.lists(edge_pairs(1), min_size=1, max_size=40))
@example([(F("40.1"), F("60.3"), F("35.05"), F("65.35"))])
@example([(F("60.2"), F("60.3"), F("10.1"), F("10.25"))])  # R = 3/2 with widths 0.1 and 0.15
def test_one_decimal_ratings_on_the_edges(pairs):
    for zname in Z_SETTINGS:
        for bname in BOUNDS:
            check_pairs(pairs, zname, bname)


@given(st.lists(edge_pairs(7), min_size=1, max_size=40))
@example([(F("48.5151261"), F("48.5152927"), F("48.5152111"), F("48.5153777"))])  # Δ = 2, z 1.96
@example([(F(0), F("19.641293"), F("10.021252"), F("29.662545"))])  # Δ = 2 − 1.5e-15, exact z
def test_seven_decimal_ratings_on_the_edges(pairs):
    """Bounds with seven decimals, steered onto the edges: decided from the bounds, exactly
    (from the doubles Δ and R alone, with a tolerance, some of these cannot be)."""
    for zname in Z_SETTINGS:
        for bname in BOUNDS:
            check_pairs(pairs, zname, bname, tolerant=False)


def test_seven_decimal_cases_reported():
    rows = np.array([[48.5151261, 48.5152927, 48.5152111, 48.5153777]])
    assert list(classify_bounds(*rows.T, z=1.96)) == ["bad"]  # exactly on |Δ| = 2
    d, r, bc = compare_bounds(*rows.T, z=1.96)
    assert d[0] == pytest.approx(2, rel=1e-12)
    # off the boundary by 1.5e-15: inside the band, though within 4 ulps of 2
    rows = np.array([[0.0, 19.641293, 10.021252, 29.662545]])
    assert list(classify_bounds(*rows.T, z=rrmap.Z_95)) == ["fair"]
    d, r, bc = compare_bounds(*rows.T, z=rrmap.Z_95)
    assert list(classify(d, r, bc)) == ["bad"]  # the tolerance of classify cannot tell


def test_many_decimals_and_not_decimals_are_decided_exactly():
    """Bounds the decimal scaling cannot make integers (16+ significant digits) still get
    the exact zone of the decimals they were written as."""
    pairs = [
        (F("0.1"), F("0.30000000000000004"), F("0.15"), F("0.45")),
        (F("1e-7"), F("3.0000001e-7"), F("2e-7"), F("5e-7")),
        (F("12.345678901234"), F("42.345678901234"), F("17.345678901234"), F("62.345678901234")),
    ]
    for zname in Z_SETTINGS:
        for bname in BOUNDS:
            check_pairs(pairs, zname, bname, tolerant=False)


def _computed_intervals_near_every_threshold(rng, n: int, placed: bool = True) -> np.ndarray:
    """Rows (a1, b1, a2, b2) of doubles that are no short decimals (as ``mean ± 1.96·sd``
    gives them), at magnitudes from 10⁻³ to 10⁶ and widths from 10⁻¹² to 1 of the
    magnitude: a third anywhere, two thirds placed on Δ = ±2, R = 2/3 or 3/2 or
    BC = 0.98, off by a relative 10⁻¹⁶ to 10⁻² (unless not *placed*).

    Examples: (1.96, 0.6666…, 0.98) are hit within rounding, so both sides occur."""
    z = 1.96
    scale = 10.0 ** rng.uniform(-3, 6, n)
    w1 = scale * 10.0 ** rng.uniform(-12, 0, n)
    a1 = scale * rng.uniform(-1, 1, n)
    target = rng.integers(0, 6 if placed else 1, n)
    off = np.where(rng.random(n) < 0.5, -1, 1) * 10.0 ** rng.uniform(-16, -2, n)
    delta = rng.uniform(-4, 4, n)
    r = np.exp(rng.uniform(-1.5, 1.5, n))
    delta = np.where(target == 1, 2 * (1 + off), np.where(target == 2, -2 * (1 + off), delta))
    r = np.where(target == 3, 2 / 3 * (1 + off), np.where(target == 4, 1.5 * (1 + off), r))
    # BC = 0.98 at R = 1 when Δ² = −8 ln 0.98
    on_bc = target == 5
    r[on_bc] = 1.0 + off[on_bc] * 1e-3
    delta[on_bc] = np.sqrt(-8 * np.log(0.98)) * (1 + off[on_bc])
    w2 = r * w1
    mid2 = a1 + w1 / 2 + delta * w1 / (2 * z)
    return np.column_stack([a1, a1 + w1, mid2 - w2 / 2, mid2 + w2 / 2])


def test_bounds_that_are_not_decimals_are_decided_as_in_exact_arithmetic(monkeypatch):
    """Doubles that are no decimal of up to 15 places are decided in doubles where their
    rounding cannot reach a threshold (a bound on it from the magnitudes and widths), and
    exactly elsewhere: every zone equals the exact one of the decimals they read back as."""
    import rrmap.zones as zones

    rows = _computed_intervals_near_every_threshold(np.random.default_rng(11), 4000)
    keep = (rows[:, 1] > rows[:, 0]) & (rows[:, 3] > rows[:, 2])
    rows = rows[keep]
    exact_calls = []
    real = zones._exact_zone
    monkeypatch.setattr(
        zones, "_exact_zone", lambda *a: exact_calls.append(1) or real(*a), raising=True
    )
    for zname, (zf, zq) in Z_SETTINGS.items():
        got = list(classify_bounds(*rows.T, z=zf))
        want = [exact_zone(*(F(repr(float(v))) for v in row), zq, F(2)) for row in rows]
        mismatch = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
        assert not mismatch, (zname, rows[mismatch[:5]].tolist())
        assert len(set(want)) == 4, zname  # every zone occurs
    # rows far from every threshold need no exact arithmetic
    far = _computed_intervals_near_every_threshold(np.random.default_rng(12), 2000, placed=False)
    d, r, bc = compare_bounds(*far.T, z=1.96)
    clear = (
        ((np.abs(np.abs(d) - 2) > 1e-3) & (np.abs(r - 2 / 3) > 1e-3) & (np.abs(r - 1.5) > 1e-3))
        & (np.abs(bc - 0.98) > 1e-3)
        & (far[:, 1] - far[:, 0] > 1e-6 * np.abs(far).max(axis=1))
    )
    exact_calls.clear()
    classify_bounds(*far[clear].T, z=1.96)
    assert clear.sum() > 500 and exact_calls == []


def test_the_reported_cases_through_points():
    """The three cases of the report, through load_ratings and points as a user runs them."""
    pairs = {
        "r=3/2": ((40, 60), (35, 65), None, "fair"),
        "r=2/3": ((35, 65), (40, 60), None, "fair"),
        "delta=2": ((0, 49), (25, 74), 1.96, "bad"),
        "delta=1.96": ((40, 60), (50, 70), 1.96, "bad"),  # with delta_bound = 1.96
    }
    for name, (ref, qry, z, zone) in pairs.items():
        df = pd.DataFrame(
            {
                "expert": ["E1", "E1"],
                "origin": ["real", "generated"],
                "item": [name, name],
                "low rating": [ref[0], qry[0]],
                "high rating": [ref[1], qry[1]],
            }
        )
        th = Thresholds(delta_bound=1.96) if name == "delta=1.96" else None
        pts = rrmap.points(rrmap.load_ratings(df), z=z, thresholds=th)
        assert pts["quality"].iloc[0] == zone, name
    d, r, _ = rrmap.compare_intervals((40, 60), (35, 65))
    assert (d, r) == (0.0, 1.5)
    # seven decimals through a file: on |Δ| = 2 exactly
    df = pd.DataFrame(
        {"expert": ["E1", "E1"], "origin": ["real", "generated"], "item": ["x", "x"],
         "low rating": [48.5151261, 48.5152111], "high rating": [48.5152927, 48.5153777]}
    )  # fmt: skip
    assert rrmap.points(rrmap.load_ratings(df), z=1.96)["quality"].iloc[0] == "bad"


def test_exhaustive_grid_through_points_matches_compare_bounds():
    """The file path (decimal strings → doubles → points) gives the same zones as the grid."""
    rows = all_integer_pairs(6)
    n = len(rows)
    df = pd.DataFrame(
        {
            "expert": "E1",
            "origin": np.tile(["real", "generated"], n),
            "item": np.repeat(np.arange(n).astype(str), 2),
            "low rating": rows[:, [0, 2]].ravel() / 10,
            "high rating": rows[:, [1, 3]].ravel() / 10,
        }
    )
    pts = rrmap.points(rrmap.load_ratings(df), z=1.96)
    pts = pts.set_index(pts["item"].astype(int)).sort_index()
    want = [exact_zone(*(F(int(v), 10) for v in row), F("1.96"), F(2)) for row in rows]
    assert pts["quality"].astype(str).tolist() == want


@pytest.mark.parametrize(
    ("delta", "r", "bc", "message"),
    [
        ([0.0, np.nan], [1.0, 1.0], None, "delta is NaN or infinite at position 1"),
        ([0.0], [np.nan], None, "r is NaN or infinite at position 0"),
        ([0.0, 0.0], [1.0, 0.0], None, "r must be positive, got 0.0 at position 1"),
        ([0.0], [-1.0], None, "r must be positive, got -1.0 at position 0"),
        ([0.0], [1.0], [1.5], "bc must lie in \\[0, 1\\], got 1.5 at position 0"),
        ([0.0], [1.0], [np.nan], "bc is NaN or infinite at position 0"),
    ],
)
def test_classify_rejects_what_is_not_a_point(delta, r, bc, message):
    with pytest.raises(InputError, match=message):
        classify(delta, r, bc)


def test_classify_counts_values_a_few_ulps_off_as_on_the_boundary():
    th = Thresholds()
    up, down = np.nextafter(1.5, 2), np.nextafter(2.0, 0)
    assert list(classify([0.0, 0.0], [up, np.nextafter(2 / 3, 0)], thresholds=th)) == [
        "fair",
        "fair",
    ]
    assert list(classify([down, -down], [1.0, 1.0], thresholds=th)) == ["bad", "bad"]
    # clearly inside and outside are untouched
    assert list(classify([0.0, 1.9, 0.0], [1.5001, 1.0, 0.6666], thresholds=th)) == [
        "bad",
        "fair",
        "stereotype",
    ]


def test_small_grid_has_every_zone():
    zones = set(rrmap_zones(all_integer_pairs(12), 1.96, 2.0))
    assert zones == {"excellent", "fair", "stereotype", "bad"}
