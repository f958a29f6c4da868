"""``rrmap.analyze``: every test design, the tables and a report in one call.

The Python counterpart of ``rrmap analyze``: ratings → points → the three
test designs (energy and χ²), quality proportions, pointwise agreement, all
gathered in an :class:`AnalysisResult` that shows itself in Jupyter and
writes its tables and a markdown report to a folder.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap import _run_checks
from rrmap._json import records
from rrmap._results_folder import OUTPUT_FILES, existing_outputs, is_output
from rrmap._streams import Streams
from rrmap._version import __version__
from rrmap.errors import InputError
from rrmap.interrater import RELIABILITY_COLUMNS, reliability
from rrmap.points import points as compute_points
from rrmap.points import query_corpora
from rrmap.ratings import load_ratings
from rrmap.stats.adjust import P_ADJUST_METHODS
from rrmap.stats.designs import DEFAULT_CHI2_N_PERM, DESIGNS, _check_by, run_designs
from rrmap.stats.energy import DEFAULT_STOP_HITS
from rrmap.tables import agreement, agreement_summary, proportions
from rrmap.zones import Thresholds

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.plot.analysis_figures import AnalysisFigures

__all__ = [
    "OUTPUT_FILES",
    "AnalysisResult",
    "analyze",
    "existing_outputs",
    "file_sha256",
    "load_result",
]

_ALPHA = 0.05

#: The tables of an :class:`AnalysisResult`, as ``results.json`` holds them.
_TABLES = ("tests", "points", "proportions", "agreement", "agreement_summary", "reliability")

_ADJUST_NAMES = {"holm": "Holm", "fdr_bh": "Benjamini–Hochberg", "none": "no"}


@dataclass
class AnalysisResult:
    """Everything :func:`analyze` computed, as DataFrames, plus its settings.

    Attributes
    ----------
    tests : DataFrame
        One row per test (the format of docs/tests.md; see :mod:`rrmap.stats.designs`).
    points : DataFrame
        The RRMap points (output of :func:`rrmap.points`).
    proportions : DataFrame
        Quality counts and shares per rater (``category = "all"``) and per
        rater × option of each tested category: ``expert``, ``category``,
        ``option``, ``quality``, ``count``, ``n``, ``share``.
    agreement : DataFrame
        Pointwise agreement across raters (:func:`rrmap.agreement`); empty
        with a single rater.
    agreement_summary : DataFrame
        :func:`rrmap.agreement_summary` of it.
    reliability : DataFrame
        Krippendorff's α, Fleiss' and Cohen's κ with bootstrap intervals
        (:func:`rrmap.reliability`); empty with a single rater.
    settings : dict
        Seed, permutations, p-value adjustment, categories, thresholds,
        z, coverage, rrmap version, input file and its SHA-256.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
    ...                     n_perm=99, rng=0)
    >>> res.settings["seed"], res.settings["by"]
    (0, ['modality'])
    >>> res.tests.shape[0]
    56
    """

    tests: pd.DataFrame
    points: pd.DataFrame
    proportions: pd.DataFrame
    agreement: pd.DataFrame
    agreement_summary: pd.DataFrame
    reliability: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=list(RELIABILITY_COLUMNS))
    )
    settings: dict[str, Any] = field(default_factory=dict)

    # -- display -----------------------------------------------------------------
    def significance(self) -> dict[str, Any]:
        """How many tests ran and how many pass 0.05, after the adjustment of the run.

        Returns
        -------
        dict
            ``tests`` (rows), ``run`` (with a p-value), ``skipped``,
            ``significant`` (p < 0.05 on the p-value the marks follow: the
            adjusted one when p-values were adjusted), ``significant_raw``
            and ``adjustment`` (``none``, ``holm`` or ``fdr_bh``).

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=999, rng=0)
        >>> s = res.significance()
        >>> s["tests"], s["run"], s["adjustment"]
        (8, 8, 'holm')
        """
        tests = self.tests
        method = self.settings.get("p_adjust", "none")
        col = f"pvalue_{method}" if f"pvalue_{method}" in tests.columns else "pvalue"
        tested = tests["pvalue"].notna()
        return {
            "tests": len(tests),
            "run": int(tested.sum()),
            "skipped": int((~tested).sum()),
            "significant": int((tests.loc[tested, col] < _ALPHA).sum()),
            "significant_raw": int((tests.loc[tested, "pvalue"] < _ALPHA).sum()),
            "adjustment": method if col != "pvalue" else "none",
        }

    def _headline(self) -> str:
        s = self.settings
        sig = self.significance()
        raters = self.points["expert"].nunique()
        skipped = f", {sig['skipped']} skipped" if sig["skipped"] else ""
        passing = (
            f"{sig['significant']} with p < {_ALPHA} after {_ADJUST_NAMES[sig['adjustment']]} "
            f"adjustment, {sig['significant_raw']} before"
            if sig["adjustment"] != "none"
            else f"{sig['significant']} with p < {_ALPHA}, unadjusted"
        )
        text = (
            f"rrmap analysis of {s.get('input', '<DataFrame>')}: {len(self.points)} points, "
            f"{raters} rater{'s' if raters != 1 else ''}, by {', '.join(s['by']) or '(none)'}; "
            f"{sig['tests']} tests ({passing}"
            f"{skipped}); "
            f"seed {s['seed']}, {s['permutations']} permutations"
        )
        return text

    def overall(self) -> pd.DataFrame:
        """The expert effect overall (design 1), energy and χ² side by side.

        Returns
        -------
        DataFrame
            One row per compared group set (``groups``, ``n``, ``energy``,
            ``energy_p``, ``chi2``, ``chi2_dof``, ``chi2_p``).

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, rng=0)
        >>> res.overall().groups.tolist()
        ['E1|E2|E3', 'E1|E2', 'E1|E3', 'E2|E3']
        """
        from rrmap.report import side_by_side

        return side_by_side(self.tests[self.tests["within"] == "all"])

    def __repr__(self) -> str:
        from rrmap.report import overall_text

        return f"{self._headline()}\n\n{self._overall_title()}:\n{overall_text(self.tests)}"

    def _overall_title(self) -> str:
        if "query" in self.tests.columns:
            return "Generator effect and each corpus's expert effect, overall"
        return "Expert effect, overall"

    def summary(self, color: bool = False, width: int = 100) -> str:
        """What ran and what passed, as plain text for a terminal: the report's opening
        sentences and the overall expert effect as an aligned table.

        Parameters
        ----------
        color : bool, default False
            Bold the significant p-values (ANSI codes).
        width : int, default 100
            Width the sentences are wrapped to.

        Returns
        -------
        str

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, rng=0)
        >>> print(res.summary(width=80).splitlines()[0])
        405 RRMap points from 3 raters (E1, E2, E3). 8 tests ran; 8 pass p < 0.05 after
        """
        import textwrap

        from rrmap._escape import message_text
        from rrmap._report_sections import generator_sentences
        from rrmap.report import overall_text, summary_lines

        def text(r: object) -> str:
            return message_text(r, 60)

        sentences = [*summary_lines(self, text), *generator_sentences(self, text)]
        lines = [textwrap.fill(s, width=width) for s in sentences]
        return "\n".join(
            [*lines, "", f"{self._overall_title()}:", overall_text(self.tests, color=color)]
        )

    def _repr_markdown_(self) -> str:
        from rrmap._escape import markdown_text
        from rrmap.report import overall_markdown

        return f"**{markdown_text(self._headline())}**\n\n" + overall_markdown(self.tests)

    def _repr_html_(self) -> str:
        from rrmap._escape import html_text
        from rrmap.report import overall_html

        return f"<p><b>{html_text(self._headline())}</b></p>" + overall_html(self.tests)

    # -- output ------------------------------------------------------------------
    def report(self, figures: Sequence[str | os.PathLike[str]] = ()) -> str:
        """The markdown report (see :func:`rrmap.report.render_report`).

        Parameters
        ----------
        figures : sequence of paths, optional
            Figure files to list in the report (names relative to the report).

        Returns
        -------
        str

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
        ...                     n_perm=99, rng=0)
        >>> res.report().splitlines()[0]
        '# RRMap analysis report'
        """
        from rrmap.report import render_report

        return render_report(self, figures=figures)

    def to_dict(self) -> dict[str, Any]:
        """All tables (as lists of records) and the settings, JSON-ready.

        Returns
        -------
        dict
            Keys ``settings``, ``tests``, ``points``, ``proportions``,
            ``agreement``, ``agreement_summary``, ``reliability``.

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
        >>> sorted(res.to_dict())[:3]
        ['agreement', 'agreement_summary', 'points']
        """
        out: dict[str, Any] = {"settings": self.settings}
        for name in _TABLES:
            out[name] = records(getattr(self, name))
        return out

    def latex(self, table: str, width: str = "column") -> str:
        """One table as booktabs LaTeX: ``"tests"``, ``"proportions"`` or ``"agreement"``.

        Parameters
        ----------
        table : {"tests", "proportions", "agreement"}
        width : {"column", "text"}, default "column"
            Laid out for one column (``table``) or the whole text block
            (``table*``), see :func:`rrmap.latex.result_latex`.

        Returns
        -------
        str
            See :mod:`rrmap.latex`.

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
        >>> "\\\\bottomrule" in res.latex("proportions")
        True
        """
        from rrmap.latex import result_latex

        return result_latex(self, table, width=width)

    def write(
        self,
        folder: str | os.PathLike[str],
        force: bool = False,
        figures: bool | AnalysisFigures = True,
        *,
        width: float | str | None = None,
        dpi: int = 300,
        raw_csv: bool = False,
        progress: bool = False,
    ) -> list[Path]:
        """Write the tables (CSV and LaTeX), ``results.json`` and ``report.md`` to *folder*.

        Files: ``tests.csv``, ``points.csv``, ``proportions.csv``,
        ``agreement.csv``, ``reliability.csv``, the same tables as booktabs
        LaTeX (``tests.tex``, ``proportions.tex``, ``agreement.tex``),
        ``results.json`` (all tables and the settings), ``report.md`` and
        ``report.html`` (one self-contained page: key findings, tables,
        figures embedded, :func:`rrmap.report_html.render_html`). With
        ``figures=True`` and the plotting module available, the analysis
        figures are written too, into ``folder/figures/`` (see
        :func:`rrmap.plot.save_analysis_figures`), and linked from the report.

        The folder is written all-or-nothing: everything goes into a
        temporary folder beside it, which then replaces *folder* as a whole.
        An error, a kill or a full disk leaves an earlier result untouched; an
        overwrite never leaves a file of the earlier run behind. A second
        process writing the same folder meanwhile is refused.

        Parameters
        ----------
        folder : path
            Created if missing. If it exists, it may hold only files an
            analysis writes.
        force : bool, default False
            Replace an earlier result (otherwise an
            :class:`~rrmap.errors.InputError` names its files).
        figures : bool or AnalysisFigures, default True
            Also write the figures; an :class:`~rrmap.plot.AnalysisFigures`
            (given to :func:`analyze` as ``figures=``) writes those its workers
            drew while the tests ran, at its own width and dpi, and the
            interactive map it made.
        width : float or str, optional
            Printed width of the figures (``"3.5in"``, ``"180mm"``), default 7 in.
        dpi : int, default 300
            Resolution of the PNG figures.
        raw_csv : bool, default False
            Write text cells as they are. By default a cell a spreadsheet would
            run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or
            a carriage return) gets a leading ``'`` in the CSV files.
        progress : bool, default False
            A progress bar of the figures on stderr, one step per figure.

        Returns
        -------
        list of Path
            The files written.

        Examples
        --------
        >>> import rrmap, tempfile
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     [p.name for p in res.write(tmp, figures=False)][:5]
        ['tests.csv', 'points.csv', 'proportions.csv', 'agreement.csv', 'reliability.csv']
        """
        from rrmap._atomic import staged_folder

        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{folder} exists and is not a folder")
        existing = existing_outputs(folder)
        if existing and not force:
            raise InputError(
                f"{folder} already holds {', '.join(existing)}; use --force "
                "(force=True) to overwrite"
            )
        if figures is True:
            try:
                from rrmap.plot import check_figure_size, parse_width
            except ImportError:  # no plotting: the figures are left out (rrmap._results_folder)
                pass
            else:  # a bad width or resolution fails before anything is written
                check_figure_size(parse_width(width, 7.0), dpi)
        from rrmap._results_folder import write_files

        with staged_folder(folder, replace=is_output) as stage:
            names = write_files(
                self, stage, figures=figures, width=width, dpi=dpi, raw=raw_csv, progress=progress
            )
        final = folder.resolve() if folder.is_symlink() else folder
        return [final / name for name in names]


def load_result(path: str | os.PathLike[str]) -> AnalysisResult:
    """An :class:`AnalysisResult` read back from ``results.json`` (:meth:`AnalysisResult.write`).

    Parameters
    ----------
    path : path
        A ``results.json``.

    Returns
    -------
    AnalysisResult

    Examples
    --------
    >>> import rrmap, tempfile, pathlib
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = res.write(tmp, figures=False)
    ...     back = load_result(pathlib.Path(tmp) / "results.json")
    >>> back.tests["pvalue"].equals(res.tests["pvalue"]), back.settings["seed"]
    (True, 0)
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    frames = {name: pd.DataFrame.from_records(data.get(name, [])) for name in _TABLES}
    for name in ("tests", "proportions", "agreement_summary", "reliability"):
        records = data.get(name) or []
        default = list(RELIABILITY_COLUMNS) if name == "reliability" else []
        frames[name] = frames[name].reindex(columns=list(records[0]) if records else default)
    return AnalysisResult(**frames, settings=data["settings"])


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes (hex), as recorded in ``settings["input_sha256"]``.

    Parameters
    ----------
    path : path

    Returns
    -------
    str

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     f = pathlib.Path(tmp) / "x.txt"
    ...     _ = f.write_bytes(b"abc")
    ...     file_sha256(f)[:16]
    'ba7816bf8f01cfea'
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _input_hash(ratings: pd.DataFrame, from_path: bool) -> tuple[str | None, str, str]:
    """(input name, SHA-256, what was hashed).

    The file is hashed only when :func:`analyze` read it itself; a DataFrame
    may have been changed since it was loaded, so the table is hashed.
    """
    source = ratings.attrs.get("rrmap", {}).get("source")
    if from_path and source and Path(source).is_file():
        return str(source), file_sha256(source), "file"
    data = ratings.to_csv(index=False).encode("utf-8")
    name = f"table loaded from {source}" if source and source != "<DataFrame>" else None
    return name, hashlib.sha256(data).hexdigest(), "table (as CSV)"


def _jobs_beside(n_jobs: int | None, busy: int) -> int | None:
    """Jobs for the tests beside *busy* figure workers: a count relative to the cores
    (-1: every core) leaves them their cores, at least one job; any other is kept.

    Two test threads beside two figure workers on two cores took as long and slowed the
    figures: the workers draw on the cores the tests would have shared.

    Examples
    --------
    >>> from joblib import cpu_count
    >>> _jobs_beside(-1, 2) == max(1, cpu_count() - 2), _jobs_beside(3, 2), _jobs_beside(-1, 0)
    (True, 3, -1)
    """
    if n_jobs is None or n_jobs >= 0 or busy == 0:
        return n_jobs
    from joblib import cpu_count

    return max(1, cpu_count() + 1 + n_jobs - busy)


def _seed(rng: int | np.random.Generator | None) -> tuple[int, str]:
    """The root seed of a run and where it came from (given, drawn, or from a generator)."""
    if isinstance(rng, np.random.Generator):
        return Streams.of(rng).root, "drawn from the generator supplied by the caller"
    if rng is None:
        return Streams.of(None).root, "drawn from the operating system's entropy"
    return Streams.of(rng).root, "given"


def _proportion_table(pts: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    parts = []
    overall = proportions(pts)
    at = list(overall.columns).index("expert") + 1
    overall.insert(at, "category", "all")
    overall.insert(at + 1, "option", "all")
    parts.append(overall)
    for cat in by:
        tab = proportions(pts, by=cat).rename(columns={cat: "option"})
        tab.insert(at, "category", cat)
        tab["option"] = tab["option"].astype(str)
        parts.append(tab)
    out = pd.concat(parts, ignore_index=True)
    cols = ["expert", "category", "option", "quality", "count", "n", "share", "ci_low", "ci_high"]
    if "query" in out.columns:  # several query corpora: each corpus's shares
        out["query"] = out["query"].astype(str)
        cols.insert(0, "query")
    return out[cols]


def analyze(
    ratings: pd.DataFrame | str | os.PathLike[str],
    by: str | Sequence[str] | None = None,
    *,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    p_adjust: str = "holm",
    design: str = "auto",
    tests: Sequence[str] = ("energy", "chi2"),
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    chi2_mc_all: bool = False,
    n_boot: int = 1000,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    query: str | Sequence[str] | None = None,
    drop_incomplete: bool = False,
    progress: bool = False,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
    figures: AnalysisFigures | None = None,
) -> AnalysisResult:
    """Run the analysis: every test design, the proportions, the agreement, the reliability.

    The defaults are the ones a reviewer expects (matched designs where the
    raters rated the same keys, Holm-adjusted p-values, Monte Carlo χ² where
    the asymptotic one is unreliable); ``design="independent",
    p_adjust="none", chi2_n_perm=0`` reproduces the published study's tests.

    Parameters
    ----------
    ratings : DataFrame or path
        Ratings (validated by :func:`rrmap.load_ratings`; a path or a raw
        table is loaded first) or a points table from :func:`rrmap.points`.
    by : str or sequence of str, optional
        Categories to test. Default: every category except relabellings of
        others (:func:`rrmap.stats.designs.default_categories`; in the study:
        movement, criterion, criterion_group, modality). ``[]`` runs the
        overall expert effect only.
    n_perm : int, default 5000
        Maximum permutations per energy test ``B`` (the paper's 5000). With
        an adjustment, ``B`` must be large enough for the smallest p-value
        ``1 / (B + 1)`` to pass the adjusted threshold (Holm: ``0.05 / m`` in
        a family of ``m`` tests); otherwise a
        :class:`~rrmap.errors.PermutationWarning` says so.
    rng : int, Generator or None
        Seed (recorded in ``settings`` and every output). ``None`` draws a
        fresh seed, and a generator gives one, recorded either way, so the
        run can be repeated with ``rng=settings["seed"]``.
    p_adjust : {"holm", "fdr_bh", "none"}, default "holm"
        Adjusted p-values per family (a k-sample test and its pairs); the
        marks of the report follow them. ``"none"``: the study's raw p-values.
    design : {"auto", "matched", "independent"}, default "auto"
        Expert-effect tests: matched (rater labels permuted within comparison
        keys) where every rater of a test rated every key of it
        (:func:`rrmap.stats.compare_groups`).
    tests : sequence of {"energy", "chi2"}
        Test kinds (``"chi2"``: the zone tests).
    chi2_n_perm : int, default 5000
        Monte Carlo draws of zone tests whose asymptotic p-value is
        unreliable (Cochran's rule) and of the matched permutation tests;
        0: asymptotic everywhere, as the study.
    chi2_mc_all : bool, default False
        Monte Carlo (or exact) p-values for every zone test.
    n_boot : int, default 1000
        Bootstrap resamples of the reliability intervals (:func:`rrmap.reliability`).
    coverage, z, thresholds
        Passed to :func:`rrmap.points` when *ratings* are ratings.
    query : str or sequence of str, optional
        The query corpora (generators) to analyse against the reference (default:
        every one in the ratings). With several, the generator effect is tested
        too (:func:`rrmap.stats.generator_effect`) and every other design runs
        per corpus; the tables gain a ``query`` column.
    drop_incomplete : bool, default False
        When *ratings* is a path: drop blank and unpaired intervals instead of
        refusing the file (:func:`rrmap.load_ratings`); they are counted in
        ``settings["dropped"]`` and listed in the report.
    progress : bool, default False
        Progress bar on stderr.
    stop_hits : int or None, default 100
        Sequential p-values (Besag & Clifford): a permutation or Monte Carlo
        test stops once this many draws reached its statistic; the tests
        table's ``n_perm`` says how many were drawn. None or 0: always ``B``.
    n_jobs : int, optional
        Test families run in parallel (joblib; -1: every core). The results
        do not depend on it. While *figures* are drawn by worker processes, a
        count relative to the cores (-1, -2, ...) leaves them the cores they draw
        on (at least one job remains); a positive count is kept.
    figures : AnalysisFigures, optional
        Figures to draw while the tests run: given the points (and the tested
        categories, the rows of the grid) as soon as they are made, its worker
        processes draw them meanwhile; ``result.write(folder,
        figures=figures)`` writes them (``rrmap analyze`` does so).

    Returns
    -------
    AnalysisResult

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), n_perm=99, rng=0)
    >>> res.settings["by"], res.settings["p_adjust"]
    (['movement', 'criterion', 'criterion_group', 'modality'], 'holm')
    >>> len(res.tests)
    504
    """
    if p_adjust not in P_ADJUST_METHODS:
        raise InputError(f"p_adjust must be one of {list(P_ADJUST_METHODS)}, got {p_adjust!r}")
    if design not in DESIGNS:
        raise InputError(f"design must be one of {list(DESIGNS)}, got {design!r}")
    pts, meta, source_df, from_path = _points_of(
        ratings, coverage, z, thresholds, query, drop_incomplete
    )
    by_list = _check_by(pts, by)
    _run_checks.check_size(pts, by_list, n_boot)
    if figures is not None:  # drawn by its workers while the tests run
        figures.draw(pts, categories=by_list or None)
        n_jobs = _jobs_beside(n_jobs, figures.workers)
    seed, seed_source = _seed(rng)
    if "energy" in tests:
        _run_checks.warn_if_too_few_permutations(pts, by_list, n_perm, p_adjust)
    table = run_designs(
        pts,
        by_list,
        tests=tests,
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        chi2_mc_all=chi2_mc_all,
        design=design,
        rng=seed,
        p_adjust=p_adjust,
        progress=progress,
        stop_hits=stop_hits,
        n_jobs=n_jobs,
    )
    # the p-values of permutation tests depend on it: it travels with the table
    table["seed"] = seed
    ag, ag_sum, rel = _agreement_tables(pts, n_boot, seed)
    if source_df is not None:
        source, digest, hashed = _input_hash(source_df, from_path)
    else:
        source, digest, hashed = meta.get("source"), None, "not available (points given)"
    settings = {
        "rrmap_version": __version__,
        "input": source or "<DataFrame>",
        "input_sha256": digest,
        "input_hashed": hashed,
        "seed": seed,
        "seed_source": seed_source,
        "permutations": int(n_perm),
        "stop_hits": int(stop_hits) if stop_hits else None,
        "design": design,
        "chi2_monte_carlo": int(chi2_n_perm),
        "chi2_monte_carlo_all": bool(chi2_mc_all),
        "p_adjust": p_adjust,
        "bootstrap": int(n_boot),
        "tests": list(tests),
        "by": list(by_list),
        "alpha_marked": _ALPHA,
        "n_points": len(pts),
        "raters": sorted(map(str, pts["expert"].unique())),
        "thresholds": meta.get("thresholds"),
        "z": meta.get("z"),
        "coverage": meta.get("coverage"),
        "reference": meta.get("reference"),
        "query": meta.get("query"),
        "queries": query_corpora(pts),
    }
    for key in ("excluded", "dropped"):
        if meta.get(key):
            settings[key] = meta[key]
    if pts["expert"].nunique() < 2:
        settings["agreement"] = "not computed: pointwise agreement needs at least two raters"
    props = _proportion_table(pts, by_list)
    props["quality"] = props["quality"].astype(str)
    return AnalysisResult(
        tests=table,
        points=pts,
        proportions=props,
        agreement=ag,
        agreement_summary=ag_sum,
        reliability=rel,
        settings=settings,
    )


def _points_of(
    ratings: pd.DataFrame | str | os.PathLike[str],
    coverage: float,
    z: float | None,
    thresholds: Thresholds | None,
    query: str | Sequence[str] | None = None,
    drop_incomplete: bool = False,
) -> tuple[pd.DataFrame, dict, pd.DataFrame | None, bool]:
    """The points of *ratings* (a path, ratings or points), their metadata, the ratings
    table they came from (None when points were given) and whether it was read here."""
    if isinstance(ratings, pd.DataFrame) and {"delta", "r", "quality"} <= set(ratings.columns):
        if query is not None:
            raise InputError("query= selects query corpora of ratings, not of points")
        return ratings, ratings.attrs.get("rrmap", {}), None, False
    from_path = not isinstance(ratings, pd.DataFrame)
    if not isinstance(ratings, pd.DataFrame) or "rrmap" not in ratings.attrs:
        ratings = load_ratings(ratings, query=query, drop_incomplete=drop_incomplete)
    pts = compute_points(ratings, coverage=coverage, z=z, thresholds=thresholds, query=query)
    return pts, pts.attrs.get("rrmap", {}), ratings, from_path


def _agreement_tables(
    pts: pd.DataFrame, n_boot: int, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Pointwise agreement, its summary and the reliability (empty with one rater)."""
    if pts["expert"].nunique() < 2:
        return (
            pd.DataFrame(),
            pd.DataFrame(columns=["pattern", "detail", "count", "share"]),
            pd.DataFrame(columns=list(RELIABILITY_COLUMNS)),
        )
    ag = agreement(pts)
    ag_sum = agreement_summary(ag)
    for col in ag.columns:
        if isinstance(ag[col].dtype, pd.CategoricalDtype):
            ag[col] = ag[col].astype(object)
    return ag, ag_sum, reliability(pts, n_boot=n_boot, rng=seed)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
