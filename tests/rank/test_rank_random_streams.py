"""Every random step of ``rrmap.rank`` draws from the stream of its own identity (the seed and
what draws: the bootstrap of one model in one group, the Elo orders of one group, one group's
permutations, one instance's design), so a group's result never depends on which other groups
run with it, or in which order."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap._util.streams import Streams
from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import (
    align_rankings,
    fit_bradley_terry,
    fit_elo,
    fit_plackett_luce,
    sample_global,
    sample_per_instance,
    spearman_test,
)


def _group(seed: int, name: str, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    names = np.array(list("ABCDE"))
    theta = np.linspace(1.0, -1.0, 5)
    left = rng.integers(0, 5, n)
    right = (left + rng.integers(1, 5, n)) % 5
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(rng.random(n) < p, "left", "right"))
    return pd.DataFrame({"instance": name, "left": names[left], "right": names[right],
                         "winner": winner, "annotator": [f"r{j}" for j in rng.integers(0, 40, n)]})  # fmt: skip


@pytest.fixture(scope="module")
def three() -> pd.DataFrame:
    """Three groups, their rows interleaved."""
    df = pd.concat([_group(1, "a"), _group(2, "b"), _group(3, "c")], ignore_index=True)
    return df.iloc[np.argsort(np.arange(len(df)) % 60, kind="stable")].reset_index(drop=True)


def _rows_of(table: pd.DataFrame | None, name: str) -> pd.DataFrame:
    return table[table["instance"] == name].reset_index(drop=True)


def _variants(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Group b fitted with the others, alone, after a group renamed to sort after it (so it
    runs first), and with the rows of every group in reverse order."""
    return {
        "with others": df,
        "alone": df[df["instance"] == "b"],
        "another place": df.replace({"instance": {"a": "z"}}),
        "rows reversed": df.iloc[::-1],
    }


@pytest.mark.parametrize(("model", "by"), [("bradley-terry", "comparison"),
                                           ("davidson", "annotator")])  # fmt: skip
def test_a_groups_bootstrap_does_not_depend_on_the_other_groups(three, model, by):
    fits = {what: fit_bradley_terry(df, by="instance", model=model, bootstrap=40,
                                    bootstrap_by=by, rng=5, top_k=(1, 2))
            for what, df in _variants(three).items()}  # fmt: skip
    ref = fits.pop("with others")
    for what, fit in fits.items():
        pd.testing.assert_frame_equal(_rows_of(fit.table, "b"), _rows_of(ref.table, "b"),
                                      obj=what)  # fmt: skip
        pd.testing.assert_frame_equal(_rows_of(fit.draws, "b"), _rows_of(ref.draws, "b"),
                                      obj=what)  # fmt: skip
    # the other groups draw from streams of their own: their resamples differ from b's
    a = _rows_of(ref.draws, "a")["score"].to_numpy()
    assert not np.allclose(a, _rows_of(ref.draws, "b")["score"].to_numpy())
    assert ref.fits["seed"].tolist() == [5, 5, 5]


def test_a_groups_bootstrap_is_its_streams(three):
    """The resamples of group b are those of the stream ("bootstrap", model, by, "b")."""
    from rrmap.rank.data.comparisons import validate_comparisons
    from rrmap.rank.models._bootstrap import resample_counts, unit_types
    from rrmap.rank.models._outcomes import encode

    out = encode(validate_comparisons(three[three["instance"] == "b"]))
    pairs, cell = out.pairs()
    types, mult = unit_types(cell, out.weights(), None, 3 * len(pairs.a))
    gen = Streams(5).generator("bootstrap", "bradley-terry", "instance", "b")
    counts = resample_counts(types, mult, 3, gen)
    fit = fit_bradley_terry(three, by="instance", bootstrap=3, ties="drop", rng=5)
    fitted = fit_bradley_terry(pd.DataFrame(
        [(out.candidates[pairs.a[p]], out.candidates[pairs.b[p]], w)
         for p in range(len(pairs.a)) for o, w in enumerate(("left", "right", "tie"))
         for _ in range(int(counts[0, p, o]))], columns=["left", "right", "winner"]),
        ties="drop").table  # fmt: skip
    draws = _rows_of(fit.draws, "b")
    first = draws[draws["resample"] == 0].set_index("candidate")["score"]
    np.testing.assert_allclose(first[fitted["candidate"]].to_numpy(), fitted["score"], atol=1e-8)


def test_a_groups_elo_orders_and_resamples_do_not_depend_on_the_other_groups(three):
    fits = {what: fit_elo(df, by="instance", n_shuffles=8, bootstrap=20, rng=2)
            for what, df in _variants(three).items() if what != "rows reversed"}  # fmt: skip
    ref = fits.pop("with others")
    for what, fit in fits.items():
        pd.testing.assert_frame_equal(_rows_of(fit.table, "b"), _rows_of(ref.table, "b"),
                                      obj=what)  # fmt: skip
        pd.testing.assert_frame_equal(_rows_of(fit.ratings, "b"), _rows_of(ref.ratings, "b"),
                                      obj=what)  # fmt: skip
    # the resamples have a stream of their own: the same however many orders ran first
    fewer = fit_elo(three, by="instance", n_shuffles=3, bootstrap=20, rng=2)
    pd.testing.assert_frame_equal(fewer.draws, ref.draws)


def test_plackett_luce_resamples_come_from_their_stream():
    r = pd.DataFrame({"ranking": ["A > B > C", "B > A > C", "A > C", "C > B > A", "A > B"]})
    fit = fit_plackett_luce(r, bootstrap=4, rng=9)
    gen = Streams(9).generator("bootstrap", "plackett-luce", "", "")
    first = np.bincount(gen.integers(0, 5, 5), minlength=5)
    resample = r.loc[np.repeat(np.arange(5), first)]
    ref = fit_plackett_luce(resample).table.set_index("candidate")["score"]
    draws = fit.draws[fit.draws["resample"] == 0].set_index("candidate")["score"]
    np.testing.assert_allclose(draws[ref.index].to_numpy(), ref.to_numpy(), atol=1e-8)
    assert fit.fits["seed"].iloc[0] == 9


def _rankings(names: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows_h, rows_m = [], []
    for g in names:
        rng = np.random.default_rng(ord(g))  # each group's scores its own
        h = rng.permutation(8).astype(float)
        m = np.where(rng.random(8) < 0.5, h, rng.permutation(8))
        rows_h += [(g, f"c{i}", h[i]) for i in range(8)]
        rows_m += [(g, f"c{i}", m[i]) for i in range(8)]
    cols = ["instance", "candidate", "score"]
    return pd.DataFrame(rows_h, columns=cols), pd.DataFrame(rows_m, columns=cols)


def test_a_groups_permutation_p_does_not_depend_on_the_other_groups():
    kw = {"by": "instance", "method": "permutation", "n_permutations": 999, "rng": 4}
    ref = align_rankings(*_rankings(["a", "b", "c"]), **kw).table.set_index("instance")
    for names in (["b"], ["c", "b"], ["b", "a", "c", "d"]):
        got = align_rankings(*_rankings(names), **kw).table.set_index("instance")
        shared = [g for g in names if g in ref.index]
        pd.testing.assert_frame_equal(got.loc[shared], ref.loc[shared])
    # not grouped: the stream of spearman_test with the same seed
    h, m = (t[t["instance"] == "b"].drop(columns="instance") for t in _rankings(["b"]))
    one = align_rankings(h, m, method="permutation", n_permutations=999, rng=4).table
    _, p, _ = spearman_test(h["score"], m["score"], method="permutation", n_permutations=999,
                            rng=4)  # fmt: skip
    assert one["p_value"].iloc[0] == p


def test_an_instances_design_does_not_depend_on_the_other_instances():
    cands = list("ABCDEFG")
    ref = sample_per_instance(["i1", "i2", "i3"], cands, 9, rng=6)
    for names in (["i2"], ["i3", "i2"], ["i2", "i1", "i3", "i4"]):
        got = sample_per_instance(names, cands, 9, rng=6)
        for name in set(names) & {"i1", "i2", "i3"}:
            cols = ["instance", "left", "right"]
            pd.testing.assert_frame_equal(_rows_of(got, name)[cols], _rows_of(ref, name)[cols])
    # keeping the sides keeps the questions
    kept = sample_per_instance(["i2"], cands, 9, rng=6, randomize_sides=False)
    pairs = {frozenset(p) for p in zip(kept.left, kept.right, strict=True)}
    i2 = _rows_of(ref, "i2")
    assert pairs == {frozenset(p) for p in zip(i2.left, i2.right, strict=True)}
    kept_global = sample_global(["i1", "i2"], cands, 12, rng=6, randomize_sides=False)
    shown = sample_global(["i1", "i2"], cands, 12, rng=6)
    assert [frozenset(p) for p in zip(kept_global.left, kept_global.right, strict=True)] == [
        frozenset(p) for p in zip(shown.left, shown.right, strict=True)]  # fmt: skip


@pytest.mark.parametrize(("rng", "shown"), [(-1, "-1"), (1.5, "1.5"), (True, "True")])
def test_a_seed_that_is_not_one_is_refused(three, rng, shown):
    msg = f"rng must be a non-negative integer seed or a Generator, got {shown}"
    with pytest.raises(InputError) as exc:
        fit_bradley_terry(three, bootstrap=5, rng=rng)
    assert str(exc.value) == msg
    with pytest.raises(InputError) as exc:
        fit_elo(three, n_shuffles=2, rng=rng)
    assert str(exc.value) == msg


def test_cli_group_rows_are_those_of_the_group_alone(three, tmp_path):
    three.to_csv(tmp_path / "all.csv", index=False)
    three[three["instance"] == "b"].to_csv(tmp_path / "b.csv", index=False)
    runner = CliRunner()
    args = ["--by", "instance", "--bootstrap", "30", "--seed", "3", "-q"]
    full = runner.invoke(main, ["rank", "fit", str(tmp_path / "all.csv"), *args])
    alone = runner.invoke(main, ["rank", "fit", str(tmp_path / "b.csv"), *args])
    assert full.exit_code == 0 and alone.exit_code == 0, full.output + alone.output
    got = _rows_of(pd.read_csv(io.StringIO(full.stdout)), "b")
    pd.testing.assert_frame_equal(got, pd.read_csv(io.StringIO(alone.stdout)))


@pytest.mark.parametrize("command", [["fit", "PREFS", "--bootstrap", "5"],
                                     ["sample", "--design", "global", "--candidates", "A,B,C",
                                      "--instances", "2", "-n", "3"]])  # fmt: skip
def test_cli_refuses_a_negative_seed_by_its_option(three, tmp_path, command):
    three.to_csv(tmp_path / "all.csv", index=False)
    args = [str(tmp_path / "all.csv") if a == "PREFS" else a for a in command]
    res = CliRunner().invoke(main, ["rank", *args, "--seed", "-1"])
    assert res.exit_code == 2
    assert res.output.splitlines()[-1] == (
        "Error: Invalid value for '--seed': -1 is not in the range x>=0."
    )
