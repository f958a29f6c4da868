"""Multiplicity across the run: ``pvalue_study`` (Benjamini–Hochberg over every test of the
tests table) and the gatekept adjustment (the k-sample test first, then Holm over its
pairs), each checked against statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from multitest_reference import multipletests

import rrmap
from rrmap.cli import main
from rrmap.stats import Settings
from rrmap.stats.adjust import GATE_CLOSED, adjust_pvalues, smallest_rejectable
from rrmap.stats.designs import run_designs


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


@pytest.fixture(scope="module")
def run(pts):
    return run_designs(pts, by=["modality", "movement"], n_perm=199, rng=0, p_adjust="gatekept")


def test_pvalue_study_is_benjamini_hochberg_over_every_test_of_the_run(run):
    p = run["pvalue"].to_numpy()
    tested = ~np.isnan(p)
    assert tested.sum() > 100  # the families of two categories and the expert effect
    expected = multipletests(p[tested], method="fdr_bh")[1]
    np.testing.assert_allclose(run.loc[tested, "pvalue_study"], expected, rtol=1e-12)
    assert run.loc[~tested, "pvalue_study"].isna().all()


def test_pvalue_study_of_a_run_is_not_the_union_of_its_families(pts, run):
    # the same tests in a smaller run: the same raw p-values, study p-values over fewer tests
    small = run_designs(pts, by=["modality"], n_perm=199, rng=0, p_adjust="gatekept")
    merged = small.merge(run, on=["test", "by", "within", "groups"], suffixes=("", "_big"))
    np.testing.assert_array_equal(merged["pvalue"], merged["pvalue_big"])
    # each run's study p-values are Benjamini-Hochberg over all of its own tests, so the same
    # test gets another study p-value in a run of other tests
    for table in (small, run):
        ok = table["pvalue"].notna()
        ref = multipletests(table.loc[ok, "pvalue"], method="fdr_bh")[1]
        np.testing.assert_allclose(table.loc[ok, "pvalue_study"], ref, rtol=1e-12)
    assert not np.allclose(merged["pvalue_study"], merged["pvalue_study_big"])


def _family_reference(part: pd.DataFrame) -> tuple[np.ndarray, list[int]]:
    """Gatekept p-values of one family by hand: statsmodels' Holm over the pairs, raised to
    the k-sample test's p; the pairs left out where the k-sample test does not reject."""
    ngroups = part["groups"].str.count(r"\|") + 1
    gate = part[ngroups > 2]
    pairs = part[(ngroups == 2) & part["pvalue"].notna()]
    out = pd.Series(np.nan, index=part.index)
    out[gate.index] = gate["pvalue"]
    closed = []
    if len(pairs):
        holm = multipletests(pairs["pvalue"], method="holm")[1]
        if gate.empty or np.isnan(gate["pvalue"].iloc[0]):
            out[pairs.index] = holm
        elif gate["pvalue"].iloc[0] < 0.05:
            out[pairs.index] = np.maximum(holm, gate["pvalue"].iloc[0])
        else:
            closed = list(pairs.index)
    return out.to_numpy(), closed


def test_gatekept_pairs_are_holm_after_the_k_sample_test(run):
    kind = np.where(run["test"] == "energy", "energy", "zones")
    opened = shut = 0
    for _, part in run.groupby([kind, run["by"], run["within"]], sort=False):
        expected, closed = _family_reference(part)
        np.testing.assert_allclose(part["pvalue_gatekept"], expected, rtol=1e-12)
        for i in closed:
            assert GATE_CLOSED in run.loc[i, "note"]
        opened += len(part) > 1 and not closed
        shut += bool(closed)
    assert opened > 5 and shut > 5  # both branches of the gate are exercised


def test_gatekept_bound_and_the_table_alone():
    assert smallest_rejectable(4, "gatekept") == pytest.approx(0.05 / 3)
    table = pd.DataFrame(
        {
            "test": ["energy"] * 4,
            "by": ["expert"] * 4,
            "within": ["all"] * 4,
            "groups": ["a|b|c", "a|b", "a|c", "b|c"],
            "n_perm": [99] * 4,
            "pvalue": [0.03, 0.01, 0.02, 0.5],
            "note": [""] * 4,
        }
    )
    out = adjust_pvalues(table, "gatekept")
    holm = multipletests([0.01, 0.02, 0.5], method="holm")[1]
    np.testing.assert_allclose(out["pvalue_gatekept"], [0.03, *np.maximum(holm, 0.03)])
    table["pvalue"] = [0.2, 0.01, 0.02, 0.5]
    out = adjust_pvalues(table, "gatekept")
    assert out["pvalue_gatekept"].iloc[1:].isna().all()
    assert out["note"].tolist()[1:] == [GATE_CLOSED] * 3


def test_stars_on_mid_p_adjust_the_mid_p_values(pts):
    mid = run_designs(pts, by=[], settings=Settings(n_perm=199, seed=0, mid_p=True))
    p = mid["pvalue_mid"].to_numpy()
    kind = np.where(mid["test"] == "energy", "energy", "zones")
    for _, part in mid.groupby(kind):
        ok = part["pvalue_mid"].notna()
        expected = multipletests(part.loc[ok, "pvalue_mid"], method="holm")[1]
        np.testing.assert_allclose(part.loc[ok, "pvalue_holm"], expected, rtol=1e-12)
    np.testing.assert_allclose(mid["pvalue_study"], multipletests(p, method="fdr_bh")[1])


def test_cli_stars_mid_p_and_ci_reach_the_tests_table(tmp_path):
    out = tmp_path / "res"
    args = ["analyze", str(rrmap.datasets.example_ratings_path()), "--by", "modality"]
    args += ["--permutations", "99", "--bootstrap", "50", "--no-figures", "-q"]
    args += ["--stars", "mid-p", "--ci", "percentile", "--out", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    tests = pd.read_csv(out / "tests.csv")
    ok = tests["pvalue_mid"].notna()
    assert np.allclose(
        tests.loc[ok, "pvalue_study"],
        multipletests(tests.loc[ok, "pvalue_mid"], method="fdr_bh")[1],
    )
    energy = tests["test"] == "energy"
    assert tests.loc[energy, "effect_low"].notna().all()
    bad = CliRunner().invoke(main, [*args[:2], "--stars", "mid"])
    assert bad.exit_code == 2 and "'mid' is not one of 'p', 'mid-p'" in bad.output


def test_the_summary_says_when_the_marks_follow_the_mid_p_values():
    import rrmap
    from rrmap.report.markdown import summary_lines
    from rrmap.stats import Settings

    ratings = rrmap.datasets.load_example_ratings()
    mid = rrmap.analyze(ratings, by=[], n_boot=0, settings=Settings(n_perm=99, seed=0, mid_p=True))
    plain = rrmap.analyze(ratings, by=[], n_boot=0, settings=Settings(n_perm=99, seed=0))
    assert "after Holm adjustment of the mid-p values within families" in summary_lines(mid)[0]
    assert "after Holm adjustment within families" in summary_lines(plain)[0]
