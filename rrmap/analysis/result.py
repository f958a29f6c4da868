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

import pandas as pd

from rrmap._io.results_json import records
from rrmap.analysis.folder import existing_outputs, is_output
from rrmap.errors import InputError
from rrmap.interrater import RELIABILITY_COLUMNS
from rrmap.stats.settings import ALPHA as _ALPHA

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.plot.analysis_figures import AnalysisFigures

__all__ = ["AnalysisResult", "file_sha256", "load_result"]

#: The tables of an :class:`AnalysisResult`, as ``results.json`` holds them.
_TABLES = ("tests", "points", "proportions", "agreement", "agreement_summary", "reliability")

_ADJUST_NAMES = {
    "holm": "Holm",
    "fdr_bh": "Benjamini–Hochberg",
    "gatekept": "gatekept",
    "none": "no",
}


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
            ``adjustment`` (``none``, ``holm``, ``fdr_bh`` or ``gatekept``) and
            ``significant_study`` (``pvalue_study`` < 0.05: a false discovery rate
            of 5 % over the whole table; None for a table without it).

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
            "significant_study": (
                int((tests.loc[tested, "pvalue_study"] < _ALPHA).sum())
                if "pvalue_study" in tests.columns
                else None
            ),
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
        from rrmap.report.designs import side_by_side

        return side_by_side(self.tests[self.tests["within"] == "all"])

    def __repr__(self) -> str:
        from rrmap.report.overall import overall_text

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
            The most characters a line takes: sentences are wrapped to it, and the table
            is wrapped into blocks of columns that fit (:func:`~rrmap.report.overall_text`).

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

        from rrmap._util.escape import message_text
        from rrmap.report.markdown import summary_lines
        from rrmap.report.overall import overall_text
        from rrmap.report.sections import generator_sentences

        def text(r: object) -> str:
            return message_text(r, 60)

        sentences = [*summary_lines(self, text), *generator_sentences(self, text)]
        lines = [textwrap.fill(s, width=width) for s in sentences]
        return "\n".join(
            [
                *lines,
                "",
                f"{self._overall_title()}:",
                overall_text(self.tests, color=color, width=width),
            ]
        )

    def _repr_markdown_(self) -> str:
        from rrmap._util.escape import markdown_text
        from rrmap.report.overall import overall_markdown

        return f"**{markdown_text(self._headline())}**\n\n" + overall_markdown(self.tests)

    def _repr_html_(self) -> str:
        from rrmap._util.escape import html_text
        from rrmap.report.overall import overall_html

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
        from rrmap.report.markdown import render_report

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
            (``table*``), see :func:`rrmap.report.latex.result_latex`.

        Returns
        -------
        str
            See :mod:`rrmap.report.latex`.

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
        >>> "\\\\bottomrule" in res.latex("proportions")
        True
        """
        from rrmap.report.latex import result_latex

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
        ``report.html`` (a page to read in a browser: key findings, the maps,
        the tests; the figures shown from ``figures/`` beside it,
        :func:`rrmap.report.html.render_html`). With
        ``figures=True``, the analysis
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
        from rrmap._util.atomic import staged_folder

        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{folder} exists and is not a folder")
        existing = existing_outputs(folder)
        if existing and not force:
            raise InputError(
                f"{folder} already holds {', '.join(existing)}; use --force "
                "(force=True) to overwrite"
            )
        if figures is True:  # a bad width or resolution fails before anything is written
            from rrmap.plot import check_figure_size, parse_width

            check_figure_size(parse_width(width, 7.0), dpi)
        from rrmap.analysis.folder import write_files

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


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
