import numpy as np
import pytest
from scipy.stats import norm

from rrmap.gaussian import Z_95, interval_to_gaussian, z_value


def test_exact_z_is_the_normal_quantile():
    assert Z_95 == norm.ppf(0.975)  # the constant is the double scipy computes
    assert z_value(0.95) == norm.ppf(0.975)


@pytest.mark.parametrize("coverage", [0.5, 0.8, 0.9, 0.99])
def test_interval_covers_the_requested_mass(coverage):
    m, s = interval_to_gaussian([20.0], [60.0], coverage=coverage)
    mass = norm.cdf(60, m[0], s[0]) - norm.cdf(20, m[0], s[0])
    assert mass == pytest.approx(coverage, abs=1e-12)


def test_closed_form_with_paper_rounding():
    m, s = interval_to_gaussian(np.array([30.0, 0.0]), np.array([50.0, 100.0]), z=1.96)
    np.testing.assert_allclose(m, [40.0, 50.0])
    np.testing.assert_allclose(s, [20 / 3.92, 100 / 3.92])


@pytest.mark.parametrize("coverage", [0, 1, -0.1, 1.5])
def test_bad_coverage_is_rejected(coverage):
    with pytest.raises(ValueError, match="coverage must lie strictly between 0 and 1"):
        z_value(coverage)


def test_bad_z_is_rejected():
    with pytest.raises(ValueError, match="z must be a positive finite number"):
        z_value(z=0)
