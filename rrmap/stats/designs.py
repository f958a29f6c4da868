"""The test designs of the paper (§2.2.5, §2.2.7; docs/tests.md), for both test kinds.

- **Expert effect, overall**: all raters (k-sample), then every rater pair.
- **Expert effect per option**: for each category and each of its options,
  the same on that option's points.
- **Category effect per expert**: for each rater and each category, all
  options (k-sample), then every option pair.

Each design runs the energy test on the (Δ, R) points and a zone test on
the quality levels. Expert-effect tests are *matched* where every rater of a
test rated every comparison key of it (rater labels permuted within keys;
Stuart–Maxwell or within-key permutation tests of the zones), *independent*
otherwise (the study's tests: labels permuted over all points, Pearson's χ²).
The results are one tidy table, one row per test, in the tests-table format
of docs/tests.md (see :data:`TESTS_COLUMNS`); a test that cannot be run (a
single group, a group with fewer than 2 points, a zone table with a single
non-empty quality level) is a row with an empty p-value and the reason in
``note``. Every test's random stream comes from the seed and the test's
identity only, so its p-value never depends on which other tests run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from rrmap._streams import Streams
from rrmap.errors import InputError
from rrmap.limits import MAX_MONTE_CARLO
from rrmap.points import key_columns
from rrmap.stats._categories import default_categories
from rrmap.stats._family import DESIGNS, Settings, columns, run_family
from rrmap.stats._labels import split_within, within_label
from rrmap.stats._permutation import blas_threads
from rrmap.stats.adjust import P_ADJUST_METHODS, adjust_pvalues
from rrmap.stats.energy import DEFAULT_STOP_HITS, _check_n_perm, _check_stop_hits, check_labels

__all__ = [
    "DESIGNS",
    "EXTRA_COLUMNS",
    "TESTS_COLUMNS",
    "category_effect_per_expert",
    "compare_groups",
    "default_categories",
    "expert_effect",
    "expert_effect_per_option",
    "run_designs",
    "split_within",
    "within_label",
]

#: The columns of the tests table, in the documented order (docs/tests.md).
TESTS_COLUMNS: tuple[str, ...] = (
    "test",
    "by",
    "within",
    "groups",
    "design",
    "n",
    "statistic",
    "dof",
    "pvalue",
    "p_method",
    "n_perm",
)

#: Columns appended after :data:`TESTS_COLUMNS` (effect sizes, χ² diagnostics, notes);
#: ``pvalue_<method>`` is inserted before them when p-values are adjusted.
EXTRA_COLUMNS: tuple[str, ...] = (
    "effect",
    "effect_corrected",
    "min_expected",
    "share_expected_below_5",
    "note",
)

#: Monte Carlo draws of the zone tests by default (where a χ² p-value needs them).
DEFAULT_CHI2_N_PERM = 5000

TestKind = Literal["energy", "chi2"]
Design = Literal["auto", "matched", "independent"]
_KINDS = ("energy", "chi2")


def _check_points(points: pd.DataFrame, columns: Iterable[str]) -> None:
    missing = [c for c in ["expert", "delta", "r", "quality", *columns] if c not in points.columns]
    if missing:
        raise InputError(
            f"points table lacks column(s) {missing}; available: {list(points.columns)}"
        )
    xy = points[["delta", "r"]].to_numpy(dtype=float)
    bad = ~np.isfinite(xy).all(axis=1)
    if bad.any():
        where = points.loc[bad]
        if "line_ref" in points.columns:
            desc = [f"lines {a}/{b}" for a, b in zip(where.line_ref, where.line_query, strict=True)]
        else:
            desc = [f"row {i}" for i in np.flatnonzero(bad)]
        raise InputError(
            f"{int(bad.sum())} point(s) with NaN or inf Δ or R ({', '.join(desc[:20])}"
            f"{' …' if len(desc) > 20 else ''}); tests need finite points"
        )
    if points["quality"].isna().any():
        rows = np.flatnonzero(points["quality"].isna().to_numpy())
        raise InputError(
            f"{len(rows)} point(s) without a quality level (rows {rows[:20].tolist()})"
        )
    for col in ["expert", *columns]:
        check_labels(points[col].to_numpy(dtype=object), f"column {col!r}")


def _check_tests(tests: Sequence[str]) -> tuple[str, ...]:
    tests = tuple([tests] if isinstance(tests, str) else tests)
    bad = [t for t in tests if t not in _KINDS]
    if bad or not tests:
        raise InputError(f"tests must be among {list(_KINDS)}, got {list(tests)}")
    return tests


def _keys(points: pd.DataFrame) -> list[str]:
    """The category columns that identify a comparison (every key column but the rater)."""
    return [c for c in key_columns(points) if c != "expert" and c in points.columns]


def _frame(rows: list[dict]) -> pd.DataFrame:
    cols = [*TESTS_COLUMNS, *EXTRA_COLUMNS]
    df = pd.DataFrame(rows, columns=cols)
    df["n"] = df["n"].astype("int64")
    for col in ("dof", "n_perm"):
        df[col] = pd.array(df[col].tolist(), dtype="Int64")
    for col in ("statistic", "pvalue", "effect", "effect_corrected", "min_expected",
                "share_expected_below_5"):  # fmt: skip
        df[col] = df[col].astype(float)
    for col in ("design", "p_method", "note"):
        df[col] = df[col].fillna("").astype(str)
    return df


def compare_groups(
    points: pd.DataFrame,
    group: str,
    *,
    within: str = "all",
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    pairwise: bool = True,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    design: Design = "auto",
    chi2_mc_all: bool = False,
) -> pd.DataFrame:
    """Test whether the groups of *group* differ: all at once, then every pair.

    The building block of every design: an energy test on the (Δ, R)
    points and a zone test on the quality levels (χ² for independent
    samples; Stuart–Maxwell or a within-key permutation test for matched
    raters).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` (or a subset of it).
    group : str
        Column whose values are the compared groups (``"expert"``, a category).
    within : str, default "all"
        Label of the subset, written to the ``within`` column; with *group*,
        the identity of the family that its random streams are made from.
    tests : sequence of {"energy", "chi2"}
        Which tests to run (``"chi2"``: the zone tests).
    n_perm : int, default 5000
        Maximum relabellings per energy test (``B``).
    chi2_n_perm : int, default 5000
        Monte Carlo draws of a zone test where the asymptotic χ² p-value is
        unreliable (Cochran's rule fails; fewer than 25 discordant keys of a
        Stuart–Maxwell test are enumerated exactly instead), and relabellings
        of the permutation test of more than two matched raters. 0: the
        asymptotic p-value everywhere, as in the study.
    chi2_mc_all : bool, default False
        Monte Carlo (or exact) p-values for every zone test, not only where
        the asymptotic one is unreliable.
    design : {"auto", "matched", "independent"}, default "auto"
        Expert-effect tests only (``group == "expert"``): ``"matched"`` permutes
        the rater labels within each comparison key (every category but the
        rater), leaving out keys a rater lacks; ``"independent"`` permutes them
        over all points (the study's tests); ``"auto"`` is matched wherever every
        rater of the test rated every key of it, else independent (``note``
        says why). Other groups are always independent.
    rng : int, Generator or None
        Seed or generator (one root seed is drawn from a generator).
    pairwise : bool, default True
        Add every pair of groups.
    stop_hits : int or None, default 100
        Sequential energy p-values: a test stops once this many
        relabellings reached its statistic (see
        :func:`rrmap.stats.energy_test`); ``n_perm`` in the table is the
        number drawn. None or 0 always draws ``B``.

    Returns
    -------
    DataFrame
        The tests table (:data:`TESTS_COLUMNS` + :data:`EXTRA_COLUMNS`).

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = compare_groups(pts, "expert", n_perm=99, rng=0)
    >>> res.groups.head(4).tolist(), res.n.head(4).tolist()
    (['E1|E2|E3', 'E1|E2', 'E1|E3', 'E2|E3'], [405, 270, 270, 270])
    >>> res.test.head(8).tolist()[4:], res.design.unique().tolist()
    (['marginal_homogeneity', 'stuart_maxwell', 'stuart_maxwell', 'stuart_maxwell'], ['matched'])
    """
    settings = _settings(tests, n_perm, chi2_n_perm, stop_hits, design, chi2_mc_all, pairwise)
    _check_points(points, [group])
    cols = columns(points, [group], _keys(points) if group == "expert" else None)
    with blas_threads(len(points)):
        rows = run_family(cols, group, within, settings, Streams.of(rng))
    return _frame(rows)


def _settings(
    tests: Sequence[str],
    n_perm: int,
    chi2_n_perm: int,
    stop_hits: int | None,
    design: str,
    chi2_mc_all: bool,
    pairwise: bool = True,
) -> Settings:
    if design not in DESIGNS:
        raise InputError(f"design must be one of {list(DESIGNS)}, got {design!r}")
    return Settings(
        _check_tests(tests),
        _check_n_perm(n_perm),
        _check_n_perm(chi2_n_perm, "chi2_n_perm", MAX_MONTE_CARLO),
        pairwise,
        _check_stop_hits(stop_hits),
        design,
        bool(chi2_mc_all),
    )


def expert_effect(
    points: pd.DataFrame,
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    design: Design = "auto",
    chi2_mc_all: bool = False,
) -> pd.DataFrame:
    """Design 1: the expert effect overall (all raters, then every rater pair).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups`.

    Returns
    -------
    DataFrame
        Tests table with ``by = "expert"`` and ``within = "all"``.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = expert_effect(pts, n_perm=199, rng=0)
    >>> res.groupby("test").size().to_dict()
    {'energy': 4, 'marginal_homogeneity': 1, 'stuart_maxwell': 3}
    """
    return compare_groups(
        points,
        "expert",
        tests=tests,
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        rng=rng,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
    )


@dataclass(frozen=True)
class _Family:
    """One family of tests: the groups of *group* compared within one subset of the points.

    *index* holds the positions of the subset's points (None: all points).
    """

    group: str
    within: str
    index: np.ndarray | None


def _plan(points: pd.DataFrame, by: Sequence[str]) -> list[_Family]:
    """Every family of tests, in table order."""
    plan = [_Family("expert", "all", None)]
    for cat in by:
        codes, options = pd.factorize(points[cat], sort=True)
        for j, opt in enumerate(options):
            plan.append(_Family("expert", within_label(cat, opt), np.flatnonzero(codes == j)))
    experts = points["expert"].astype(str).to_numpy(dtype=object)
    for e in sorted(set(experts)):
        sub = np.flatnonzero(experts == e)
        plan += [_Family(cat, within_label("expert", e), sub) for cat in by]
    return plan


def expert_effect_per_option(
    points: pd.DataFrame,
    by: str | Sequence[str],
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    design: Design = "auto",
    chi2_mc_all: bool = False,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Design 2: the expert effect within each option of each category.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str
        Category column(s).
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups`.
    n_jobs : int, optional
        As in :func:`run_designs`.

    Returns
    -------
    DataFrame
        Tests table with ``by = "expert"`` and ``within = "<category>=<option>"``.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = expert_effect_per_option(pts, "modality", tests=["chi2"])
    >>> sorted(res.within.unique())
    ['modality=female painter', 'modality=male painter', 'modality=movement']
    """
    by = _check_by(points, by)
    return _run(
        points,
        [f for f in _plan(points, by) if f.within != "all" and f.group == "expert"],
        _settings(tests, n_perm, chi2_n_perm, stop_hits, design, chi2_mc_all),
        rng,
        False,
        n_jobs,
    )


def category_effect_per_expert(
    points: pd.DataFrame,
    by: str | Sequence[str],
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    design: Design = "auto",
    chi2_mc_all: bool = False,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Design 3: for each rater, the effect of each category (all options, then pairs).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str
        Category column(s).
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups`.
    n_jobs : int, optional
        As in :func:`run_designs`.

    Returns
    -------
    DataFrame
        Tests table with ``by = "<category>"`` and ``within = "expert=<rater>"``.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = category_effect_per_expert(pts, "criterion_group", n_perm=99, rng=0)
    >>> len(res), sorted(res.within.unique())
    (24, ['expert=E1', 'expert=E2', 'expert=E3'])
    """
    by = _check_by(points, by)
    return _run(
        points,
        [f for f in _plan(points, by) if f.group != "expert"],
        _settings(tests, n_perm, chi2_n_perm, stop_hits, design, chi2_mc_all),
        rng,
        False,
        n_jobs,
    )


def _check_by(points: pd.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return default_categories(points)
    by = [by] if isinstance(by, str) else list(by)
    keys = points.attrs.get("rrmap", {}).get("keys")
    known = [k for k in keys if k != "expert"] if keys else None
    bad = [b for b in by if b not in points.columns or b == "expert"]
    if bad:
        choices = known if known is not None else [c for c in points.columns if c != "expert"]
        import difflib

        hints = [difflib.get_close_matches(str(b), [str(c) for c in choices], n=1) for b in bad]
        near = "; ".join(f"did you mean {h[0]}?" for h in hints if h)
        raise InputError(
            f"--by {', '.join(map(str, bad))}: not a category column; choose from "
            f"{', '.join(map(str, choices))}" + (f" ({near})" if near else "")
        )
    if len(set(by)) != len(by):
        twice = sorted({b for b in by if by.count(b) > 1}, key=str)
        raise InputError(f"--by lists a category twice: {', '.join(map(str, twice))}")
    return by


def _working(points: pd.DataFrame, by: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """The columns the tests need, without metadata (subsets would deep-copy it), and the
    key columns (read from the metadata first)."""
    _check_points(points, by)
    keys = _keys(points)
    work = points[list(dict.fromkeys(["expert", *by, *keys, "delta", "r", "quality"]))].copy()
    work.attrs = {}
    return work, keys


def _run(
    points: pd.DataFrame,
    plan: list[_Family],
    settings: Settings,
    rng: int | np.random.Generator | None,
    progress: bool,
    n_jobs: int | None = None,
    keys: list[str] | None = None,
) -> pd.DataFrame:
    """Every family of *plan*, in parallel through joblib, rows in plan order.

    Every random stream is made from the seed and the identity of the test
    that draws from it, so the table is the same whatever the number of jobs,
    the joblib backend, or the other families of the plan.
    """
    groups = ["expert", *dict.fromkeys(f.group for f in plan if f.group != "expert")]
    _check_points(points, groups[1:])
    keys = _keys(points) if keys is None else keys
    cols = columns(points, groups, keys)
    streams = Streams.of(rng)
    from joblib import Parallel, delayed

    jobs = (
        delayed(_numbered)(
            i, run_family, cols.take(f.index, f.group), f.group, f.within, settings, streams
        )
        for i, f in enumerate(plan)
    )
    done: dict[int, list[dict]] = {}
    # threads by default: the products release the GIL, and threads start at once
    # (a backend set with joblib.parallel_config, e.g. Dask, takes precedence); families
    # are counted as they finish, then put back in plan order
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator_unordered")
    with _progress_bar(len(plan), progress) as bar, blas_threads(len(points)):
        for i, family_rows in parallel(jobs):
            done[i] = family_rows
            bar.update(1)
    return _frame([row for i in range(len(plan)) for row in done[i]])


def _numbered(i: int, fn: Callable[..., list[dict]], *args: object) -> tuple[int, list[dict]]:
    return i, fn(*args)


@contextlib.contextmanager
def _progress_bar(total: int, show: bool) -> Iterator[Any]:
    """A tqdm bar of test families on stderr, refreshed twice a second so its elapsed time
    moves while a long family runs; off when stderr is not a terminal (except in Jupyter),
    and a stand-in that does nothing when not shown."""
    if not show:
        yield _NoBar()
        return
    import threading

    from rrmap._progress import progress_bar

    bar = progress_bar(total, "tests", "family")
    stop = threading.Event()

    def _tick() -> None:
        while not stop.wait(0.5):
            bar.refresh()

    ticker = threading.Thread(target=_tick, daemon=True)
    if not bar.disable:
        ticker.start()
    try:
        yield bar
    finally:
        stop.set()
        if ticker.is_alive():
            ticker.join()
        bar.close()


class _NoBar:
    """What :func:`_progress_bar` gives when no bar is shown."""

    def update(self, n: int = 1) -> None:
        """Nothing to show."""


def run_designs(
    points: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    p_adjust: str = "holm",
    progress: bool = False,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
    design: Design = "auto",
    chi2_mc_all: bool = False,
) -> pd.DataFrame:
    """All three designs of the paper, for both test kinds, in one table.

    Order: the expert effect overall; the expert effect per option of each
    category in *by*; the effect of each category per rater. Within each
    family the k-sample test comes first, then the pairs; energy rows
    before zone rows.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str, optional
        Categories (default: :func:`default_categories`).
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups`. Every test draws from a stream made
        from the seed and the test's identity, so a seed reproduces the
        whole table, and each p-value equals the one of the same test run
        alone (:func:`compare_groups` with the same ``within``).
    p_adjust : {"holm", "fdr_bh", "none"}, default "holm"
        Add adjusted p-values within each family (see :func:`adjust_pvalues`);
        ``"none"`` as in the study.
    progress : bool, default False
        Show a progress bar (tqdm, on stderr).
    n_jobs : int, optional
        Families run in parallel through :class:`joblib.Parallel` (-1: every
        core; None: joblib's default, 1 unless set by
        :func:`joblib.parallel_config`, which can also send them to a Dask
        or Ray cluster). The table does not depend on it.

    Returns
    -------
    DataFrame
        The tests table: :data:`TESTS_COLUMNS`, then ``pvalue_<method>`` if
        adjusted, then :data:`EXTRA_COLUMNS`.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = run_designs(pts, by="modality", n_perm=99, rng=0)
    >>> res.groupby("by").size().to_dict()
    {'expert': 32, 'modality': 24}
    """
    if p_adjust not in P_ADJUST_METHODS:
        raise InputError(f"p_adjust must be one of {list(P_ADJUST_METHODS)}, got {p_adjust!r}")
    by = _check_by(points, by)
    settings = _settings(tests, n_perm, chi2_n_perm, stop_hits, design, chi2_mc_all)
    work, keys = _working(points, by)
    out = _run(work, _plan(work, by), settings, rng, progress, n_jobs, keys)
    return adjust_pvalues(out, p_adjust)
