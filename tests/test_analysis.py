"""Tests of rrmap.analyze, its result object and the written report folder."""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
import pandas as pd
import pytest

import rrmap
from rrmap.analysis import OUTPUT_FILES, AnalysisResult, analyze
from rrmap.errors import InputError
from rrmap.stats.designs import TESTS_COLUMNS, run_designs


@pytest.fixture(scope="module")
def path():
    return rrmap.datasets.example_ratings_path()


@pytest.fixture(scope="module")
def result(path):
    return analyze(path, by=["modality", "criterion_group"], n_perm=49, rng=7)


def test_tables_and_settings(result, path):
    assert isinstance(result, AnalysisResult)
    s = result.settings
    assert s["seed"] == 7 and s["permutations"] == 49
    assert s["by"] == ["modality", "criterion_group"]
    assert s["input_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert s["input_hashed"] == "file"
    assert s["rrmap_version"] == rrmap.__version__
    assert s["thresholds"] == rrmap.Thresholds().to_dict()
    assert s["z"] == pytest.approx(1.959963984540054)
    assert s["raters"] == ["E1", "E2", "E3"]
    assert len(result.points) == 405
    assert list(result.tests.columns[: len(TESTS_COLUMNS)]) == list(TESTS_COLUMNS)


def test_tests_equal_run_designs(result):
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    ref = run_designs(pts, ["modality", "criterion_group"], n_perm=49, rng=7)
    pd.testing.assert_frame_equal(result.tests.drop(columns="seed"), ref)
    assert (result.tests["seed"] == 7).all()  # the seed travels with the table


def test_proportions_table(result):
    props = result.proportions
    assert list(props.columns) == [
        "expert", "category", "option", "quality", "count", "n", "share", "ci_low", "ci_high"
    ]  # fmt: skip
    assert ((props.ci_low <= props.share) & (props.share <= props.ci_high)).all()
    sums = props.groupby(["expert", "category", "option"])["share"].sum()
    np.testing.assert_allclose(sums, 1.0)
    overall = props[props.category == "all"].reset_index(drop=True)
    ref = rrmap.proportions(result.points)
    np.testing.assert_array_equal(overall["count"], ref["count"])
    per = props[props.category == "modality"]
    ref = rrmap.proportions(result.points, by="modality")
    np.testing.assert_array_equal(per["count"], ref["count"])
    assert set(props.category) == {"all", "modality", "criterion_group"}


def test_agreement_tables(result):
    ref = rrmap.agreement_summary(rrmap.agreement(result.points))
    pd.testing.assert_frame_equal(result.agreement_summary, ref)
    assert len(result.agreement) == 135


def test_dataframe_and_points_input(path):
    df = rrmap.load_ratings(path)
    raw = pd.read_csv(path)
    a = analyze(raw, by=[], n_perm=19, rng=1)
    assert a.settings["input"] == "<DataFrame>"
    assert a.settings["input_hashed"] == "table (as CSV)"
    assert len(a.settings["input_sha256"]) == 64
    loaded = analyze(df, by=[], n_perm=19, rng=1)  # may have been edited: the table is hashed
    assert loaded.settings["input_hashed"] == "table (as CSV)"
    assert loaded.settings["input"] == f"table loaded from {df.attrs['rrmap']['source']}"
    sub = df[df.expert != "E3"].copy()
    sub.attrs = df.attrs
    other = analyze(sub, by=[], n_perm=19, rng=1)
    assert other.settings["input_sha256"] != loaded.settings["input_sha256"]
    b = analyze(rrmap.points(df), by=[], n_perm=19, rng=1)
    assert b.settings["input_sha256"] is None
    pd.testing.assert_frame_equal(a.tests, b.tests)


def test_seed_is_recorded_and_reproduces(path):
    a = analyze(path, by=[], n_perm=19)
    seed = a.settings["seed"]
    assert isinstance(seed, int)
    b = analyze(path, by=[], n_perm=19, rng=seed)
    pd.testing.assert_frame_equal(a.tests, b.tests)
    c = analyze(path, by=[], n_perm=19, rng=np.random.default_rng(0))
    # a generator gives the run a seed, drawn from it and recorded: the run can be repeated
    assert c.settings["seed"] == int(np.random.default_rng(0).integers(2**63))
    assert c.settings["seed_source"] == "drawn from the generator supplied by the caller"
    d = analyze(path, by=[], n_perm=19, rng=c.settings["seed"])
    pd.testing.assert_frame_equal(c.tests, d.tests)
    assert a.settings["seed_source"] == "drawn from the operating system's entropy"


def test_repr_forms(result):
    text = repr(result)
    assert text.startswith("rrmap analysis of ")
    assert "405 points, 3 raters, by modality, criterion_group" in text
    assert "seed 7, 49 permutations" in text
    assert "E1|E2|E3" in text
    assert "tests (" in text and "after Holm adjustment" in text
    md = result._repr_markdown_()
    head = "| groups | n | design | E | p (energy) | p Holm (energy) | E share | zone test |"
    assert head in md
    html = result._repr_html_()
    assert html.startswith("<p><b>rrmap analysis") and "<table" in html


def test_overall(result):
    ov = result.overall()
    assert ov.groups.tolist() == ["E1|E2|E3", "E1|E2", "E1|E3", "E2|E3"]
    t = result.tests
    e = t[(t.test == "energy") & (t.within == "all")]
    np.testing.assert_allclose(ov.energy_p, e.pvalue)
    c = t[(t.test != "energy") & (t.within == "all")]
    np.testing.assert_allclose(ov.zones, c.statistic)
    assert ov.zones_test.tolist() == ["marginal_homogeneity"] + ["stuart_maxwell"] * 3
    np.testing.assert_allclose(ov.energy_effect, e.effect)
    np.testing.assert_allclose(ov.zones_effect, c.effect)


def test_write_folder(result, tmp_path):
    out = tmp_path / "res"
    written = result.write(out, figures=False)
    assert [p.name for p in written] == list(OUTPUT_FILES)
    tests = pd.read_csv(out / "tests.csv", keep_default_na=False, na_values=[""])
    assert list(tests.columns[: len(TESTS_COLUMNS)]) == list(TESTS_COLUMNS)
    assert len(tests) == len(result.tests)
    np.testing.assert_allclose(tests.pvalue, result.tests.pvalue)
    assert tests.loc[tests.test == "energy", "dof"].isna().all()
    pts = pd.read_csv(out / "points.csv")
    assert set(pts.quality) <= set(rrmap.QUALITY_LEVELS)
    assert len(pd.read_csv(out / "agreement.csv")) == 135
    assert len(pd.read_csv(out / "proportions.csv")) == len(result.proportions)
    rel = pd.read_csv(out / "reliability.csv")
    pd.testing.assert_frame_equal(rel, result.reliability, check_dtype=False)
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["seed"] == 7
    assert data["settings"]["permutations"] == 49
    assert data["figures"] == []
    assert len(data["tests"]) == len(result.tests)
    assert data["tests"][0]["dof"] is None
    report = (out / "report.md").read_text()
    assert "## Figures" not in report
    assert "- seed: 7" in report


def test_results_json_is_the_indented_json_one_record_per_line(result, tmp_path):
    result.write(tmp_path, figures=False)
    text = (tmp_path / "results.json").read_text(encoding="utf-8")
    payload = result.to_dict()
    payload["figures"] = []
    payload["csv_cells"] = "spreadsheet-safe"
    standard = json.dumps(payload, indent=1, ensure_ascii=False, default=str)
    assert json.loads(text) == json.loads(standard)
    lines = text.splitlines()
    for table in ("tests", "points", "proportions", "agreement"):
        start = lines.index(f' "{table}": [')
        rows = lines[start + 1 : start + 1 + len(getattr(result, table))]
        assert [json.loads(line.rstrip(",")) for line in rows] == payload[table]


def test_write_refuses_to_overwrite(result, tmp_path):
    result.write(tmp_path, figures=False)
    with pytest.raises(InputError) as err:
        result.write(tmp_path, figures=False)
    assert "already holds tests.csv, points.csv" in str(err.value)
    assert "--force" in str(err.value)
    result.write(tmp_path, force=True, figures=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="exists and is not a folder"):
        result.write(tmp_path / "file")


def test_write_without_plotting_module(result, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "rrmap.plot", None)  # import fails
    written = result.write(tmp_path, figures=True)
    assert [p.name for p in written] == list(OUTPUT_FILES)
    assert "Figures" not in (tmp_path / "report.md").read_text()


def test_report_marks_significant_pvalues(result, path):
    text = result.report()
    t = result.tests
    row = t[(t.test != "energy") & (t.within == "all")].iloc[1]
    assert row.pvalue_holm < 0.05
    assert f"**{row.pvalue_holm:.3g}**" in text
    # the marks follow the adjusted p-values; the raw ones are shown plain
    per = t[(t.test == "energy") & t.within.str.startswith("modality=")]
    for _, r in per.iterrows():
        opt = r.within.split("=", 1)[1]
        groups = r.groups.replace("|", "\\|")
        adj = f"**{r.pvalue_holm:.3g}**" if r.pvalue_holm < 0.05 else f"{r.pvalue_holm:.3g}"
        cells = (
            f"| {opt} | {groups} | {r.n} | matched | {r.statistic:.3g} | {r.pvalue:.3g} | {adj} |"
        )
        assert cells in text
    # B = 49: raw p-values of 0.02 pass 0.05 but their Holm-adjusted ones do not
    assert ((per.pvalue < 0.05) & (per.pvalue_holm >= 0.05)).any()
    # without adjustment, the raw p-values are marked
    raw = analyze(path, by=["modality"], n_perm=49, rng=7, p_adjust="none").report()
    first = t[(t.test == "energy") & (t.within == "all")].iloc[0]
    assert (
        f"| E1\\|E2\\|E3 | 405 | matched | {first.statistic:.3g} | **{first.pvalue:.3g}** |" in raw
    )
    for heading in (
        "## Expert effect, overall",
        "## Expert effect per modality",
        "## Effect of criterion_group per rater",
        "## Quality proportions per rater",
        "## Pointwise agreement",
        "## Reliability",
        "## Settings",
    ):
        assert heading in text
    assert "evidence against" in text and "not a" in text


def test_report_figures_listed_only_when_given(result):
    assert "## Figures" not in result.report()
    text = result.report(figures=["rrmap_grid.png", "rrmap_grid.pdf"])
    assert "![rrmap_grid.png](rrmap_grid.png)" in text
    assert "- [rrmap_grid.pdf](rrmap_grid.pdf)" in text


def test_single_rater(path):
    df = rrmap.load_ratings(path)
    one = df[df.expert == "E1"].copy()
    one.attrs = df.attrs
    res = analyze(one, by=["modality"], n_perm=19, rng=0)
    assert res.agreement.empty
    assert "at least two raters" in res.settings["agreement"]
    d1 = res.tests[res.tests.within == "all"]
    assert d1.note.tolist() == ["single group (E1): nothing to compare"] * 2
    assert "at least two raters" in res.report()


def test_p_adjust_column(path):
    res = analyze(path, by=[], n_perm=19, rng=0, p_adjust="fdr_bh")
    assert "pvalue_fdr_bh" in res.tests.columns
    text = res.report()
    assert "p-value adjustment: fdr_bh" in text
    assert "| p BH (energy) |" in text and "| p BH (zones) |" in text
    assert "after Benjamini–Hochberg adjustment within families" in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p_adjust": "bonf"}, "p_adjust must be one of"),
        ({"rng": -1}, "rng must be a non-negative integer seed"),
        ({"rng": 1.5}, "rng must be a non-negative integer seed"),
        ({"by": ["nope"]}, "not a category column"),
        ({"n_perm": -5}, "n_perm must be a non-negative integer"),
    ],
)
def test_bad_arguments(path, kwargs, message):
    with pytest.raises(InputError, match=message):
        analyze(path, **{"n_perm": 9, **kwargs})


def test_write_refuses_to_replace_old_figures(tmp_path):
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "rrmap_grid.pdf").write_bytes(b"an earlier run")
    (tmp_path / ".rrmap-files.json").write_text('{"files": ["figures/rrmap_grid.pdf"]}')
    with pytest.raises(InputError, match=r"already holds figures/; use --force"):
        res.write(tmp_path, figures=False)
    assert (tmp_path / "figures" / "rrmap_grid.pdf").read_bytes() == b"an earlier run"


def test_summary_bolds_significant_p_values_only_in_color(result):
    plain, bold = result.summary(), result.summary(color=True)
    assert "\x1b[" not in plain
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", bold) == plain
    starred = plain.count("*")
    assert bold.count("\x1b[1m") == starred - 1  # every mark but the legend's
