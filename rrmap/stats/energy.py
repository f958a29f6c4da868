"""Energy distance permutation tests on RRMap points (docs/tests.md).

The k-sample energy statistic of Székely & Rizzo (Euclidean distance,
V-statistic) for samples ``S_1 … S_k`` of sizes ``n_i`` is::

    E = Σ_{i<j} n_i n_j / (n_i + n_j) · (2 M_ij − M_ii − M_jj)

with ``M_ij`` the mean distance between ``S_i`` and ``S_j`` (``M_ii``
includes the zero diagonal). It is exactly the statistic of
:func:`dcor.homogeneity.energy_test` (exponent 1) and of R's
``energy::eqdist.etest``.

The permutation engine (:mod:`rrmap.stats._permutation`) evaluates chunks
of relabellings as matrix products on the block sums ``G = Lᵀ D L``, shares
one stream of relabellings between tests with the same group sizes, stops
clearly non-significant tests early (Besag & Clifford's sequential
p-values, ``stop_hits``) and recomputes distances in row blocks when they
do not fit the memory budget.

p-value (docs/tests.md), with ``B`` relabellings drawn::

    p = (1 + #{E_b ≥ E_obs − τ}) / (B + 1),   τ = 1e-12·|E_obs| + 16·n·ε·S

with ``S = Σ_{i<j} w_ij (2 M_ij + M_ii + M_jj)`` the size of the terms of
``E_obs``: relabellings that tie with the observed one in exact arithmetic
(common with coarse ratings) are always counted. With ``stop_hits = h``, a
test stops at the ``L``-th relabelling once ``h`` of them reached E_obs,
with ``p = h / L``.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rrmap._util.escape import join_groups
from rrmap._util.streams import Streams
from rrmap.errors import InputError, PermutationWarning
from rrmap.limits import MAX_PERMUTATIONS, check_count
from rrmap.stats import _permutation as _engine
from rrmap.stats._permutation import DEFAULT_CHUNK_BYTES, DEFAULT_MEMORY_BYTES, PlannedTest
from rrmap.stats.settings import DEFAULT_STOP_HITS
from rrmap.stats.settings import _stop_hits as _check_stop_hits

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "DEFAULT_MEMORY_BYTES",
    "DEFAULT_STOP_HITS",
    "EnergyDispersion",
    "EnergyTestResult",
    "energy_dispersion",
    "energy_statistic",
    "energy_test",
    "energy_tests",
    "pairwise_distances",
]
# check_labels is shared with rrmap.stats.designs, not part of the public surface


@dataclass(frozen=True)
class EnergyTestResult:
    """Result of an energy permutation test.

    Attributes
    ----------
    statistic : float
        The observed energy statistic ``E``.
    pvalue : float
        Permutation p-value ``(1 + #{E_b ≥ E_obs}) / (B + 1)``, or the
        sequential ``h / L`` when the test stopped early; NaN when no
        permutations were drawn.
    n_perm : int
        Number of relabellings drawn (``B``, or ``L`` when stopped early).
    sizes : tuple of int
        Sample sizes.
    effect : float
        Between-sample share of the energy dispersion (R ``energy::disco``,
        α = 1; :func:`energy_dispersion`): 0 when the samples are alike, up
        to 1.
    pvalue_mid : float
        The mid-p (Lancaster, 1961): relabellings that tie with the observed
        statistic counted half, ``(1/2 + #{E_b > E_obs} + #{E_b = E_obs}/2) / (B + 1)``
        (``(h − ties/2) / L`` when stopped early).

    Examples
    --------
    >>> import numpy as np
    >>> res = energy_test(np.zeros((3, 2)), np.ones((4, 2)), n_perm=99, rng=0)
    >>> res.sizes, round(res.statistic, 6)
    ((3, 4), 4.848732)
    """

    statistic: float
    pvalue: float
    n_perm: int
    sizes: tuple[int, ...]
    effect: float = float("nan")
    pvalue_mid: float = float("nan")


def _as_points(x: ArrayLike, name: str) -> np.ndarray:
    if isinstance(x, pd.DataFrame) and "delta" in x.columns and "r" in x.columns:
        hint = "pass points[['delta', 'r']]"
    else:
        hint = "pass numeric coordinates, e.g. points[['delta', 'r']]"
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{name}: an energy test compares numeric points, not text ({exc}); {hint}, or "
            "test a category of an RRMap points table with rrmap.stats.compare_groups(points, "
            "by=...)"
        ) from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(f"{name}: expected a 2-D array of points, got shape {arr.shape}")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        raise InputError(
            f"{name}: {int(bad.sum())} point(s) with NaN or inf ({_row_list(bad)}); "
            "energy tests need finite coordinates"
        )
    return arr


def _warn_if_floor_above(n_perm: int, alpha: float) -> None:
    """The :class:`~rrmap.errors.PermutationWarning` of ``rrmap analyze`` for one test: with
    *n_perm* permutations no p-value can be below *alpha*."""
    if n_perm and 1.0 / (n_perm + 1) > alpha:
        warnings.warn(
            f"with {n_perm} permutations the smallest energy p-value is 1/{n_perm + 1} ≈ "
            f"{1.0 / (n_perm + 1):.2g}, above {alpha}: the test can never be significant; use "
            f"at least {int(np.ceil(1 / alpha - 1))} permutations",
            PermutationWarning,
            stacklevel=3,
        )


def _row_list(mask: np.ndarray) -> str:
    """``rows 3, 7`` (or ``row 3``) for a mask, the first 20 shown."""
    rows = np.flatnonzero(mask)
    shown = ", ".join(str(i) for i in rows[:20]) + (" …" if len(rows) > 20 else "")
    return f"row{'s' if len(rows) > 1 else ''} {shown}"


def pairwise_distances(x: ArrayLike) -> np.ndarray:
    """Euclidean distance matrix of the rows of *x*.

    Parameters
    ----------
    x : array_like, shape (n, d)
        Finite points (NaN or inf raise :class:`~rrmap.errors.InputError`).

    Returns
    -------
    ndarray, shape (n, n)

    Examples
    --------
    >>> pairwise_distances([[0, 0], [3, 4]])
    array([[0., 5.],
           [5., 0.]])
    """
    pts = _as_points(x, "points")
    return _engine.distances(pts, pts)


def _check_n_perm(n_perm: int, name: str = "n_perm", maximum: int = MAX_PERMUTATIONS) -> int:
    return check_count(name, n_perm, maximum)


def energy_statistic(*samples: ArrayLike) -> float:
    """The k-sample energy statistic ``E`` (docs/tests.md).

    Parameters
    ----------
    *samples : array_like, shape (n_i, d)
        Two or more samples of points (e.g. the (Δ, R) points of each rater).

    Returns
    -------
    float
        Equal to ``dcor.homogeneity.energy_test(*samples).statistic``.

    Examples
    --------
    >>> round(energy_statistic([[0.0], [1.0]], [[2.0], [3.0]]), 12)
    3.0
    """
    pts, codes, sizes = _pool(samples)
    spec = PlannedTest(np.arange(len(pts)), codes, len(sizes))
    return _engine.run_tests(pts, [spec], 0, lambda key: np.random.default_rng(0))[0].statistic


@dataclass(frozen=True)
class EnergyDispersion:
    """The energy dispersion of pooled samples split into between and within parts.

    As R ``energy::disco`` with α = 1: ``total = N/2 · mean |x − y|`` over all
    pairs of pooled points, ``within = Σ_j n_j/2 · mean |x − y|`` within sample
    j, ``between = total − within`` and ``share = between / total``.

    Examples
    --------
    >>> d = energy_dispersion([[0.0], [1.0]], [[2.0], [3.0]])
    >>> d.between, d.within, d.total, d.share
    (1.5, 1.0, 2.5, 0.6)
    """

    between: float
    within: float
    total: float
    share: float


def energy_dispersion(*samples: ArrayLike) -> EnergyDispersion:
    """Between, within and total energy dispersion (DISCO, α = 1) of two or more samples.

    ``share = between / total`` is the effect size of an energy test in the
    tests table (``effect``): the part of the points' spread that lies
    between the groups, 0 when they are identically placed.

    Parameters
    ----------
    *samples : array_like, shape (n_i, d)
        Two or more samples of finite points.

    Returns
    -------
    EnergyDispersion

    Examples
    --------
    >>> round(energy_dispersion([[0.0], [1.0]], [[0.0], [1.0]]).share, 12)
    0.0
    """
    pts, codes, sizes = _pool(samples)
    d = _engine.distances(pts, pts)
    n = float(len(pts))
    total = float(d.sum()) / (2.0 * n)
    within = sum(
        float(d[np.ix_(codes == j, codes == j)].sum()) / (2.0 * int(sizes[j]))
        for j in range(len(sizes))
    )
    between = total - within
    return EnergyDispersion(between, within, total, between / total if total > 0 else np.nan)


def _pool(samples: Sequence[ArrayLike]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(samples) < 2:
        raise InputError(f"an energy test needs at least two samples, got {len(samples)}")
    arrs = [_as_points(s, f"sample {i + 1}") for i, s in enumerate(samples)]
    dims = {a.shape[1] for a in arrs}
    if len(dims) != 1:
        raise InputError(f"samples have different dimensions: {[a.shape[1] for a in arrs]}")
    sizes = np.array([len(a) for a in arrs])
    small = [f"sample {i + 1} has {s} point(s)" for i, s in enumerate(sizes) if s < 2]
    if small:
        raise InputError("every sample needs at least 2 points: " + "; ".join(small))
    codes = np.repeat(np.arange(len(arrs)), sizes)
    return np.concatenate(arrs), codes, sizes


def _check_options(chunk_size: int | None, stop_hits: int | None, memory: int) -> None:
    if chunk_size is not None and (isinstance(chunk_size, bool) or int(chunk_size) < 1):
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    _check_stop_hits(stop_hits)
    if isinstance(memory, bool) or int(memory) < 2**20:
        raise InputError(f"memory must be at least 1 MiB (in bytes), got {memory!r}")


def energy_test(
    *samples: ArrayLike,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    chunk_size: int | None = None,
    memory: int = DEFAULT_MEMORY_BYTES,
) -> EnergyTestResult:
    """k-sample energy distance permutation test (H0: identical distributions).

    Parameters
    ----------
    *samples : array_like, shape (n_i, d)
        Two or more samples, each with at least 2 finite points.
    n_perm : int, default 5000
        Maximum number of relabellings ``B`` of the pooled labels.
    rng : int, Generator or None
        Seed (the relabellings come from the seed and the group sizes only,
        docs/tests.md) or a generator (one root seed is drawn from it).
    stop_hits : int or None, default 100
        Sequential p-value (Besag & Clifford, 1991): stop once this many
        relabellings reached the observed statistic, with ``p = h / L``
        after ``L`` relabellings. The p-value stays valid; a test with
        ``p ≤ h / B`` still draws all ``B``. ``None`` or 0 always draws ``B``.
    chunk_size : int, optional
        Relabellings evaluated per matrix product (default: from a 32 MiB
        budget). Never changes the result.
    memory : int, default 1 GiB
        Bytes the distance matrix may take; a larger one is recomputed in
        row blocks for every chunk instead of being held.

    Returns
    -------
    EnergyTestResult
        ``n_perm`` is the number of relabellings actually drawn.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(1)
    >>> a, b = g.normal(size=(30, 2)), g.normal(loc=1.0, size=(30, 2))
    >>> res = energy_test(a, b, n_perm=999, rng=0)
    >>> res.pvalue, res.n_perm
    (0.001, 999)
    >>> same = energy_test(a, g.normal(size=(30, 2)), n_perm=999, rng=0)
    >>> bool(same.pvalue > 0.05), same.n_perm < 999  # stopped early: clearly not significant
    (True, True)
    """
    n_perm = _check_n_perm(n_perm)
    _check_options(chunk_size, stop_hits, memory)
    _warn_if_floor_above(n_perm, 0.05)
    pts, codes, sizes = _pool(samples)
    spec = PlannedTest(np.arange(len(pts)), codes, len(sizes))
    streams = _energy_streams(Streams.of(rng), "", "all")
    with _engine.blas_threads(len(pts)):
        out = _engine.run_tests(pts, [spec], n_perm, streams, stop_hits or None, chunk_size, memory)
    out = out[0]
    return EnergyTestResult(
        out.statistic, out.pvalue, out.n_perm, tuple(int(s) for s in sizes), out.share, out.mid
    )


def _energy_streams(
    streams: Streams, by: str, within: str
) -> Callable[[tuple], np.random.Generator]:
    """The stream of each batch of energy tests of the family (*by*, *within*): its identity
    is the family and the batch's group sizes and relabelling scheme, nothing else."""

    def stream(key: tuple) -> np.random.Generator:
        sizes, blocks, _exact, strata = key
        design = f"matched:{blocks}" if blocks else "independent"
        if strata is not None:  # within keys of unequal sizes: the layout is the identity
            design = "matched-strata:" + hashlib.sha256(strata).hexdigest()[:16]
        return streams.generator("energy", by, within, design, *sizes)

    return stream


def energy_tests(
    x: ArrayLike,
    labels: ArrayLike,
    *,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    pairwise: bool = True,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    chunk_size: int | None = None,
    memory: int = DEFAULT_MEMORY_BYTES,
) -> pd.DataFrame:
    """All groups at once (k-sample) and every pair of groups.

    Groups with fewer than 2 points, or a single group, give a row with a
    NaN p-value and the reason in ``note`` (never a silent p-value); so
    does ``n_perm=0``, which still reports the statistic. With
    exactly two groups the global test is the pairwise test and is
    reported once. Tests with the same group sizes share one stream of
    relabellings (each p-value stays valid).

    Parameters
    ----------
    x : array_like, shape (n, d)
        Pooled finite points.
    labels : array_like, shape (n,)
        Group of each point.
    n_perm : int, default 5000
        Maximum relabellings per test.
    rng : int, Generator or None
        Seed or generator; the tests with the same group sizes share one
        stream of relabellings, made from the seed and those sizes only.
    pairwise : bool, default True
        Add the two-sample test of every pair of groups.
    stop_hits, chunk_size, memory
        As in :func:`energy_test`.

    Returns
    -------
    DataFrame
        One row per test: ``groups`` (sorted, joined with ``|``), ``n``,
        ``statistic``, ``pvalue``, ``n_perm`` (relabellings drawn), ``note``.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(0)
    >>> x = np.vstack([g.normal(size=(20, 2)), g.normal(2, size=(20, 2)), g.normal(size=(20, 2))])
    >>> res = energy_tests(x, ["a"] * 20 + ["b"] * 20 + ["c"] * 20, n_perm=199, rng=0)
    >>> res["groups"].tolist()
    ['a|b|c', 'a|b', 'a|c', 'b|c']
    >>> bool(res.pvalue.iloc[1] < 0.05), bool(res.pvalue.iloc[2] > 0.05)
    (True, True)
    """
    n_perm = _check_n_perm(n_perm)
    _check_options(chunk_size, stop_hits, memory)
    _warn_if_floor_above(n_perm, 0.05)
    pts = _as_points(x, "points")
    lab = pd.Series(np.asarray(labels, dtype=object))
    if len(lab) != len(pts):
        raise InputError(f"{len(lab)} labels for {len(pts)} points")
    check_labels(lab.to_numpy(), "labels")
    names = sorted(pd.unique(lab.to_numpy()), key=str)
    position = {name: i for i, name in enumerate(names)}
    codes = np.fromiter((position[v] for v in lab), dtype=np.intp, count=len(lab))
    with _engine.blas_threads(len(pts)):
        rows = _test_rows(
            pts,
            codes,
            names,
            n_perm,
            _energy_streams(Streams.of(rng), "", "all"),
            pairwise,
            stop_hits=stop_hits,
            chunk_size=chunk_size,
            memory=memory,
        )
    columns = ["groups", "n", "statistic", "pvalue", "n_perm", "effect", "note"]
    return pd.DataFrame(rows, columns=columns)


def _test_rows(
    pts: np.ndarray,
    codes: np.ndarray,
    names: Sequence,
    n_perm: int,
    streams: Callable[[tuple], np.random.Generator],
    pairwise: bool = True,
    *,
    stop_hits: int | None = DEFAULT_STOP_HITS,
    chunk_size: int | None = None,
    memory: int = DEFAULT_MEMORY_BYTES,
) -> list[dict]:
    """The k-sample test of the groups *names* and (with *pairwise*) every pair, as rows.

    Point i is in group ``names[codes[i]]``; a name with no point is a group
    of 0 points, and its tests are skipped with a note. Shared with the
    designs (:mod:`rrmap.stats.designs`), which code each column once.
    """
    counts = np.bincount(codes, minlength=len(names))
    rows, specs, runs = [], [], []
    for grp in group_sets(len(names), pairwise):
        row, spec = _plan_test(codes, counts, grp, names, n_perm)
        rows.append(row)
        if spec is not None:
            specs.append(spec)
            runs.append(row)
    if specs:
        results = _engine.run_tests(
            pts, specs, n_perm, streams, stop_hits or None, chunk_size, memory
        )
        for row, res in zip(runs, results, strict=True):
            row.update(
                statistic=res.statistic, pvalue=res.pvalue, n_perm=res.n_perm, effect=res.share
            )
    return rows


def check_labels(labels: np.ndarray, what: str) -> None:
    """Reject missing group labels and distinct labels that print alike (``1`` and ``"1"``).

    Parameters
    ----------
    labels : ndarray
        Group labels, one per point.
    what : str
        How to name them in the message (``"labels"``, ``"column 'expert'"``).

    Raises
    ------
    rrmap.errors.InputError

    Examples
    --------
    >>> import numpy as np
    >>> check_labels(np.array(["a", None, "b"], dtype=object), "labels")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: labels: missing value at row 1; every point needs a group
    """
    missing = pd.isna(pd.Series(labels, dtype=object)).to_numpy()
    if missing.any():
        raise InputError(
            f"{what}: missing value at {_row_list(missing)}; every point needs a group"
        )
    distinct = pd.unique(pd.Series(labels, dtype=object))
    printed: dict[str, object] = {}
    for v in distinct:
        key = str(v)
        if key in printed and not bool(printed[key] == v):
            raise InputError(
                f"{what}: labels {printed[key]!r} and {v!r} are different values that print "
                "the same; give the labels one type"
            )
        printed.setdefault(key, v)


def _skip_reason(names: Sequence, counts: Sequence[int]) -> str:
    if len(names) < 2:
        only = names[0] if names else "none"
        return f"single group ({only}): nothing to compare"
    small = [
        f"{g} has {c} point{'s' if c != 1 else ''}" for g, c in zip(names, counts, strict=True)
    ]
    small = [s for s, c in zip(small, counts, strict=True) if c < 2]
    return ("group with < 2 points: " + "; ".join(small)) if small else ""


def group_sets(k: int, pairwise: bool) -> list[tuple[int, ...]]:
    """The groups of each test of k groups: all of them, then (with *pairwise*, k > 2)
    every pair; as positions 0 … k − 1."""
    sets: list[tuple[int, ...]] = [tuple(range(k))]
    if pairwise and k > 2:
        sets += list(combinations(range(k), 2))
    return sets


def _plan_test(
    codes: np.ndarray, counts: np.ndarray, grp: tuple[int, ...], names: Sequence, n_perm: int
) -> tuple[dict, PlannedTest | None]:
    """The row of the test of groups *grp* (positions in *names*), and what the engine
    needs to run it (None when it is skipped)."""
    sub = [int(counts[i]) for i in grp]
    labels = [names[i] for i in grp]
    row = {
        "groups": join_groups(labels),
        "n": sum(sub),
        "statistic": np.nan,
        "pvalue": np.nan,
        "n_perm": n_perm,
        "effect": np.nan,
        "note": _skip_reason(labels, sub),
    }
    if row["note"]:
        row["n_perm"] = 0
        return row, None
    if n_perm == 0:
        row["note"] = "statistic only: no permutations (n_perm = 0), no p-value"
    if len(grp) == len(names):
        return row, PlannedTest(np.arange(len(codes)), codes, len(grp))
    local = np.full(len(names), -1, dtype=np.intp)
    local[list(grp)] = np.arange(len(grp))
    mapped = local[codes]
    idx = np.flatnonzero(mapped >= 0)
    return row, PlannedTest(idx, mapped[idx], len(grp))
