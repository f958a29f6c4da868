"""Energy distance permutation tests on RRMap points (docs/tests.md).

The k-sample energy statistic of Székely & Rizzo (Euclidean distance,
V-statistic) for samples ``S_1 … S_k`` of sizes ``n_i`` is::

    E = Σ_{i<j} n_i n_j / (n_i + n_j) · (2 M_ij − M_ii − M_jj)

with ``M_ij`` the mean distance between ``S_i`` and ``S_j`` (``M_ii``
includes the zero diagonal). It is exactly the statistic of
:func:`dcor.homogeneity.energy_test` (exponent 1) and of R's
``energy::eqdist.etest``.

The permutation engine computes the pooled distance matrix ``D`` once. The
statistic only depends on the block sums ``G = Lᵀ D L`` (``L`` the one-hot
group labels), so a chunk of ``C`` permutations is evaluated as one matrix
product ``D @ [L_1 … L_C]`` followed by ``L_bᵀ (D L_b)`` for every ``b``
at once; only ``k − 1`` label columns are multiplied (the last row of ``G``
follows from the row sums of ``D``). The chunk size bounds the memory
(about ``3 n C (k − 1)`` floats), not the number of permutations. Pairwise
tests reuse sub-blocks of the same ``D``.

The observed statistic goes through the same arithmetic as the permuted
ones (it is the identity relabelling), and the group derived by subtraction
is the largest one, so the rounding error of every statistic is a small
multiple of ``n·ε`` times the scale of its block terms.

p-value (docs/tests.md)::

    p = (1 + #{E_b ≥ E_obs − τ}) / (B + 1),   τ = 1e-12·|E_obs| + 16·n·ε·S

with ``S = Σ_{i<j} w_ij (2 M_ij + M_ii + M_jj)`` the size of the terms of
``E_obs``: relabellings that tie with the observed one in exact arithmetic
(common with coarse ratings) are always counted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.spatial.distance import cdist

from rrmap.errors import InputError

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "EnergyTestResult",
    "energy_statistic",
    "energy_test",
    "energy_tests",
    "pairwise_distances",
]
# check_labels is shared with rrmap.stats.designs, not part of the public surface

#: Memory budget of one chunk of permutations (bytes), used when no
#: explicit ``chunk_size`` is given.
DEFAULT_CHUNK_BYTES = 32 * 2**20

#: Relative tolerance of the ``E_b ≥ E_obs`` comparison (docs/tests.md).
_REL_TOL = 1e-12

#: Rounding allowance of a statistic, in units of ``n·ε·S`` (docs/tests.md).
_ROUNDING_ULPS = 16

#: Up to this many points, matrix products run on one BLAS thread: the
#: products are small and many, and thread start-up costs more than it saves.
_SINGLE_THREAD_MAX_N = 2048


@contextmanager
def _blas_threads(n: int) -> Iterator[None]:
    """One BLAS thread for small distance matrices (no-op without threadpoolctl)."""
    if n > _SINGLE_THREAD_MAX_N:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


@dataclass(frozen=True)
class EnergyTestResult:
    """Result of an energy permutation test.

    Attributes
    ----------
    statistic : float
        The observed energy statistic ``E``.
    pvalue : float
        Permutation p-value ``(1 + #{E_b ≥ E_obs}) / (B + 1)``; NaN when no
        permutations were drawn.
    n_perm : int
        Number of permutations ``B``.
    sizes : tuple of int
        Sample sizes.

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


def _as_points(x: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=float)
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
    return cdist(pts, pts)


def _statistic_from_blocks(g: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """E from block sums ``g`` (shape (..., k, k)) and group sizes (k,)."""
    nn = np.outer(sizes, sizes).astype(float)
    m = g / nn
    diag = np.diagonal(m, axis1=-2, axis2=-1)
    k = len(sizes)
    iu, ju = np.triu_indices(k, 1)
    w = nn[iu, ju] / (sizes[iu] + sizes[ju])
    terms = 2.0 * m[..., iu, ju] - diag[..., iu] - diag[..., ju]
    return terms @ w


def _term_scale(g: np.ndarray, sizes: np.ndarray) -> float:
    """``S = Σ_{i<j} w_ij (2 M_ij + M_ii + M_jj)``: the size of the terms that make E."""
    nn = np.outer(sizes, sizes).astype(float)
    m = g / nn
    iu, ju = np.triu_indices(len(sizes), 1)
    w = nn[iu, ju] / (sizes[iu] + sizes[ju])
    return float((2.0 * m[iu, ju] + m[iu, iu] + m[ju, ju]) @ w)


def _largest_last(codes: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Renumber the groups so that the largest one is last (E does not depend on the order).

    The engine derives the last group's block sums by subtraction; for the
    largest group that subtraction loses the least precision.
    """
    order = np.argsort(sizes, kind="stable")
    remap = np.empty(len(sizes), dtype=np.int64)
    remap[order] = np.arange(len(sizes))
    return remap[codes], sizes[order]


def _blocks(d: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    onehot = np.zeros((len(codes), k))
    onehot[np.arange(len(codes)), codes] = 1.0
    return onehot.T @ d @ onehot


def _observed(d: np.ndarray, codes: np.ndarray, sizes: np.ndarray) -> float:
    """E of the observed labels, through the same arithmetic as the relabellings."""
    codes, sizes = _largest_last(codes, sizes)
    rowsum = d.sum(axis=1)
    stat = _relabelled_statistics(d, codes[:, None], sizes, rowsum, float(rowsum.sum()))
    return float(stat[0])


def _tolerance(d: np.ndarray, codes: np.ndarray, sizes: np.ndarray, observed: float) -> float:
    """τ of the p-value: relabellings within τ below E_obs tie with it (docs/tests.md)."""
    scale = _term_scale(_blocks(d, codes, len(sizes)), sizes)
    eps = float(np.finfo(float).eps)
    return _REL_TOL * abs(observed) + _ROUNDING_ULPS * len(codes) * eps * scale


def _chunk(n: int, k: int, n_perm: int, chunk_size: int | None) -> int:
    if chunk_size is not None:
        if isinstance(chunk_size, bool) or int(chunk_size) < 1:
            raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}")
        return min(int(chunk_size), max(n_perm, 1))
    per_perm = 8 * n * (3 * max(k - 1, 1) + 2)  # keys, one-hot, D @ L (+ copies)
    return int(max(1, min(n_perm, DEFAULT_CHUNK_BYTES // per_perm)))


def _draw_relabellings(codes: np.ndarray, c: int, rng: np.random.Generator) -> np.ndarray:
    """*c* uniform random permutations of *codes*, shape (n, c) (one per column).

    The labels are sorted on random keys of at least 50 bits (ties have
    probability < 1e-8 for n ≤ 10⁴); labels and keys are packed into one
    int64 so that a single vectorised sort permutes every row.
    """
    bits = max(1, int(codes.max(initial=0)).bit_length())
    keys = (rng.integers(0, 1 << (62 - bits), size=(c, len(codes))) << bits) | codes.astype(
        np.int64
    )
    keys.sort(axis=1)
    return (keys & ((1 << bits) - 1)).T


def _relabelled_statistics(
    d: np.ndarray, perm_codes: np.ndarray, sizes: np.ndarray, rowsum: np.ndarray, total: float
) -> np.ndarray:
    """E for each relabelling (column) of *perm_codes* (n, c): G = Lᵀ D L as matrix products.

    Only the first ``k − 1`` one-hot columns enter the product: the last
    row/column of ``G`` follows from the row sums ``u = Lᵀ (D 1)`` and the
    total ``1ᵀ D 1``.
    """
    n, c = perm_codes.shape
    k = len(sizes)
    km = k - 1
    onehot = np.empty((n, km, c))
    for j in range(km):
        np.equal(perm_codes, j, out=onehot[:, j, :])
    flat = onehot.reshape(n, km * c)
    dl = (d @ flat).reshape(n, km, c)
    g = np.empty((c, k, k))
    if km <= 3:
        for j in range(km):
            for jj in range(j, km):
                v = np.einsum("ib,ib->b", onehot[:, j, :], dl[:, jj, :])
                g[:, j, jj] = v
                g[:, jj, j] = v
    else:
        # segmented sums: G[b, j, j'] = Σ_i [label_b(i) = j] (D L_b)[i, j']
        seg = (perm_codes * c + np.arange(c)).ravel()
        for jj in range(km):
            col = np.bincount(seg, weights=dl[:, jj, :].ravel(), minlength=k * c)
            g[:, :km, jj] = col.reshape(k, c)[:km].T
    u = (rowsum @ flat).reshape(km, c).T  # (c, km)
    last = u - g[:, :km, :km].sum(axis=2)
    g[:, :km, km] = last
    g[:, km, :km] = last
    g[:, km, km] = (total - u.sum(axis=1)) - last.sum(axis=1)
    return _statistic_from_blocks(g, sizes)


def _permutation_statistics(
    d: np.ndarray,
    codes: np.ndarray,
    sizes: np.ndarray,
    n_perm: int,
    rng: np.random.Generator,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Energy statistics of *n_perm* random relabellings, chunk by chunk."""
    out = np.empty(n_perm)
    codes, sizes = _largest_last(codes, sizes)
    step = _chunk(len(codes), len(sizes), n_perm, chunk_size)
    rowsum = d.sum(axis=1)
    total = float(rowsum.sum())
    done = 0
    while done < n_perm:
        c = min(step, n_perm - done)
        perm_codes = _draw_relabellings(codes, c, rng)
        out[done : done + c] = _relabelled_statistics(d, perm_codes, sizes, rowsum, total)
        done += c
    return out


def _pvalue(observed: float, perm_stats: np.ndarray, tolerance: float) -> float:
    if len(perm_stats) == 0:
        return float("nan")
    hits = np.count_nonzero(perm_stats >= observed - tolerance)
    return float((1.0 + hits) / (len(perm_stats) + 1.0))


def _check_n_perm(n_perm: int) -> int:
    if isinstance(n_perm, bool) or int(n_perm) != n_perm or n_perm < 0:
        raise InputError(f"n_perm must be a non-negative integer, got {n_perm!r}")
    return int(n_perm)


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
    return _observed(pairwise_distances(pts), codes, sizes)


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


def energy_test(
    *samples: ArrayLike,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    chunk_size: int | None = None,
) -> EnergyTestResult:
    """k-sample energy distance permutation test (H0: identical distributions).

    Parameters
    ----------
    *samples : array_like, shape (n_i, d)
        Two or more samples, each with at least 2 finite points.
    n_perm : int, default 5000
        Number of permutations ``B`` of the pooled labels.
    rng : int, Generator or None
        Seed or generator (normalised with :func:`numpy.random.default_rng`).
    chunk_size : int, optional
        Permutations evaluated per matrix product (default: from a 32 MiB
        memory budget).

    Returns
    -------
    EnergyTestResult

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(1)
    >>> a, b = g.normal(size=(30, 2)), g.normal(loc=1.0, size=(30, 2))
    >>> res = energy_test(a, b, n_perm=999, rng=0)
    >>> res.pvalue < 0.01, res.n_perm
    (True, 999)
    """
    n_perm = _check_n_perm(n_perm)
    pts, codes, sizes = _pool(samples)
    d = pairwise_distances(pts)
    gen = np.random.default_rng(rng)
    with _blas_threads(len(codes)):
        obs = _observed(d, codes, sizes)
        perm = _permutation_statistics(d, codes, sizes, n_perm, gen, chunk_size)
    pvalue = _pvalue(obs, perm, _tolerance(d, codes, sizes, obs))
    return EnergyTestResult(obs, pvalue, n_perm, tuple(int(s) for s in sizes))


def energy_tests(
    x: ArrayLike,
    labels: ArrayLike,
    *,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    pairwise: bool = True,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """All groups at once (k-sample) and every pair of groups, from one distance matrix.

    Groups with fewer than 2 points, or a single group, give a row with a
    NaN p-value and the reason in ``note`` (never a silent p-value); so
    does ``n_perm=0``, which still reports the statistic. With
    exactly two groups the global test is the pairwise test and is
    reported once.

    Parameters
    ----------
    x : array_like, shape (n, d)
        Pooled finite points.
    labels : array_like, shape (n,)
        Group of each point.
    n_perm : int, default 5000
        Permutations per test.
    rng : int, Generator or None
        Seed or generator; tests draw from it in row order.
    pairwise : bool, default True
        Add the two-sample test of every pair of groups.
    chunk_size : int, optional
        Permutations per matrix product.

    Returns
    -------
    DataFrame
        One row per test: ``groups`` (sorted, joined with ``|``), ``n``,
        ``statistic``, ``pvalue``, ``n_perm``, ``note``.

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
    pts = _as_points(x, "points")
    lab = pd.Series(np.asarray(labels, dtype=object))
    if len(lab) != len(pts):
        raise InputError(f"{len(lab)} labels for {len(pts)} points")
    check_labels(lab.to_numpy(), "labels")
    return _tests_from_distances(
        pairwise_distances(pts),
        lab.to_numpy(),
        n_perm,
        np.random.default_rng(rng),
        pairwise,
        chunk_size,
    )


def _tests_from_distances(
    d: np.ndarray,
    lab_arr: np.ndarray,
    n_perm: int,
    gen: np.random.Generator,
    pairwise: bool = True,
    chunk_size: int | None = None,
    names: Sequence | None = None,
) -> pd.DataFrame:
    """:func:`energy_tests` on a precomputed distance matrix.

    *names* are the groups to compare (default: those in *lab_arr*); a name
    with no point is a group of 0 points, and its tests are skipped with a note.
    """
    if names is None:
        names = sorted(pd.unique(lab_arr), key=str)
    rows: list[dict] = []
    sets: list[tuple] = [tuple(names)]
    if pairwise and len(names) > 2:
        sets += list(combinations(names, 2))
    with _blas_threads(len(lab_arr)):
        for grp in sets:
            idx = np.flatnonzero(pd.Series(lab_arr, dtype=object).isin(grp).to_numpy())
            rows.append(_one_test(d, lab_arr, idx, grp, n_perm, gen, chunk_size))
    return pd.DataFrame(rows, columns=["groups", "n", "statistic", "pvalue", "n_perm", "note"])


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


def _one_test(d, lab_arr, idx, grp, n_perm, gen, chunk_size) -> dict:
    sub_lab = lab_arr[idx]
    codes = np.empty(len(idx), dtype=int)
    counts = []
    for i, g in enumerate(grp):
        mask = sub_lab == g
        codes[mask] = i
        counts.append(int(mask.sum()))
    row = {
        "groups": "|".join(str(g) for g in grp),
        "n": len(idx),
        "statistic": np.nan,
        "pvalue": np.nan,
        "n_perm": n_perm,
        "note": _skip_reason(grp, counts),
    }
    if row["note"]:
        row["n_perm"] = 0
        return row
    sub = d[np.ix_(idx, idx)]
    sizes = np.array(counts)
    obs = _observed(sub, codes, sizes)
    perm = _permutation_statistics(sub, codes, sizes, n_perm, gen, chunk_size)
    row["statistic"] = obs
    row["pvalue"] = _pvalue(obs, perm, _tolerance(sub, codes, sizes, obs))
    if n_perm == 0:
        row["note"] = "statistic only: no permutations (n_perm = 0), no p-value"
    return row
