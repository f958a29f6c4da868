"""Tests for rrmap.rank.agreement.filters: feedback arc sets (vs brute force) and the subjectivity filters."""

from __future__ import annotations

from itertools import combinations, permutations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rrmap.errors import InputError
from rrmap.rank.agreement.filters import (
    EXACT_FAS_LIMIT,
    filter_nontransitive,
    filter_subjective,
    filter_ties,
    minimum_feedback_arc_set,
    pair_preferences,
)
from rrmap.rank.data.comparisons import read_fineartbench

DATA = Path(__file__).resolve().parents[2] / "data" / "fineartbench"


def _tournament(n, seed):
    rng = np.random.default_rng(seed)
    return [(a, b) if rng.random() < 0.5 else (b, a) for a, b in combinations(range(n), 2)]


def _brute_force(arcs, weights=None, vertices=None):
    weights = [1.0] * len(arcs) if weights is None else weights
    vertices = sorted({v for a in arcs for v in a}) if vertices is None else vertices
    best = np.inf
    for order in permutations(vertices):
        pos = {v: i for i, v in enumerate(order)}
        best = min(best, sum(w for (u, v), w in zip(arcs, weights, strict=True)
                             if pos[u] > pos[v]))  # fmt: skip
    return best


def _is_acyclic_without(arcs, removed):
    rest = [a for a in arcs if a not in set(removed)]
    verts = {v for a in arcs for v in a}
    indeg = {v: 0 for v in verts}
    for _, v in rest:
        indeg[v] += 1
    queue = [v for v in verts if indeg[v] == 0]
    seen = 0
    while queue:
        u = queue.pop()
        seen += 1
        for a, b in rest:
            if a == u:
                indeg[b] -= 1
                if indeg[b] == 0:
                    queue.append(b)
    return seen == len(verts)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("seed", range(6))
def test_exact_fas_equals_brute_force_on_tournaments(n, seed):
    arcs = _tournament(n, seed)
    fas = minimum_feedback_arc_set(arcs)
    assert fas.method == "exact"
    assert fas.size == _brute_force(arcs)
    assert len(fas.arcs) == fas.size
    assert _is_acyclic_without(arcs, fas.arcs)
    pos = {v: i for i, v in enumerate(fas.order)}
    assert sorted(fas.arcs) == sorted(a for a in arcs if pos[a[0]] > pos[a[1]])


@pytest.mark.parametrize("seed", range(5))
def test_exact_weighted_sparse_graphs_equal_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    n = 6
    arcs = [(a, b) for a in range(n) for b in range(n) if a != b and rng.random() < 0.35]
    weights = rng.integers(1, 5, len(arcs)).astype(float).tolist()
    fas = minimum_feedback_arc_set(arcs, weights=weights)
    assert fas.size == _brute_force(arcs, weights)


@pytest.mark.parametrize("n", [20, 30, 45])
@pytest.mark.parametrize("seed", range(3))
def test_eades_is_feasible_and_within_its_bound(n, seed):
    arcs = _tournament(n, seed)
    fas = minimum_feedback_arc_set(arcs)
    assert fas.method == "eades"
    assert _is_acyclic_without(arcs, fas.arcs)
    # Eades, Lin & Smyth (1993): at most m/2 - n/6 arcs for graphs without 2-cycles
    assert fas.size <= len(arcs) / 2 - n / 6


def test_eades_never_beats_exact_and_is_zero_on_transitive():
    for seed in range(10):
        arcs = _tournament(8, seed)
        assert (minimum_feedback_arc_set(arcs, method="eades").size
                >= minimum_feedback_arc_set(arcs, method="exact").size)  # fmt: skip
    transitive = list(combinations(range(25), 2))
    assert minimum_feedback_arc_set(transitive).size == 0


def test_auto_switches_after_limit():
    small = _tournament(EXACT_FAS_LIMIT, 0)
    big = _tournament(EXACT_FAS_LIMIT + 1, 0)
    assert minimum_feedback_arc_set(small).method == "exact"
    assert minimum_feedback_arc_set(big).method == "eades"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"arcs": [(1, 2, 3)]}, "arcs must be pairs"),
        ({"arcs": [(1, 2)], "weights": [-1]}, "weights must be finite, >= 0 and one per arc"),
        ({"arcs": [(1, 2)], "method": "best"}, "method must be auto, exact or eades"),
        (
            {"arcs": _tournament(25, 0), "method": "exact"},
            r"exact feedback arc set of 25 vertices and 300 arcs needs about 9\.9 GB of memory, "
            r"above the limit of 2\.0 GB",
        ),
    ],
)
def test_fas_bad_input(kwargs, match):
    with pytest.raises(InputError, match=match):
        minimum_feedback_arc_set(**kwargs)


def _prefs(rows, instance="i"):
    return pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(instance=instance)


def test_pair_preferences_orientation_and_ties():
    df = _prefs([("B", "A", "left"), ("A", "B", "right"), ("A", "B", "tie"), ("A", "C", "left")])
    p = pair_preferences(df).set_index(["candidate_a", "candidate_b"])
    assert p.loc[("A", "B"), ["wins_a", "wins_b", "ties", "n_comparisons"]].tolist() == [0, 2, 1, 3]
    assert p.loc[("A", "B"), "p_a"] == pytest.approx(0.5 / 3)
    assert p.loc[("A", "C"), "p_a"] == 1.0


@pytest.mark.parametrize(
    ("wins", "losses", "band", "dropped"),
    [(3, 2, (0.4, 0.6), True), (2, 3, (0.4, 0.6), True), (4, 1, (0.4, 0.6), False),
     (1, 1, (0.5, 0.5), True), (7, 3, (0.4, 0.6), False), (7, 3, (0.3, 0.7), True)],
)  # fmt: skip
def test_tie_band_inclusive(wins, losses, band, dropped):
    df = _prefs([("A", "B", "left")] * wins + [("A", "B", "right")] * losses
                + [("A", "C", "left")])  # fmt: skip
    res = filter_ties(df, band=band)
    assert (len(res.dropped) == 1) == dropped
    assert len(res.comparisons) + res.dropped["n_comparisons"].sum() == len(df)
    if dropped:
        row = res.dropped.iloc[0]
        assert (row["candidate_a"], row["candidate_b"], row["reason"]) == ("A", "B", "tie_band")
        assert row["p_a"] == pytest.approx(wins / (wins + losses))


def test_nontransitive_eta_boundary():
    # 3-cycle plus 3 transitive arcs to D: 6 arcs, FAS 1, ratio 1/6
    rows = [("A", "B", "left"), ("B", "C", "left"), ("C", "A", "left"),
            ("A", "D", "left"), ("B", "D", "left"), ("C", "D", "left")]  # fmt: skip
    df = pd.concat([_prefs(rows, "cyclic"), _prefs([("A", "B", "left")], "clean")])
    kept = filter_nontransitive(df, eta=1 / 6 + 1e-6)
    assert kept.dropped.empty and len(kept.comparisons) == 7
    gone = filter_nontransitive(df, eta=1 / 6)  # |FAS|/|E| >= eta drops
    assert gone.dropped[["instance", "reason", "n_comparisons"]].values.tolist() == [
        ["cyclic", "non_transitive", 6]
    ]
    assert gone.dropped["fas_ratio"].iloc[0] == pytest.approx(1 / 6)
    inst = gone.instances.set_index("instance")
    assert inst.loc["cyclic", ["n_arcs", "n_feedback"]].tolist() == [6, 1]
    assert inst.loc["clean", "dropped"] == False  # noqa: E712
    assert gone.comparisons["instance"].unique().tolist() == ["clean"]


def test_nontransitive_uses_majority_and_counts_undecided():
    rows = [("A", "B", "left"), ("B", "A", "left"), ("A", "C", "left"), ("A", "C", "left"),
            ("C", "A", "left"), ("B", "C", "left")]  # fmt: skip
    res = filter_nontransitive(_prefs(rows))
    inst = res.instances.iloc[0]
    assert (inst["n_arcs"], inst["n_undecided"], inst["n_feedback"]) == (2, 1, 0)


def test_subjective_reports_both_reasons_and_loses_nothing():
    rows = [("A", "B", "left"), ("A", "B", "right"), ("A", "C", "left")]
    cyc = [("A", "B", "left"), ("B", "C", "left"), ("C", "A", "left")]
    df = pd.concat([_prefs(rows, "tied"), _prefs(cyc, "cyclic")], ignore_index=True)
    res = filter_subjective(df)
    s = res.summary().set_index("reason")
    assert s.loc["tie_band"].tolist() == [1, 2]
    assert s.loc["non_transitive"].tolist() == [1, 3]
    assert len(res.comparisons) + s["n_comparisons"].sum() == len(df)
    only_pairs = filter_subjective(df, eta=None)
    assert only_pairs.summary()["reason"].tolist() == ["tie_band"]
    # a filter that ran but dropped nothing still has its row, with zeros
    clean = filter_subjective(_prefs([("A", "B", "left"), ("B", "C", "left")]))
    assert clean.summary().values.tolist() == [["tie_band", 0, 0], ["non_transitive", 0, 0]]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"band": (0.6, 0.4)}, r"band must satisfy 0 <= low <= high <= 1, got \(0.6, 0.4\)"),
        ({"band": "wide"}, "band must be two numbers"),
        ({"eta": 0}, r"eta must be in \(0, 1\], got 0"),
        ({"by": "style"}, "column 'style' \\(by\\) not in the comparisons table"),
    ],
)
def test_filter_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        filter_subjective(_prefs([("A", "B", "left")]), **kwargs)


def test_fineartbench_instances_nothing_lost():
    fab = read_fineartbench(DATA / "instance_annotation.json")
    res = filter_subjective(fab.comparisons)
    # each pair is judged once in this file, so no pair sits in the 40-60 % band
    assert "tie_band" not in set(res.dropped["reason"])
    assert len(res.comparisons) + res.dropped["n_comparisons"].sum() == len(fab.comparisons)
    assert (res.instances["fas_method"] == "exact").all()
    assert res.instances["dropped"].sum() == len(res.dropped)


def test_missing_instance_group_values_rejected():
    df = _prefs([("A", "B", "left"), ("B", "C", "left")]).assign(session=["s1", None])
    with pytest.raises(InputError, match=r"column 'session' \(by\): missing value in 1 rows \(1\)"):
        filter_subjective(df, by="session")
