import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

import rrmap
from rrmap.tables import agreement, agreement_summary, proportions, wilson_interval


def _pts(rows):
    """Points table from (expert, item, delta, r) rows."""
    df = pd.DataFrame(rows, columns=["expert", "item", "delta", "r"])
    df["quality"] = rrmap.classify(df.delta, df.r)
    df.attrs["rrmap"] = {"categories": ["item"]}
    return df


EXC, FAIR, STEREO, BAD = (0.0, 1.0), (1.0, 1.4), (0.0, 0.3), (5.0, 1.0)


def test_proportions_count_every_level_in_order(example_points):
    tab = proportions(example_points)
    assert tab.groupby("expert").size().tolist() == [4, 4, 4]
    assert tab.quality.astype(str).tolist()[:4] == ["excellent", "fair", "stereotype", "bad"]
    counts = example_points.groupby("expert").quality.value_counts()
    for rec in tab.itertuples():
        assert rec.count == counts.loc[(rec.expert, rec.quality)]
        assert rec.share == pytest.approx(rec.count / 135)


def test_proportions_by_category_and_wide(example_points):
    tab = proportions(example_points, by="movement")
    assert len(tab) == 3 * 5 * 4
    assert (tab.groupby(["expert", "movement"])["n"].first() == 27).all()
    wide = proportions(example_points, by="criterion_group", wide=True)
    assert list(wide.columns) == [
        "expert",
        "criterion_group",
        "n",
        "excellent",
        "fair",
        "stereotype",
        "bad",
    ]
    assert wide[["excellent", "fair", "stereotype", "bad"]].sum(axis=1).round(12).eq(1).all()


def test_zero_counts_are_kept():
    pts = _pts([("A", "x", *EXC), ("A", "y", *EXC), ("B", "x", *BAD), ("B", "y", *BAD)])
    wide = proportions(pts, wide=True).set_index("expert")
    assert wide.loc["A"].tolist() == [2, 1.0, 0.0, 0.0, 0.0]
    assert wide.loc["B"].tolist() == [2, 0.0, 0.0, 0.0, 1.0]


def _groupby_reference(points, groups):
    """Tidy level counts the pandas way: group, count every level, keep present groups."""
    q = points["quality"].astype(rrmap.zones.QUALITY_DTYPE)
    counts = (
        points.assign(quality=q)
        .groupby([*groups, "quality"], observed=False, sort=True)
        .size()
        .rename("count")
        .reset_index()
    )
    counts = counts.merge(points[groups].drop_duplicates(), on=groups, how="inner")
    counts["n"] = counts.groupby(groups)["count"].transform("sum")
    counts["share"] = counts["count"] / counts["n"]
    counts["quality"] = counts["quality"].astype(rrmap.zones.QUALITY_DTYPE)
    # Wilson intervals by statsmodels, one share at a time
    low, high = proportion_confint(counts["count"], counts["n"], alpha=0.05, method="wilson")
    counts["ci_low"], counts["ci_high"] = np.asarray(low, float), np.asarray(high, float)
    return counts.sort_values([*groups, "quality"]).reset_index(drop=True)


@pytest.mark.parametrize("kind", ["text", "integer", "categorical", "arrow text", "float"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_proportions_equal_pandas_groupby(kind, seed):
    g = np.random.default_rng(seed)
    n = 300
    values = g.integers(0, 6, n)
    column = {
        "text": pd.Series([f"o{v}" for v in values], dtype=object),
        "integer": pd.Series(values * 10 - 20),
        "categorical": pd.Series(
            pd.Categorical([f"o{v}" for v in values], categories=[f"o{v}" for v in range(8)][::-1])
        ),
        "arrow text": pd.Series([f"o{v}" for v in values], dtype="string[pyarrow]"),
        "float": pd.Series(values / 4),
    }[kind]
    pts = pd.DataFrame(
        {
            "expert": g.choice(["E2", "E1", "E10"], n),
            "cat": column,
            "quality": pd.Categorical(
                g.choice(rrmap.QUALITY_LEVELS, n, p=[0.5, 0.3, 0.2, 0.0]),
                dtype=rrmap.zones.QUALITY_DTYPE,
            ),
        }
    )
    for groups, by in ((["expert"], None), (["expert", "cat"], "cat")):
        pd.testing.assert_frame_equal(
            proportions(pts, by), _groupby_reference(pts, groups), check_exact=False, rtol=1e-12
        )


@pytest.mark.parametrize("n", [1, 2, 7, 15, 135, 10_000])
def test_wilson_intervals_equal_statsmodels_at_every_count(n):
    count = np.arange(n + 1)
    low, high = wilson_interval(count, np.full(n + 1, n))
    ref_low, ref_high = proportion_confint(count, n, alpha=0.05, method="wilson")
    np.testing.assert_allclose(low, ref_low, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(high, ref_high, rtol=1e-12, atol=1e-15)
    assert low[0] == 0.0 and high[-1] == 1.0  # exact at the ends
    assert ((low <= count / n) & (count / n <= high)).all()
    nan_low, nan_high = wilson_interval(np.array([0]), np.array([0]))
    assert np.isnan(nan_low[0]) and np.isnan(nan_high[0])


def test_agreement_patterns_on_a_hand_made_case():
    rows = [
        ("A", "k1", *EXC),
        ("B", "k1", *EXC),
        ("C", "k1", *EXC),  # all agree (excellent)
        ("A", "k2", *EXC),
        ("B", "k2", *FAIR),
        ("C", "k2", *BAD),  # all different
        ("A", "k3", *STEREO),
        ("B", "k3", *STEREO),
        ("C", "k3", *BAD),  # A|B partial
        ("A", "k4", *BAD),
        ("B", "k4", *FAIR),
        ("C", "k4", *BAD),  # A|C partial
        ("A", "k5", *BAD),
        ("B", "k5", *BAD),  # C missing
    ]
    ag = agreement(_pts(rows)).set_index("item")
    assert ag.pattern.to_dict() == {
        "k1": "all agree",
        "k2": "all different",
        "k3": "partial",
        "k4": "partial",
        "k5": "incomplete",
    }
    assert ag.loc["k1", "zone"] == "excellent"
    assert ag.loc["k3", "agreeing"] == "A|B" and ag.loc["k4", "agreeing"] == "A|C"
    assert ag.loc["k2", "B"] == "fair"
    summary = agreement_summary(ag.reset_index()).set_index(["pattern", "detail"])["count"]
    assert summary[("all agree", "")] == 1 and summary[("all agree", "excellent")] == 1
    assert summary[("all different", "")] == 1
    assert summary[("partial", "")] == 2
    assert summary[("partial", "A|B")] == 1 and summary[("partial", "A|C")] == 1
    assert summary[("incomplete", "")] == 1


def test_agreement_on_the_example(example_points):
    ag = agreement(example_points)
    assert len(ag) == 135
    s = agreement_summary(ag)
    totals = s[s.detail == ""].set_index("pattern")["count"]
    assert totals.sum() == 135
    manual_all_diff = sum(
        len(set(g.quality)) == 3
        for _, g in example_points.groupby(["movement", "criterion", "modality"])
    )
    assert totals["all different"] == manual_all_diff


def test_agreement_needs_two_raters():
    with pytest.raises(ValueError, match="at least two raters"):
        agreement(_pts([("A", "x", *EXC)]))


def test_unknown_column_is_named(example_points):
    with pytest.raises(KeyError, match="column 'style' not in the points table"):
        proportions(example_points, by="style")


def test_agreement_pairs_stay_unambiguous_with_separators_in_names(example_points):
    from rrmap._util.escape import split_escaped, split_groups

    names = {"E1": "a;b", "E2": "c|d", "E3": "e\\"}
    pts = example_points.assign(expert=example_points["expert"].map(names))
    ag = rrmap.agreement(pts)
    partial = ag[ag["pattern"] == "partial"]
    for text, row in zip(partial["agreeing"], partial.itertuples(index=False), strict=True):
        zones = {
            r: getattr(row, "_" + str(i)) for i, r in enumerate(ag.columns) if r in names.values()
        }
        pairs = [split_groups(p) for p in split_escaped(text, ";")]
        assert len(pairs) == 1 and len(pairs[0]) == 2
        a, b = pairs[0]
        assert zones[a] == zones[b]
    summary = rrmap.agreement_summary(ag)
    details = summary.loc[summary["pattern"] == "partial", "detail"].tolist()
    assert sorted(map(lambda d: tuple(split_groups(d)), details[1:])) == [
        ("a;b", "c|d"),
        ("a;b", "e\\"),
        ("c|d", "e\\"),
    ]


def test_a_rater_named_like_a_column_of_the_agreement_table_is_an_error(example_points):
    pts = example_points.assign(expert=example_points["expert"].replace("E1", "pattern"))
    with pytest.raises(rrmap.errors.InputError, match="rater 'pattern' has the name of a column"):
        rrmap.agreement(pts)
