"""The fast jackknife of the reliability measures (sums less one key's statistics) against
the brute-force one (the measure re-evaluated on whole weight vectors with one key or one
draw left out), and the default interval method of each row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap._util.streams import Streams
from rrmap.bootstrap import resample_weights, studentized_interval
from rrmap.interrater import _cohen, _fleiss, _interval, _nominal, _ordinal, _wide

N_Q = 4


# -- the reference: the textbook formulas on whole weight vectors -------------------------


def ref_interval(x, w):
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    keep = m >= 2
    x, present, m, w = x[keep], present[keep], m[keep], w[:, keep]
    xc = np.where(present, x - x[present].mean(), 0.0)
    s1, s2 = xc.sum(axis=1), (xc * xc).sum(axis=1)
    n = w @ m
    between = 2.0 * n * (w @ s2) - 2.0 * (w @ s1) ** 2
    return ref_alpha(n, w @ ((2.0 * m * s2 - 2.0 * s1 * s1) / (m - 1)), between), keep


def counts_of(z):
    return np.stack([(z == c).sum(axis=1) for c in range(N_Q)], axis=1).astype(float)


def ref_nominal(z, w):
    counts = counts_of(z)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m, w = counts[keep], m[keep], w[:, keep]
    n, totals = w @ m, w @ counts
    inside = w @ ((m * m - (counts * counts).sum(axis=1)) / (m - 1))
    return ref_alpha(n, inside, n * n - (totals * totals).sum(axis=1)), keep


def ref_ordinal(z, w):
    counts = counts_of(z)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts, m, w = counts[keep], m[keep], w[:, keep]
    out = []
    for row in w:  # one resample at a time, the coincidence matrix spelt out
        totals = row @ counts
        coinc = np.einsum("u,uc,uk->ck", row / (m - 1), counts, counts)
        np.fill_diagonal(coinc, 0.0)
        delta2 = np.zeros((N_Q, N_Q))
        for c in range(N_Q):
            for k in range(N_Q):
                lo, hi = min(c, k), max(c, k)
                delta2[c, k] = (totals[lo : hi + 1].sum() - (totals[c] + totals[k]) / 2) ** 2
        between = (np.outer(totals, totals) * delta2).sum()
        out.append(ref_alpha(totals.sum(), (coinc * delta2).sum(), between))
    return np.array(out, dtype=float), keep


def ref_alpha(n, inside, between):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(between > 0, 1.0 - (n - 1.0) * inside / between, np.nan)


def ref_fleiss(z, w):
    complete = (z >= 0).all(axis=1)
    k = z.shape[1]
    counts, w = counts_of(z[complete]), w[:, complete]
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (w @ (((counts * counts).sum(axis=1) - k) / (k * (k - 1.0)))) / total
        p_e = (((w @ counts) / (k * total)[:, None]) ** 2).sum(axis=1)
        return np.where(p_e < 1, (p_bar - p_e) / (1.0 - p_e), np.nan), complete


def ref_cohen(a, b, w):
    both = (a >= 0) & (b >= 0)
    a, b, w = a[both], b[both], w[:, both]
    total = w.sum(axis=1)
    ind_a = np.stack([a == c for c in range(N_Q)], axis=1).astype(float)
    ind_b = np.stack([b == c for c in range(N_Q)], axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = (w @ (a == b).astype(float)) / total
        p_e = ((w @ ind_a) * (w @ ind_b)).sum(axis=1) / (total * total)
        return np.where(p_e < 1, (p_o - p_e) / (1.0 - p_e), np.nan), both


def brute_jackknife(fn, n_units):
    """Each key left out in turn: weights 1, but 0 at the key."""
    return fn(1.0 - np.eye(n_units))[0]


def brute_resample_se(fn, resamples, used):
    """Per resample: each drawn key's weight less one, the measure on the whole weight
    vector, each value counted as often as the key was drawn."""
    out = []
    for w in resamples:
        drawn = np.flatnonzero((w > 0) & used)
        counts = w[drawn]
        less = np.repeat(w[None], len(drawn), axis=0)
        less[np.arange(len(drawn)), drawn] -= 1.0
        vals = fn(less)[0]
        mean = (counts * vals).sum() / counts.sum()
        size = counts.sum()
        out.append(np.sqrt((size - 1) / size * (counts * (vals - mean) ** 2).sum()))
    return np.array(out)


# -- data: missing ratings, ties, keys rated once, keys drawn 0, 1 or several times --------


@pytest.fixture(scope="module")
def study():
    g = np.random.default_rng(11)
    n = 23
    delta = np.round(g.normal(0, 1, (n, 1)) + g.normal(0, 0.8, (n, 3)))  # ties: integers
    log_r = g.normal(0, 0.3, (n, 1)) + g.normal(0, 0.25, (n, 3))
    zone = g.integers(0, N_Q, (n, 3))
    zone[:4] = zone[:4, :1]  # some keys in full agreement
    missing = g.random((n, 3)) < 0.15
    missing[5] = [False, True, True]  # a key rated once: not used by α
    missing[6] = [True, False, False]
    delta[missing], log_r[missing] = np.nan, np.nan
    zone = np.where(missing, -1, zone)
    w = resample_weights(n, 60, g).astype(float)
    assert {0, 1}.issubset(set(w.ravel())) and w.max() >= 3
    return {"zone": zone, "delta": delta, "log_r": log_r, "weights": w}


def cases(study):
    z, d, lr = study["zone"], study["delta"], study["log_r"]
    return {
        "interval Δ": (_interval(d), lambda w: ref_interval(d, w)),
        "interval log R": (_interval(lr), lambda w: ref_interval(lr, w)),
        "interval Δ, a pair": (_interval(d[:, 1:]), lambda w: ref_interval(d[:, 1:], w)),
        "nominal": (_nominal(z), lambda w: ref_nominal(z, w)),
        "ordinal": (_ordinal(z), lambda w: ref_ordinal(z, w)),
        "ordinal, a pair": (_ordinal(z[:, :2]), lambda w: ref_ordinal(z[:, :2], w)),
        "fleiss": (_fleiss(z), lambda w: ref_fleiss(z, w)),
        "cohen": (_cohen(z[:, 0], z[:, 2]), lambda w: ref_cohen(z[:, 0], z[:, 2], w)),
    }


NAMES = ["interval Δ", "interval log R", "interval Δ, a pair", "nominal", "ordinal",
         "ordinal, a pair", "fleiss", "cohen"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_values_equal_the_formulas_on_whole_weight_vectors(study, name):
    lin, ref = cases(study)[name]
    w = np.vstack([np.ones(len(study["zone"])), study["weights"]])
    values, used = lin(w)
    expected, ref_used = ref(w)
    assert used.tolist() == ref_used.tolist()
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_jackknife_equals_leaving_each_key_out_of_the_weights(study, name):
    lin, ref = cases(study)[name]
    n = len(study["zone"])
    expected = brute_jackknife(ref, n)[lin.used]
    assert len(lin.jackknife()) == lin.used.sum() < n
    np.testing.assert_allclose(lin.jackknife(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_resample_se_equals_leaving_each_draw_out_of_the_weights(study, name):
    lin, ref = cases(study)[name]
    w = study["weights"]
    expected = brute_resample_se(ref, w, lin.used)
    assert np.isfinite(expected).all()
    np.testing.assert_allclose(lin.resample_se(w), expected, rtol=1e-12, atol=1e-12)


def test_resample_se_in_chunks_equals_at_once(study, monkeypatch):
    """The resamples are taken in chunks of bounded memory: the chunk size changes nothing."""
    lin = _ordinal(study["zone"])
    whole = lin.resample_se(study["weights"])
    monkeypatch.setattr("rrmap.interrater._JACK_CELLS", 7)
    np.testing.assert_allclose(lin.resample_se(study["weights"]), whole, rtol=1e-14)


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


def test_default_is_studentized_for_interval_alpha_and_bca_for_zones(pts):
    out = rrmap.reliability(pts, n_boot=200, rng=0)
    methods = out.groupby(["measure", "metric"]).ci_method.unique().map(list).to_dict()
    assert methods == {
        ("cohens_kappa", "nominal"): ["bca"],
        ("fleiss_kappa", "nominal"): ["bca"],
        ("krippendorff_alpha", "interval"): ["studentized"],
        ("krippendorff_alpha", "nominal"): ["bca"],
        ("krippendorff_alpha_ordinal", "ordinal"): ["bca"],
    }
    for ci in ("studentized", "bca"):
        alone = rrmap.reliability(pts, n_boot=200, rng=0, ci=ci)
        rows = (out.ci_method == ci).to_numpy()
        pd.testing.assert_frame_equal(out[rows], alone[rows])


def test_default_studentized_interval_equals_brute_force(pts):
    """The row of the table from the reference jackknife on the same resamples."""
    out = rrmap.reliability(pts, n_boot=300, rng=4, pairs=False)
    row = out[out.variable == "log_r"].iloc[0]
    _, _, r = _wide(pts, ["E1", "E2", "E3"])
    x = np.log(r)
    n = len(x)
    w = resample_weights(n, 300, Streams(4).generator("reliability")).astype(float)
    values = ref_interval(x, np.vstack([np.ones(n), w]))[0]
    jack = brute_jackknife(lambda v: ref_interval(x, v), n)
    se = np.sqrt((n - 1) / n * ((jack - jack.mean()) ** 2).sum())
    draw_se = brute_resample_se(lambda v: ref_interval(x, v), w, np.ones(n, dtype=bool))
    iv = studentized_interval(values[0], se, values[1:], draw_se)
    assert row.ci_method == "studentized" and row.ci_undefined == 0
    assert [row.ci_low, row.ci_high] == pytest.approx([iv.low, iv.high], rel=1e-10)


def test_an_unknown_method_names_the_choices(pts):
    with pytest.raises(rrmap.errors.InputError) as err:
        rrmap.reliability(pts, ci="bootstrap-t")
    assert str(err.value) == (
        "ci must be one of ['auto', 'bca', 'percentile', 'studentized'], got 'bootstrap-t'"
    )


@pytest.mark.parametrize(
    ("ci", "note"),
    [
        ("auto", "studentized undefined (a leave-one-out value is undefined): percentile interval"),
        ("bca", "BCa undefined (a leave-one-out value is undefined): percentile interval"),
    ],
)
def test_no_variation_left_is_undefined_not_rounding(ci, note):
    """One key alone varies in Δ (0.3 and 1.7, the others 0.3): leaving it out leaves
    nothing to vary, so that jackknife value is undefined (not the rounding of 0/0, which
    came out as α = 1) and the percentile interval is given, with the reason."""
    rows = [
        {"expert": e, "item": str(k), "delta": (1.7 if (k == 0 and e == "B") else 0.3),
         "r": 1.0, "quality": "fair"}
        for e in ("A", "B")
        for k in range(8)
    ]  # fmt: skip
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    _, delta, _ = _wide(pts, ["A", "B"])
    assert np.isnan(_interval(delta).jackknife()[0])
    out = rrmap.reliability(pts, n_boot=200, rng=1, ci=ci).set_index(["measure", "variable"])
    row = out.loc[("krippendorff_alpha", "delta")]
    assert (row.ci_method, row.note) == ("percentile", note)
    w = resample_weights(8, 200, Streams(1).generator("reliability"))
    assert row.ci_undefined == int((w[:, 0] == 0).sum())


def test_report_names_the_interval_methods(pts):
    """The report's reliability section says which interval each row has, not 'percentile'."""
    from types import SimpleNamespace

    from rrmap.report.sections import reliability_section

    rel = rrmap.reliability(pts, n_boot=50, rng=0)
    text = reliability_section(SimpleNamespace(reliability=rel, settings={"bootstrap": 50}))
    assert (
        "Intervals: bootstrap over keys (50 resamples), studentized for α on Δ and log R, "
        "BCa for the zones and κ (`ci_method` in `reliability.csv`)." in text
    )
    assert "on Δ and log R (interval; R is a ratio, so α is on its log)" in text
