"""Tests of the test designs and the tests table format."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from multitest_reference import multipletests
from properties import examples
from scipy import stats

import rrmap
from rrmap.errors import InputError
from rrmap.stats import Settings
from rrmap.stats.adjust import study_pvalues
from rrmap.stats.designs import (
    EXTRA_COLUMNS,
    TESTS_COLUMNS,
    adjust_pvalues,
    category_effect_per_expert,
    compare_groups,
    default_categories,
    expert_effect,
    expert_effect_per_option,
    run_designs,
)
from rrmap.stats.energy import energy_tests
from rrmap.zones import QUALITY_LEVELS

SPEC_COLUMNS = [
    "test",
    "by",
    "within",
    "groups",
    "design",
    "n",
    "statistic",
    "dof",
    "pvalue",
    "p_method",
    "n_perm",
]


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


#: The tables' columns, designs and statistics are checked here, not the effect sizes'
#: intervals (tests/stats/test_effects.py): no bootstrap.
NO_INTERVALS = {"n_perm": 19, "seed": 0, "p_adjust": "none", "n_boot": 0}


@pytest.fixture(scope="module")
def table(pts):
    return run_designs(pts, settings=Settings(**NO_INTERVALS))


@pytest.fixture(scope="module")
def study(pts):
    """The study's tests: independent samples, asymptotic χ², no adjustment."""
    return run_designs(pts, settings=Settings(**NO_INTERVALS, design="independent",
                                              chi2_n_perm=0))  # fmt: skip


def test_spec_columns(table, study):
    assert list(TESTS_COLUMNS) == SPEC_COLUMNS
    assert list(table.columns) == [*SPEC_COLUMNS, *EXTRA_COLUMNS]
    assert set(study.test) == {"energy", "chi2"}
    assert set(table.test) == {"energy", "chi2", "stuart_maxwell", "marginal_homogeneity"}
    # the example's raters rated every key: every expert-effect test is matched
    expert = table[table.by == "expert"]
    assert (expert.design == "matched").all() and (table[table.by != "expert"].design ==
                                                   "independent").all()  # fmt: skip
    assert (study.design == "independent").all()
    energy = table[table.test == "energy"]
    zones = table[table.test != "energy"]
    assert energy["dof"].isna().all() and (energy["n_perm"] == 19).all()
    assert set(energy.p_method) == {"permutation"}
    assert zones[zones.test != "marginal_homogeneity"]["dof"].notna().all()
    chi2 = study[study.test == "chi2"]
    assert chi2["n_perm"].isna().all() and set(chi2.p_method) == {"asymptotic"}
    for groups in table.groups:
        parts = groups.split("|")
        assert parts == sorted(parts) and len(parts) >= 2


def test_row_counts_follow_the_designs(study, pts):
    table = study
    # per test kind: overall 1 + 3 pairs; per option 4 each over 5 + 9 + 3 + 3 options;
    # per expert: movement 1 + 10, criterion 1 + 36, group 1 + 3, modality 1 + 3
    assert len(table) == 2 * (4 + 4 * 20 + 3 * (11 + 37 + 4 + 4))
    # a complete design: no note but, rarely, how an effect's interval was made
    assert (table.note.eq("") | table.note.str.startswith("effect interval:")).all()
    d1 = table[table.within == "all"]
    assert d1.by.unique().tolist() == ["expert"]
    assert d1.groups.tolist() == ["E1|E2|E3", "E1|E2", "E1|E3", "E2|E3"] * 2
    assert d1.n.tolist() == [405, 270, 270, 270] * 2
    per_option = table[(table.by == "expert") & (table.within != "all")]
    assert per_option.within.str.split("=").str[0].unique().tolist() == [
        "movement",
        "criterion",
        "criterion_group",
        "modality",
    ]
    per_expert = table[table.by != "expert"]
    assert sorted(per_expert.within.unique()) == ["expert=E1", "expert=E2", "expert=E3"]
    glob = per_expert[per_expert.groups.str.count(r"\|") > 1]
    assert set(glob.n) == {135}


def test_energy_statistics_equal_dcor(table, pts, dcor):
    # the statistic is the same whatever the design (only the relabellings differ)
    sub = pts[pts.expert == "E2"]
    row = table[
        (table.test == "energy") & (table.by == "movement") & (table.within == "expert=E2")
    ].iloc[0]
    samples = [g[["delta", "r"]].to_numpy() for _, g in sub.groupby("movement", sort=True)]
    ref = float(dcor.homogeneity.energy_test(*samples).statistic)
    assert row.statistic == pytest.approx(ref, rel=1e-10)
    opt = pts[pts.criterion == "sharp-blurry"] if "sharp-blurry" in set(pts.criterion) else None
    crit = sorted(pts.criterion.unique())[0] if opt is None else "sharp-blurry"
    sub = pts[pts.criterion == crit]
    row = table[(table.test == "energy") & (table.within == f"criterion={crit}")].iloc[2]
    assert row.groups == "E1|E3"
    ref = dcor.homogeneity.energy_test(
        sub.loc[sub.expert == "E1", ["delta", "r"]].to_numpy(),
        sub.loc[sub.expert == "E3", ["delta", "r"]].to_numpy(),
    ).statistic
    assert row.statistic == pytest.approx(float(ref), rel=1e-10)


def test_chi2_rows_equal_scipy(study, pts):
    table = study
    for within, grp_col, sub in [
        ("all", "expert", pts),
        ("expert=E3", "criterion_group", pts[pts.expert == "E3"]),
    ]:
        rows = table[(table.test == "chi2") & (table.within == within) & (table.by == grp_col)]
        row = rows.iloc[0]
        tab = pd.crosstab(sub[grp_col], sub["quality"].astype(str))
        tab = tab.loc[:, (tab.sum() > 0)]
        ref = stats.chi2_contingency(tab.to_numpy(), correction=False)
        assert row.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        assert row.dof == ref.dof
        assert row.min_expected == pytest.approx(ref.expected_freq.min())
        assert row.share_expected_below_5 == pytest.approx(np.mean(ref.expected_freq < 5))


def test_designs_are_the_parts_of_run_designs(pts):
    full = run_designs(pts, by=["modality"], n_perm=0, rng=0, p_adjust="none")
    d1 = expert_effect(pts, n_perm=0, rng=0)
    d2 = expert_effect_per_option(pts, "modality", n_perm=0, rng=0)
    d3 = category_effect_per_expert(pts, "modality", n_perm=0, rng=0)
    parts = pd.concat([d1, d2, d3], ignore_index=True)
    # every test draws from the stream of its own identity: the p-values are equal too;
    # pvalue_study is Benjamini-Hochberg over the tests of the call (here, of the run)
    parts["pvalue_study"] = study_pvalues(parts["pvalue"].to_numpy())
    pd.testing.assert_frame_equal(full.reset_index(drop=True), parts, check_dtype=False)


def test_seed_reproduces_the_table(pts):
    a = run_designs(pts, by="criterion_group", n_perm=49, rng=3)
    b = run_designs(pts, by="criterion_group", n_perm=49, rng=3)
    pd.testing.assert_frame_equal(a, b)
    # a generator gives one root seed: the seed drawn from it reproduces the run
    root = int(np.random.default_rng(3).integers(2**63))
    c = run_designs(pts, by="criterion_group", n_perm=49, rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(c, run_designs(pts, by="criterion_group", n_perm=49, rng=root))
    c = run_designs(pts, by="criterion_group", n_perm=49, rng=4)
    np.testing.assert_allclose(a.statistic, c.statistic)
    assert not np.allclose(a.pvalue, c.pvalue)


def test_skips_are_recorded(pts):
    # movement "abstract art" only rated by E1; E2 has a single point in "cubism"
    movs = sorted(pts.movement.unique())
    sub = pts[~((pts.movement == movs[0]) & (pts.expert != "E1"))]
    lone = sub[(sub.movement == movs[1]) & (sub.expert == "E2")].index[1:]
    sub = sub.drop(index=lone)
    res = expert_effect_per_option(sub, "movement", n_perm=9, rng=0)
    # raters without a point in an option are noted like raters with one point
    first = res[res.within == f"movement={movs[0]}"].set_index(["test", "groups"])
    assert len(first) == 8
    both = "group with < 2 points: E2 has 0 points; E3 has 0 points"
    assert first.loc[("energy", "E1|E2|E3"), "note"] == both
    assert first.loc[("chi2", "E1|E3"), "note"] == "group with < 2 points: E3 has 0 points"
    assert first.loc[("energy", "E1|E2|E3"), "n"] == (sub.movement == movs[0]).sum()
    assert first.pvalue.isna().all() and first.n_perm.isna().all()
    second = res[res.within == f"movement={movs[1]}"].set_index(["test", "groups"])
    reason = "group with < 2 points: E2 has 1 point"
    assert second.loc[("energy", "E1|E2|E3"), "note"] == reason
    assert second.loc[("chi2", "E1|E2"), "note"] == reason
    assert np.isnan(second.loc[("energy", "E1|E2"), "pvalue"])
    assert second.loc[("energy", "E1|E3"), "note"] == ""
    assert 0 < second.loc[("energy", "E1|E3"), "pvalue"] <= 1


def test_chi2_single_quality_level_is_a_recorded_skip():
    pts = pd.DataFrame(
        {
            "expert": ["A"] * 3 + ["B"] * 3,
            "delta": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
            "r": [1.0, 1.1, 0.9, 1.0, 1.2, 1.05],
            "quality": pd.Categorical(["fair"] * 6, categories=list(QUALITY_LEVELS)),
        }
    )
    res = compare_groups(pts, "expert", n_perm=9, rng=0)
    chi = res[res.test == "chi2"].iloc[0]
    assert chi.note == "all points in one quality level (fair): no test"
    assert np.isnan(chi.pvalue)
    assert res[res.test == "energy"].note.tolist() == [""]


def test_p_adjust_within_families(pts):
    res = run_designs(pts, by="modality", n_perm=99, rng=1)  # holm by default
    assert list(res.columns) == [*SPEC_COLUMNS, "pvalue_holm", *EXTRA_COLUMNS]
    fam = res[(res.test == "energy") & (res.by == "modality") & (res.within == "expert=E1")]
    assert len(fam) == 4
    ref = multipletests(fam.pvalue, method="holm")[1]
    np.testing.assert_allclose(fam.pvalue_holm, ref)
    # the zone tests of a family (marginal homogeneity of three raters, Stuart–Maxwell of
    # each pair) are one family
    bh = adjust_pvalues(res.drop(columns="pvalue_holm"), "fdr_bh")
    fam = bh[(bh.test != "energy") & (bh.within == "all")]
    assert fam.test.tolist() == ["marginal_homogeneity"] + ["stuart_maxwell"] * 3
    np.testing.assert_allclose(fam.pvalue_fdr_bh, multipletests(fam.pvalue, method="fdr_bh")[1])
    assert adjust_pvalues(res, "none") is res


def test_p_adjust_skips_missing_pvalues():
    t = pd.DataFrame(
        {
            "test": ["energy"] * 3,
            "by": ["expert"] * 3,
            "within": ["all"] * 3,
            "pvalue": [0.01, np.nan, 0.04],
            "n_perm": [9, 0, 9],
        }
    )
    out = adjust_pvalues(t, "holm")
    assert np.isnan(out.pvalue_holm.iloc[1])
    np.testing.assert_allclose(out.pvalue_holm.iloc[[0, 2]], [0.02, 0.04])


def test_bad_p_adjust(pts):
    with pytest.raises(
        InputError, match=r"p_adjust must be one of \['none', 'holm', 'fdr_bh', 'gatekept'\]"
    ):
        run_designs(pts, p_adjust="bonferroni", n_perm=0)


def test_bad_by(pts):
    with pytest.raises(InputError, match=r"by style: not a category column; choose from"):
        run_designs(pts, by=["style"], n_perm=0)
    with pytest.raises(InputError, match="lists a category twice"):
        run_designs(pts, by=["movement", "movement"], n_perm=0)


def test_bad_tests_kind(pts):
    with pytest.raises(InputError, match="tests must be among"):
        compare_groups(pts, "expert", tests=["t-test"])


def test_nan_points_are_an_error(pts):
    bad = pts.copy()
    bad.loc[[3, 7], "r"] = np.nan
    with pytest.raises(InputError) as err:
        run_designs(bad, by="modality", n_perm=0)
    msg = str(err.value)
    assert "2 point(s) with NaN or inf" in msg
    assert f"lines {pts.line_ref[3]}/{pts.line_query[3]}" in msg


def test_missing_columns_are_an_error(pts):
    with pytest.raises(InputError, match=r"lacks column\(s\) \['quality'\]"):
        compare_groups(pts.drop(columns="quality"), "expert", n_perm=0)


def test_default_categories_example(pts):
    assert default_categories(pts) == ["movement", "criterion", "criterion_group", "modality"]


def _toy(columns: dict) -> pd.DataFrame:
    df = pd.DataFrame(columns)
    df.attrs["rrmap"] = {"keys": ["expert", *[c for c in columns if c != "expert"]]}
    return df


def test_default_categories_rule():
    a = ["x", "x", "y", "y", "z", "z"] * 2
    b = ["p", "q", "p", "q", "p", "q"] * 2
    df = _toy(
        {
            "expert": ["E1"] * 6 + ["E2"] * 6,
            "a": a,
            "a_copy": [s.upper() for s in a],  # relabelling of a: dropped
            "b": b,
            "ab": [f"{i}{j}" for i, j in zip(a, b, strict=True)],  # interaction a×b: dropped
            "coarse": ["g1" if s in "xy" else "g2" for s in a],  # coarsening of a: kept
        }
    )
    assert default_categories(df) == ["a", "b", "coarse"]


def test_default_categories_needs_keys():
    with pytest.raises(InputError, match="no category columns recorded"):
        default_categories(pd.DataFrame({"expert": ["a"]}))


def test_no_progress_bar_when_not_asked(pts, capsys):
    run_designs(pts, by="modality", n_perm=0, tests=["chi2"], progress=False)
    assert capsys.readouterr().err == ""


def test_chi2_monte_carlo_in_designs(pts):
    kw = dict(tests=["chi2"], rng=0, design="independent")
    res = compare_groups(pts, "expert", chi2_n_perm=199, chi2_mc_all=True, **kw)
    # the three raters: Monte Carlo; a pair (two rows): every table enumerated, exact, where
    # there are at most EXACT_TABLES of them
    from rrmap.stats.chi2 import EXACT_TABLES, _two_row_tables

    sizes = []
    for groups in res.groups:
        sub = pts[pts.expert.isin(groups.split("|"))]
        tab = rrmap.stats.contingency_table(sub.expert, sub.quality).to_numpy()
        tab = tab[:, tab.sum(axis=0) > 0]
        sizes.append(_two_row_tables(tab.sum(axis=1), tab.sum(axis=0)))
    want = ["exact" if s <= EXACT_TABLES else "monte_carlo" for s in sizes]
    assert res.p_method.tolist() == want and want[0] == "monte_carlo" and "exact" in want
    exact = res.p_method == "exact"
    assert (res.n_perm[~exact] == 199).all() and (res.n_perm[exact] > 10_000).all()
    assert ((res.pvalue > 0) & (res.pvalue <= 1)).all()
    # the raters differ strongly: no Monte Carlo table reaches the observed X²
    assert res.pvalue.iloc[0] == pytest.approx(1 / 200)
    assert (res.pvalue[exact] < 1e-6).all()
    asym = compare_groups(pts, "expert", chi2_n_perm=0, **kw)
    np.testing.assert_allclose(res.statistic, asym.statistic)
    assert set(asym.p_method) == {"asymptotic"} and asym.n_perm.isna().all()
    # by default only the tables that fail Cochran's rule get a Monte Carlo p-value
    auto = compare_groups(pts, "expert", chi2_n_perm=199, **kw)
    assert set(auto.p_method) == {"asymptotic"}  # 135 points per rater: large expected counts
    per_rater = compare_groups(pts[pts.expert == "E1"], "movement", chi2_n_perm=199, **kw)
    fails = (per_rater.share_expected_below_5 > 0.2) | (per_rater.min_expected < 1)
    assert fails.any()
    pair = per_rater.groups.str.count(r"\|") == 1
    want = np.where(fails, np.where(pair, "exact", "monte_carlo"), "asymptotic")
    assert (per_rater.p_method == want).all()


def _two_families_one_label():
    """Category ``a`` whose only option is ``b=c`` and category ``a=b`` with options c, d:
    both families were labelled ``a=b=c`` and ran one after the other."""
    g = np.random.default_rng(0)
    rows = []
    for e in ["E1", "E2"]:
        for i in range(12):
            for origin in ["real", "generated"]:
                lo = int(g.integers(0, 40))
                rows.append(
                    {
                        "expert": e,
                        "a": "b=c",
                        "a=b": "c" if i % 2 else "d",
                        "item": str(i),
                        "origin": origin,
                        "low rating": lo,
                        "high rating": lo + int(g.integers(5, 40)),
                    }
                )
    return rrmap.points(rrmap.load_ratings(pd.DataFrame(rows)))


def test_families_with_lookalike_labels_use_their_own_points():
    from rrmap.stats.energy import energy_statistic

    pts = _two_families_one_label()
    res = run_designs(pts, by=["a", "a=b"], n_perm=99, rng=0, tests=["energy"])
    fams = res[res["by"] == "expert"].set_index("within")
    assert list(fams.index) == ["all", 'a="b=c"', '"a=b"=c', '"a=b"=d']
    for within, col, val in [('a="b=c"', "a", "b=c"), ('"a=b"=c', "a=b", "c")]:
        sub = pts[pts[col] == val]
        want = energy_statistic(*[sub[sub.expert == e][["delta", "r"]] for e in ("E1", "E2")])
        assert fams.loc[within, "statistic"] == pytest.approx(want, rel=1e-12)
        assert fams.loc[within, "n"] == len(sub)
    # adjusted p-values treat them as two families
    adj = adjust_pvalues(res, "holm")
    assert adj.groupby(["test", "by", "within"]).ngroups == len(res)


@given(st.text(max_size=8), st.text(max_size=8))
def test_within_labels_round_trip(column, value):
    from rrmap.stats.designs import split_within, within_label

    assert split_within(within_label(column or "c", value)) == (column or "c", value)


def test_missing_or_lookalike_group_labels_are_errors(pts):
    bad = pts.copy()
    bad.loc[bad.index[[3, 7]], "movement"] = np.nan
    with pytest.raises(InputError, match=r"column 'movement': missing value at rows 3, 7"):
        run_designs(bad, by=["movement"], n_perm=9, rng=0)
    mixed = pts.copy()
    mixed["movement"] = mixed["movement"].astype(object)
    mixed.loc[mixed.index[:5], "movement"] = 1
    mixed.loc[mixed.index[5:10], "movement"] = "1"
    with pytest.raises(InputError, match="labels 1 and '1' are different values that print"):
        run_designs(mixed, by=["movement"], n_perm=9, rng=0)
    x = np.zeros((4, 2))
    with pytest.raises(InputError, match="labels: missing value at row 2"):
        energy_tests(x, ["a", "a", None, "b"], n_perm=9, rng=0)


@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 1e-4, 0.01, 0.05, 0.05, 0.5, 1.0]),
            st.floats(0, 1, allow_nan=False),
        ),
        min_size=1,
        max_size=40,
    )
)
@example(ps=[0.0, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 5e-324])  # subnormal: same rounding
@settings(max_examples=examples(40))  # statsmodels takes ~50 ms a call
def test_holm_and_bh_closed_forms_equal_statsmodels(ps):
    from rrmap.stats.adjust import adjusted

    p = np.array(ps)
    for method in ("holm", "fdr_bh"):
        np.testing.assert_allclose(
            adjusted(p, method), multipletests(p, method=method)[1], rtol=1e-12, atol=0
        )


def test_results_do_not_depend_on_the_number_of_jobs_or_the_backend():
    import joblib

    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    # 100 resamples: the effect sizes' intervals are compared too, at a fifth of the cost
    run = Settings(n_perm=200, seed=11, n_boot=100)
    ref = run_designs(pts, by=["modality"], settings=run, n_jobs=1)
    assert ref["effect_low"].notna().any()
    for n_jobs in (2, -1):
        pd.testing.assert_frame_equal(
            run_designs(pts, by=["modality"], settings=run, n_jobs=n_jobs), ref
        )
    # processes started by loky, and forked by multiprocessing (whose pool returns lists only)
    for backend in ("loky", "multiprocessing"):
        with joblib.parallel_config(backend=backend, n_jobs=2):
            res = run_designs(pts, by=["modality"], settings=run)
        pd.testing.assert_frame_equal(res, ref)
    # a different seed gives different p-values: the comparison above can fail
    other = run_designs(
        pts, by=["modality"], settings=Settings(n_perm=200, seed=12, n_boot=100), n_jobs=1
    )
    assert not other["pvalue"].equals(ref["pvalue"])


@pytest.mark.slow
def test_runs_on_a_dask_cluster_through_joblib():
    """The same table on a dask.distributed LocalCluster (how a real cluster is used)."""
    distributed = pytest.importorskip("distributed")
    import joblib

    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    ref = run_designs(pts, by=["criterion_group"], n_perm=200, rng=5, n_jobs=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        joblib.parallel_config(backend="dask"),
        distributed.get_task_stream(client) as stream,
    ):
        res = run_designs(pts, by=["criterion_group"], n_perm=200, rng=5)
        assert len(client.scheduler_info()["workers"]) == 2
    # the families ran as tasks on the cluster
    assert len(stream.data) >= 1
    pd.testing.assert_frame_equal(res, ref)


def test_the_progress_bar_counts_families_on_a_terminal_only(example_points, monkeypatch):
    import io

    from rrmap.stats.designs import _progress_bar

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, shown in ((io.StringIO(), False), (Terminal(), True)):
        monkeypatch.setattr("sys.stderr", stream)
        res = run_designs(example_points, by="modality", n_perm=9, rng=0, progress=True)
        text = stream.getvalue()
        assert ("tests: 100%" in text) is shown
        if shown:  # a family: the overall expert effect, each option, each rater
            assert res["within"].nunique() == 7 and "7/7" in text and "family/s" in text
    with _progress_bar(3, False) as bar:
        bar.update(1)  # the stand-in takes updates and shows nothing


def test_a_bar_that_would_not_show_costs_no_import_of_tqdm(example_points, monkeypatch):
    """Off a terminal the bar is a stand-in from the start: tqdm (50 ms to import) is not
    imported; in Jupyter it is shown."""
    import io
    import sys

    from rrmap._util.progress import shows_progress

    monkeypatch.setattr("sys.stderr", io.StringIO())
    monkeypatch.setitem(sys.modules, "tqdm", None)  # importing it fails
    res = run_designs(example_points, by="modality", n_perm=9, rng=0, progress=True)
    assert len(res) == 56 and sys.stderr.getvalue() == ""
    assert not shows_progress()
    monkeypatch.setitem(sys.modules, "ipykernel", sys)  # any module: Jupyter is running
    assert shows_progress()
