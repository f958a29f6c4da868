"""A test's p-value depends only on its data, the seed and its identity (docs/tests.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap._util.streams import Streams
from rrmap.stats import Settings, compare_groups, energy_test, energy_tests, run_designs

KEY = ["test", "by", "within", "groups"]


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


def _shared(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    both = a.merge(b, on=KEY, suffixes=("_a", "_b"))
    assert len(both)
    return both


def test_by_movement_and_the_default_run_give_the_same_shared_pvalues(pts):
    # the runs are compared with each other: 199 permutations, and no effects' bootstrap
    kw = dict(n_perm=199, chi2_n_perm=199, seed=0, p_adjust="none", n_boot=0)
    one = run_designs(pts, by=["movement"], settings=Settings(**kw))
    every = run_designs(pts, settings=Settings(**kw))  # movement, criterion, …, modality
    both = _shared(one, every)
    assert len(both) == len(one)  # every test of the first run is in the second
    np.testing.assert_array_equal(both.pvalue_a, both.pvalue_b)
    np.testing.assert_array_equal(both.n_perm_a.fillna(-1), both.n_perm_b.fillna(-1))
    # the same with the study's tests and Monte Carlo χ² everywhere
    study = Settings(**kw, design="independent", chi2_mc_all=True)
    both = _shared(
        run_designs(pts, by=["movement"], settings=study), run_designs(pts, settings=study)
    )
    np.testing.assert_array_equal(both.pvalue_a, both.pvalue_b)


def test_order_of_categories_and_jobs_do_not_change_pvalues(pts):
    kw = dict(settings=Settings(n_perm=199, seed=5, p_adjust="none", n_boot=0))
    a = run_designs(pts, by=["modality", "criterion_group"], **kw)
    b = run_designs(pts, by=["criterion_group", "modality"], n_jobs=2, **kw)
    both = _shared(a, b)
    assert len(both) == len(a)
    np.testing.assert_array_equal(both.pvalue_a, both.pvalue_b)


def test_compare_groups_equals_analyze(pts):
    # p-values compared with each other: 199 permutations; no effects' bootstrap (own streams)
    res = rrmap.analyze(pts, by=["modality"], n_perm=199, n_boot=0, rng=0)
    alone = compare_groups(pts, "expert", n_perm=199, rng=0)
    overall = res.tests[res.tests.within == "all"].reset_index(drop=True)
    pd.testing.assert_series_equal(overall.pvalue, alone.pvalue)
    cubism = pts[pts.movement == "cubism"]
    per = compare_groups(cubism, "expert", within="movement=cubism", n_perm=199, rng=0)
    full = rrmap.analyze(pts, by=["movement"], n_perm=199, n_boot=0, rng=0).tests
    part = full[full.within == "movement=cubism"].reset_index(drop=True)
    pd.testing.assert_series_equal(part.pvalue, per.pvalue)
    e1 = pts[pts.expert == "E1"]
    fam = compare_groups(e1, "modality", within="expert=E1", n_perm=199, rng=0)
    got = res.tests[(res.tests.by == "modality") & (res.tests.within == "expert=E1")]
    np.testing.assert_array_equal(got.pvalue.to_numpy(), fam.pvalue.to_numpy())


def test_a_test_alone_equals_the_same_test_among_others():
    g = np.random.default_rng(2)
    x = np.vstack([g.normal(size=(12, 2)), g.normal(0.8, size=(12, 2)), g.normal(size=(12, 2))])
    labels = np.repeat(["a", "b", "c"], 12)
    many = energy_tests(x, labels, n_perm=2000, rng=11).set_index("groups")
    for pair in ("a|b", "b|c"):
        left, right = pair.split("|")
        alone = energy_test(x[labels == left], x[labels == right], n_perm=2000, rng=11)
        assert (many.loc[pair, "pvalue"], many.loc[pair, "n_perm"]) == (alone.pvalue, alone.n_perm)


def test_streams_depend_on_identity_only():
    a = Streams(3).generator("energy", "expert", "all", 1, 2).random(4)
    b = Streams(3).generator("energy", "expert", "all", 1, 2).random(4)
    c = Streams(3).generator("energy", "expert", "all", 2, 1).random(4)
    d = Streams(4).generator("energy", "expert", "all", 1, 2).random(4)
    assert (a == b).all() and not np.allclose(a, c) and not np.allclose(a, d)
    # a generator gives one root, drawn from it
    assert Streams.of(np.random.default_rng(9)).root == int(
        np.random.default_rng(9).integers(2**63)
    )
    with pytest.raises(ValueError, match="non-negative integer seed"):
        Streams.of(-1)
