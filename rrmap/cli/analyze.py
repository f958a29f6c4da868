"""``rrmap analyze``: every test design, the tables and a report, written to a folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rrmap._util.interval_methods import CI_METHODS
from rrmap.cli._options import check_jobs, ratings_from_options, ratings_options
from rrmap.cli.common import CONTEXT_SETTINGS, OutputPath, raw_csv_option
from rrmap.limits import MAX_BOOTSTRAP, MAX_MONTE_CARLO, MAX_PERMUTATIONS
from rrmap.stats.settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.analysis import AnalysisResult
    from rrmap.plot.analysis_figures import AnalysisFigures


@click.command("analyze", context_settings=CONTEXT_SETTINGS)
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--by",
    "by",
    multiple=True,
    help="Category to test (repeatable). Default: every category except relabellings "
    "of others (study: movement, criterion, criterion_group, modality).",
)
@click.option(
    "--permutations",
    type=click.IntRange(0, MAX_PERMUTATIONS),
    default=5000,
    help="Maximum permutations per energy test (B).",
)
@click.option(
    "--stop-hits",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Sequential p-values: stop an energy test once this many permutations "
    "reached its statistic (Besag & Clifford; p = hits / permutations drawn, still "
    "valid). 0 draws all B.",
)
@click.option(
    "--jobs",
    type=int,
    callback=check_jobs,
    default=-1,
    show_default=True,
    help="Test families, and the figures, run in parallel (-1: every core, the tests taking "
    "those the figure workers leave). Results do not depend on it.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, help="Random seed (recorded).")
@click.option(
    "--design",
    type=click.Choice(["auto", "matched", "independent"]),
    default="auto",
    show_default=True,
    help="Expert-effect tests: matched (rater labels permuted within comparison keys; "
    "Stuart–Maxwell / within-key permutation zone tests) where every rater rated every "
    "key (auto), always matched (keys a rater lacks left out), or independent (the "
    "study's tests).",
)
@click.option(
    "--p-adjust",
    type=click.Choice(["holm", "fdr_bh", "gatekept", "none"]),
    default="holm",
    show_default=True,
    help="Adjust p-values within each family (a k-sample test and its pairs); "
    "gatekept: the k-sample test at 0.05, its pairs Holm-adjusted and reported only where "
    "it rejects (family-wise error rate of the family at most 0.05); raw p-values are always "
    "kept, and pvalue_study (Benjamini–Hochberg over every test of the run); none as in the "
    "study.",
)
@click.option(
    "--stars",
    type=click.Choice(["p", "mid-p"]),
    default="p",
    show_default=True,
    help="The p-values that are adjusted and marked: the conventional ones, or the mid-p "
    "values (pvalue_mid: ties with the observed statistic counted half; less conservative "
    "for exact and permutation tests with few keys). Both are always in tests.csv.",
)
@click.option(
    "--ci",
    type=click.Choice(CI_METHODS),
    default="bca",
    show_default=True,
    help="Bootstrap intervals of the effect sizes: BCa (percentile where BCa is undefined) "
    "or percentile.",
)
@click.option(
    "--chi2-monte-carlo",
    "chi2_draws",
    type=click.IntRange(0, MAX_MONTE_CARLO),
    default=5000,
    show_default=True,
    help="Monte Carlo draws for zone tests whose asymptotic χ² p-value is unreliable "
    "(Cochran's rule) and for matched permutation tests; 0: asymptotic everywhere, as in "
    "the study.",
)
@click.option(
    "--chi2-monte-carlo-all",
    "chi2_all",
    is_flag=True,
    help="Monte Carlo (or exact) p-values for every zone test, not only small tables.",
)
@click.option(
    "--bootstrap",
    "n_boot",
    type=click.IntRange(0, MAX_BOOTSTRAP),
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the reliability intervals (Krippendorff's α, κ) and of the "
    "effect-size intervals (effect_low, effect_high); 0: no intervals.",
)
@click.option(
    "--out",
    "out",
    type=OutputPath(folder=True),
    default=Path("rrmap-results"),
    help="Output folder.",
)
@click.option("--force", is_flag=True, help="Overwrite existing outputs in OUT.")
@click.option("--no-figures", is_flag=True, help="Do not draw the figures.")
@click.option(
    "--width",
    default="7in",
    show_default=True,
    help="Printed width of the figures (3.5in, 7in, 180mm); the height follows the layout.",
)
@click.option(
    "--dpi", type=click.IntRange(min=10), default=300, show_default=True, help="PNG resolution."
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or file list on stderr.")
@click.option(
    "-v", "--verbose", is_flag=True, help="Say on stderr what is being done, step by step."
)
@raw_csv_option
@ratings_options
def analyze_command(
    ratings: Path,
    by: tuple[str, ...],
    permutations: int,
    stop_hits: int,
    jobs: int,
    seed: int,
    design: str,
    p_adjust: str,
    stars: str,
    ci: str,
    chi2_draws: int,
    chi2_all: bool,
    n_boot: int,
    out: Path,
    force: bool,
    no_figures: bool,
    width: str,
    dpi: int,
    quiet: bool,
    verbose: bool,
    raw_csv: bool,
    **opts,
) -> None:
    """Test expert and category effects in RATINGS and write tables and a report.

    Runs, for energy tests on the (Δ, R) points and zone tests on the quality
    levels: the expert effect overall (all raters, then every pair), the
    expert effect per option of each --by category, and the effect of each
    category per rater (all options, then every pair). Expert-effect tests
    are matched where the raters rated the same comparison keys; p-values
    are Holm-adjusted within families. Writes to OUT the tables as CSV and
    as booktabs LaTeX (tests, proportions, agreement), reliability.csv,
    results.json, report.md and the figures (PDF and PNG, laid out for
    --width), and prints a summary. OUT is replaced as a whole when the run
    succeeds (a failed or killed run leaves an earlier result untouched) and
    locked while it runs. p < 0.05 is marked as evidence, not a
    verdict. The study's own tests: --design independent --p-adjust none
    --chi2-monte-carlo 0.
    """
    from rrmap._util.atomic import FolderLock
    from rrmap.analysis.folder import existing_outputs

    if out.exists() and not out.is_dir():
        raise click.ClickException(f"{out} exists and is not a folder")
    existing = existing_outputs(out)
    if existing and not force:  # refused before any worker process is started
        raise click.ClickException(
            f"{out} already holds {', '.join(existing)}; use --force to overwrite"
        )
    with contextlib.ExitStack() as stack:
        figures = None
        if not no_figures:  # first of the work: with --jobs other than 1, its workers'
            # server imports matplotlib while this process reads and tests, and they draw
            # while the tests run; a width or dpi too large fails here, before the tests
            from rrmap.plot.analysis_figures import AnalysisFigures

            figures = AnalysisFigures(width=width, dpi=dpi, jobs=jobs, interactive=True)
            stack.enter_context(figures)
        # the lock is taken now: a second run into OUT is refused at once, not after its tests
        say = _Steps(verbose and not quiet)
        with FolderLock(out):
            say(f"locked {out} (a second run into it is refused until this one ends)")
            tests = Settings(
                n_perm=permutations,
                stop_hits=stop_hits or None,
                chi2_n_perm=chi2_draws,
                chi2_mc_all=chi2_all,
                design=design,
                p_adjust=p_adjust,
                seed=seed,
                n_boot=n_boot,
                ci=ci,
                mid_p=stars == "mid-p",
            )
            run = _Run(tests, n_boot, jobs, figures, quiet, say)
            result = _analysis(ratings, by, opts, run)
            say(
                f"writing the tables{'' if no_figures else ', the figures'} and the reports "
                f"into a temporary folder beside {out}, then swapping it in"
            )
            written = result.write(
                out,
                force=force,
                figures=figures or False,
                width=width,
                dpi=dpi,
                raw_csv=raw_csv,
                progress=not quiet,
            )
            say(f"wrote {len(written)} files in {say.elapsed():.1f} s")
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    width_cols = min(shutil.get_terminal_size((100, 24)).columns, 120)
    click.echo(result.summary(color=color, width=width_cols), color=color)
    click.echo(f"\nReport: {out / 'report.md'}")
    if not quiet:
        for path in written:
            click.echo(f"wrote {path}", err=True)


class _Steps:
    """``--verbose``: one stderr line per step, with the time since the start."""

    def __init__(self, on: bool) -> None:
        import time

        self.on, self._start, self._clock = on, time.perf_counter(), time.perf_counter

    def elapsed(self) -> float:
        return self._clock() - self._start

    def __call__(self, text: str) -> None:
        if self.on:
            click.echo(f"[{self.elapsed():6.1f} s] {text}", err=True)


@dataclass(frozen=True)
class _Run:
    """What the command hands the analysis besides the ratings: the test settings, the
    reliability bootstrap, the jobs, the figures being drawn, and how to speak."""

    settings: Settings
    n_boot: int
    jobs: int
    figures: AnalysisFigures | None
    quiet: bool
    say: _Steps


def _analysis(ratings: Path, by: tuple[str, ...], opts: dict, run: _Run) -> AnalysisResult:
    """The analysis of RATINGS (*opts*: the ratings-file options); warnings as one line
    each."""
    from rrmap.analysis import analyze, file_sha256
    from rrmap.errors import PermutationWarning

    s, say = run.settings, run.say
    say(f"reading {'standard input' if str(ratings) == '-' else ratings}")
    df, points_settings = ratings_from_options(ratings, opts, quiet=run.quiet)
    raters = df["expert"].nunique() if "expert" in df.columns else "?"
    say(
        f"read {len(df)} intervals of {raters} raters; running the tests "
        f"(at most {s.n_perm} permutations each, {s.design} design, "
        f"p-values adjusted: {s.p_adjust}, seed {s.seed})"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PermutationWarning)
        result = analyze(
            df,
            by=list(by) if by else None,
            settings=s,
            n_jobs=run.jobs,
            figures=run.figures,
            n_boot=run.n_boot,
            coverage=points_settings["coverage"],
            z=points_settings["z"],
            thresholds=points_settings["thresholds"],
            progress=not run.quiet,
        )
    for w in caught:
        if issubclass(w.category, PermutationWarning):
            click.echo(f"Warning: {w.message}", err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    # the table is the file as loaded: record the file's own hash
    if str(ratings) != "-":  # standard input cannot be read again: the table's hash stays
        result.settings.update(
            input=str(ratings), input_sha256=file_sha256(ratings), input_hashed="file"
        )
    return result
