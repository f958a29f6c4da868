"""``rrmap.analyze``: ratings → points → every design, the tables, the reliability → an
:class:`~rrmap.analysis.result.AnalysisResult`."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap._util.streams import Streams
from rrmap._version import __version__
from rrmap.analysis import checks
from rrmap.errors import InputError
from rrmap.interrater import RELIABILITY_COLUMNS, reliability
from rrmap.points import points as compute_points
from rrmap.points import query_corpora
from rrmap.ratings import load_ratings
from rrmap.stats.designs import check_by, run_designs
from rrmap.stats.energy import DEFAULT_STOP_HITS
from rrmap.stats.settings import DEFAULT_CHI2_N_PERM, Settings, resolve
from rrmap.tables import agreement, agreement_summary, proportions
from rrmap.zones import Thresholds

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.plot.analysis_figures import AnalysisFigures


from rrmap.analysis.checks import ALPHA as _ALPHA
from rrmap.analysis.result import AnalysisResult, file_sha256

__all__ = ["analyze"]


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
    settings: Settings | None = None,
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
        Bootstrap resamples of the reliability intervals (:func:`rrmap.reliability`)
        and, unless *settings* is given (then its ``n_boot``), of the effect sizes'
        intervals (0: no intervals).
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
    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`: tests, permutations,
        stopping, zone draws, design, adjustment, seed), instead of the keywords above
        (then left at their defaults); the command line builds one from its options.
        ``Settings.from_dict(result.settings)`` gives back those of a run.

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
    st, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        stop_hits=stop_hits,
        chi2_n_perm=chi2_n_perm,
        chi2_mc_all=chi2_mc_all,
        design=design,
        p_adjust=p_adjust,
        # the effect intervals take the reliability's resamples, unless settings say
        **({} if settings is not None else {"n_boot": n_boot}),
    )
    pts, meta, source_df, from_path = _points_of(
        ratings, coverage, z, thresholds, query, drop_incomplete
    )
    by_list = check_by(pts, by)
    checks.check_size(pts, by_list, n_boot)
    if figures is not None:  # drawn by its workers while the tests run
        figures.draw(pts, categories=by_list or None)
        n_jobs = _jobs_beside(n_jobs, figures.workers)
    seed, seed_source = _seed(rng)
    st = replace(st, seed=seed)
    if "energy" in st.tests:
        checks.warn_if_too_few_permutations(pts, by_list, st.n_perm, st.p_adjust)
    table = run_designs(pts, by_list, settings=st, progress=progress, n_jobs=n_jobs)
    # the p-values of permutation tests depend on it: it travels with the table
    table["seed"] = seed
    ag, ag_sum, rel = _agreement_tables(pts, n_boot, seed)
    if source_df is not None:
        source, digest, hashed = _input_hash(source_df, from_path)
    else:
        source, digest, hashed = meta.get("source"), None, "not available (points given)"
    record = {
        "rrmap_version": __version__,
        "input": source or "<DataFrame>",
        "input_sha256": digest,
        "input_hashed": hashed,
        **st.to_dict(),
        "seed_source": seed_source,
        "bootstrap": int(n_boot),
        **_run_record(pts, meta, by_list),
    }
    props = _proportion_table(pts, by_list)
    props["quality"] = props["quality"].astype(str)
    return AnalysisResult(
        tests=table,
        points=pts,
        proportions=props,
        agreement=ag,
        agreement_summary=ag_sum,
        reliability=rel,
        settings=record,
    )


def _run_record(pts: pd.DataFrame, meta: dict, by: list[str]) -> dict[str, Any]:
    """What ``settings`` records of the points: categories, raters, corpora, zones, and what
    was left out of the ratings."""
    out: dict[str, Any] = {
        "by": list(by),
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
            out[key] = meta[key]
    if pts["expert"].nunique() < 2:
        out["agreement"] = "not computed: pointwise agreement needs at least two raters"
    return out


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
