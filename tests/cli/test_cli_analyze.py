"""``rrmap analyze`` end to end through click's CliRunner."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main
from rrmap.stats.adjust import adjusted_columns
from rrmap.stats.designs import TESTS_COLUMNS

EXAMPLE = str(rrmap.datasets.example_ratings_path())
#: Where a test is not about the effects' intervals: their bootstrap (most of a run's time) left out
NO_BOOT = ("--bootstrap", "0")


@pytest.fixture
def runner():
    return CliRunner()


def _run(runner, *args):
    return runner.invoke(main, ["analyze", EXAMPLE, *args])


def test_help(runner):
    res = runner.invoke(main, ["analyze", "-h"])
    assert res.exit_code == 0
    for opt in ("--by", "--permutations", "--seed", "--p-adjust", "--out", "--force"):
        assert opt in res.output
    assert "--no-figures" in res.output and "--quiet" in res.output
    flat = " ".join(res.output.split())
    assert "Maximum permutations per energy test (B). [default: 5000; 0<=x<=10000000]" in flat
    assert "--stop-hits" in flat and "--jobs" in flat
    assert "[default: rrmap-results]" in flat and "--delta-bound" in flat


def ref_pvalues(out):
    """p-values of tests.csv (written with the repr of each float, read back exactly)."""
    return pd.read_csv(out / "tests.csv")["pvalue"].tolist()


def test_end_to_end_matches_the_library(runner, tmp_path):
    out = tmp_path / "res"
    res = _run(runner, "--permutations", "49", "--seed", "3", "--out", str(out), "--no-figures")
    assert res.exit_code == 0, res.output
    tables = ["tests", "points", "proportions", "agreement"]
    csv = [f"{t}.csv" for t in [*tables, "reliability"]]
    tex = [f"{t}.tex" for t in tables if t != "points"]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*csv, *tex, "results.json", "report.md", "report.html", ".rrmap-files.json"]
    )
    # results.json keeps every p-value at full precision (read back exactly)
    back = json.loads((out / "results.json").read_text())["tests"]
    assert [r["pvalue"] for r in back] == [None if np.isnan(p) else p for p in ref_pvalues(out)]
    # the effects' bootstrap draws from streams of its own: the p-values are the same without it
    ref = rrmap.analyze(EXAMPLE, n_perm=49, rng=3, n_boot=0)
    tests = pd.read_csv(out / "tests.csv", keep_default_na=False, na_values=[""])
    assert list(tests.columns[: len(TESTS_COLUMNS)]) == list(TESTS_COLUMNS)
    assert len(tests) == len(ref.tests) == 504
    assert "pvalue_holm" in tests.columns  # Holm by default
    np.testing.assert_allclose(tests.pvalue, ref.tests.pvalue)
    np.testing.assert_allclose(tests.statistic, ref.tests.statistic)
    settings = json.loads((out / "results.json").read_text())["settings"]
    assert settings["seed"] == 3 and settings["permutations"] == 49
    assert settings["input"] == EXAMPLE
    assert settings["input_sha256"] == hashlib.sha256(open(EXAMPLE, "rb").read()).hexdigest()
    assert settings["by"] == ["movement", "criterion", "criterion_group", "modality"]
    assert "- seed: 3" in (out / "report.md").read_text()
    # summary on stdout, progress and the file list on stderr
    # plain text that reads in a terminal: sentences, then an aligned table, no Markdown
    assert res.stdout.startswith("405 RRMap points from 3 raters (E1, E2, E3). 504 tests ran;")
    table = res.stdout.split("Expert effect, overall:\n")[1].splitlines()
    assert table[0].split()[:4] == ["groups", "n", "design", "E"]
    assert table[1].split()[:3] == ["E1|E2|E3", "405", "matched"]
    assert len({len(line) for line in table[:5]}) <= 2  # aligned (trailing blanks cut)
    assert "**" not in res.stdout and "\x1b[" not in res.stdout and "|---" not in res.stdout
    assert res.stdout.rstrip().endswith(f"Report: {out / 'report.md'}")
    # stderr is not a terminal here: the file list, but no frames of a progress bar
    assert "tests:" not in res.stderr and f"wrote {out / 'report.md'}" in res.stderr


def test_quiet_silences_stderr(runner, tmp_path):
    res = _run(
        runner,
        "--by",
        "modality",
        "--permutations",
        "99",
        *NO_BOOT,
        "--out",
        str(tmp_path),
        "-q",
        "--no-figures",
    )
    assert res.exit_code == 0
    assert res.stderr == ""
    assert "RRMap points from 3 raters" in res.stdout


def test_by_and_p_adjust(runner, tmp_path):
    res = _run(
        runner,
        "--by",
        "movement",
        "--by",
        "modality",
        "--p-adjust",
        "holm",
        "--permutations",
        "9",
        *NO_BOOT,
        "--out",
        str(tmp_path),
        "--no-figures",
        "-q",
    )
    assert res.exit_code == 0, res.output
    tests = pd.read_csv(tmp_path / "tests.csv")
    assert "pvalue_holm" in tests.columns
    assert set(tests.by) == {"expert", "movement", "modality"}


def test_refuses_to_overwrite(runner, tmp_path):
    args = ["--by", "modality", "--permutations", "9", *NO_BOOT, "--out", str(tmp_path), "-q",
            "--no-figures"]  # fmt: skip
    assert _run(runner, *args).exit_code == 0
    res = _run(runner, *args)
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        f"Error: {tmp_path} already holds tests.csv, points.csv, proportions.csv, "
        "agreement.csv, reliability.csv, tests.tex, proportions.tex, agreement.tex, results.json, "
        "report.md, report.html; "
        "use --force to overwrite"
    )
    assert _run(runner, *args, "--force").exit_code == 0


def test_out_is_a_file(runner, tmp_path):
    f = tmp_path / "f.txt"
    f.write_text("x")
    res = _run(runner, "--out", str(f), "--permutations", "9")
    assert res.exit_code != 0
    assert "f.txt" in res.stderr and "Traceback" not in res.output


def test_bad_by_is_one_line(runner, tmp_path):
    res = _run(runner, "--by", "style", "--out", str(tmp_path), "--permutations", "9")
    assert res.exit_code == 1
    assert res.stderr.startswith("Error: by style: not a category column; choose from")
    assert len(res.stderr.strip().splitlines()) == 1


def test_missing_file(runner, tmp_path):
    res = runner.invoke(main, ["analyze", str(tmp_path / "nope.csv"), "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert res.stderr.startswith("Error:") and "nope.csv" in res.stderr


def test_bad_p_adjust_choice(runner, tmp_path):
    res = _run(runner, "--p-adjust", "bonferroni", "--out", str(tmp_path))
    assert res.exit_code == 2
    assert "'bonferroni' is not one of 'holm', 'fdr_bh', 'gatekept', 'none'" in res.stderr


def test_the_study_tests_one_option_away(runner, tmp_path):
    """--design independent --p-adjust none --chi2-monte-carlo 0: the published study's tests."""
    args = ["--by", "modality", "--permutations", "199", "--seed", "5", *NO_BOOT, "--no-figures",
            "-q"]  # fmt: skip
    study = ["--design", "independent", "--p-adjust", "none", "--chi2-monte-carlo", "0"]
    res = _run(runner, *args, *study, "--out", str(tmp_path / "study"))
    assert res.exit_code == 0, res.output
    tests = pd.read_csv(tmp_path / "study" / "tests.csv", keep_default_na=False, na_values=[""])
    assert set(tests.test) == {"energy", "chi2"} and set(tests.design) == {"independent"}
    assert set(tests.loc[tests.test == "chi2", "p_method"]) == {"asymptotic"}
    assert not adjusted_columns(tests.columns)  # only pvalue_mid and pvalue_study
    ref = rrmap.analyze(EXAMPLE, by=["modality"], n_perm=199, rng=5, design="independent",
                        p_adjust="none", chi2_n_perm=0, n_boot=0)  # fmt: skip
    np.testing.assert_array_equal(tests.pvalue, ref.tests.pvalue)
    settings = json.loads((tmp_path / "study" / "results.json").read_text())["settings"]
    assert (settings["design"], settings["p_adjust"], settings["chi2_monte_carlo"]) == (
        "independent",
        "none",
        0,
    )
    # the defaults: matched, Holm, Monte Carlo where Cochran's rule fails, all recorded
    assert _run(runner, *args, "--out", str(tmp_path / "new")).exit_code == 0
    new = pd.read_csv(tmp_path / "new" / "tests.csv", keep_default_na=False, na_values=[""])
    assert set(new.loc[new.by == "expert", "design"]) == {"matched"}
    assert {"stuart_maxwell", "marginal_homogeneity"} <= set(new.test)
    report = (tmp_path / "new" / "report.md").read_text()
    assert "after Holm adjustment within families" in report
    assert "- design of the expert-effect tests: auto" in report


def test_ratings_options_reach_the_analysis(runner, tmp_path):
    res = _run(
        runner,
        "--by",
        "modality",
        "--permutations",
        "9",
        "--delta-bound",
        "1.96",
        "--z",
        "1.96",
        *NO_BOOT,
        "--out",
        str(tmp_path),
        "-q",
        "--no-figures",
    )
    assert res.exit_code == 0, res.output
    settings = json.loads((tmp_path / "results.json").read_text())["settings"]
    assert settings["thresholds"]["delta_bound"] == 1.96
    assert settings["z"] == 1.96


@pytest.fixture(scope="module")
def figures_run(tmp_path_factory):
    """One run with its figures at 3.5 in, which the figure tests inspect (read only)."""
    pytest.importorskip("rrmap.plot")
    out = tmp_path_factory.mktemp("figures") / "res"
    res = CliRunner().invoke(main, ["analyze", EXAMPLE, "--by", "modality", "--permutations", "9",
                                    *NO_BOOT, "--out", str(out), "-q", "--width", "3.5in"])  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


def test_figures_written_and_listed(figures_run):
    data = json.loads((figures_run / "results.json").read_text())
    assert data["figures"], "no figure written"
    report = (figures_run / "report.md").read_text()
    assert "## Figures" in report
    for name in data["figures"]:
        assert (figures_run / name).is_file()
        assert f"[{name}]({name})" in report


def test_other_schema_through_the_ratings_options(runner, tmp_path):
    g = np.random.default_rng(0)
    rows = []
    for a in ("ann1", "ann2"):
        for style in ("s1", "s2"):
            for item in range(5):
                for corpus in ("human", "model"):
                    lo = round(g.uniform(1, 4), 2)
                    rows.append(
                        (a, style, f"i{item}", corpus, lo, round(lo + g.uniform(0.5, 2.5), 2))
                    )
    f = tmp_path / "other.csv"
    pd.DataFrame(rows, columns=["annotator", "style", "item", "corpus", "lower", "upper"]).to_csv(
        f, index=False
    )
    res = runner.invoke(
        main,
        [
            "analyze",
            str(f),
            "--rater",
            "annotator",
            "--origin",
            "corpus",
            "--low",
            "lower",
            "--high",
            "upper",
            "--reference",
            "human",
            "--query",
            "model",
            "--scale",
            "1",
            "7",
            "--by",
            "style",
            "--permutations",
            "19",
            *NO_BOOT,
            "--out",
            str(tmp_path / "out"),
            "--no-figures",
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    tests = pd.read_csv(tmp_path / "out" / "tests.csv")
    assert tests.groups.iloc[0] == "ann1|ann2" and tests.n.iloc[0] == 20
    assert set(tests.within) == {"all", "style=s1", "style=s2", "expert=ann1", "expert=ann2"}


def test_figures_at_the_asked_width_and_300_dpi(runner, figures_run, tmp_path):
    out = figures_run
    figures = sorted(p.name for p in (out / "figures").iterdir())
    assert figures == sorted(
        f"{s}.{e}"
        for s in ("rrmap_by_rater", "rrmap_grid", "proportions", "agreement")
        for e in ("pdf", "png")
    )
    png = (out / "figures" / "rrmap_by_rater.png").read_bytes()
    assert int.from_bytes(png[16:20], "big") == 3.5 * 300
    # the 12-panel grid keeps the width asked for too: its raters wrap to rows
    grid = (out / "figures" / "rrmap_grid.png").read_bytes()
    assert int.from_bytes(grid[16:20], "big") == 3.5 * 300
    report = (out / "report.md").read_text()
    assert "figures/agreement.png" in report
    res = _run(runner, "--out", str(tmp_path / "x"), "--width", "0.2in")
    assert res.exit_code == 1 and "is not a figure width" in res.output
    assert not (tmp_path / "x").exists()  # refused before anything was computed or written


def test_warns_when_no_energy_test_can_pass_the_adjusted_threshold(runner, tmp_path):
    res = _run(
        runner,
        "--by",
        "criterion",
        "--permutations",
        "99",
        "--p-adjust",
        "holm",
        *NO_BOOT,
        "--out",
        str(tmp_path),
        "-q",
        "--no-figures",
    )
    assert res.exit_code == 0
    # criterion has 9 options: a family of 1 + 36 tests, Holm needs p ≤ 0.05 / 37
    assert res.stderr == (
        "Warning: with 99 permutations the smallest energy p-value is 1/100 ≈ 0.01, but holm "
        "within families of up to 37 tests needs p ≤ 0.0014: some energy tests can never be "
        "significant; use at least 739 permutations\n"
    )


def test_zero_jobs_is_a_one_line_error(runner, tmp_path):
    res = _run(runner, "--jobs", "0", "--out", str(tmp_path), "-q", "--no-figures")
    assert res.exit_code == 2
    assert "Invalid value for '--jobs': 0 workers: give 1 or more, or -1 for every core" in (
        res.output
    )
    assert not any(tmp_path.iterdir())  # nothing written


def test_permutation_warning_in_python():
    import pytest as _pytest

    import rrmap

    with _pytest.warns(rrmap.PermutationWarning, match="use at least 739 permutations"):
        rrmap.analyze(
            rrmap.datasets.load_example_ratings(),
            by=["criterion"],
            n_perm=99,
            p_adjust="holm",
            tests=["energy"],
            rng=0,
        )


def test_benjamini_hochberg_needs_only_p_below_alpha(runner, tmp_path):
    """BH can reject a whole family whose p-values are all ≤ 0.05: with B = 99 (smallest
    p 0.01) no warning, and the strongest families pass (the bound is α, not α/m)."""
    args = ["--by", "criterion", "--permutations", "99", "--p-adjust", "fdr_bh", *NO_BOOT]
    res = _run(runner, *args, "--out", str(tmp_path), "-q", "--no-figures")
    assert res.exit_code == 0 and res.stderr == ""
    tests = pd.read_csv(tmp_path / "tests.csv", keep_default_na=False, na_values=[""])
    energy = tests[tests.test == "energy"]
    assert (energy.pvalue_fdr_bh < 0.05).any()
    # and below 1/(B + 1) ≤ α it warns
    res = _run(runner, *args[:2], "--permutations", "9", *args[4:], "--out", str(tmp_path / "b"),
               "-q", "--no-figures")  # fmt: skip
    assert "needs p ≤ 0.05" in res.stderr and "use at least 19 permutations" in res.stderr


def test_verbose_says_each_step_on_stderr(runner, tmp_path):
    res = _run(
        runner,
        "--by",
        "modality",
        "--permutations",
        "99",
        *NO_BOOT,
        "--no-figures",
        "--out",
        str(tmp_path / "o"),
        "-v",
    )
    assert res.exit_code == 0, res.output
    steps = [ln.split("] ", 1)[1] for ln in res.stderr.splitlines() if ln.startswith("[")]
    assert (
        steps[0] == f"locked {tmp_path / 'o'} (a second run into it is refused until this one ends)"
    )
    assert steps[1] == f"reading {EXAMPLE}"
    assert steps[2].startswith("read 810 intervals of 3 raters; running the tests (at most 99")
    assert steps[3].startswith("writing the tables and the reports into a temporary folder")
    assert steps[4].startswith("wrote 11 files in ")
    quiet = _run(
        runner,
        "--by",
        "modality",
        "--permutations",
        "99",
        *NO_BOOT,
        "--no-figures",
        "--out",
        str(tmp_path / "q"),
        "-v",
        "-q",
    )
    assert quiet.stderr == ""


TWO = str(rrmap.datasets.example_ratings_path(generators=2))


@pytest.mark.slow
def test_two_generators_end_to_end(runner, tmp_path):
    out = tmp_path / "res"
    res = runner.invoke(
        main,
        [
            "analyze",
            TWO,
            "--out",
            str(out),
            "--permutations",
            "99",
            "--bootstrap",
            "0",
            "--by",
            "movement",
            "--seed",
            "1",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "Corpora: reference 'real' (405 rows); 2 query corpora 'gen-A' (405), 'gen-B' (405)" in (
        res.stderr
    )
    assert "2 query corpora (gen-A, gen-B) against the reference real" in res.stdout
    assert "Generator effect and each corpus's expert effect, overall:" in res.stdout
    figures = sorted(p.name for p in (out / "figures").iterdir())
    assert "rrmap_by_query.pdf" in figures and "rrmap_by_rater.png" in figures
    tests = pd.read_csv(out / "tests.csv", keep_default_na=False)
    assert set(tests.loc[tests["by"] == "query", "groups"]) == {"gen-A|gen-B"}
    assert set(tests["query"]) == {"", "gen-A", "gen-B"}
    # the same run through the library
    ref = rrmap.analyze(TWO, by=["movement"], n_perm=99, n_boot=0, rng=1)
    np.testing.assert_allclose(tests["pvalue"].replace("", np.nan).astype(float),
                               ref.tests["pvalue"], rtol=1e-12)  # fmt: skip


def test_query_selects_and_drop_incomplete_drops(runner, tmp_path):
    res = runner.invoke(
        main,
        [
            "analyze",
            TWO,
            "--out",
            str(tmp_path / "b"),
            "--query",
            "gen-B",
            "--by",
            "movement",
            "--permutations",
            "19",
            "--bootstrap",
            "0",
            "--no-figures",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "Warning: " in res.stderr and "left out: 'gen-A' (405 rows)" in res.stderr
    tests = pd.read_csv(tmp_path / "b" / "tests.csv")
    assert "query" not in tests.columns and "query" not in set(tests["by"])
    df = pd.read_csv(EXAMPLE).drop(index=[3])
    path = tmp_path / "inc.csv"
    df.to_csv(path, index=False)
    res = runner.invoke(main, ["analyze", str(path), "--out", str(tmp_path / "c")])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.stderr.startswith("Error: ") and res.stderr.count("\n") == 1
    assert "--drop-incomplete" in res.stderr and len(res.stderr) < 1500
    res = runner.invoke(
        main, ["analyze", str(path), "--out", str(tmp_path / "c"), "--drop-incomplete",
               "--by", "movement", "--permutations", "19", "--bootstrap", "0", "--no-figures"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "1 row(s) dropped (drop_incomplete): 1 without a partner interval (line 4)" in (
        res.stderr
    )
    report = (tmp_path / "c" / "report.md").read_text(encoding="utf-8")
    assert "1 row dropped (--drop-incomplete)" in report
