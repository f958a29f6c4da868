"""Tests of rrmap.analyze, its result object and the written report folder."""

from __future__ import annotations

import hashlib
import json

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
    rel = pd.read_csv(out / "reliability.csv").fillna({"note": ""})  # empty notes read as NaN
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


def test_write_without_figures(result, tmp_path):
    written = result.write(tmp_path, figures=False)
    assert [p.name for p in written] == list(OUTPUT_FILES)
    assert "Figures" not in (tmp_path / "report.md").read_text()
    assert not (tmp_path / "figures").exists()


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


# --- several query corpora ---------------------------------------------------------------


@pytest.fixture(scope="module")
def two():
    """The shipped two-generator study analysed with no options (but a small B)."""
    path = rrmap.datasets.example_ratings_path(generators=2)
    return analyze(path, n_perm=199, n_boot=100, rng=0)


def test_two_generators_with_no_options(two):
    pts = two.points
    assert pts.groupby("query", observed=True).size().to_dict() == {"gen-A": 405, "gen-B": 405}
    props = two.proportions
    assert list(props.columns[:4]) == ["query", "expert", "category", "option"]
    overall = props[props["category"] == "all"]
    assert overall.groupby(["query", "expert"])["share"].sum().round(12).eq(1).all()
    assert {"ci_low", "ci_high"} <= set(props.columns)
    tests = two.tests
    assert list(tests.columns[:5]) == ["test", "query", "by", "within", "groups"]
    gen = tests[tests["by"] == "query"]
    assert set(gen["groups"]) == {"gen-A|gen-B"} and set(gen["design"]) == {"matched"}
    assert set(gen["query"]) == {""} and gen["within"].iloc[0] == "all"
    within = set(gen["within"])
    assert {"expert=E1", "expert=E2", "expert=E3", "movement=cubism", "modality=movement"} <= within
    per = tests[tests["by"] != "query"]
    assert set(per["query"]) == {"gen-A", "gen-B"}
    # the generator effect comes first, then each corpus's designs
    assert tests["by"].iloc[0] == "query" and tests["query"].iloc[-1] == "gen-B"
    assert two.settings["queries"] == ["gen-A", "gen-B"] and two.settings["reference"] == "real"
    assert set(two.agreement["query"]) == {"gen-A", "gen-B"}
    assert set(two.agreement_summary["query"]) == {"gen-A", "gen-B"}
    assert set(two.reliability["query"]) == {"gen-A", "gen-B"}


def test_two_generators_keep_every_test_of_each_corpus(two):
    """gen-A's rows are the example's generated rows: its tests are the single-corpus
    analysis's (same statistics; p-values from streams of their own)."""
    one = analyze(rrmap.datasets.example_ratings_path(), n_perm=199, n_boot=0, rng=0)
    mine = two.tests[two.tests["query"] == "gen-A"].reset_index(drop=True)
    keys = ["test", "by", "within", "groups", "design", "n", "p_method"]
    pd.testing.assert_frame_equal(mine[keys], one.tests[keys])
    np.testing.assert_allclose(mine["statistic"], one.tests["statistic"], rtol=1e-12)
    exact = mine["p_method"].isin(["exact", "asymptotic"])
    np.testing.assert_allclose(mine.loc[exact, "pvalue"], one.tests.loc[exact, "pvalue"],
                               rtol=1e-12)  # fmt: skip


def test_two_generators_outputs(two, tmp_path):
    report = two.report()
    heads = [ln for ln in report.splitlines() if ln.startswith("## ")]
    assert heads[0] == "## Generator comparison"
    assert heads[1:4] == [
        "## Generator effect, overall and per rater",
        "## Generator effect per movement",
        "## Generator effect per criterion",
    ]
    assert (
        "## Expert effect, overall — gen-A" in heads
        and "## Expert effect, overall — gen-B" in heads
    )
    assert "| subset | gen-A | gen-B | closer | p (energy) | p (zones) |" in report
    assert "| movement: abstract art | 42 % [32, 53] | 75 % [65, 83] | gen-B |" in report
    tex = two.latex("tests")
    labels = [ln for ln in tex.splitlines() if ln.startswith("\\label{")]
    assert len(labels) == len(set(labels))
    assert "\\label{tab:rrmap-expert-effect-overall-gen-b}" in labels
    assert "Expert effect, overall --- gen-A" in tex
    prop = two.latex("proportions")
    assert "of the query corpus gen-B" in prop and "tab:rrmap-proportions-gen-a" in prop
    written = two.write(tmp_path / "out", figures=False)
    back = rrmap.analysis.load_result(tmp_path / "out" / "results.json")
    assert back.tests["query"].tolist() == two.tests["query"].tolist()
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    # the generator comparison opens the tests, after the maps
    assert page.index('id="tests"') < page.index('id="generators"') < page.index('id="design-1"')
    assert "gen-A — Expert effect overall" in page
    csv = pd.read_csv(tmp_path / "out" / "points.csv")
    assert csv.columns[1] == "query" and len(written) > 5


def test_dropped_rows_are_counted_and_listed(tmp_path):
    df = pd.read_csv(rrmap.datasets.example_ratings_path())
    df.loc[4, "low rating"] = None  # a blank bound
    df = df.drop(index=[10])  # a reference or query without its partner
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    with pytest.raises(rrmap.RatingsError, match="missing value on line 6"):
        analyze(path, n_perm=9)
    with pytest.warns(rrmap.RatingsWarning, match=r"3 row\(s\) dropped .* 1 with a blank"):
        res = analyze(path, by=[], n_perm=99, n_boot=0, rng=0, drop_incomplete=True)
    # the blank row and its partner, and the partner of the row taken out
    assert res.settings["dropped"]["rows"] == 3
    report = res.report()
    assert "## Left out of the ratings" in report
    assert (
        "3 rows dropped (--drop-incomplete): 1 with a blank interval bound, 2 without a "
        "partner interval; lines 6, 7, 12" in report
    )
    # the expert effect is matched within keys on the incomplete key, not independent
    overall = res.tests[(res.tests["groups"] == "E1|E2|E3") & (res.tests["test"] == "energy")]
    assert overall["design"].iloc[0] == "matched"
    assert overall["note"].iloc[0].startswith("matched within keys: 2 of 135 keys")
