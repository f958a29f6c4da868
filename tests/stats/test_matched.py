"""Matched designs: within-key relabellings, Stuart–Maxwell and marginal homogeneity tests.

References: exact enumeration of every within-key relabelling (E computed by
``energy_statistic`` on the relabelled samples, or in exact arithmetic on integer points),
statsmodels' ``SquareTable.homogeneity`` and ``mcnemar``, enumeration of every swap of the
discordant keys.
"""

from __future__ import annotations

from itertools import combinations, permutations, product

import numpy as np
import pandas as pd
import pytest
from exact_energy import _exact_energy, _value, within_mc_error
from scipy import stats
from statsmodels.stats.contingency_tables import SquareTable, mcnemar

import rrmap
from rrmap.errors import InputError
from rrmap.stats import (
    compare_groups,
    energy_statistic,
    marginal_homogeneity_test,
    stuart_maxwell_test,
)
from rrmap.stats._montecarlo import REL_TOL
from rrmap.stats._relabellings import BlockEnumeration, BlockShuffles


def _matched_points(k: int, n_keys: int, seed: int, shift: float = 0.25, integer: bool = False):
    """k raters × n_keys keys, one point each: strong key effects, a small rater shift."""
    g = np.random.default_rng(seed)
    centres = g.normal(0, 3, size=(n_keys, 2))
    rows = []
    for e in range(k):
        for j in range(n_keys):
            d, r = centres[j] + [shift * e, 0] + g.normal(0, 0.05, 2)
            if integer:
                d, r = round(centres[j][0]) + e % 2 * g.integers(0, 2), 1 + g.integers(0, 2)
            rows.append(
                {"expert": f"E{e + 1}", "movement": f"m{j}", "delta": float(d),
                 "r": float(abs(r) + 0.5), "quality": "fair"}
            )  # fmt: skip
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "movement"], "categories": ["movement"]}
    return pts


def _brute_force_pvalue(xy: np.ndarray) -> float:
    """P(E ≥ E_obs) over every within-key relabelling; xy has shape (raters, keys, 2).

    Every relabelling at once: E = Σ_{a<b} n_a n_b / (n_a + n_b) · (2 A_ab − A_aa − A_bb),
    A_ab the mean distance between groups a and b, from the sums of the pooled points'
    distance matrix over each relabelling's group memberships. Equal to
    ``energy_statistic`` on the relabelled samples (checked on the data's own labels)."""
    k, n_keys, _ = xy.shape
    pooled = xy.reshape(-1, 2)  # point (g, j) is row g * n_keys + j
    dist = np.sqrt(((pooled[:, None, :] - pooled[None, :, :]) ** 2).sum(axis=-1))
    perms = np.array(list(permutations(range(k))))
    combos = np.array(list(product(range(len(perms)), repeat=n_keys)))  # relabellings × keys
    labels = perms[combos].transpose(0, 2, 1).reshape(len(combos), -1)  # label of (g, j)
    member = [(labels == a).astype(float) for a in range(k)]
    sums = {
        (a, b): np.einsum("ri,ij,rj->r", member[a], dist, member[b], optimize=True)
        for a in range(k)
        for b in range(a, k)
    }
    n = float(n_keys)
    e = sum(
        n * n / (2 * n) * (2 * sums[a, b] / (n * n) - sums[a, a] / (n * n) - sums[b, b] / (n * n))
        for a, b in combinations(range(k), 2)
    )
    identity = np.flatnonzero((combos == 0).all(axis=1))[0]
    obs = energy_statistic(*xy)
    assert e[identity] == pytest.approx(obs, rel=1e-12)
    return float(np.mean(e >= obs - 1e-9 * abs(obs)))


@pytest.mark.parametrize(("k", "n_keys", "seed"), [(2, 8, 1), (3, 4, 2), (3, 5, 3)])
def test_matched_energy_p_is_the_exact_within_key_enumeration(k, n_keys, seed):
    pts = _matched_points(k, n_keys, seed)
    xy = pts[["delta", "r"]].to_numpy().reshape(k, n_keys, 2)
    exact = _brute_force_pvalue(xy)
    res = compare_groups(pts, "expert", tests=["energy"], n_perm=10**6, rng=0, stop_hits=None)
    row = res.iloc[0]
    assert (row.design, row.p_method) == ("matched", "exact")
    assert row.n_perm == 2**n_keys if k == 2 else 6**n_keys
    assert row.pvalue == pytest.approx(exact, abs=1e-15)
    # the same test from random within-key relabellings: within Monte Carlo error
    b = min(3000, int(row.n_perm) - 1)  # fewer than there are: drawn at random
    mc = compare_groups(pts, "expert", tests=["energy"], n_perm=b, rng=1, stop_hits=None)
    assert mc.iloc[0].p_method == "permutation"
    assert within_mc_error(mc.iloc[0].pvalue, exact, b)


def test_matched_keeps_the_signal_that_independent_tests_lose():
    """3 raters × 5 keys with strong key effects and a small consistent rater shift."""
    pts = _matched_points(3, 5, seed=3)
    kw = dict(tests=["energy"], n_perm=10**5, rng=0, stop_hits=None)
    ind = compare_groups(pts, "expert", design="independent", **kw).iloc[0]
    mat = compare_groups(pts, "expert", design="matched", **kw).iloc[0]
    assert ind.statistic == mat.statistic
    assert ind.pvalue > 0.9 and mat.pvalue < 0.01
    assert mat.pvalue == pytest.approx(_brute_force_pvalue(
        pts[["delta", "r"]].to_numpy().reshape(3, 5, 2)), abs=1e-15)  # fmt: skip


def test_matched_ties_decided_in_exact_arithmetic():
    """Integer points with many ties: every relabelling's E compared exactly (√ of integers)."""
    g = np.random.default_rng(4)
    n_keys = 7
    a = g.integers(0, 3, size=(n_keys, 2))
    b = a + g.integers(0, 2, size=(n_keys, 2))  # rater B a little higher on some keys
    xy = np.stack([a, b]).astype(float)
    values = sorted({tuple(int(v) for v in p) for p in xy.reshape(-1, 2)})
    index = {v: i for i, v in enumerate(values)}

    def exact(groups):
        counts = [[0] * len(values) for _ in groups]
        for gi, gr in enumerate(groups):
            for p in gr:
                counts[gi][index[tuple(int(v) for v in p)]] += 1
        return _exact_energy(counts, values)

    e_obs = exact([a, b])
    hits = 0
    for swaps in product([0, 1], repeat=n_keys):
        ga = [b[j] if s else a[j] for j, s in enumerate(swaps)]
        gb = [a[j] if s else b[j] for j, s in enumerate(swaps)]
        e = exact([ga, gb])
        hits += e == e_obs or _value(e) > _value(e_obs)
    ref = hits / 2**n_keys
    pts = pd.DataFrame({"expert": ["A"] * n_keys + ["B"] * n_keys,
                        "item": [f"k{j}" for j in range(n_keys)] * 2,
                        "delta": xy[:, :, 0].ravel(), "r": xy[:, :, 1].ravel() + 1,
                        "quality": "fair"})  # fmt: skip
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    res = compare_groups(pts, "expert", tests=["energy"], n_perm=1000, rng=0).iloc[0]
    assert res.p_method == "exact" and res.n_perm == 2**n_keys
    assert res.pvalue == ref


def test_block_shuffles_are_uniform_within_blocks_and_chunk_free():
    for k in (2, 3):
        src = BlockShuffles(k, 2)
        labels = src.draw(60_000, np.random.default_rng(0))
        # each block keeps one label per group
        for j in range(2):
            block = labels[:, [g * 2 + j for g in range(k)]]
            assert (np.sort(block, axis=1) == np.arange(k)).all()
        # every within-block relabelling equally likely
        _, counts = np.unique(labels, axis=0, return_counts=True)
        n = (6 if k == 3 else 2) ** 2
        assert len(counts) == n
        assert counts.min() > 60_000 / n * 0.9
        g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
        whole = src.draw(40, g1)
        parts = np.vstack([src.draw(7, g2), src.draw(33, g2)])
        assert (whole == parts).all()


def test_block_enumeration_lists_every_relabelling_once():
    src = BlockEnumeration(3, 3)
    assert src.total == 216
    labels = np.vstack([src.draw(100), src.draw(116)])
    assert len(np.unique(labels, axis=0)) == 216
    assert (labels[0] == src.base).all()


def _random_square(g, r=4, n=120):
    t = g.integers(0, 12, size=(r, r))
    t[np.diag_indices(r)] += g.integers(5, 30, size=r)
    return t


@pytest.mark.parametrize("seed", range(6))
def test_stuart_maxwell_equals_statsmodels(seed):
    t = _random_square(np.random.default_rng(seed), r=3 + seed % 2)
    ref = SquareTable(t, shift_zeros=False).homogeneity()
    res = stuart_maxwell_test(t, method="asymptotic")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.dof == ref.df
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-15)


def test_stuart_maxwell_on_two_zones_is_mcnemar():
    for t in ([[10, 6], [1, 10]], [[3, 0], [4, 9]], [[20, 9], [14, 7]]):
        asym = stuart_maxwell_test(t, method="asymptotic")
        ref = mcnemar(t, exact=False, correction=False)
        assert asym.statistic == pytest.approx(ref.statistic, rel=1e-12)
        exact = stuart_maxwell_test(t, method="exact")
        assert exact.p_method == "exact"
        assert exact.pvalue == pytest.approx(mcnemar(t, exact=True).pvalue, rel=1e-12)


def test_stuart_maxwell_exact_is_the_enumeration_of_every_swap():
    t = np.array([[4, 2, 1, 0], [0, 5, 3, 1], [2, 0, 6, 0], [0, 2, 0, 3]])
    res = stuart_maxwell_test(t, method="exact")
    # every discordant key swapped between the raters or not: 2^D equally likely tables
    keys = [(i, j) for i in range(4) for j in range(4) if i != j for _ in range(t[i, j])]
    base = np.diag(np.diag(t))
    obs = stuart_maxwell_test(t, method="asymptotic").statistic
    hits = 0
    for swaps in product([0, 1], repeat=len(keys)):
        tab = base.copy()
        for (i, j), s in zip(keys, swaps, strict=True):
            tab[(j, i) if s else (i, j)] += 1
        d = (tab.sum(axis=1) - tab.sum(axis=0)).astype(float)
        if not d.any():
            stat = 0.0
        else:
            stat = stuart_maxwell_test(tab, method="asymptotic").statistic
        hits += stat >= obs - REL_TOL * max(1.0, obs)
    assert res.pvalue == pytest.approx(hits / 2 ** len(keys), rel=1e-12)
    # the engine enumerates the splits of each pair of zones (binomially weighted)
    splits = [t[i, j] + t[j, i] + 1 for i in range(4) for j in range(i + 1, 4) if t[i, j] + t[j, i]]
    assert res.n_discordant == len(keys) and res.n_perm == np.prod(splits)


def test_stuart_maxwell_auto_and_degenerate_tables():
    few = [[10, 6, 0], [1, 10, 2], [0, 3, 12]]  # 12 discordant keys: exact
    many = [[30, 16, 5], [9, 30, 12], [6, 13, 40]]
    assert stuart_maxwell_test(few).p_method == "exact"
    assert stuart_maxwell_test(many).p_method == "asymptotic"
    # a zone without discordant keys carries no information: left out (dof 1, not 2)
    res = stuart_maxwell_test([[10, 0, 0], [0, 8, 5], [0, 1, 9]], method="asymptotic")
    assert res.dof == 1
    ref = mcnemar([[8, 5], [1, 9]], exact=False, correction=False).statistic
    assert res.statistic == pytest.approx(ref) and ref == pytest.approx(16 / 6)
    with pytest.raises(InputError, match="no discordant keys"):
        stuart_maxwell_test([[5, 0], [0, 7]])
    with pytest.raises(InputError, match="square table"):
        stuart_maxwell_test([[1, 2, 3]])


def _brute_force_mh(z: np.ndarray) -> float:
    """P(X² ≥ X²_obs) over every relabelling: each key's zones permuted among the raters in
    each of the k! ways, every combination of the keys' permutations enumerated (k!^keys
    tables, built at once) and Pearson's X² of each table from its margins."""
    n_keys, k = z.shape
    perms = np.array(list(permutations(range(k))))
    # the zone counts each key adds to each rater's row, under each of its permutations
    counts = np.eye(4)[z[np.arange(n_keys)[:, None, None], perms[None, :, :]]]
    choice = np.array(list(product(range(len(perms)), repeat=n_keys)))
    tables = sum(counts[j][choice[:, j]] for j in range(n_keys))
    tables = tables[:, :, tables[0].sum(axis=0) > 0]  # zones no key is in: left out

    def pearson(t: np.ndarray) -> np.ndarray:
        expected = t.sum(axis=2)[:, :, None] * t.sum(axis=1)[:, None, :] / t[0].sum()
        return ((t - expected) ** 2 / expected).sum(axis=(1, 2))

    obs = pearson(tables[:1])[0]  # the first combination permutes nothing
    return float(np.mean(pearson(tables) >= obs - 1e-12 * obs))


def test_marginal_homogeneity_exact_and_monte_carlo():
    z = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 3], [2, 2, 1], [0, 0, 0], [3, 1, 1]])
    ref = _brute_force_mh(z)
    res = marginal_homogeneity_test(z, n_perm=10_000, rng=0)
    assert res.p_method == "exact" and res.n_discordant == 4 and res.n_perm == 6**4
    assert res.pvalue == pytest.approx(ref, abs=1e-15)
    mc = marginal_homogeneity_test(z, n_perm=800, rng=1)
    assert mc.p_method == "permutation" and within_mc_error(mc.pvalue, ref, 800)
    with pytest.raises(InputError, match="one zone"):
        marginal_homogeneity_test([[1, 1, 1], [1, 1, 1]])


def test_incomplete_keys_are_matched_within_keys_among_the_raters_present():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    cubism = pts[pts.movement == "cubism"]
    drop = cubism[(cubism.expert == "E3")].index[:2]
    sub = pts.drop(index=drop)
    auto = compare_groups(sub, "expert", n_perm=99, rng=0).set_index(["test", "groups"])
    note = (
        "matched within keys: 2 of 135 keys not rated once by every rater of the test "
        "(labels permuted among the raters present)"
    )
    row = auto.loc[("energy", "E1|E2|E3")]
    assert (row.design, row.n, row.note) == ("matched", 403, note)
    assert auto.loc[("marginal_homogeneity", "E1|E2|E3"), "design"] == "matched"
    # E1 and E2 still rated every key: their pair is complete, with no note
    assert auto.loc[("energy", "E1|E2"), ["design", "note"]].tolist() == ["matched", ""]
    assert auto.loc[("stuart_maxwell", "E1|E2"), "note"] == ""
    # Stuart–Maxwell compares the keys both rated
    sm = auto.loc[("stuart_maxwell", "E1|E3")]
    assert sm.note.endswith("zone test on the 133 keys rated by both")
    # "matched" is the same design; "independent" permutes over all points
    forced = compare_groups(sub, "expert", n_perm=99, rng=0, design="matched")
    pd.testing.assert_frame_equal(forced, auto.reset_index()[forced.columns])
    free = compare_groups(sub, "expert", n_perm=99, rng=0, design="independent")
    assert set(free.design) == {"independent"} and set(free.test) == {"energy", "chi2"}
    # without comparison keys nothing can be matched, and asking for it is an error
    bare = sub[["expert", "delta", "r", "quality"]].copy()
    bare.attrs = {}
    assert set(compare_groups(bare, "expert", n_perm=9, rng=0).design) == {"independent"}
    with pytest.raises(InputError, match="carry no comparison keys"):
        compare_groups(bare, "expert", n_perm=9, rng=0, design="matched")


def test_raters_that_share_no_key_fall_back_or_are_not_matched():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    # E3 rated only cubism, E1 and E2 everything but cubism: E3 shares no key
    keep = ((pts.expert == "E3") & (pts.movement == "cubism")) | (
        (pts.expert != "E3") & (pts.movement != "cubism")
    )
    sub = pts[keep]
    auto = compare_groups(sub, "expert", n_perm=99, rng=0).set_index(["test", "groups"])
    assert auto.loc[("energy", "E1|E2|E3"), ["design", "note"]].tolist() == [
        "independent",
        "independent design: E3 share(s) no key with the others",
    ]
    assert auto.loc[("energy", "E1|E3"), "note"] == (
        "independent design: the raters of the test share no key"
    )
    assert auto.loc[("energy", "E1|E2"), "design"] == "matched"
    forced = compare_groups(sub, "expert", n_perm=99, rng=0, design="matched")
    forced = forced.set_index(["test", "groups"])
    row = forced.loc[("energy", "E1|E3")]
    assert np.isnan(row.pvalue) and row.note == (
        "no matched test: the raters of the test share no key"
    )


def test_zone_tests_of_matched_raters_use_the_paired_zones():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    res = compare_groups(pts, "expert", tests=["chi2"], rng=0).set_index("groups")
    wide = pts.pivot(index=["movement", "criterion", "modality"], columns="expert",
                     values="quality").astype(str)  # fmt: skip
    levels = list(rrmap.QUALITY_LEVELS)
    square = pd.crosstab(wide.E1, wide.E3).reindex(index=levels, columns=levels, fill_value=0)
    ref = SquareTable(square.to_numpy(), shift_zeros=False).homogeneity()
    row = res.loc["E1|E3"]
    assert row.test == "stuart_maxwell" and row.dof == ref.df
    assert row.statistic == pytest.approx(ref.statistic, rel=1e-10)
    # statsmodels' 1 − cdf stops at 1.1e-16; the survival function goes further
    assert row.pvalue == pytest.approx(stats.chi2.sf(ref.statistic, ref.df), rel=1e-8)
    codes = {lv: i for i, lv in enumerate(levels)}
    z = wide[["E1", "E2", "E3"]].replace(codes).to_numpy(dtype=int)
    mh = marginal_homogeneity_test(z, n_perm=5000, rng=0)
    assert res.loc["E1|E2|E3", "test"] == "marginal_homogeneity"
    assert res.loc["E1|E2|E3", "statistic"] == pytest.approx(mh.statistic, rel=1e-12)
    assert res.loc["E1|E2|E3", "effect"] == pytest.approx(mh.effect, rel=1e-12)


def test_bad_inputs_name_what_is_wrong():
    from rrmap.stats import run_designs

    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    with pytest.raises(
        InputError,
        match=r"design must be one of \['auto', 'matched', 'independent'\], got 'paired'",
    ):
        compare_groups(pts, "expert", n_perm=9, design="paired")
    with pytest.raises(InputError, match="design must be one of"):
        run_designs(pts, n_perm=9, design="paired")
    with pytest.raises(InputError, match="design must be one of"):
        rrmap.analyze(pts, by=[], n_perm=9, design="paired")
    with pytest.raises(InputError, match="table counts must be finite non-negative integers"):
        stuart_maxwell_test([[1.5, 2], [0, 3]])
    with pytest.raises(InputError, match="method must be auto, asymptotic or exact, got 'mc'"):
        stuart_maxwell_test([[1, 2], [0, 3]], method="mc")
    with pytest.raises(
        InputError, match=r"zones must be a \(keys × raters\) matrix with ≥ 2 raters"
    ):
        marginal_homogeneity_test([0, 1, 2])
    with pytest.raises(InputError, match="zones must be non-negative integer level codes"):
        marginal_homogeneity_test([[0, -2], [1, 1]])
    with pytest.raises(InputError, match=r"a rater \(a column of zones\) rated no key"):
        marginal_homogeneity_test([[0, -1, 1], [1, -1, 0]])
    with pytest.raises(InputError, match="zone codes must be below n_levels = 2"):
        marginal_homogeneity_test([[0, 2], [1, 1]], n_levels=2)


def test_many_raters_are_shuffled_without_listing_every_permutation():
    """18 raters: 18! permutations cannot be listed (an analysis of 18 raters grew to 22 GB);
    each block's order comes from sorting uniform doubles, uniform and chunk-free."""
    src = BlockShuffles(18, 4)
    assert src.perms is None
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    rows = np.vstack([src.draw(3, g1), src.draw(5, g1)])
    np.testing.assert_array_equal(rows, src.draw(8, g2))
    blocks = rows.reshape(8, 18, 4)
    assert all(sorted(blocks[b, :, j]) == list(range(18)) for b in range(8) for j in range(4))
    first = BlockShuffles(9, 1).draw(45_000, np.random.default_rng(2))[:, 0]
    counts = np.bincount(first, minlength=9)
    assert stats.chisquare(counts).pvalue > 0.001
    # up to 8 raters the listed permutations are drawn as before (p-values unchanged)
    assert BlockShuffles(8, 1).perms.shape == (40320, 8)
    pts = _matched_points(12, 6, seed=1)
    res = compare_groups(pts, "expert", tests=["energy"], n_perm=199, rng=0, pairwise=False)
    assert res.iloc[0].design == "matched" and 0 < res.iloc[0].pvalue <= 1
