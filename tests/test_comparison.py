import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import norm

from rrmap.comparison import bhattacharyya, compare, compare_intervals
from rrmap.gaussian import Z_95


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (((30, 40), (35, 45)), ((60, 80), (70, 90))),  # the paper's shift example (§2.2.4)
        (((50, 60), (45, 65)), ((30, 60), (15, 75))),  # the paper's scale example (§2.2.4)
    ],
)
def test_spec_invariance_pairs(a, b):
    np.testing.assert_allclose(compare_intervals(*a), compare_intervals(*b), rtol=1e-12)


def test_closed_form_values_of_the_first_pair():
    d, r, _ = compare_intervals((30, 40), (35, 45), z=1.96)
    # m2 - m1 = 5, s1 = 10 / (2 * 1.96)
    assert d == pytest.approx(5 / (10 / 3.92))
    assert r == 1.0


def test_delta_scales_with_z_and_r_does_not():
    d_exact, r_exact, _ = compare_intervals((30, 40), (35, 45))
    d_paper, r_paper, _ = compare_intervals((30, 40), (35, 45), z=1.96)
    assert d_paper / d_exact == pytest.approx(1.96 / Z_95, rel=1e-14)
    assert r_exact == r_paper


def _bc_numeric(m1, s1, m2, s2):
    f = lambda x: np.sqrt(norm.pdf(x, m1, s1) * norm.pdf(x, m2, s2))  # noqa: E731
    lo = min(m1 - 12 * s1, m2 - 12 * s2)
    hi = max(m1 + 12 * s1, m2 + 12 * s2)
    return quad(f, lo, hi, points=[m1, m2], limit=200)[0]


@pytest.mark.parametrize(
    ("m1", "s1", "m2", "s2"),
    [(0, 1, 0, 1), (40, 5, 45, 5), (40, 5, 40, 2), (10, 3, 30, 9), (50, 8, 20, 1)],
)
def test_bc_equals_the_overlap_integral(m1, s1, m2, s2):
    _, _, bc = compare(m1, s1, m2, s2)
    assert float(bc) == pytest.approx(_bc_numeric(m1, s1, m2, s2), rel=1e-7)


def test_bc_in_map_coordinates_equals_equation_3():
    m1, s1, m2, s2 = 30.0, 4.0, 37.0, 6.0
    eq3 = np.sqrt(2 * s1 * s2 / (s1**2 + s2**2)) * np.exp(-((m2 - m1) ** 2) / (4 * (s1**2 + s2**2)))
    d, r, bc = compare(m1, s1, m2, s2)
    assert float(bc) == pytest.approx(eq3, rel=1e-14)
    assert float(bhattacharyya(d, r)) == pytest.approx(eq3, rel=1e-14)


def test_spec_bc_facts():
    assert float(bhattacharyya(0, 2 / 3)) == pytest.approx(np.sqrt(12 / 13), rel=1e-14)
    assert round(float(bhattacharyya(0, 2 / 3)), 4) == 0.9608
    for d in (-1.96, 1.96):
        assert round(float(bhattacharyya(d, 2 / 3)), 3) == 0.494


def test_invalid_interval_is_rejected():
    with pytest.raises(ValueError, match="low < high"):
        compare_intervals((40, 30), (10, 20))


bound = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)
width = st.floats(min_value=1e-2, max_value=1e3, allow_nan=False)


@given(bound, width, bound, width, st.floats(0.01, 100), st.floats(-1e3, 1e3))
def test_affine_invariance(a1, w1, a2, w2, scale, offset):
    ref, qry = (a1, a1 + w1), (a2, a2 + w2)
    base = compare_intervals(ref, qry)
    moved = compare_intervals(
        (scale * ref[0] + offset, scale * ref[1] + offset),
        (scale * qry[0] + offset, scale * qry[1] + offset),
    )
    np.testing.assert_allclose(moved, base, rtol=1e-6, atol=1e-9)


@given(bound, width, bound, width)
def test_reflection_flips_delta_only(a1, w1, a2, w2):
    d, r, bc = compare_intervals((a1, a1 + w1), (a2, a2 + w2))
    d2, r2, bc2 = compare_intervals((-a1 - w1, -a1), (-a2 - w2, -a2))
    np.testing.assert_allclose([d2, r2, bc2], [-d, r, bc], rtol=1e-9, atol=1e-9)
