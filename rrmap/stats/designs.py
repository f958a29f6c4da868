"""The test designs of the paper (§2.2.5, §2.2.7) and of studies beyond it (docs/tests.md).

- **Expert effect, overall**: all raters (k-sample), then every rater pair.
- **Expert effect per option**: for each category and each of its options,
  the same on that option's points.
- **Category effect per expert**: for each rater and each category, all
  options (k-sample), then every option pair.
- **Generator effect** (several query corpora): are the query corpora equally
  close to the reference? All corpora, then every pair, on all points, for each
  rater, and for each option of each category. With several query corpora the
  three designs above run for each corpus (column ``query``).

Each design runs the energy test on the (Δ, R) points and a zone test on
the quality levels. Expert- and generator-effect tests are *matched* where the
groups of a test rated the same comparison keys (a corpus's points are matched on
the rater and the key): labels permuted within keys, among the groups present on a
key when some key lacks one; Stuart–Maxwell or within-key permutation tests of the
zones. They are *independent* where the groups share no key, or when asked for
(the study's tests: labels permuted over all points, Pearson's χ²).
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
from typing import Any, Literal

import numpy as np
import pandas as pd

from rrmap._util.children import can_fork_workers, forked_pool
from rrmap._util.labels import split_within, within_label
from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.points import key_columns
from rrmap.stats._categories import default_categories
from rrmap.stats._family import MATCHED_GROUPS, columns, run_family
from rrmap.stats._permutation import SINGLE_THREAD_MAX_N, blas_threads
from rrmap.stats._plan import Family
from rrmap.stats._plan import plan as _plan
from rrmap.stats.adjust import adjust_pvalues
from rrmap.stats.energy import DEFAULT_STOP_HITS, check_labels
from rrmap.stats.settings import DEFAULT_CHI2_N_PERM, DESIGNS, Settings, resolve
from rrmap.stats.table import EXTRA_COLUMNS, TESTS_COLUMNS, as_tests_table

__all__ = [
    "DESIGNS",
    "EXTRA_COLUMNS",
    "TESTS_COLUMNS",
    "category_effect_per_expert",
    "compare_groups",
    "default_categories",
    "expert_effect",
    "expert_effect_per_option",
    "generator_effect",
    "run_designs",
    "split_within",
    "within_label",
]

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


def _keys(points: pd.DataFrame) -> list[str]:
    """The columns that identify a comparison but the rater (the query corpus, when there
    are several, and every category)."""
    return [c for c in key_columns(points) if c != "expert" and c in points.columns]


def _several(points: pd.DataFrame) -> bool:
    """Whether the points hold several query corpora (a ``query`` column)."""
    return "query" in points.columns


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
    settings: Settings | None = None,
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
        Column whose values are the compared groups (``"expert"``, ``"query"``
        for the query corpora of a study of several, a category).
    within : str, default "all"
        The points compared: ``"all"``, or ``"<column>=<value>"`` (e.g.
        ``"expert=E1"``, ``"movement=cubism"``) for those with that value;
        written to the ``within`` column and, with *group*, the identity of the
        family that its random streams are made from. Anything else is an error
        (never a label for all points).
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
        For the raters (``group="expert"``) and the query corpora
        (``group="query"``), whose groups rated the same comparison keys:
        ``"matched"`` permutes the labels within each key (every category but
        the rater; for query corpora the rater and every category), among the
        groups present on it where some key lacks one (``note`` counts those
        keys); ``"independent"`` permutes them over all points (the study's
        tests); ``"auto"`` is matched wherever the groups of a test are linked by
        keys they share, else independent (``note`` says why). The options of a
        category are different keys: always independent, and ``"matched"`` is
        an error.
    rng : int, Generator or None
        Seed or generator (one root seed is drawn from a generator).
    pairwise : bool, default True
        Add every pair of groups.
    stop_hits : int or None, default 100
        Sequential energy p-values: a test stops once this many
        relabellings reached its statistic (see
        :func:`rrmap.stats.energy_test`); ``n_perm`` in the table is the
        number drawn. None or 0 always draws ``B``.

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

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
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
        pairwise=pairwise,
    )
    _check_group(points, group, settings.design)
    points, within = _subset(points, within)
    _check_points(points, [group])
    cols = columns(points, [group], _keys(points) if group in MATCHED_GROUPS else None)
    with blas_threads(len(points)):
        streams = _streams_of(Streams.of(rng), points, group)
        rows = run_family(cols, group, within, settings, streams)
    several = _several(points)
    if several:
        corpus = "" if group == "query" else str(points["query"].iloc[0]) if len(points) else ""
        for row in rows:
            row["query"] = corpus
    return as_tests_table(rows, several, settings.mid_p)


def _check_group(points: pd.DataFrame, group: str, design: str) -> None:
    """A design that can be run on the groups of *group*, or an error that says why not."""
    if group == "query" and not _several(points):
        raise InputError(
            "group 'query': the points hold one query corpus; the generator effect compares "
            "several (a ratings file whose origin column names several query corpora)"
        )
    if design != "matched":
        return
    if group not in MATCHED_GROUPS:
        raise InputError(
            f"design='matched' compares groups that rated the same comparison keys — the raters "
            f"('expert') or the query corpora ('query'); the options of {group!r} are different "
            "keys: use design='auto' or 'independent'"
        )
    if group == "expert" and not [k for k in _keys(points) if k != "query"]:
        raise InputError(
            "design='matched': the points carry no comparison keys (category columns) to "
            "match the raters on; use design='independent'"
        )


def _subset(points: pd.DataFrame, within: str) -> tuple[pd.DataFrame, str]:
    """The points *within* selects (``all``, or ``<column>=<value>``) and its label."""
    if not isinstance(within, str) or (within != "all" and "=" not in within):
        raise InputError(
            f"within must be 'all' or '<column>=<value>' (e.g. 'expert=E1', "
            f"'movement=cubism'), got {within!r}"
        )
    if within == "all":
        return points, within
    col, value = split_within(within)
    if col not in points.columns:
        raise InputError(
            f"within={within!r}: no column {col!r} in the points; columns: "
            f"{', '.join(map(str, points.columns))}"
        )
    mask = (points[col].astype(str) == value).to_numpy()
    if not mask.any():
        found = sorted(set(points[col].astype(str)))
        shown = ", ".join(found[:20]) + (" …" if len(found) > 20 else "")
        raise InputError(f"within={within!r}: no point has {col} = {value!r}; values: {shown}")
    sub = points.loc[mask]
    sub.attrs = points.attrs
    return sub, within_label(col, value)


def _streams_of(streams: Streams, points: pd.DataFrame, group: str) -> Streams:
    """The streams of tests on *points*: those of its query corpus when the points hold
    one corpus of several (the tests of each corpus draw from their own streams)."""
    if group == "query" or not _several(points) or not len(points):
        return streams
    corpora = points["query"].astype(str).unique()
    return streams.within("query", corpora[0]) if len(corpora) == 1 else streams


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
    settings: Settings | None = None,
) -> pd.DataFrame:
    """Design 1: the expert effect overall (all raters, then every rater pair).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups`.

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

    Returns
    -------
    DataFrame
        Tests table with ``by = "expert"`` and ``within = "all"`` (one family per
        query corpus, column ``query``, in a study of several).

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> res = expert_effect(pts, n_perm=199, rng=0)
    >>> res.groupby("test").size().to_dict()
    {'energy': 4, 'marginal_homogeneity': 1, 'stuart_maxwell': 3}
    """
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
    )
    plan = [f for f in _plan(points, []) if f.group == "expert" and f.within == "all"]
    return _run(points, plan, settings, rng, False)


def generator_effect(
    points: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    design: Design = "auto",
    chi2_mc_all: bool = False,
    n_jobs: int | None = None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """The generator effect: are the query corpora equally close to the reference?

    The points of two query corpora (generators) on the same rater and comparison key
    share that rater and the key's reference interval: they are matched. The energy test
    permutes the corpus labels within each (rater, key) — among the corpora present
    where a corpus lacks a key — and the zone test is Stuart–Maxwell for two corpora, a
    within-key permutation test of the corpus × zone χ² statistic for more. Tested on
    all points (``within = "all"``), for each rater (``expert=E1``) and for each option
    of each category of *by* (``movement=cubism``): all corpora, then every pair.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` on ratings with several query corpora (column
        ``query``).
    by : str or sequence of str, optional
        Categories whose options are tested one by one (default:
        :func:`default_categories`; ``[]``: all points and each rater only).
    tests, n_perm, chi2_n_perm, rng, stop_hits, design, chi2_mc_all
        As in :func:`compare_groups` (``design="matched"`` is what ``"auto"`` does where
        the corpora share keys; ``"independent"`` treats them as independent samples).
    n_jobs : int, optional
        As in :func:`run_designs`.

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

    Returns
    -------
    DataFrame
        Tests table with ``by = "query"``, ``groups`` the corpora joined by ``|``
        and ``query`` empty (the row compares corpora); not adjusted
        (:func:`rrmap.stats.adjust_pvalues`).

    Raises
    ------
    InputError
        If the points hold a single query corpus.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    >>> res = generator_effect(pts, by="modality", n_perm=99, rng=0)
    >>> res.within.tolist()[:4]
    ['all', 'all', 'expert=E1', 'expert=E1']
    >>> res.groupby("test").size().to_dict()
    {'energy': 7, 'stuart_maxwell': 7}
    """
    by = check_by(points, by)
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
    )
    _check_group(points, "query", settings.design)
    plan = [f for f in _plan(points, by) if f.group == "query"]
    return _run(points, plan, settings, rng, False, n_jobs)


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
    settings: Settings | None = None,
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

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

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
    by = check_by(points, by)
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
    )
    plan = [f for f in _plan(points, by) if f.within != "all" and f.group == "expert"]
    return _run(points, plan, settings, rng, False, n_jobs)


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
    settings: Settings | None = None,
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

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

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
    by = check_by(points, by)
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
    )
    plan = [f for f in _plan(points, by) if f.group not in MATCHED_GROUPS]
    return _run(points, plan, settings, rng, False, n_jobs)


def check_by(points: pd.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return default_categories(points)
    by = [by] if isinstance(by, str) else list(by)
    keys = points.attrs.get("rrmap", {}).get("keys")
    known = [k for k in keys if k != "expert"] if keys else None
    if "query" in by:
        raise InputError(
            "by 'query': the query corpora are not a category; they are compared by the "
            "generator effect, which runs whenever the points hold several"
        )
    bad = [b for b in by if b not in points.columns or b == "expert"]
    if bad:
        choices = known if known is not None else [c for c in points.columns if c != "expert"]
        choices = [c for c in choices if c != "query"]
        import difflib

        hints = [difflib.get_close_matches(str(b), [str(c) for c in choices], n=1) for b in bad]
        near = "; ".join(f"did you mean {h[0]}?" for h in hints if h)
        raise InputError(
            f"by {', '.join(map(str, bad))}: not a category column; choose from "
            f"{', '.join(map(str, choices))}" + (f" ({near})" if near else "")
        )
    if len(set(by)) != len(by):
        twice = sorted({b for b in by if by.count(b) > 1}, key=str)
        raise InputError(f"by lists a category twice: {', '.join(map(str, twice))}")
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
    plan: list[Family],
    settings: Settings,
    rng: int | np.random.Generator | None,
    progress: bool,
    n_jobs: int | None = None,
    keys: list[str] | None = None,
) -> pd.DataFrame:
    """Every family of *plan*, in parallel through joblib, rows in plan order.

    Every random stream is made from the seed and the identity of the test
    that draws from it (and of its query corpus, in a study of several), so the
    table is the same whatever the number of jobs, the joblib backend, or the
    other families of the plan.
    """
    groups = ["expert", *dict.fromkeys(f.group for f in plan if f.group != "expert")]
    _check_points(points, groups[1:])
    keys = _keys(points) if keys is None else keys
    cols = columns(points, groups, keys)
    streams = Streams.of(rng)
    from joblib import delayed, effective_n_jobs

    # BLAS threads: with families in parallel, one each (the families fill the cores;
    # more would contend for them, and a loaded machine's spinning BLAS threads made the
    # many small products of a large study several times slower); one after another,
    # each family is limited by its own size (its largest test), not the whole run's —
    # set once for the run when every family is small enough to get one thread anyway
    # (each setting reads the process's libraries: 33 families, 0.1 s)
    one_limit = effective_n_jobs(n_jobs) > 1 or len(points) <= SINGLE_THREAD_MAX_N
    jobs = (
        delayed(_numbered)(
            i,
            0 if one_limit else len(points) if f.index is None else len(f.index),
            run_family,
            cols.take(f.index, f.group),
            f.group,
            f.within,
            settings,
            streams if f.query is None else streams.within("query", f.query),
        )
        for i, f in enumerate(plan)
    )
    done: dict[int, list[dict]] = {}
    # families are counted as they finish, then put back in plan order; the workers are
    # forked before the progress bar's thread starts, and start on the families while the
    # bar is made
    whole_run = blas_threads(0) if one_limit else contextlib.nullcontext()
    with _runner(n_jobs) as run, whole_run:
        finished = run(jobs)
        with _progress_bar(len(plan), progress) as bar:
            for i, family_rows in finished:
                for row in family_rows:
                    row["query"] = plan[i].query or ""
                done[i] = family_rows
                bar.update(1)
    rows = [row for i in range(len(plan)) for row in done[i]]
    return as_tests_table(rows, _several(points), settings.mid_p)


@contextlib.contextmanager
def _runner(n_jobs: int | None) -> Iterator[Callable[[Iterable[Any]], Iterable[Any]]]:
    """How the families run: a backend set with :func:`joblib.parallel_config` (e.g. Dask)
    takes precedence; else, with several jobs, in processes forked from this one where
    that is safe (:func:`~rrmap._util.children.forked_pool`: threads share the interpreter
    lock, and ran no faster than one); else through joblib's threads (they start at
    once)."""
    from joblib import Parallel, effective_n_jobs
    from joblib.parallel import BACKENDS, DEFAULT_BACKEND, get_active_backend

    workers = effective_n_jobs(n_jobs)
    backend, _ = get_active_backend()
    default = type(backend) is BACKENDS[DEFAULT_BACKEND] and backend.nesting_level == 0
    if workers > 1 and default and can_fork_workers():
        with forked_pool(workers) as run:
            yield run
        return
    # a backend whose pool returns lists only (joblib's "multiprocessing") gives one list
    unordered = default or backend.supports_return_generator
    yield Parallel(
        n_jobs=n_jobs, prefer="threads", return_as="generator_unordered" if unordered else "list"
    )


def _numbered(
    i: int, size: int, fn: Callable[..., list[dict]], *args: object
) -> tuple[int, list[dict]]:
    """Job *i*: *fn* on one BLAS thread when its tests have at most
    :data:`~rrmap.stats._permutation.SINGLE_THREAD_MAX_N` points (*size*; 0 when the whole
    run holds that limit already, which is then left alone)."""
    if not size:
        return i, fn(*args)
    with blas_threads(size):
        return i, fn(*args)


@contextlib.contextmanager
def _progress_bar(total: int, show: bool) -> Iterator[Any]:
    """A tqdm bar of test families on stderr, refreshed twice a second so its elapsed time
    moves while a long family runs; off when stderr is not a terminal (except in Jupyter),
    and a stand-in that does nothing when not shown (tqdm is not even imported)."""
    from rrmap._util.progress import progress_bar, shows_progress

    if not show or not shows_progress():
        yield _NoBar()
        return
    import threading

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
    settings: Settings | None = None,
) -> pd.DataFrame:
    """All three designs of the paper, for both test kinds, in one table.

    Order: the expert effect overall; the expert effect per option of each
    category in *by*; the effect of each category per rater. Within each
    family the k-sample test comes first, then the pairs; energy rows
    before zone rows. With several query corpora (a ``query`` column) the
    generator effect comes first (:func:`generator_effect`), then the three
    designs of each corpus in turn, and the table gains a ``query`` column
    (the corpus of the row; empty on generator-effect rows).

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
    p_adjust : {"holm", "fdr_bh", "gatekept", "none"}, default "holm"
        Add adjusted p-values within each family (see :func:`adjust_pvalues`);
        ``"none"`` as in the study. ``pvalue_study`` (Benjamini–Hochberg over every test
        of the table) is always added.
    progress : bool, default False
        Show a progress bar (tqdm, on stderr).
    n_jobs : int, optional
        Families run in parallel (-1: every core; None: joblib's default, 1
        unless set by :func:`joblib.parallel_config`, which can also send them
        to a Dask or Ray cluster): in processes forked from this one on Linux,
        from a process that runs no other thread (a script, the command line),
        else in threads through :class:`joblib.Parallel`; a backend set with
        :func:`joblib.parallel_config` takes precedence. The table does not
        depend on it.

    settings : Settings, optional
        The test settings at once (:class:`rrmap.stats.Settings`), instead of the
        keywords above (which are then left at their defaults); its ``seed`` is the
        seed when *rng* is not given.

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
    settings, rng = resolve(
        settings,
        rng,
        tests=tuple(tests),
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        stop_hits=stop_hits,
        design=design,
        chi2_mc_all=chi2_mc_all,
        p_adjust=p_adjust,
    )
    by = check_by(points, by)
    work, keys = _working(points, by)
    out = _run(work, _plan(work, by), settings, rng, progress, n_jobs, keys)
    return adjust_pvalues(out, settings.p_adjust, "pvalue_mid" if settings.mid_p else "pvalue")
