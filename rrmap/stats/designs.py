"""The test designs of the paper (§2.2.5, §2.2.7; docs/tests.md), for both test kinds.

- **Expert effect, overall**: all raters (k-sample), then every rater pair.
- **Expert effect per option**: for each category and each of its options,
  the same on that option's points.
- **Category effect per expert**: for each rater and each category, all
  options (k-sample), then every option pair.

Each design runs the energy test on the (Δ, R) points and the χ² test on the
Group × Quality table. The results are one tidy table, one row per test, in
the tests-table format of docs/tests.md (see :data:`TESTS_COLUMNS`); a test that cannot be
run (a single group, a group with fewer than 2 points, a χ² table with a
single non-empty quality level) is a row with an empty p-value and the
reason in ``note``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.stats._permutation import blas_threads
from rrmap.stats.adjust import P_ADJUST_METHODS, adjust_pvalues
from rrmap.stats.chi2 import chi2_test
from rrmap.stats.energy import (
    DEFAULT_STOP_HITS,
    _check_n_perm,
    _check_stop_hits,
    _group_sets,
    _skip_reason,
    _test_rows,
    check_labels,
)
from rrmap.zones import QUALITY_LEVELS

__all__ = [
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
    "n",
    "statistic",
    "dof",
    "pvalue",
    "n_perm",
)

#: Columns appended after :data:`TESTS_COLUMNS` (χ² diagnostics and skip reasons);
#: ``pvalue_<method>`` is inserted before them when p-values are adjusted.
EXTRA_COLUMNS: tuple[str, ...] = ("min_expected", "share_expected_below_5", "note")


TestKind = Literal["energy", "chi2"]
_KINDS = ("energy", "chi2")


def _quote(text: str) -> str:
    """*text*, in double quotes (inner quotes doubled) if it holds ``=`` or starts with a quote."""
    if "=" in text or text.startswith('"'):
        return '"' + text.replace('"', '""') + '"'
    return text


def within_label(column: str, value: object) -> str:
    """The ``within`` label of the subset ``column == value``: ``movement=cubism``.

    A column name or value holding ``=`` is quoted, so that two subsets never
    share a label (category ``a=b`` with option ``c`` is ``"a=b"=c``, category
    ``a`` with option ``b=c`` is ``a="b=c"``).

    Examples
    --------
    >>> within_label("movement", "cubism"), within_label("a=b", "c"), within_label("a", "b=c")
    ('movement=cubism', '"a=b"=c', 'a="b=c"')
    """
    return f"{_quote(str(column))}={_quote(str(value))}"


def split_within(label: str) -> tuple[str, str]:
    """The column and value of a ``within`` label (quotes removed); ``("all", "")`` for ``all``.

    Examples
    --------
    >>> split_within('a="b=c"'), split_within("movement=cubism")
    (('a', 'b=c'), ('movement', 'cubism'))
    """
    if label == "all":
        return "all", ""
    parts: list[str] = []
    i = 0
    for _ in range(2):
        if label.startswith('"', i):
            j = i + 1
            buf = []
            while j < len(label):
                if label[j] == '"':
                    if label.startswith('""', j):
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(label[j])
                j += 1
            parts.append("".join(buf))
            i = j + 2  # closing quote and "="
        else:
            j = label.find("=", i) if not parts else len(label)
            j = len(label) if j < 0 else j
            parts.append(label[i:j])
            i = j + 1
    return parts[0], parts[1]


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


def _chi2_rows(
    codes: np.ndarray,
    quality: np.ndarray,
    names: list,
    pairwise: bool,
    chi2_n_perm: int,
    gen: np.random.Generator,
) -> list[dict]:
    """The χ² tests of the groups *names* (point i in ``names[codes[i]]``, quality level
    ``QUALITY_LEVELS[quality[i]]``): all groups, then every pair."""
    rows = []
    n_q = len(QUALITY_LEVELS)
    full = np.bincount(codes * n_q + quality, minlength=len(names) * n_q).reshape(-1, n_q)
    for grp in _group_sets(len(names), pairwise):
        tab = full[list(grp)]
        counts = tab.sum(axis=1).tolist()
        labels = [names[i] for i in grp]
        row = {
            "groups": "|".join(str(g) for g in labels),
            "n": int(sum(counts)),
            "statistic": np.nan,
            "dof": pd.NA,
            "pvalue": np.nan,
            "n_perm": chi2_n_perm if chi2_n_perm > 0 else pd.NA,
            "min_expected": np.nan,
            "share_expected_below_5": np.nan,
            "note": _skip_reason(labels, counts),
        }
        if not row["note"]:
            levels = [lv for lv, tot in zip(QUALITY_LEVELS, tab.sum(axis=0), strict=True) if tot]
            if len(levels) < 2:
                row["note"] = f"all points in one quality level ({levels[0]}): no χ² test"
            else:
                res = chi2_test(tab, n_perm=chi2_n_perm, rng=gen)
                row.update(
                    statistic=res.statistic,
                    dof=res.dof,
                    pvalue=res.pvalue,
                    min_expected=res.min_expected,
                    share_expected_below_5=res.share_expected_below_5,
                )
        if row["note"]:
            row["n_perm"] = pd.NA
        rows.append(row)
    return rows


@dataclass(frozen=True)
class _Columns:
    """The points as the tests read them, coded once for every family.

    ``codes[col][i]`` is the position of point i's label (as text) in
    ``names[col]`` (sorted); ``quality[i]`` is its position in
    :data:`~rrmap.zones.QUALITY_LEVELS`.
    """

    xy: np.ndarray
    quality: np.ndarray
    codes: dict[str, np.ndarray]
    names: dict[str, list[str]]

    def take(self, index: np.ndarray | None, group: str) -> _Columns:
        """The points *index* (None: all) with the column *group* only: what one family
        reads, and all a job is sent (a process or a cluster worker gets no more)."""
        if index is None:
            return _Columns(self.xy, self.quality, {group: self.codes[group]},
                            {group: self.names[group]})  # fmt: skip
        return _Columns(
            self.xy[index],
            self.quality[index],
            {group: self.codes[group][index]},
            {group: self.names[group]},
        )


def _columns(points: pd.DataFrame, groups: Iterable[str]) -> _Columns:
    quality = pd.Index(list(QUALITY_LEVELS)).get_indexer(points["quality"].astype(str))
    if (quality < 0).any():
        bad = points["quality"].astype(str).to_numpy()[quality < 0]
        raise InputError(f"unknown quality level(s): {sorted(set(bad))}")
    codes, names = {}, {}
    for col in dict.fromkeys(groups):
        labels = points[col].astype(str).to_numpy(dtype=object)
        names[col] = sorted(set(labels))
        codes[col] = pd.Index(names[col]).get_indexer(labels)
    xy = points[["delta", "r"]].to_numpy(dtype=float)
    return _Columns(xy, quality.astype(np.intp), codes, names)


@dataclass(frozen=True)
class _Settings:
    """What every family of a run shares: the tests and their permutation settings."""

    tests: tuple[str, ...]
    n_perm: int
    chi2_n_perm: int
    pairwise: bool = True
    stop_hits: int | None = DEFAULT_STOP_HITS


def _family(
    cols: _Columns,
    group: str,
    within: str,
    settings: _Settings,
    gen: np.random.Generator,
) -> list[dict]:
    """One k-sample test and its pairs, for each test kind, on the points of *cols*.

    The groups are every label of column *group* (``cols.names``); one absent
    from the points is a group with 0 points, noted like one with 1 point.
    The energy tests draw from one child of *gen*, the χ² Monte Carlo from
    another, so neither depends on which other tests run.
    """
    codes = cols.codes[group]
    names = cols.names[group]
    energy_gen, chi2_gen = gen.spawn(2)
    out: list[dict] = []
    for kind in settings.tests:
        if kind == "energy":
            rows = _test_rows(
                cols.xy,
                codes,
                names,
                settings.n_perm,
                energy_gen,
                settings.pairwise,
                stop_hits=settings.stop_hits,
            )
            for rec in rows:
                rec.update(
                    dof=pd.NA,
                    n_perm=rec["n_perm"] if not np.isnan(rec["statistic"]) else pd.NA,
                    min_expected=np.nan,
                    share_expected_below_5=np.nan,
                )
                out.append({"test": "energy", **rec})
        else:
            rows = _chi2_rows(
                codes, cols.quality, names, settings.pairwise, settings.chi2_n_perm, chi2_gen
            )
            out += [{"test": "chi2", **rec} for rec in rows]
    for rec in out:
        rec["by"] = group
        rec["within"] = within
    return out


def _frame(rows: list[dict]) -> pd.DataFrame:
    cols = [*TESTS_COLUMNS, *EXTRA_COLUMNS]
    df = pd.DataFrame(rows, columns=cols)
    df["n"] = df["n"].astype("int64")
    for col in ("dof", "n_perm"):
        df[col] = pd.array(df[col].tolist(), dtype="Int64")
    for col in ("statistic", "pvalue", "min_expected", "share_expected_below_5"):
        df[col] = df[col].astype(float)
    df["note"] = df["note"].fillna("").astype(str)
    return df


def compare_groups(
    points: pd.DataFrame,
    group: str,
    *,
    within: str = "all",
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    pairwise: bool = True,
    stop_hits: int | None = DEFAULT_STOP_HITS,
) -> pd.DataFrame:
    """Test whether the groups of *group* differ: all at once, then every pair.

    The building block of every design: an energy test on the (Δ, R)
    points and a χ² test on the Group × Quality table.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` (or a subset of it).
    group : str
        Column whose values are the compared groups (``"expert"``, a category).
    within : str, default "all"
        Label of the subset, written to the ``within`` column.
    tests : sequence of {"energy", "chi2"}
        Which tests to run.
    n_perm : int, default 5000
        Maximum relabellings per energy test (``B``).
    chi2_n_perm : int, default 0
        Monte Carlo draws per χ² test (0: asymptotic χ² p-value).
    rng : int, Generator or None
        Seed or generator.
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
    """
    settings = _settings(tests, n_perm, chi2_n_perm, stop_hits, pairwise)
    _check_points(points, [group])
    gen = np.random.default_rng(rng)
    return _frame(_family(_columns(points, [group]), group, within, settings, gen))


def _settings(
    tests: Sequence[str],
    n_perm: int,
    chi2_n_perm: int,
    stop_hits: int | None,
    pairwise: bool = True,
) -> _Settings:
    return _Settings(
        _check_tests(tests),
        _check_n_perm(n_perm),
        _check_n_perm(chi2_n_perm),
        pairwise,
        _check_stop_hits(stop_hits),
    )


def expert_effect(
    points: pd.DataFrame,
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
) -> pd.DataFrame:
    """Design 1: the expert effect overall (all raters, then every rater pair).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    tests, n_perm, chi2_n_perm, rng, stop_hits
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
    {'chi2': 4, 'energy': 4}
    """
    return compare_groups(
        points,
        "expert",
        tests=tests,
        n_perm=n_perm,
        chi2_n_perm=chi2_n_perm,
        rng=rng,
        stop_hits=stop_hits,
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
    chi2_n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Design 2: the expert effect within each option of each category.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str
        Category column(s).
    tests, n_perm, chi2_n_perm, rng, stop_hits
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
        _settings(tests, n_perm, chi2_n_perm, stop_hits),
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
    chi2_n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Design 3: for each rater, the effect of each category (all options, then pairs).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str
        Category column(s).
    tests, n_perm, chi2_n_perm, rng, stop_hits
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
        _settings(tests, n_perm, chi2_n_perm, stop_hits),
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
        raise InputError(f"--by {bad}: not a category column; choose from {choices}")
    if len(set(by)) != len(by):
        raise InputError(f"--by lists a category twice: {by}")
    return by


def _working(points: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The columns the tests need, without metadata (subsets would deep-copy it)."""
    _check_points(points, by)
    work = points[["expert", *by, "delta", "r", "quality"]].copy()
    work.attrs = {}
    return work


def _run(
    points: pd.DataFrame,
    plan: list[_Family],
    settings: _Settings,
    rng: int | np.random.Generator | None,
    progress: bool,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Every family of *plan*, in parallel through joblib, rows in plan order.

    Each family draws from its own child of *rng* (``spawn``), so the table
    is the same whatever the number of jobs or the joblib backend.
    """
    groups = ["expert", *dict.fromkeys(f.group for f in plan if f.group != "expert")]
    _check_points(points, groups[1:])
    cols = _columns(points, groups)
    gens = np.random.default_rng(rng).spawn(len(plan))
    from joblib import Parallel, delayed

    jobs = (
        delayed(_family)(cols.take(f.index, f.group), f.group, f.within, settings, g)
        for f, g in zip(plan, gens, strict=True)
    )
    rows: list[dict] = []
    bar = _progress_bar(len(plan), progress)
    # threads by default: the products release the GIL, and threads start at once
    # (a backend set with joblib.parallel_config, e.g. Dask, takes precedence)
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")
    try:
        with blas_threads(len(points)):
            for family_rows in parallel(jobs):
                rows += family_rows
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return _frame(rows)


def _progress_bar(total: int, show: bool):
    """A tqdm bar of designs on stderr (also shown in Jupyter, no widget needed), or None."""
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="tests", unit="design", file=sys.stderr)


def default_categories(points: pd.DataFrame) -> list[str]:
    """The categories tested by default: all, except relabellings of others.

    A category is left out when its options are in one-to-one
    correspondence with the options of an earlier category (a duplicate
    under other labels) or with the combinations of options of two or more
    other categories, none of which alone does so (an interaction label,
    e.g. the study's ``modality_name``: one painter or movement per
    movement × modality). A coarser grouping (``criterion_group`` of
    ``criterion``) is kept.
    Its tests would repeat, or mix, the tests of those columns.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` (categories read from its attrs).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import rrmap
    >>> default_categories(rrmap.points(rrmap.datasets.load_example_ratings()))
    ['movement', 'criterion', 'criterion_group', 'modality']
    """
    keys = points.attrs.get("rrmap", {}).get("keys")
    cats = [k for k in keys if k != "expert"] if keys else []
    if not cats:
        raise InputError(
            "no category columns recorded in the points table; pass by=[...] explicitly"
        )
    codes = {c: pd.factorize(points[c].astype(str).to_numpy())[0] for c in cats}
    kept: list[str] = []
    for i, cat in enumerate(cats):
        others = [c for c in cats if c != cat]
        earlier = cats[:i]
        if any(_bijective(codes, cat, [o]) for o in earlier):
            continue
        if len(others) <= 12 and any(
            _bijective(codes, cat, list(s)) and not _has_bijective_part(codes, cat, s)
            for r in range(2, len(others) + 1)
            for s in combinations(others, r)
        ):
            continue
        kept.append(cat)
    return kept


def _has_bijective_part(codes: dict[str, np.ndarray], col: str, cols: tuple[str, ...]) -> bool:
    """Whether a proper subset of *cols* already relabels *col* (then *cols* is not minimal)."""
    return any(
        _bijective(codes, col, list(part))
        for r in range(1, len(cols))
        for part in combinations(cols, r)
    )


def _combined(codes: dict[str, np.ndarray], cols: list[str]) -> np.ndarray:
    """One integer per distinct combination of the options of *cols*."""
    key = np.zeros(len(codes[cols[0]]), dtype=np.int64)
    for c in cols:
        key = key * (int(codes[c].max(initial=0)) + 1) + codes[c]
        key = np.unique(key, return_inverse=True)[1]  # keep the keys small
    return key


def _bijective(codes: dict[str, np.ndarray], col: str, others: list[str]) -> bool:
    """Whether the options of *col* and the combinations of *others* correspond one to one."""
    a, b = codes[col], _combined(codes, others)
    pairs = np.unique(a * (int(b.max(initial=0)) + 1) + b)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def run_designs(
    points: pd.DataFrame,
    by: str | Sequence[str] | None = None,
    *,
    tests: Sequence[TestKind] = _KINDS,
    n_perm: int = 5000,
    chi2_n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    p_adjust: str = "none",
    progress: bool = False,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """All three designs of the paper, for both test kinds, in one table.

    Order: the expert effect overall; the expert effect per option of each
    category in *by*; the effect of each category per rater. Within each
    family the k-sample test comes first, then the pairs; energy rows
    before χ² rows.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str or sequence of str, optional
        Categories (default: :func:`default_categories`).
    tests, n_perm, chi2_n_perm, rng, stop_hits
        As in :func:`compare_groups`. Each family (a k-sample test and its
        pairs) draws from its own child of the seed, so a seed reproduces
        the whole table.
    p_adjust : {"none", "holm", "fdr_bh"}
        Add adjusted p-values (see :func:`adjust_pvalues`).
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
    work = _working(points, by)
    settings = _settings(tests, n_perm, chi2_n_perm, stop_hits)
    out = _run(work, _plan(work, by), settings, rng, progress, n_jobs)
    return adjust_pvalues(out, p_adjust)
