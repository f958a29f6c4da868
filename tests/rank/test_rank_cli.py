"""Tests for ``rrmap rank`` (fit, sample, align) through click's CliRunner."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.rank import fit_bradley_terry, fit_elo, read_fineartbench

DATA = Path(__file__).resolve().parents[2] / "data" / "fineartbench"


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def prefs(tmp_path):
    rng = np.random.default_rng(0)
    strength = {"A": 2.0, "B": 1.0, "C": 0.0, "D": -1.0}
    rows = []
    for inst in ("i1", "i2", "i3"):
        for _ in range(40):
            a, b = rng.choice(list(strength), 2, replace=False)
            p = 1 / (1 + np.exp(strength[b] - strength[a]))
            rows.append((inst, a, b, "left" if rng.random() < p else "right"))
    df = pd.DataFrame(rows, columns=["instance", "left", "right", "winner"])
    path = tmp_path / "prefs.csv"
    df.to_csv(path, index=False)
    return path, df


def _csv(text):
    return pd.read_csv(io.StringIO(text))


def test_fit_bt_matches_library(runner, prefs):
    path, df = prefs
    res = runner.invoke(main, ["rank", "fit", str(path)])
    assert res.exit_code == 0, res.output
    out = _csv(res.stdout).set_index("candidate")
    ref = fit_bradley_terry(df).table.set_index("candidate")
    np.testing.assert_allclose(out.loc[ref.index, "score"], ref["score"], rtol=1e-6)
    np.testing.assert_allclose(out.loc[ref.index, "se"], ref["se"], rtol=1e-6)
    assert out["rank"].tolist() == [1, 2, 3, 4]
    assert set(out["tie_handling"]) == {"half"}


def test_fit_elo_records_seed_and_matches_library(runner, prefs):
    path, df = prefs
    res = runner.invoke(main, ["rank", "fit", str(path), "--model", "elo", "--shuffles", "10",
                               "--seed", "7", "--by", "instance"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = _csv(res.stdout)
    assert set(out["seed"]) == {7} and set(out["n_shuffles"]) == {10}
    ref = fit_elo(df, by="instance", n_shuffles=10, rng=7).table
    merged = out.merge(ref, on=["instance", "candidate"])
    np.testing.assert_allclose(merged["score_x"], merged["score_y"], rtol=1e-9)


def test_fit_fineartbench_reports_exclusions(runner, tmp_path):
    out = tmp_path / "bt.md"
    res = runner.invoke(main, ["rank", "fit", str(DATA / "global_annotation.json"),
                               "--format", "markdown", "-o", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "5000 records, 2116 comparisons used; excluded: skipped 976, unannotated 1908" in (
        res.stderr
    )
    said, table = out.read_text().split("\n\n", 1)
    # the settings of the fit once above the table, not on each of its rows
    assert said.startswith("Every row: ") and "model = bradley-terry" in said
    assert table.startswith("| candidate | score | se |") and "bradley-terry" not in table
    # refuses to overwrite
    again = runner.invoke(main, ["rank", "fit", str(DATA / "global_annotation.json"),
                                 "-o", str(out)])  # fmt: skip
    assert again.exit_code == 1
    assert f"Error: {out} exists; use --force to overwrite it" in again.stderr


def test_fit_with_filters_reports_drops(runner, tmp_path):
    rows = [("t", "A", "B", "left"), ("t", "A", "B", "right"), ("t", "A", "C", "left"),
            ("c", "A", "B", "left"), ("c", "B", "C", "left"), ("c", "C", "A", "left"),
            ("k", "A", "B", "left"), ("k", "B", "C", "left"), ("k", "A", "C", "left")]  # fmt: skip
    path = tmp_path / "p.csv"
    pd.DataFrame(rows, columns=["instance", "left", "right", "winner"]).to_csv(path, index=False)
    dropped = tmp_path / "dropped.csv"
    res = runner.invoke(main, ["rank", "fit", str(path), "--tie-band", "0.4", "0.6",
                               "--eta", "0.15", "--dropped", str(dropped)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "filters: dropped 1 pairs (2 comparisons): tie_band" in res.stderr
    assert "filters: dropped 1 instances (3 comparisons): non_transitive" in res.stderr
    assert "filters: 4 of 9 comparisons kept" in res.stderr
    d = pd.read_csv(dropped)
    assert d["reason"].tolist() == ["tie_band", "non_transitive"]


def test_fit_notes_nonexistent_mle(runner, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("instance,left,right,winner\ni,A,B,left\ni,A,C,left\n")
    res = runner.invoke(main, ["rank", "fit", str(path)])
    assert res.exit_code == 0
    assert (
        "note: maximum-likelihood estimate does not exist (never wins: B, C; never loses: A)"
        in (res.stderr)
    )
    assert set(_csv(res.stdout)["regularized"]) == {True}
    strict = runner.invoke(main, ["rank", "fit", str(path), "--alpha", "0"])
    assert strict.exit_code == 1
    assert "Error: the Bradley-Terry maximum-likelihood estimate does not exist" in strict.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("instance,left,right,winner\ni,A,B,maybe\n",
         "Error: {p}: 1 problem: column 'winner': value 'maybe' is not one of left, right, tie "
         "(line 2)"),
        ("instance,left,winner\ni,A,left\n", "missing column 'right'"),
    ],
)  # fmt: skip
def test_fit_bad_file_one_line_error(runner, tmp_path, content, message):
    p = tmp_path / "bad.csv"
    p.write_text(content)
    res = runner.invoke(main, ["rank", "fit", str(p)])
    assert res.exit_code == 1
    assert message.format(p=p) in res.stderr
    assert "Traceback" not in res.output


def test_missing_file(runner, tmp_path):
    res = runner.invoke(main, ["rank", "fit", str(tmp_path / "none.csv")])
    assert res.exit_code == 1
    assert "none.csv: no such file or " in res.stderr.lower()


@pytest.mark.parametrize("design", ["instance", "global"])
def test_sample(runner, tmp_path, design):
    names = tmp_path / "cands.txt"
    names.write_text("A\nB\nC\nD\nE\n")
    res = runner.invoke(main, ["rank", "sample", "--design", design, "--candidates",
                               f"@{names}", "--instances", "3", "-n", "6", "--seed", "5"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = _csv(res.stdout)
    assert len(out) == (18 if design == "instance" else 6)
    assert set(out["seed"]) == {5} and set(out["design"]) == {design}
    assert set(out["instance"]) <= {"i1", "i2", "i3"}


def test_sample_bad_n(runner):
    res = runner.invoke(main, ["rank", "sample", "--design", "instance", "--candidates", "A,B,C",
                               "--instances", "x,y", "-n", "9"])  # fmt: skip
    assert res.exit_code == 1
    assert "Error: n_edges must be an integer with |V|-1 <= n_edges <= |V|(|V|-1)/2" in res.stderr


def test_align_rankings_and_comparisons(runner, prefs, tmp_path):
    path, df = prefs
    human = tmp_path / "human.csv"
    fit_bradley_terry(df, by="instance").table.to_csv(human, index=False)
    model = tmp_path / "model.csv"
    flipped = df.assign(winner=df["winner"].map({"left": "right", "right": "left"}))
    flipped.to_csv(model, index=False)  # a comparisons file: fitted on the fly
    res = runner.invoke(main, ["rank", "align", str(human), str(model), "--by", "instance"])
    assert res.exit_code == 0, res.output
    out = _csv(res.stdout)
    np.testing.assert_allclose(out["rho"], -1.0)
    assert "alignment: 3 group(s), mean rho -1.0000, Fisher combined p" in res.stderr
    summ = runner.invoke(main, ["rank", "align", str(human), str(path), "--by", "instance",
                                "--alternative", "greater", "--summary-only"])  # fmt: skip
    s = _csv(summ.stdout)
    assert s["n_groups"].iloc[0] == 3 and s["alternative"].iloc[0] == "greater"
    assert s["mean_rho"].iloc[0] == pytest.approx(1.0)
    # 4 candidates, perfect agreement: exact p = 1/24 each; Fisher on three of them
    from scipy.stats import chi2

    assert s["fisher_p"].iloc[0] == pytest.approx(chi2.sf(-2 * 3 * np.log(1 / 24), 6))


def test_align_fineartbench_counts(runner, tmp_path):
    fab = read_fineartbench(DATA / "global_annotation.json")
    model = tmp_path / "model.csv"
    fit_bradley_terry(fab.comparisons).table.assign(score=lambda t: -t["score"]).to_csv(
        model, index=False
    )
    res = runner.invoke(main, ["rank", "align", str(DATA / "global_annotation.json"), str(model)])
    assert res.exit_code == 0, res.output
    assert _csv(res.stdout)["rho"].iloc[0] == pytest.approx(-1.0)


def test_align_has_no_filter_options(runner, prefs):
    path, _ = prefs
    res = runner.invoke(main, ["rank", "align", str(path), str(path), "--eta", "0.1"])
    assert res.exit_code == 2
    assert "No such option '--eta'" in res.stderr


def test_columns_option(runner, prefs):
    path, _ = prefs
    res = runner.invoke(main, ["rank", "fit", str(path), "--columns", "candidate,rank"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "candidate,rank"
    bad = runner.invoke(main, ["rank", "fit", str(path), "--columns", "candidate,elo"])
    assert bad.exit_code == 1
    assert "Error: --columns: unknown column elo (available: candidate, score, se" in bad.stderr


def test_align_ranking_file_without_score_names_the_file(runner, tmp_path):
    h = tmp_path / "h.csv"
    h.write_text("candidate,points\nA,1\nB,2\nC,3\n")
    res = runner.invoke(main, ["rank", "align", str(h), str(h)])
    assert res.exit_code == 1
    assert f"Error: {h}: missing column 'score' (found: candidate, points)" in res.stderr


def test_filter_command(runner, tmp_path):
    rows = [("t", "A", "B", "left"), ("t", "A", "B", "right"), ("t", "A", "C", "left"),
            ("c", "A", "B", "left"), ("c", "B", "C", "left"), ("c", "C", "A", "left")]  # fmt: skip
    path = tmp_path / "p.csv"
    pd.DataFrame(rows, columns=["instance", "left", "right", "winner"]).to_csv(path, index=False)
    kept, dropped, inst = tmp_path / "kept.csv", tmp_path / "d.csv", tmp_path / "i.csv"
    res = runner.invoke(main, ["rank", "filter", str(path), "-o", str(kept), "--dropped",
                               str(dropped), "--instances-report", str(inst)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "filters: 1 of 6 comparisons kept" in res.stderr
    k = pd.read_csv(kept)
    assert k[["instance", "left", "right"]].values.tolist() == [["t", "A", "C"]]
    assert pd.read_csv(dropped)["reason"].tolist() == ["tie_band", "non_transitive"]
    assert pd.read_csv(inst).set_index("instance").loc["c", "n_feedback"] == 1
    only_fas = runner.invoke(main, ["rank", "filter", str(path), "--no-tie-filter"])
    assert "filters: 3 of 6 comparisons kept" in only_fas.stderr
    none = runner.invoke(main, ["rank", "filter", str(path), "--no-tie-filter",
                                "--no-fas-filter"])  # fmt: skip
    assert none.exit_code == 1 and "both filters are switched off" in none.stderr


def test_fit_refuses_a_row_with_more_fields_than_the_header(runner, tmp_path):
    """An unquoted comma once ranked made-up candidates 'J.', 'Doe', 'Smith' with exit 0."""
    p = tmp_path / "x.csv"
    p.write_text("instance,left,right,winner\ni1,Smith, J.,Doe,left\ni1,Doe,Smith, J.,right\n")
    res = runner.invoke(main, ["rank", "fit", str(p)])
    assert res.exit_code != 0
    assert "lines 2, 3 have 5 fields, the header 4" in res.output


def test_align_ranking_file_with_a_shifted_row_is_an_error(runner, tmp_path):
    good = tmp_path / "h.csv"
    good.write_text("candidate,score\nA,1\nB,0\nC,-1\n")
    bad = tmp_path / "m.csv"
    bad.write_text("candidate,score\nA,1\nB,0,extra\nC,-1\n")
    res = runner.invoke(main, ["rank", "align", str(good), str(bad)])
    assert res.exit_code != 0 and "line 3 has 3 fields, the header 2" in res.output


def test_nothing_to_rank_is_not_called_filtering(runner, tmp_path):
    rec = {"id": 0, "content_index": 1, "style_index": 2, "style_prompt": "p",
           "method_left": "A", "method_right": "B", "winner": None, "skipped": True}  # fmt: skip
    p = tmp_path / "fab.json"
    p.write_text(pd.Series([rec]).to_json(orient="records"))
    res = runner.invoke(main, ["rank", "fit", str(p)])
    assert res.exit_code != 0
    assert "no comparisons to rank" in res.output and "after filtering" not in res.output
