"""Per-annotator reliability: agreement with the leave-one-out consensus, weights, filter."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import (
    annotator_agreement,
    annotator_weights,
    filter_annotators,
    fit_bradley_terry,
)


def _study(seed=0, n_per=60, flips=(0.0, 0.0, 0.0, 0.5, 1.0)):
    """Annotators who follow a fixed order, each flipping a share of judgements."""
    rng = np.random.default_rng(seed)
    names = np.array(["A", "B", "C", "D"])
    strength = np.array([1.5, 0.5, -0.5, -1.5])
    rows = []
    for u, flip in enumerate(flips):
        left = rng.integers(0, 4, n_per)
        right = (left + rng.integers(1, 4, n_per)) % 4
        p = 1 / (1 + np.exp(-(strength[left] - strength[right])))
        won = rng.random(n_per) < p
        won = np.where(rng.random(n_per) < flip, ~won, won)
        for a, b, w in zip(left, right, won, strict=True):
            rows.append((f"u{u}", names[a], names[b], "left" if w else "right"))
    df = pd.DataFrame(rows, columns=["annotator", "left", "right", "winner"])
    return df.assign(instance="i")


def test_agreement_counts_by_hand():
    df = _study()
    table = annotator_agreement(df).set_index("annotator")
    for name, mine in df.groupby("annotator"):
        rest = fit_bradley_terry(df[df["annotator"] != name]).table.set_index("candidate")
        d = mine["left"].map(rest["score"]).to_numpy() - mine["right"].map(rest["score"]).to_numpy()
        agree = np.where(d > 0, mine["winner"] == "left", mine["winner"] == "right")
        p = 1 / (1 + np.exp(-np.abs(d)))
        row = table.loc[name]
        assert row["n_decisive"] == len(mine) and row["n_agree"] == agree.sum()
        assert row["agreement"] == pytest.approx(agree.mean())
        assert row["expected"] == pytest.approx(p.mean())
        assert row["z"] == pytest.approx((agree.sum() - p.sum()) / np.sqrt((p * (1 - p)).sum()))
        a = (agree.sum() + 1) / (len(mine) + 2)
        assert row["weight"] == pytest.approx(max(0.0, np.log(a / (1 - a))))
    # the contrarian is far below what the consensus expects, the careful ones near it
    assert table.loc["u4", "z"] < -5 and abs(table.loc["u0", "z"]) < 3
    assert table.loc["u4", "weight"] == 0.0


def test_pooled_consensus_includes_the_annotator():
    df = _study(1)
    pooled = annotator_agreement(df, leave_one_out=False)
    everyone = fit_bradley_terry(df).table.set_index("candidate")["score"]
    u4 = df[df["annotator"] == "u4"]
    d = u4["left"].map(everyone).to_numpy() - u4["right"].map(everyone).to_numpy()
    agree = np.where(d > 0, u4["winner"] == "left", u4["winner"] == "right").mean()
    assert pooled.set_index("annotator").loc["u4", "agreement"] == pytest.approx(agree)


def test_weights_mean_one_and_used_by_the_fit():
    df = _study(2)
    table = annotator_agreement(df)
    w = annotator_weights(df, table)
    assert w.mean() == pytest.approx(1.0) and (w[df["annotator"] == "u4"] == 0).all()
    fit = fit_bradley_terry(df.assign(w=w), weights="w")
    kept = fit_bradley_terry(df[df["annotator"] != "u4"].assign(
        w=w[df["annotator"] != "u4"]), weights="w")  # fmt: skip
    np.testing.assert_allclose(fit.table["score"], kept.table["score"], atol=1e-10)


def test_filter_drops_below_threshold_and_reports():
    df = _study(3)
    table = annotator_agreement(df).set_index("annotator")
    res = filter_annotators(df, min_agreement=0.6)
    low = sorted(table.index[table["agreement"] < 0.6])
    assert sorted(res.dropped["annotator"]) == low and "u4" in low
    assert len(res.comparisons) == len(df) - (df["annotator"].isin(low)).sum()
    s = res.summary()
    assert s.values.tolist() == [["annotator_agreement", len(low), int(df["annotator"].isin(
        low).sum())]]  # fmt: skip
    # at the threshold's exact value an annotator is kept (drop only below)
    exact = filter_annotators(df, min_agreement=float(table.loc["u0", "agreement"]))
    assert "u0" not in set(exact.dropped["annotator"])


def test_errors():
    df = _study(4).drop(columns="annotator")
    with pytest.raises(InputError, match="column 'annotator' \\(annotator\\) not in"):
        annotator_agreement(df)
    with pytest.raises(InputError, match="min_agreement must be between 0 and 1"):
        filter_annotators(_study(4), min_agreement=1.5)


def test_cli_annotators_and_fit_options(tmp_path):
    df = _study(5)
    path = tmp_path / "prefs.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    res = runner.invoke(main, ["rank", "annotators", str(path)])
    assert res.exit_code == 0, res.output
    got = pd.read_csv(pd.io.common.StringIO(res.stdout))
    pd.testing.assert_frame_equal(got, annotator_agreement(df), check_dtype=False)
    dropped = tmp_path / "dropped.csv"
    res = runner.invoke(main, ["rank", "fit", str(path), "--min-agreement", "0.6",
                               "--dropped", str(dropped)])  # fmt: skip
    assert res.exit_code == 0, res.output
    n_low = int(df["annotator"].isin(filter_annotators(df, min_agreement=0.6)
                                     .dropped["annotator"]).sum())  # fmt: skip
    assert "filters: dropped" in res.stderr and f"({n_low} comparisons): annotator_agreement" in (
        res.stderr
    )
    assert "annotator_agreement" in set(pd.read_csv(dropped)["reason"])
    res = runner.invoke(main, ["rank", "fit", str(path), "--weight-annotators"])
    assert res.exit_code == 0, res.output
    assert "annotators: 5 weighted by their log-odds" in res.stderr
    res = runner.invoke(main, ["rank", "fit", str(path), "--weight-annotators", "--model", "elo"])
    assert res.exit_code == 1 and "Elo takes no weights" in res.stderr


def test_every_annotator_error_names_the_problem(tmp_path):
    df = _study(6)
    with pytest.raises(InputError, match="column 'annotator': no comparison has an annotator"):
        annotator_agreement(df.assign(annotator=None))
    alone = df.assign(annotator="u0")
    with pytest.raises(InputError, match="annotator 'u0' made every comparison: no consensus "
                       "without them"):  # fmt: skip
        annotator_agreement(alone)
    table = annotator_agreement(df)
    with pytest.raises(InputError, match="annotators without an agreement row: u9"):
        annotator_weights(df.assign(annotator="u9"), table)
    with pytest.raises(InputError, match=r"every annotator has weight 0 \(no better than chance\)"):
        annotator_weights(df, table.assign(weight=0.0))
    # the command line: one line, exit code 1, no traceback
    path = tmp_path / "prefs.csv"
    df.drop(columns="annotator").to_csv(path, index=False)
    res = CliRunner().invoke(main, ["rank", "fit", str(path), "--min-agreement", "0.6"])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stderr.strip().splitlines()[-1] == (
        "Error: column 'annotator' (annotator) not in the comparisons table"
    )
