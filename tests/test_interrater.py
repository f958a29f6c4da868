"""Reliability between raters against the krippendorff package, statsmodels and textbook cases."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

import rrmap
from rrmap.errors import InputError
from rrmap.interrater import RELIABILITY_COLUMNS, _interval, _nominal, _wide

RATERS = ["E1", "E2", "E3"]


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


@pytest.fixture(scope="module")
def rel(pts):
    return rrmap.reliability(pts, n_boot=300, rng=0).set_index(["measure", "variable", "raters"])


def test_columns_and_rows(pts):
    out = rrmap.reliability(pts, n_boot=50, rng=0)
    assert list(out.columns) == list(RELIABILITY_COLUMNS)
    assert out.raters.tolist()[:4] == ["E1|E2|E3"] * 4
    assert len(out) == 5 + 3 * 5  # α: zone nominal and ordinal, Δ, log R; a κ
    assert ((out.ci_low <= out.value) & (out.value <= out.ci_high)).all()
    assert out.variable.unique().tolist() == ["zone", "delta", "log_r"]


def test_alpha_on_r_on_request(pts):
    """``with_r=True`` adds α on R after log R in every rater set and changes no other row."""
    out = rrmap.reliability(pts, n_boot=50, rng=0, with_r=True)
    assert len(out) == 6 + 3 * 6
    alpha = out[out.measure == "krippendorff_alpha"]
    assert alpha.variable.tolist()[:4] == ["zone", "delta", "log_r", "r"]
    pd.testing.assert_frame_equal(
        out[out.variable != "r"].reset_index(drop=True), rrmap.reliability(pts, n_boot=50, rng=0)
    )
    assert (out[out.variable == "r"].ci_method == "studentized").all()


def test_krippendorff_alpha_equals_the_package(pts, rel):
    zone, delta, r = _wide(pts, RATERS)
    ref = krippendorff.alpha(reliability_data=zone.T.astype(float), level_of_measurement="nominal")
    assert rel.loc[("krippendorff_alpha", "zone", "E1|E2|E3"), "value"] == pytest.approx(
        ref, rel=1e-12
    )
    pair = krippendorff.alpha(
        reliability_data=zone[:, [0, 2]].T.astype(float), level_of_measurement="nominal"
    )
    assert rel.loc[("krippendorff_alpha", "zone", "E1|E3"), "value"] == pytest.approx(
        pair, rel=1e-12
    )
    # the package's interval α takes a quarter of a second on 405 values: two checks
    ref = krippendorff.alpha(reliability_data=delta.T, level_of_measurement="interval")
    assert rel.loc[("krippendorff_alpha", "delta", "E1|E2|E3"), "value"] == pytest.approx(
        ref, rel=1e-10
    )
    ref = krippendorff.alpha(reliability_data=r[:, :2].T, level_of_measurement="interval")
    with_r = rrmap.reliability(pts, n_boot=0, with_r=True)
    with_r = with_r.set_index(["measure", "variable", "raters"])
    assert with_r.loc[("krippendorff_alpha", "r", "E1|E2"), "value"] == pytest.approx(
        ref, rel=1e-10
    )


def test_missing_keys_are_missing_values(pts):
    cubism = pts[(pts.movement == "cubism") & (pts.expert == "E3")].index[:4]
    sub = pts.drop(index=[*cubism, pts.index[pts.expert == "E2"][0]])
    out = rrmap.reliability(sub, n_boot=0).set_index(["measure", "variable", "raters"])
    zone, delta, _ = _wide(sub, RATERS)
    data = np.where(zone >= 0, zone, np.nan).T
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    row = out.loc[("krippendorff_alpha", "zone", "E1|E2|E3")]
    assert row.value == pytest.approx(ref, rel=1e-12) and row.n_units == 135
    ref = krippendorff.alpha(reliability_data=delta[:60].T, level_of_measurement="interval")
    assert _interval(delta[:60])(np.ones((1, 60)))[0][0] == pytest.approx(ref, rel=1e-10)
    # κ use the keys every rater of the set rated
    assert out.loc[("fleiss_kappa", "zone", "E1|E2|E3"), "n_units"] == 130
    assert out.loc[("cohens_kappa", "zone", "E1|E3"), "n_units"] == 131
    assert np.isnan(out.ci_low).all()  # n_boot = 0: no intervals


def test_krippendorff_textbook_example():
    """Krippendorff (2011), 'Computing Krippendorff's Alpha-Reliability', the example of four
    observers and twelve units with missing values: nominal α = 0.743."""
    nan = np.nan
    data = np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
            [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
        ]
    )
    codes = np.where(np.isnan(data), -1, data - 1).astype(int).T  # units × observers
    alpha = _nominal(codes, levels=5)(np.ones((1, 12)))[0][0]
    assert round(alpha, 3) == 0.743
    assert alpha == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), rel=1e-12
    )


def test_kappas_equal_statsmodels(pts, rel):
    zone, _, _ = _wide(pts, RATERS)
    table, _ = aggregate_raters(zone, n_cat=4)
    ref = fleiss_kappa(table, method="fleiss")
    assert rel.loc[("fleiss_kappa", "zone", "E1|E2|E3"), "value"] == pytest.approx(ref, rel=1e-12)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        cross = pd.crosstab(zone[:, i], zone[:, j]).reindex(index=range(4), columns=range(4),
                                                           fill_value=0)  # fmt: skip
        ref = cohens_kappa(cross.to_numpy()).kappa
        got = rel.loc[("cohens_kappa", "zone", f"{RATERS[i]}|{RATERS[j]}"), "value"]
        assert got == pytest.approx(ref, rel=1e-12)


def test_kappa_hand_example():
    """Two raters, 10 keys: observed agreement 0.8, chance 0.5 from 5/5 margins: κ = 0.6."""
    a = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    b = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 0])  # agree on 8 of 10, margins 5/5
    rows = [
        {"expert": e, "item": str(k), "delta": 0.0, "r": 1.0, "quality": rrmap.QUALITY_LEVELS[z]}
        for e, zs in (("A", a), ("B", b))
        for k, z in enumerate(zs)
    ]
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    out = rrmap.reliability(pts, n_boot=0).set_index("measure")
    assert out.loc["cohens_kappa", "value"] == pytest.approx(0.6)
    # with two raters Fleiss' κ uses the pooled margins: (0.8 − 0.5) / (1 − 0.5) here too
    assert out.loc["fleiss_kappa", "value"] == pytest.approx(0.6)
    # Krippendorff's nominal α corrects Fleiss' κ for the sample size: κ + (1 − κ) / 2n
    alpha = out.loc["krippendorff_alpha"].set_index("variable").loc["zone", "value"]
    assert alpha == pytest.approx(0.6 + 0.4 / 20)


def test_bootstrap_is_seeded_and_the_same_in_analyze(pts):
    a = rrmap.reliability(pts, n_boot=200, rng=3)
    b = rrmap.reliability(pts, n_boot=200, rng=3)
    c = rrmap.reliability(pts, n_boot=200, rng=4)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a.ci_low, c.ci_low)
    res = rrmap.analyze(pts, by=[], n_perm=99, rng=3, n_boot=200)
    pd.testing.assert_frame_equal(res.reliability, a)


def test_errors(pts):
    with pytest.raises(InputError, match="at least two raters"):
        rrmap.reliability(pts[pts.expert == "E1"])
    with pytest.raises(InputError, match="n_boot must be a non-negative integer"):
        rrmap.reliability(pts, n_boot=-1)
    bare = pts[["expert", "delta", "r", "quality"]].copy()
    bare.attrs = {}
    with pytest.raises(InputError, match="comparison keys"):
        rrmap.reliability(bare)


def test_a_rater_twice_on_one_key_is_an_error(pts):
    twice = pd.concat([pts, pts.iloc[[5]]])
    twice.attrs = pts.attrs
    with pytest.raises(
        InputError, match=r"a rater has two points for one comparison key \(rows \[405\]\)"
    ):
        rrmap.reliability(twice)
    with pytest.raises(InputError, match=r"level must lie in \(0, 1\), got 1.5"):
        rrmap.reliability(pts, level=1.5)
