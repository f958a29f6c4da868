"""The generator effect and incomplete matched designs against independent references.

References: dcor's energy statistic; every within-key relabelling enumerated by brute
force (itertools, one statistic per relabelling); plain numpy within-key swaps for
Monte Carlo p-values; null calibration (p uniform when the labels are exchangeable).
"""

from __future__ import annotations

from itertools import permutations, product

import numpy as np
import pandas as pd
import pytest
from exact_energy import within_mc_error
from scipy import stats

import rrmap
from rrmap.errors import InputError
from rrmap.stats import Settings, compare_groups, energy_statistic, generator_effect, run_designs
from rrmap.stats.matched import marginal_homogeneity_test

LEVELS = list(rrmap.QUALITY_LEVELS)


def _ratings(
    n_raters: int, n_keys: int, corpora: tuple[str, ...], seed: int, shift: float = 0.0
) -> pd.DataFrame:
    """Ratings of *n_raters* raters on *n_keys* keys: a reference interval and one interval
    per query corpus; corpus i's intervals are shifted by ``i * shift`` reference widths."""
    return rrmap.load_ratings(_raw(n_raters, n_keys, corpora, seed, shift), scale=None)


def _raw(
    n_raters: int, n_keys: int, corpora: tuple[str, ...], seed: int, shift: float = 0.0
) -> pd.DataFrame:
    """The table :func:`_ratings` validates."""
    g = np.random.default_rng(seed)
    rows = []
    for e in range(n_raters):
        for j in range(n_keys):
            lo, width = g.uniform(20, 50), g.uniform(10, 30)
            rows.append((f"E{e + 1}", "real", f"k{j:02d}", lo, lo + width))
            for i, q in enumerate(corpora):
                c = lo + width / 2 + width * (g.normal(0, 0.4) + i * shift)
                w = width * np.exp(g.normal(0, 0.3))
                rows.append((f"E{e + 1}", q, f"k{j:02d}", c - w / 2, c + w / 2))
    return pd.DataFrame(rows, columns=["expert", "origin", "item", "low rating", "high rating"])


def _brute_force(xy: list[np.ndarray], strata: list[np.ndarray]) -> float:
    """P(E ≥ E_obs) over every relabelling that permutes the labels within each stratum.

    *xy[g]* are group g's points and *strata[g]* their strata; each stratum's labels are
    permuted in every way (duplicated relabellings weigh as often as they occur, as
    every permutation is equally likely). The statistic of every relabelling comes from
    its groups' distance sums at once: Σ over pairs of groups of
    n_i n_j / (n_i + n_j) · (2 M_ij − M_ii − M_jj), M the mean distances; the observed
    labelling's is checked against :func:`energy_statistic` first."""
    labels = np.concatenate([np.full(len(p), g) for g, p in enumerate(xy)])
    pts = np.concatenate(xy)
    st = np.concatenate(strata)
    k = len(xy)
    blocks = [np.flatnonzero(st == s) for s in np.unique(st)]
    options = [list(permutations(range(len(b)))) for b in blocks]
    relabelled = np.empty((int(np.prod([len(o) for o in options])), len(labels)), dtype=int)
    for row, combo in enumerate(product(*options)):  # the first: every block as it is
        relabelled[row] = labels
        for b, perm in zip(blocks, combo, strict=True):
            relabelled[row, b] = labels[b][list(perm)]
    member = (relabelled[:, :, None] == np.arange(k)).astype(float)  # (labellings, n, k)
    dist = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
    sums = member.transpose(0, 2, 1) @ dist @ member  # (labellings, k, k)
    size = member[0].sum(axis=0)
    mean = sums / np.outer(size, size)
    e = sum(
        size[i]
        * size[j]
        / (size[i] + size[j])
        * (2 * mean[:, i, j] - mean[:, i, i] - mean[:, j, j])
        for i in range(k)
        for j in range(i + 1, k)
    )
    obs = energy_statistic(*xy)
    assert e[0] == pytest.approx(obs, rel=1e-12)
    return float(np.mean(e >= obs - 1e-9 * abs(obs)))


def _swap_pvalue(a: np.ndarray, b: np.ndarray, n_perm: int, seed: int) -> float:
    """Monte Carlo p-value of two matched samples (row j of *a* and of *b* share a key):
    each relabelling swaps the two points of a key with probability 1/2."""
    g = np.random.default_rng(seed)
    pts = np.vstack([a, b])
    d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=2))
    n = len(a)

    def stat(lab: np.ndarray) -> np.ndarray:  # lab: (c, 2n) of 0/1, n ones each
        one = lab.astype(float)
        zero = 1.0 - one
        d_one, d_zero = one @ d, zero @ d
        dab = (d_one * zero).sum(axis=1) / (n * n)
        daa = (d_zero * zero).sum(axis=1) / (n * n)
        dbb = (d_one * one).sum(axis=1) / (n * n)
        return n / 2 * (2 * dab - daa - dbb)

    base = np.r_[np.zeros(n), np.ones(n)]
    obs = stat(base[None])[0]
    hits = 0
    for start in range(0, n_perm, 500):
        c = min(500, n_perm - start)
        swap = g.random((c, n)) < 0.5
        lab = np.hstack([swap, ~swap])
        hits += int((stat(lab) >= obs - 1e-9 * abs(obs)).sum())
    return (1 + hits) / (n_perm + 1)


# --- the generator effect ---------------------------------------------------------------


def test_several_query_corpora_give_points_per_corpus():
    raw = _raw(2, 5, ("gen-A", "gen-B"), seed=1)
    ratings = rrmap.load_ratings(raw, scale=None)
    assert ratings.attrs["rrmap"]["queries"] == ["gen-A", "gen-B"]
    pts = rrmap.points(ratings)
    assert list(pts.columns[:3]) == ["expert", "query", "item"]
    assert pts.groupby("query", observed=True).size().to_dict() == {"gen-A": 10, "gen-B": 10}
    # each corpus's points are those of a file holding it alone
    for q in ("gen-A", "gen-B"):
        with pytest.warns(rrmap.RatingsWarning, match="left out"):
            alone = rrmap.points(rrmap.load_ratings(raw, query=q, scale=None))
        mine = pts[pts["query"] == q].drop(columns="query").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine[alone.columns], alone, check_like=False)


@pytest.mark.parametrize(("n_raters", "n_keys", "corpora"), [(2, 4, 2), (1, 3, 3)])
def test_generator_energy_p_is_the_exact_within_rater_key_enumeration(
    n_raters, n_keys, corpora, dcor
):
    names = ("gen-A", "gen-B", "gen-C")[:corpora]
    pts = rrmap.points(_ratings(n_raters, n_keys, names, seed=5, shift=0.5))
    res = generator_effect(pts, by=[], tests=["energy"], n_perm=10**6, rng=0, stop_hits=None)
    row = res[res["within"] == "all"].iloc[0]
    assert (row.design, row.p_method, row.groups) == ("matched", "exact", "|".join(names))
    xy = [pts.loc[pts["query"] == q, ["delta", "r"]].to_numpy() for q in names]
    strata = [(pts.loc[pts["query"] == q, "expert"] + pts.loc[pts["query"] == q, "item"])
              .to_numpy() for q in names]  # fmt: skip
    _, strata = np.unique(np.concatenate(strata), return_inverse=True)
    strata = np.split(strata, np.cumsum([len(x) for x in xy])[:-1])
    assert row.statistic == pytest.approx(energy_statistic(*xy), rel=1e-12)
    assert row.pvalue == pytest.approx(_brute_force(xy, strata), abs=1e-12)
    if corpora == 2:  # the two-sample statistic is dcor's
        ref = dcor.homogeneity.energy_test_statistic(xy[0], xy[1], exponent=1)
        assert row.statistic == pytest.approx(ref, rel=1e-10)


def test_generator_effect_on_the_example_matches_within_key_swaps(dcor):
    """The shipped two-generator study: overall and per rater, statistics equal dcor's and
    p-values lie within 4 SE of 10,000 within-(rater, key) swaps drawn here."""
    b_ref = 10000
    pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    res = generator_effect(pts, by=[], tests=["energy"], n_perm=b_ref, rng=0, stop_hits=None)
    for _, row in res.iterrows():
        sub = pts if row.within == "all" else pts[pts["expert"] == row.within.split("=")[1]]
        order = ["expert", "movement", "criterion", "modality"]
        a = sub[sub["query"] == "gen-A"].sort_values(order)[["delta", "r"]].to_numpy()
        b = sub[sub["query"] == "gen-B"].sort_values(order)[["delta", "r"]].to_numpy()
        assert row.design == "matched" and row.n == len(a) + len(b)
        ref = dcor.homogeneity.energy_test_statistic(a, b, exponent=1)
        assert row.statistic == pytest.approx(ref, rel=1e-10)
        p_ref = _swap_pvalue(a, b, b_ref, seed=1)
        se = np.sqrt(max(p_ref * (1 - p_ref), 1e-4) / b_ref)  # of each, the two independent
        assert abs(row.pvalue - p_ref) <= 4 * np.sqrt(2) * se + 2 / (b_ref + 1), (row.within, p_ref)


def test_generator_zone_test_is_stuart_maxwell_of_the_paired_zones():
    from statsmodels.stats.contingency_tables import SquareTable

    pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    res = generator_effect(pts, by=[], tests=["chi2"], chi2_n_perm=0, rng=0)
    row = res[res["within"] == "all"].iloc[0]
    assert row.test == "stuart_maxwell" and row.design == "matched"
    wide = pts.pivot_table(index=["expert", "movement", "criterion", "modality"],
                           columns="query", values="quality", aggfunc="first",
                           observed=True).astype(str)  # fmt: skip
    square = pd.crosstab(wide["gen-A"], wide["gen-B"]).reindex(
        index=LEVELS, columns=LEVELS, fill_value=0
    )
    ref = SquareTable(square.to_numpy(), shift_zeros=False).homogeneity()
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert row.dof == ref.df


def test_three_generators_zone_test_is_the_within_key_permutation_test():
    pts = rrmap.points(_ratings(2, 6, ("a", "b", "c"), seed=2, shift=0.3))
    res = generator_effect(pts, by=[], tests=["chi2"], n_perm=0, chi2_n_perm=5000, rng=0)
    row = res[(res["within"] == "all") & (res["groups"] == "a|b|c")].iloc[0]
    assert row.test == "marginal_homogeneity"
    zones = (
        pts.assign(code=pd.Categorical(pts["quality"], LEVELS).codes)
        .pivot_table(index=["expert", "item"], columns="query", values="code", observed=True)
        .to_numpy(dtype=int)
    )
    ref = marginal_homogeneity_test(zones, n_levels=4, n_perm=5000, rng=0)
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-12)


def test_generator_effect_families_and_labels():
    pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    res = generator_effect(pts, by=["modality"], n_perm=99, rng=0)
    assert set(res["by"]) == {"query"} and set(res["groups"]) == {"gen-A|gen-B"}
    assert list(dict.fromkeys(res["within"])) == [
        "all",
        "expert=E1",
        "expert=E2",
        "expert=E3",
        "modality=female painter",
        "modality=male painter",
        "modality=movement",
    ]
    assert set(res["design"]) == {"matched"} and set(res["query"]) == {""}
    # a family alone (compare_groups with that within) gives the same row
    alone = compare_groups(pts, "query", within="modality=movement", n_perm=99, rng=0)
    mine = res[res["within"] == "modality=movement"].reset_index(drop=True)
    same = [c for c in alone.columns if c != "pvalue_study"]  # over the tests of the call
    pd.testing.assert_frame_equal(alone[same], mine[same])


def test_several_corpora_run_every_design_per_corpus():
    two = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    one = rrmap.points(rrmap.datasets.load_example_ratings())
    # the tests' rows are compared, not the effect sizes' intervals: no bootstrap
    fast = Settings(n_perm=199, seed=0, stop_hits=None, n_boot=0)
    both = run_designs(two, by=["modality"], settings=fast)
    alone = run_designs(one, by=["modality"], settings=fast)
    gen_a = both[both["query"] == "gen-A"].drop(columns="query").reset_index(drop=True)
    keys = ["test", "by", "within", "groups", "design", "n"]
    pd.testing.assert_frame_equal(gen_a[keys], alone[keys])
    np.testing.assert_allclose(gen_a["statistic"], alone["statistic"], rtol=1e-12)
    # each corpus draws from streams of its own: same tests, other relabellings
    energy = gen_a["test"] == "energy"
    ok = [
        within_mc_error(p, q, 199, z=4.5)
        for p, q in zip(gen_a.loc[energy, "pvalue"], alone.loc[energy, "pvalue"], strict=True)
    ]
    assert np.mean(ok) > 0.95
    # a corpus's tests alone reproduce the run's rows exactly
    sub = two[two["query"] == "gen-B"]
    sub.attrs = two.attrs
    row = compare_groups(sub, "expert", n_perm=199, rng=0, stop_hits=None)
    ref = both[(both["query"] == "gen-B") & (both["by"] == "expert") & (both["within"] == "all")]
    np.testing.assert_array_equal(row["pvalue"].to_numpy(), ref["pvalue"].to_numpy())
    # Holm families are per corpus
    holm = run_designs(two, by=[], settings=Settings(n_perm=199, seed=0, n_boot=0))
    fam = holm[(holm["query"] == "gen-A") & (holm["test"] == "energy")]
    from multitest_reference import multipletests

    assert np.allclose(fam["pvalue_holm"], multipletests(fam["pvalue"], method="holm")[1])


def test_within_and_design_are_checked_not_silently_pooled():
    pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    with pytest.raises(InputError, match=r"within must be 'all' or '<column>=<value>'.*'expert'"):
        compare_groups(pts, "query", within="expert", n_perm=9)
    with pytest.raises(InputError, match=r"within='expert=E9': no point has expert = 'E9'"):
        compare_groups(pts, "query", within="expert=E9", n_perm=9)
    with pytest.raises(InputError, match=r"within='rater=E1': no column 'rater'"):
        compare_groups(pts, "query", within="rater=E1", n_perm=9)
    with pytest.raises(InputError, match=r"design='matched' compares groups .* 'movement'"):
        compare_groups(pts, "movement", within="expert=E1", design="matched", n_perm=9)
    one = rrmap.points(rrmap.datasets.load_example_ratings())
    with pytest.raises(InputError, match="the points hold one query corpus"):
        compare_groups(one, "query", n_perm=9)
    with pytest.raises(InputError, match="the points hold one query corpus"):
        generator_effect(one, n_perm=9)
    with pytest.raises(InputError, match="by 'query': the query corpora are not a category"):
        run_designs(pts, by=["query"], n_perm=9)
    # within selects: the rows of rater E1 only, the others' points never pooled in
    e1 = compare_groups(pts, "query", within="expert=E1", n_perm=99, rng=0).iloc[0]
    assert e1.n == 270
    # independent, when asked for, is honoured
    ind = compare_groups(pts, "query", design="independent", n_perm=99, rng=0)
    assert set(ind["design"]) == {"independent"} and set(ind["test"]) == {"energy", "chi2"}


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_generator_effect_is_calibrated_under_the_null():
    """Exchangeable generators (each key's two intervals drawn alike): the energy p-value
    is uniform, the zone test never rejects more often than its level."""
    g = np.random.default_rng(7)
    p_energy, p_zones = [], []
    for rep in range(200):
        seed = int(g.integers(2**31))
        pts = rrmap.points(_ratings(2, 12, ("a", "b"), seed=seed))
        res = generator_effect(pts, by=[], n_perm=199, chi2_n_perm=999, rng=rep, stop_hits=None)
        row = res[res["within"] == "all"].set_index("test")
        p_energy.append(row.loc["energy", "pvalue"])
        if not np.isnan(row.loc["stuart_maxwell", "pvalue"]):
            p_zones.append(row.loc["stuart_maxwell", "pvalue"])
    p_energy = np.array(p_energy)
    assert stats.kstest(p_energy, "uniform").pvalue > 0.001
    for alpha in (0.05, 0.1):
        bound = alpha + 3.5 * np.sqrt(alpha * (1 - alpha) / len(p_energy))
        assert np.mean(p_energy <= alpha) <= bound
        assert np.mean(np.array(p_zones) <= alpha) <= bound
    assert np.mean(p_energy <= 0.5) == pytest.approx(0.5, abs=0.1)


# --- incomplete matched designs ----------------------------------------------------------


def _incomplete_points(seed: int, shift: float = 0.4) -> pd.DataFrame:
    """3 raters × 4 keys with strong key effects and a rater shift; one rater misses a key
    and another two keys' ratings are missing too (one key rated by one rater only)."""
    g = np.random.default_rng(seed)
    centres = g.normal(0, 3, size=(4, 2))
    rows = []
    for e in range(3):
        for j in range(4):
            if (e, j) in {(2, 0), (1, 3), (2, 3)}:
                continue
            d, r = centres[j] + [shift * e, 0] + g.normal(0, 0.05, 2)
            rows.append({"expert": f"E{e + 1}", "movement": f"m{j}", "delta": float(d),
                         "r": float(abs(r) + 0.5), "quality": LEVELS[(e + j) % 4]})  # fmt: skip
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "movement"], "categories": ["movement"]}
    return pts


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incomplete_energy_p_is_the_exact_within_key_enumeration(seed):
    pts = _incomplete_points(seed)
    res = compare_groups(pts, "expert", tests=["energy"], n_perm=10**6, rng=0, stop_hits=None)
    res = res.set_index("groups")
    for groups, row in res.iterrows():
        names = groups.split("|")
        sub = pts[pts["expert"].isin(names)]
        xy = [sub.loc[sub.expert == e, ["delta", "r"]].to_numpy() for e in names]
        strata = [sub.loc[sub.expert == e, "movement"].to_numpy() for e in names]
        assert row.design == "matched" and row.p_method == "exact", groups
        assert row.pvalue == pytest.approx(_brute_force(xy, strata), abs=1e-12), groups
    # from random within-key relabellings: within Monte Carlo error of the enumeration
    mc = compare_groups(pts, "expert", tests=["energy"], n_perm=50, rng=3, stop_hits=None)
    assert mc.iloc[0].p_method == "permutation"
    assert within_mc_error(mc.iloc[0].pvalue, res.loc["E1|E2|E3"].pvalue, 50)
    assert res.loc["E1|E2|E3"].note.startswith("matched within keys: 2 of 4 keys")


def test_incomplete_zone_test_is_the_enumeration_among_the_raters_present():
    pts = _incomplete_points(4)
    res = compare_groups(pts, "expert", tests=["chi2"], chi2_n_perm=10**5, rng=0)
    row = res[res["groups"] == "E1|E2|E3"].iloc[0]
    assert (row.test, row.p_method) == ("marginal_homogeneity", "exact")
    zones = np.full((4, 3), -1)
    for e, j, q in zip(pts.expert, pts.movement, pts.quality, strict=True):
        zones[int(j[1:]), int(e[1:]) - 1] = LEVELS.index(q)

    def x2(z: np.ndarray) -> float:
        tab = np.zeros((3, 4))
        for key in z:
            for rater, v in enumerate(key):
                if v >= 0:
                    tab[rater, v] += 1
        tab = tab[:, tab.sum(axis=0) > 0]
        exp = tab.sum(1, keepdims=True) * tab.sum(0, keepdims=True) / tab.sum()
        return float(((tab - exp) ** 2 / exp).sum())

    obs = x2(zones)
    options = []
    for key in zones:
        present = [r for r in range(3) if key[r] >= 0]
        opts = []
        for perm in permutations(present):
            new = key.copy()
            new[present] = key[list(perm)]
            opts.append(new)
        options.append(opts)
    sims = [x2(np.array(c)) for c in product(*options)]
    assert row.statistic == pytest.approx(obs, rel=1e-12)
    assert row.pvalue == pytest.approx(np.mean(np.array(sims) >= obs - 1e-9), abs=1e-12)


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_incomplete_design_keeps_its_power_where_the_independent_one_has_none():
    """The issue's case: raters with a consistent shift, keys that differ far more; 9 of 120
    ratings missing. Within keys the shift shows; permuted over all points it drowns."""
    g = np.random.default_rng(11)
    centres = g.normal(0, 3, size=(40, 2))
    rows = []
    for e in range(3):
        for j in range(40):
            d, r = centres[j] + [0.15 * e, 0] + g.normal(0, 0.1, 2)
            rows.append({"expert": f"E{e}", "movement": f"m{j}", "delta": float(d),
                         "r": float(abs(r) + 0.5), "quality": "fair"})  # fmt: skip
    pts = pd.DataFrame(rows).drop(index=g.choice(120, 9, replace=False))
    pts.attrs["rrmap"] = {"keys": ["expert", "movement"], "categories": ["movement"]}
    kw = dict(tests=["energy"], n_perm=4999, rng=0, stop_hits=None)
    auto = compare_groups(pts, "expert", **kw).iloc[0]
    ind = compare_groups(pts, "expert", design="independent", **kw).iloc[0]
    assert auto.design == "matched" and auto.pvalue < 0.01
    assert ind.pvalue > 0.5 and auto.statistic == ind.statistic


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_incomplete_design_is_calibrated_under_the_null():
    g = np.random.default_rng(12)
    pvalues = []
    for rep in range(200):
        centres = g.normal(0, 3, size=(10, 2))
        rows = [
            {"expert": f"E{e}", "movement": f"m{j}", "delta": float(d), "r": float(abs(r) + 0.5),
             "quality": "fair"}
            for e in range(3)
            for j in range(10)
            for d, r in [centres[j] + g.normal(0, 0.3, 2)]
        ]  # fmt: skip
        pts = pd.DataFrame(rows).drop(index=g.choice(30, 4, replace=False))
        pts.attrs["rrmap"] = {"keys": ["expert", "movement"], "categories": ["movement"]}
        res = compare_groups(pts, "expert", tests=["energy"], n_perm=199, rng=rep,
                             stop_hits=None)  # fmt: skip
        assert res.iloc[0].design == "matched"
        pvalues.append(res.iloc[0].pvalue)
    p = np.array(pvalues)
    assert stats.kstest(p, "uniform").pvalue > 0.001
    assert np.mean(p <= 0.05) <= 0.05 + 3.5 * np.sqrt(0.05 * 0.95 / len(p))


def test_a_corpus_missing_keys_is_matched_among_the_corpora_present():
    raw = _raw(2, 4, ("a", "b", "c"), seed=9, shift=0.4)
    gone = raw.index[(raw["origin"] == "c") & raw["item"].isin(["k00", "k01"])]
    gone = gone.union(raw.index[(raw["origin"] == "b") & (raw["item"] == "k03")])
    pts = rrmap.points(rrmap.load_ratings(raw.drop(index=gone), scale=None))
    res = generator_effect(pts, by=[], tests=["energy"], n_perm=10**6, rng=0, stop_hits=None)
    row = res[(res["within"] == "all") & (res["groups"] == "a|b|c")].iloc[0]
    assert (row.design, row.p_method) == ("matched", "exact")
    assert row.note.startswith("matched within keys: 6 of 8 keys not rated once by every "
                               "query corpus")  # fmt: skip
    xy = [pts.loc[pts["query"] == q, ["delta", "r"]].to_numpy() for q in "abc"]
    strata = [(pts.loc[pts["query"] == q, "expert"] + pts.loc[pts["query"] == q, "item"])
              .to_numpy() for q in "abc"]  # fmt: skip
    assert row.pvalue == pytest.approx(_brute_force(xy, strata), abs=1e-12)
