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
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rrmap._version import __version__
from rrmap.errors import InputError, PermutationWarning
from rrmap.points import points as compute_points
from rrmap.ratings import load_ratings
from rrmap.stats.adjust import P_ADJUST_METHODS, smallest_rejectable
from rrmap.stats.designs import _check_by, run_designs
from rrmap.stats.energy import DEFAULT_STOP_HITS, _group_sets
from rrmap.tables import agreement, agreement_summary, proportions
from rrmap.zones import Thresholds

__all__ = [
    "OUTPUT_FILES",
    "AnalysisResult",
    "analyze",
    "existing_outputs",
    "file_sha256",
    "load_result",
]

#: Files written by :meth:`AnalysisResult.write` (figures come on top).
OUTPUT_FILES: tuple[str, ...] = (
    "tests.csv",
    "points.csv",
    "proportions.csv",
    "agreement.csv",
    "tests.tex",
    "proportions.tex",
    "agreement.tex",
    "results.json",
    "report.md",
)

_ALPHA = 0.05


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
    settings: dict[str, Any] = field(default_factory=dict)

    # -- display -----------------------------------------------------------------
    def _headline(self) -> str:
        s = self.settings
        tested = self.tests["pvalue"].notna()
        sig = int((self.tests.loc[tested, "pvalue"] < _ALPHA).sum())
        skipped = int((~tested).sum())
        raters = self.points["expert"].nunique()
        text = (
            f"rrmap analysis of {s.get('input', '<DataFrame>')}: {len(self.points)} points, "
            f"{raters} rater{'s' if raters != 1 else ''}, by {', '.join(s['by']) or '(none)'}; "
            f"{len(self.tests)} tests ({sig} with p < {_ALPHA}"
            f"{f', {skipped} skipped' if skipped else ''}); "
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
        ov = self.overall()
        body = ov.to_string(index=False) if len(ov) else "(no tests)"
        return f"{self._headline()}\n\nExpert effect, overall:\n{body}"

    def _repr_markdown_(self) -> str:
        from rrmap.report import overall_markdown

        return f"**{self._headline()}**\n\n" + overall_markdown(self.tests)

    def _repr_html_(self) -> str:
        import html

        ov = self.overall()
        return (
            f"<p><b>{html.escape(self._headline())}</b></p>"
            "<p>Expert effect, overall (p &lt; 0.05 is evidence against identical "
            "distributions, not a verdict):</p>"
            + ov.to_html(index=False, float_format=lambda v: f"{v:.4g}", na_rep="")
        )

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
            ``agreement``, ``agreement_summary``.

        Examples
        --------
        >>> import rrmap
        >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
        >>> sorted(res.to_dict())[:3]
        ['agreement', 'agreement_summary', 'points']
        """
        out: dict[str, Any] = {"settings": self.settings}
        for name in ("tests", "points", "proportions", "agreement", "agreement_summary"):
            out[name] = _records(getattr(self, name))
        return out

    def latex(self, table: str) -> str:
        """One table as booktabs LaTeX: ``"tests"``, ``"proportions"`` or ``"agreement"``.

        Parameters
        ----------
        table : {"tests", "proportions", "agreement"}

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
        from rrmap.latex import agreement_latex, proportions_latex, tests_latex

        if table == "tests":
            return tests_latex(self.tests, self.settings, result=self)
        if table == "proportions":
            return proportions_latex(self.proportions, self.settings)
        if table == "agreement":
            if self.agreement.empty:
                note = self.settings.get("agreement", "no pointwise agreement table")
                return f"% rrmap pointwise agreement: {note}\n"
            return agreement_latex(self.agreement_summary, len(self.agreement))
        raise InputError(f"table must be tests, proportions or agreement, got {table!r}")

    def write(
        self,
        folder: str | os.PathLike[str],
        force: bool = False,
        figures: bool = True,
        *,
        width: float | str | None = None,
        dpi: int = 300,
    ) -> list[Path]:
        """Write the tables (CSV and LaTeX), ``results.json`` and ``report.md`` to *folder*.

        Files: ``tests.csv``, ``points.csv``, ``proportions.csv``,
        ``agreement.csv``, the same tables as booktabs LaTeX (``tests.tex``,
        ``proportions.tex``, ``agreement.tex``), ``results.json`` (all tables
        and the settings) and ``report.md``. With ``figures=True`` and the
        plotting module available, the analysis figures are written too, into
        ``folder/figures/`` (see :func:`rrmap.plot.save_analysis_figures`),
        and linked from the report.

        Parameters
        ----------
        folder : path
            Created if missing.
        force : bool, default False
            Overwrite existing output files (otherwise an
            :class:`~rrmap.errors.InputError` names them).
        figures : bool, default True
            Also write the figures.
        width : float or str, optional
            Printed width of the figures (``"3.5in"``, ``"180mm"``), default 7 in.
        dpi : int, default 300
            Resolution of the PNG figures.

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
        ['tests.csv', 'points.csv', 'proportions.csv', 'agreement.csv', 'tests.tex']
        """
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{folder} exists and is not a folder")
        existing = existing_outputs(folder)
        if existing and not force:
            raise InputError(
                f"{folder} already holds {', '.join(existing)}; use --force "
                "(force=True) to overwrite"
            )
        if figures:
            try:
                from rrmap.plot import parse_width
            except ImportError:  # no plotting: the figures are left out (see _write_figures)
                pass
            else:
                parse_width(width, 7.0)  # a bad width fails before anything is written
        folder.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []

        def _put(name: str, text: str) -> None:
            path = folder / name
            path.write_text(text, encoding="utf-8")
            written.append(path)

        _put("tests.csv", self.tests.to_csv(index=False))
        _put(
            "points.csv",
            self.points.assign(quality=self.points["quality"].astype(str)).to_csv(index=False),
        )
        _put("proportions.csv", self.proportions.to_csv(index=False))
        _put("agreement.csv", self.agreement.to_csv(index=False))
        for table in ("tests", "proportions", "agreement"):
            _put(f"{table}.tex", self.latex(table))
        fig_paths = self._write_figures(folder / "figures", width, dpi) if figures else []
        fig_names = [p.relative_to(folder).as_posix() for p in fig_paths]  # figures/<name>
        payload = self.to_dict()
        payload["figures"] = fig_names
        _put("results.json", _json_text(payload))
        _put("report.md", self.report(figures=fig_names))
        return written + fig_paths

    def _write_figures(self, folder: Path, width: float | str | None, dpi: int) -> list[Path]:
        try:
            from rrmap.plot import save_analysis_figures
        except ImportError:
            return []
        categories = list(self.settings["by"]) or None
        files = save_analysis_figures(
            self.points, folder, categories=categories, width=width, dpi=dpi
        )
        return [Path(p) for p in files]


def _json_text(payload: dict[str, Any]) -> str:
    """*payload* as JSON text: one top-level key per line, each table one record per line.

    The same JSON as ``json.dumps(payload, indent=1)`` once parsed, in a layout
    that diffs well; each record goes through the C encoder (an indented dump
    is encoded in pure Python, several times slower).
    """

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, default=str)

    parts = []
    for key, value in payload.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            rows = ",\n".join("  " + dump(rec) for rec in value)
            parts.append(f" {dump(key)}: [\n{rows}\n ]")
        else:  # settings: small, one key per line
            text = json.dumps(value, indent=1, ensure_ascii=False, default=str)
            parts.append(f" {dump(key)}: " + text.replace("\n", "\n "))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as JSON-ready dicts with every float at full precision (``repr`` round-trips;
    ``DataFrame.to_json`` keeps 10 decimals, which turns p = 2.5e-12 into 0) and NaN as null.

    Converted column by column: numeric columns in one ``tolist`` each.
    """
    keys = [str(c) for c in df.columns]
    columns = [_json_values(df[c]) for c in df.columns]
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]


def _json_values(col: pd.Series) -> list[Any]:
    """One column as Python values: numbers as int/float/bool, missing and non-finite as None."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "biuf":
        values = col.to_numpy()
        out = values.tolist()
        if col.dtype.kind == "f":
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                out[i] = None
        return out
    out = []
    for value in col.astype(object).tolist():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not np.isfinite(value):
            value = None
        elif value is pd.NA or value is pd.NaT:
            value = None
        out.append(value)
    return out


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
    frames = {
        name: pd.DataFrame.from_records(data[name])
        for name in ("tests", "points", "proportions", "agreement", "agreement_summary")
    }
    for name in ("tests", "proportions", "agreement_summary"):
        frames[name] = frames[name].reindex(columns=list(data[name][0]) if data[name] else [])
    return AnalysisResult(**frames, settings=data["settings"])


def existing_outputs(folder: str | os.PathLike[str]) -> list[str]:
    """Names of :data:`OUTPUT_FILES` already present in *folder* (and ``figures/`` if not empty).

    Parameters
    ----------
    folder : path

    Returns
    -------
    list of str

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     existing_outputs(tmp)
    []
    """
    folder = Path(folder)
    found = [name for name in OUTPUT_FILES if (folder / name).exists()]
    figures = folder / "figures"
    if figures.is_dir() and any(figures.iterdir()):
        found.append("figures/")
    return found


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


def _seed(rng: int | np.random.Generator | None) -> tuple[Any, np.random.Generator]:
    if isinstance(rng, np.random.Generator):
        return "generator supplied by the caller", rng
    if rng is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
        return seed, np.random.default_rng(seed)
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0:
        raise InputError(f"rng must be a non-negative integer seed or a Generator, got {rng!r}")
    return int(rng), np.random.default_rng(int(rng))


def _proportion_table(pts: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    parts = []
    overall = proportions(pts)
    overall.insert(1, "category", "all")
    overall.insert(2, "option", "all")
    parts.append(overall)
    for cat in by:
        tab = proportions(pts, by=cat).rename(columns={cat: "option"})
        tab.insert(1, "category", cat)
        tab["option"] = tab["option"].astype(str)
        parts.append(tab)
    out = pd.concat(parts, ignore_index=True)
    return out[["expert", "category", "option", "quality", "count", "n", "share"]]


def _largest_family(points: pd.DataFrame, by: Sequence[str]) -> int:
    """Tests in the largest family of the designs: a k-sample test and its pairs."""
    ks = [points["expert"].nunique()] + [points[c].nunique() for c in by]
    return max(len(_group_sets(k, True)) for k in ks)


def _warn_if_too_few_permutations(
    points: pd.DataFrame, by: Sequence[str], n_perm: int, p_adjust: str
) -> None:
    """Warn when no energy p-value can ever pass the (adjusted) 0.05 threshold."""
    if n_perm <= 0:
        return
    family = _largest_family(points, by)
    bound = smallest_rejectable(family, p_adjust, _ALPHA)
    if 1.0 / (n_perm + 1) <= bound:
        return
    need = int(np.ceil(1.0 / bound - 1))
    what = (
        f"{p_adjust} within families of up to {family} tests needs p ≤ {bound:.2g}"
        if p_adjust != "none"
        else f"significance needs p ≤ {bound:.2g}"
    )
    warnings.warn(
        f"with {n_perm} permutations the smallest energy p-value is 1/{n_perm + 1} ≈ "
        f"{1.0 / (n_perm + 1):.2g}, but {what}: some energy tests can never be "
        f"significant; use at least {need} permutations",
        PermutationWarning,
        stacklevel=3,
    )


def analyze(
    ratings: pd.DataFrame | str | os.PathLike[str],
    by: str | Sequence[str] | None = None,
    *,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    p_adjust: str = "none",
    tests: Sequence[str] = ("energy", "chi2"),
    chi2_n_perm: int = 0,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    progress: bool = False,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
) -> AnalysisResult:
    """Run the paper's analysis: every test design, the proportions, the agreement.

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
        ``1 / (B + 1)`` to pass ``0.05 / m`` in a family of ``m`` tests;
        otherwise a :class:`~rrmap.errors.PermutationWarning` says so.
    rng : int, Generator or None
        Seed (recorded in ``settings`` and every output). ``None`` draws a
        fresh seed and records it, so the run can be repeated.
    p_adjust : {"none", "holm", "fdr_bh"}
        Add adjusted p-values per family (a k-sample test and its pairs).
    tests : sequence of {"energy", "chi2"}
        Test kinds.
    chi2_n_perm : int, default 0
        Monte Carlo draws per χ² test (0: the paper's asymptotic p-value).
    coverage, z, thresholds
        Passed to :func:`rrmap.points` when *ratings* are ratings.
    progress : bool, default False
        Progress bar on stderr.
    stop_hits : int or None, default 100
        Sequential energy p-values (Besag & Clifford): a test stops once
        this many permutations reached its statistic; the tests table's
        ``n_perm`` says how many were drawn. None or 0: always ``B``.
    n_jobs : int, optional
        Test families run in parallel (joblib; -1: every core). The results
        do not depend on it.

    Returns
    -------
    AnalysisResult

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), n_perm=99, rng=0)
    >>> res.settings["by"]
    ['movement', 'criterion', 'criterion_group', 'modality']
    >>> len(res.tests)
    504
    """
    if p_adjust not in P_ADJUST_METHODS:
        raise InputError(f"p_adjust must be one of {list(P_ADJUST_METHODS)}, got {p_adjust!r}")
    if isinstance(ratings, pd.DataFrame) and {"delta", "r", "quality"} <= set(ratings.columns):
        pts = ratings
        meta = pts.attrs.get("rrmap", {})
        source_df = None
        from_path = False
    else:
        from_path = not isinstance(ratings, pd.DataFrame)
        if not isinstance(ratings, pd.DataFrame) or "rrmap" not in ratings.attrs:
            ratings = load_ratings(ratings)
        pts = compute_points(ratings, coverage=coverage, z=z, thresholds=thresholds)
        meta = pts.attrs.get("rrmap", {})
        source_df = ratings
    by_list = _check_by(pts, by)
    seed, gen = _seed(rng)
    if "energy" in tests:
        _warn_if_too_few_permutations(pts, by_list, n_perm, p_adjust)
    table = run_designs(
        pts,
        by_list,
        tests=tests,
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        rng=gen,
        p_adjust=p_adjust,
        progress=progress,
        stop_hits=stop_hits,
        n_jobs=n_jobs,
    )
    # the p-values of permutation tests depend on it: it travels with the table
    table["seed"] = seed
    raters = pts["expert"].nunique()
    if raters >= 2:
        ag = agreement(pts)
        ag_sum = agreement_summary(ag)
        for col in ag.columns:
            if isinstance(ag[col].dtype, pd.CategoricalDtype):
                ag[col] = ag[col].astype(object)
    else:
        ag = pd.DataFrame()
        ag_sum = pd.DataFrame(columns=["pattern", "detail", "count", "share"])
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
        "permutations": int(n_perm),
        "stop_hits": int(stop_hits) if stop_hits else None,
        "chi2_monte_carlo": int(chi2_n_perm),
        "p_adjust": p_adjust,
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
    }
    if raters < 2:
        settings["agreement"] = "not computed: pointwise agreement needs at least two raters"
    props = _proportion_table(pts, by_list)
    props["quality"] = props["quality"].astype(str)
    return AnalysisResult(
        tests=table,
        points=pts,
        proportions=props,
        agreement=ag,
        agreement_summary=ag_sum,
        settings=settings,
    )
