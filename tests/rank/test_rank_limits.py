"""Sizes past rrmap.rank.limits fail at once, with one line, before anything large is built."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap.rank.agreement.alignment as alignment_module
import rrmap.rank.models._fit as fit_module
import rrmap.rank.models.bradley_terry as bt_module
import rrmap.rank.models.elo as elo_module
from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import (
    filter_nontransitive,
    fit_bradley_terry,
    fit_elo,
    minimum_feedback_arc_set,
    read_fineartbench,
    sample_global,
    sample_per_instance,
    spearman_test,
    split_half_alignment,
)
from rrmap.rank.data.comparisons import group_sizes, read_json
from rrmap.rank.limits import (
    MAX_FILE_BYTES,
    MAX_PERMUTATIONS,
    MAX_QUESTIONS,
    MAX_RESAMPLES,
    MEMORY_LIMIT,
    check_count,
)
from rrmap.rank.models._bootstrap import overlap_rank, ranks


def _ring(k: int, n: int, seed: int = 0, group: str = "i") -> pd.DataFrame:
    """n comparisons among k candidates, every candidate in at least one."""
    g = np.random.default_rng(seed)
    a = np.r_[np.arange(k), g.integers(0, k, max(n - k, 0))][:n]
    b = (a + 1 + g.integers(0, k - 1, len(a))) % k
    return pd.DataFrame(
        {
            "instance": group,
            "left": [f"c{x}" for x in a],
            "right": [f"c{x}" for x in b],
            "winner": g.choice(["left", "right", "tie"], len(a), p=[0.45, 0.45, 0.1]),
        }
    )


def _never(*_args, **_kwargs):
    raise AssertionError("ran although the size check should have refused")


def test_limit_values_are_the_documented_ones():
    assert MEMORY_LIMIT == 2_000_000_000
    assert (MAX_RESAMPLES, MAX_PERMUTATIONS, MAX_QUESTIONS) == (100_000, 10_000_000, 1_000_000)
    assert MAX_FILE_BYTES == 268_435_456
    # a k x k float64 matrix of the largest Bradley-Terry fit stays far below the limit
    largest = math.isqrt(MEMORY_LIMIT // 96)
    assert 8 * largest**2 < MEMORY_LIMIT / 10


def test_bradley_terry_10000_candidates_refused_before_any_fit(monkeypatch):
    monkeypatch.setattr(bt_module, "fit_group", _never)
    df = _ring(10_000, 10_000)
    with pytest.raises(InputError) as err:
        fit_bradley_terry(df)
    msg = str(err.value)
    assert msg.startswith("a Bradley-Terry fit of 10000 candidates and 10000 comparisons needs")
    assert "needs about 9.6 GB of memory, above the limit of 2.0 GB" in msg
    assert "rrmap.rank.limits.MEMORY_LIMIT" in msg and "filter candidates" in msg


def _sizes_by_dropping_duplicates(df, by, units=None, weights=None):
    """group_sizes written plainly: distinct (group, candidate), (group, pair), (group, unit)."""
    key = pd.Series(df[by].to_numpy() if by is not None else np.zeros(len(df)), name="g")
    left, right = df["left"].astype(str).to_numpy(), df["right"].astype(str).to_numpy()
    cands = pd.DataFrame({"g": np.r_[key, key], "c": np.r_[left, right]})
    pairs = pd.DataFrame({"g": key, "a": np.minimum(left, right), "b": np.maximum(left, right)})
    out = pd.DataFrame({"k": cands.drop_duplicates().groupby("g", sort=False).size(),
                        "n": key.groupby(key, sort=False).size(),
                        "n_pairs": pairs.drop_duplicates().groupby("g", sort=False).size()})  # fmt: skip
    if units is not None:
        unit = pd.DataFrame({"g": key, "u": df[units].astype(str).to_numpy()})
        out["n_types"] = unit.drop_duplicates().groupby("g", sort=False).size()
    else:
        w = pd.Series(df[weights].to_numpy() if weights is not None else np.ones(len(df)))
        out["n_types"] = np.minimum(out["n"], 3 * out["n_pairs"] * w.groupby(key).nunique())
    out["label"] = 4 * int(cands["c"].str.len().max())
    return out.reset_index(drop=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("by", "units", "weights"), [(None, None, None), ("instance", None, None),
                                                      ("instance", "annotator", None),
                                                      (None, "annotator", None),
                                                      ("instance", None, "w")])  # fmt: skip
def test_group_sizes_count_what_a_fit_holds(seed, by, units, weights):
    rng = np.random.default_rng(seed)
    n, names = int(rng.integers(1, 60)), np.array(["A", "bb", "é", "x y", "10", "2"])
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    instance = rng.integers(0, 4, n) if seed % 2 else rng.choice(["i3", "i1", "7"], n)
    df = pd.DataFrame({"left": names[a], "right": names[b], "instance": instance,
                       "annotator": rng.choice(["r1", "r2", "r3"], n),
                       "w": rng.choice([1.0, 0.5, 2.0], n)}, index=rng.permutation(n))  # fmt: skip
    got = group_sizes(df, by, units, weights)
    pd.testing.assert_frame_equal(got, _sizes_by_dropping_duplicates(df, by, units, weights),
                                  check_dtype=False)  # fmt: skip


def test_a_large_later_group_is_refused_before_the_first_is_fitted(monkeypatch):
    monkeypatch.setattr(bt_module, "fit_group", _never)
    df = pd.concat([_ring(5, 20, group="a"), _ring(8000, 8000, group="b")], ignore_index=True)
    with pytest.raises(InputError, match=r"of 8000 candidates .* \(largest of 2 groups by "):
        fit_bradley_terry(df, by="instance")


def test_bootstrap_memory_counts_resamples(monkeypatch):
    df = _ring(500, 5000)
    sizes = group_sizes(df, None)
    assert fit_module.memory_needed(sizes, False, 0) < MEMORY_LIMIT
    # 100,000 resamples x 500 candidates of draws alone are over 2 GB
    assert fit_module.memory_needed(sizes, False, 100_000) > MEMORY_LIMIT
    monkeypatch.setattr(bt_module, "bootstrap_group", _never)
    with pytest.raises(InputError, match="with 100000 bootstrap resamples needs about"):
        fit_bradley_terry(df, bootstrap=100_000)


@pytest.mark.parametrize(
    ("k", "n", "model", "n_boot"),
    [
        (300, 5000, "bradley-terry", 0),
        # further model at the size above (traced allocations: ~2.3 s)
        pytest.param(300, 5000, "davidson", 0, marks=pytest.mark.slow),
        (60, 3000, "davidson", 200),
    ],
)
def test_estimate_bounds_the_memory_a_fit_takes(k, n, model, n_boot):
    df = _ring(k, n)
    tracemalloc.start()
    fit_bradley_terry(df, model=model, bootstrap=n_boot, rng=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = fit_module.memory_needed(group_sizes(df, None), model != "bradley-terry", n_boot)
    assert peak <= estimate <= 4 * peak


def test_estimate_bounds_the_memory_elo_takes():
    df = _ring(50, 3000)
    tracemalloc.start()
    fit_elo(df, n_shuffles=50, bootstrap=50, rng=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = elo_module._memory_needed(group_sizes(df, None), 50, 50)
    assert peak <= estimate <= 4 * peak


def test_elo_refused_before_it_runs(monkeypatch):
    monkeypatch.setattr(elo_module, "_run", _never)
    df = _ring(10, 400)  # 100,000 orders x 400 comparisons of indices: over 3 GB
    with pytest.raises(InputError) as err:
        fit_elo(df, n_shuffles=100_000)
    assert str(err.value).startswith(
        "Elo over 100000 orders of 10 candidates and 400 comparisons needs about 3.4 GB of "
        "memory, above the limit of 2.0 GB"
    )
    assert "use fewer orders (n_shuffles, --shuffles)" in str(err.value)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"bootstrap": 10**12}, "bootstrap 1000000000000 is above the limit of 100000"),
        ({"bootstrap": float("inf")}, "bootstrap must be an integer >= 0, got inf"),
        ({"top_k": (float("inf"),)}, r"top_k must be integers >= 1, got \(inf,\)"),
    ],
)
def test_counts_bounded_without_overflow(kwargs, match):
    df = _ring(4, 20)
    with pytest.raises(InputError, match=match):
        fit_bradley_terry(df, **kwargs)
    with pytest.raises(InputError, match=match):
        fit_elo(df, **kwargs)


@pytest.mark.parametrize(
    ("value", "match"),
    [(10**9, "n_shuffles 1000000000 is above the limit of 100000"), (float("inf"), "got inf")],
)
def test_elo_orders_bounded(value, match):
    with pytest.raises(InputError, match=match):
        fit_elo(_ring(4, 20), n_shuffles=value)


def test_check_count_names_the_limit():
    assert check_count("n", 5, "MAX_QUESTIONS", minimum=1) == 5
    with pytest.raises(InputError, match=r"n 1000001 is above .*limits\.MAX_QUESTIONS\)$"):
        check_count("n", MAX_QUESTIONS + 1, "MAX_QUESTIONS")
    with pytest.raises(InputError, match="n must be an integer >= 1, got True"):
        check_count("n", True, "MAX_QUESTIONS", minimum=1)


def test_ranks_and_overlap_rank_equal_the_pairwise_counts():
    g = np.random.default_rng(3)
    scores = np.round(g.normal(size=(40, 9)), 1)  # many ties
    brute = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    np.testing.assert_array_equal(ranks(scores), brute)
    low = np.round(g.normal(size=30), 1)
    high = low + np.round(g.uniform(0, 1, 30), 1)
    low[4], high[7] = np.nan, np.nan
    brute = 1 + (low[None, :] > high[:, None]).sum(axis=1)
    np.testing.assert_array_equal(overlap_rank(low, high), brute)


def test_permutations_bounded_and_drawn_in_batches(monkeypatch):
    x, y = np.arange(12.0), np.r_[np.arange(11.0), 20.0][::-1]
    with pytest.raises(InputError, match="n_permutations 10000001 is above the limit"):
        spearman_test(x, y, method="permutation", n_permutations=MAX_PERMUTATIONS + 1)
    whole = spearman_test(x, y, method="permutation", n_permutations=999, rng=4)
    monkeypatch.setattr(alignment_module, "_PERM_BATCH", 40)  # 3 orders a batch
    assert spearman_test(x, y, method="permutation", n_permutations=999, rng=4) == whole


def test_split_halves_bounded():
    with pytest.raises(InputError, match="n_splits 100001 is above the limit of 100000"):
        split_half_alignment(_ring(4, 20), lambda d: d, n_splits=MAX_RESAMPLES + 1)


def test_feedback_arc_set_memory_refused_before_solving():
    arcs = [(i, j) for i in range(23) for j in range(i + 1, 23)]
    with pytest.raises(InputError, match="exact feedback arc set of 23 vertices and 253 arcs"):
        minimum_feedback_arc_set(arcs, method="exact")
    assert minimum_feedback_arc_set(arcs[:10], method="exact").size == 0.0
    big = _ring(10_000, 10_000)  # the heuristic's n x n matrices: 2.4 GB
    with pytest.raises(InputError, match=r"\(heuristic\) feedback arc set of 10000 vertices"):
        filter_nontransitive(big)


@pytest.mark.parametrize(
    ("fn", "n", "match"),
    [
        (sample_per_instance, 40, r"30000 instances x 40 questions = 1200000 questions, above"),
        (sample_global, 1_350_001, "n_questions must be an integer between 1 and 1350000"),
        (sample_global, 1_100_000, "1100000 questions, above the limit of 1000000"),
    ],
)
def test_design_size_bounded(fn, n, match):
    cands = [f"c{j}" for j in range(10)]
    with pytest.raises(InputError, match=match):
        fn([f"i{j}" for j in range(30_000)], cands, n)


def test_design_questions_and_work_bounded():
    cands = [f"c{j}" for j in range(2000)]
    with pytest.raises(InputError, match=r"1000001 questions, above the limit of 1000000"):
        sample_global(["a", "b"], cands, MAX_QUESTIONS + 1)
    with pytest.raises(InputError, match=r"scans 1 instances x 3001 added edges x 1999000 pairs"):
        sample_per_instance(["a"], cands, 5000)
    many = [f"i{j}" for j in range(200_000)]  # duplicates found in one pass
    with pytest.raises(InputError, match="instances: duplicated names: i7"):
        sample_global([*many, "i7"], ["A", "B"], 1)


def test_deep_json_is_an_input_error_naming_the_file(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000)
    with pytest.raises(InputError, match=f"^{path}: JSON nested too deeply to read"):
        read_fineartbench(path)


def test_large_json_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:  # sparse: no disk space used
        fh.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(InputError, match=r"big.json: 268.4 MB, above the limit of 268.4 MB"):
        read_json(path)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--instances", "1000000000", "-n", "5"], 1,
         "Error: --instances 1000000000: above the limit of 1000000 instances"),
        (["--instances", "9" * 5000, "-n", "5"], 1, "--instances 99999"),
        (["--instances", "3", "-n", "2000000"], 2, "2000000 is not in the range 1<=x<=1000000"),
    ],
)  # fmt: skip
def test_sample_cli_bounded(args, code, message):
    res = CliRunner().invoke(main, ["rank", "sample", "--design", "global", "--candidates",
                                    "A,B,C", *args])  # fmt: skip
    assert res.exit_code == code
    assert message in res.stderr
    assert "Traceback" not in res.output


def test_fit_cli_refuses_in_one_line(tmp_path):
    path = tmp_path / "big.csv"
    _ring(10_000, 10_000).to_csv(path, index=False)
    res = CliRunner().invoke(main, ["rank", "fit", str(path)])
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: a Bradley-Terry fit of 10000 candidates and 10000 ")
    assert "above the limit of 2.0 GB" in lines[-1]
    over = CliRunner().invoke(main, ["rank", "fit", str(path), "--bootstrap", "100001"])
    assert over.exit_code == 2 and "100001 is not in the range 0<=x<=100000" in over.stderr
