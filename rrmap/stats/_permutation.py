"""The permutation engine of the energy tests (docs/tests.md, "How the engine works").

A *batch* is a set of tests whose pooled samples have the same size ``m``
and the same group sizes (e.g. the 36 pairs of criteria of one rater, 15
points each). They share one stream of random relabellings, so every
chunk of relabellings is evaluated for all of them as one matrix product;
each test's p-value stays exactly the p-value of a test run alone on that
stream.

For one relabelling the statistic only depends on the block sums
``G = Lᵀ D L`` (``L`` the one-hot labels). A chunk of ``c`` relabellings
is ``D @ [L_1 … L_c]`` (only ``k − 1`` label columns: the largest group
comes last and its blocks follow from the column sums of ``D L`` and the
total ``1ᵀ D 1``), after which ``Lᵀ (D L)`` is one :func:`numpy.einsum`
over the chunk. The observed statistic goes through the same code (a
chunk of one), so it does not depend on the chunk size; rounding
differences between products of different shapes are far below the
tolerance τ of the p-value, so a relabelling that ties with the observed
one in exact arithmetic is always counted.

When its float32 copy fits the memory budget, a chunk of distances is first
evaluated in single precision with a rigorous rounding bound; only relabellings within that
bound of the threshold ``E_obs − τ`` are evaluated again in double
precision (:func:`screened_statistics`), so every relabelling is counted
exactly as in double precision. Relabellings between ``E_obs − τ`` and
``E_obs − τ_tie`` are settled from the distances of the points that changed
group (:mod:`rrmap.stats._ties`).

Sequential p-values (Besag & Clifford, 1991): with ``stop_hits = h`` a
test stops at the ``L``-th relabelling once ``h`` statistics have reached
the observed one, with ``p = h / L``; a test that never reaches ``h`` in
``B`` relabellings has the usual ``p = (1 + hits) / (B + 1)``. The mid-p
counts the ties with the observed statistic (within τ of it) half:
``(h − ties / 2) / L``, ``(1/2 + hits − ties / 2) / (B + 1)``. Both are
valid p-values (``P(p ≤ α) ≤ α`` under H0). The stopping point only
depends on the stream of relabellings, never on the chunk sizes.

Distances are held in memory when they fit the memory budget; otherwise
(one large test, e.g. a model rater's 20,000 points) they are recomputed
in row blocks for every chunk and never held whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rrmap.stats._relabellings import (
    BlockEnumeration,
    BlockShuffles,
    Shuffles,
    StrataEnumeration,
    StrataShuffles,
)
from rrmap.stats._ties import settle, tie_tolerance

#: Memory budget of one chunk of relabellings (bytes) when no chunk size is given.
DEFAULT_CHUNK_BYTES = 32 * 2**20

#: Memory budget of the distance matrices (bytes): past it, distances are
#: recomputed in row blocks.
DEFAULT_MEMORY_BYTES = 2**30

#: Relative tolerance of the ``E_b ≥ E_obs`` comparison (docs/tests.md).
REL_TOL = 1e-12

#: Rounding allowance of a statistic, in units of ``m·ε·S`` (docs/tests.md).
ROUNDING_ULPS = 16

#: Up to this many points, products run on one BLAS thread: they are small
#: and many, and thread start-up costs more than it saves.
SINGLE_THREAD_MAX_N = 2048


#: Rows of the distance matrix computed at a time (bounds the temporaries).
_DISTANCE_ROWS = 512


def distances(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Euclidean distances between the rows of *a* and of *b*, shape (len(a), len(b)).

    The arithmetic of :func:`scipy.spatial.distance.cdist` (differences,
    squares summed over the coordinates in order, square root), without
    importing :mod:`scipy.spatial`. Computed in blocks of rows, into *out*
    when given, so the only memory beyond the result is one block.
    """
    if out is None:
        out = np.empty((len(a), len(b)))
    diff = np.empty((min(len(a), _DISTANCE_ROWS), len(b)))
    for r0 in range(0, len(a), _DISTANCE_ROWS):
        rows = out[r0 : r0 + _DISTANCE_ROWS]
        tmp = diff[: len(rows)]
        rows.fill(0.0)
        for k in range(a.shape[1]):
            np.subtract.outer(a[r0 : r0 + len(rows), k], b[:, k], out=tmp)
            np.multiply(tmp, tmp, out=tmp)
            rows += tmp
        np.sqrt(rows, out=rows)
    return out


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """One BLAS thread while tests on at most *n* points run (no-op past 2048 points).

    Entered once per public call (a test, a table of tests, a run of the
    designs), before any worker thread starts: the limit is process-wide.
    """
    if n > SINGLE_THREAD_MAX_N:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


@dataclass(frozen=True)
class Outcome:
    """Statistic, p-value, permutations used, between-sample dispersion share and mid-p
    (ties with the observed statistic counted half) of a test."""

    statistic: float
    pvalue: float
    n_perm: int
    share: float = float("nan")
    mid: float = float("nan")


class _Stacked:
    """Distance matrices of ``T`` tests held in memory, shape (T, m, m).

    With ``screen=True`` a float32 copy is kept too: chunks of relabellings
    are first evaluated in single precision and only the ones that fall
    within the rounding bound of the threshold are evaluated again in
    double precision (:func:`screened_statistics`).
    """

    def __init__(self, d: np.ndarray, screen: bool = False) -> None:
        self.d = d
        self.total = d.sum(axis=(1, 2))
        with np.errstate(over="ignore"):  # past float32's range: inf, sent back to float64
            self.d32 = d.astype(np.float32) if screen else None
        self.rowsum = d.sum(axis=2) if screen else None

    def __len__(self) -> int:
        return len(self.d)

    def subset(self, keep: np.ndarray) -> _Stacked:
        """The tests *keep* (a mask), their arrays taken rather than recomputed."""
        out = _Stacked.__new__(_Stacked)
        out.d, out.total = self.d[keep], self.total[keep]
        out.d32 = None if self.d32 is None else self.d32[keep]
        out.rowsum = None if self.rowsum is None else self.rowsum[keep]
        return out

    def unscreened(self) -> _Stacked:
        """The same distances without the single-precision copy."""
        out = _Stacked.__new__(_Stacked)
        out.d, out.total, out.d32, out.rowsum = self.d, self.total, None, None
        return out

    def matmul(self, x: np.ndarray) -> np.ndarray:
        t, m, _ = self.d.shape
        return (self.d.reshape(t * m, m) @ x).reshape(t, m, x.shape[1])

    def matmul32(self, x: np.ndarray) -> np.ndarray:
        t, m, _ = self.d.shape
        return (self.d32.reshape(t * m, m) @ x).reshape(t, m, x.shape[1])


class _Blockwise:
    """The distance matrix of one test's points, computed in row blocks on each use.

    Its total ``1ᵀ D 1`` is summed during the first product (the observed
    labels), so no pass over the blocks is spent on it alone. It is never
    screened in single precision (there is no matrix to hold a copy of).
    """

    d32 = None

    def __init__(self, points: np.ndarray, block_rows: int) -> None:
        self.points = points
        self.rows = max(1, block_rows)
        self.total: np.ndarray | None = None

    def __len__(self) -> int:
        return 1

    def subset(self, keep: np.ndarray) -> _Blockwise:
        return self

    def matmul(self, x: np.ndarray) -> np.ndarray:
        n = len(self.points)
        out = np.empty((1, n, x.shape[1]))
        buffer = np.empty((min(self.rows, n), n))  # one block, reused
        total = 0.0
        for r0 in range(0, n, self.rows):
            rows = self.points[r0 : r0 + self.rows]
            block = distances(rows, self.points, out=buffer[: len(rows)])
            out[0, r0 : r0 + len(rows)] = block @ x
            if self.total is None:
                total += block.sum()
        if self.total is None:
            self.total = np.array([total])
        return out


def order_groups(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions sorted into groups of ascending size (the largest last), and those sizes.

    Returns ``(order, sizes)``: ``codes[order]`` lists the groups one after
    the other, smallest group first (stable, so equal sizes keep their order).
    """
    sizes = np.bincount(codes, minlength=k)
    by_size = np.argsort(sizes, kind="stable")
    rank = np.empty(k, dtype=np.intp)
    rank[by_size] = np.arange(k)
    return np.argsort(rank[codes], kind="stable"), sizes[by_size]


@dataclass(frozen=True)
class _Coefficients:
    """E as a linear function of the block sums, for one tuple of group sizes.

    ``E = upper @ alpha − diag @ beta`` with ``alpha_ij = 2 w_ij / (n_i n_j)``
    (upper-triangle pairs, row-major), ``beta_i = a_i / n_i²``,
    ``w_ij = n_i n_j / (n_i + n_j)`` and ``a_i = Σ_j w_ij``. ``screen`` and
    ``into_last`` serve the single-precision bound
    (:func:`single_precision_statistics`).
    """

    alpha: np.ndarray
    beta: np.ndarray
    screen: np.ndarray
    into_last: float


def _coefficients(sizes: np.ndarray) -> _Coefficients:
    return _coefficients_of(tuple(int(n) for n in sizes))


@lru_cache(maxsize=512)
def _coefficients_of(sizes_key: tuple[int, ...]) -> _Coefficients:
    sizes = np.array(sizes_key)
    k = len(sizes)
    km = k - 1
    iu, ju = np.triu_indices(k, 1)
    w = sizes[iu] * sizes[ju] / (sizes[iu] + sizes[ju])
    a = np.bincount(iu, weights=w, minlength=k) + np.bincount(ju, weights=w, minlength=k)
    alpha = 2.0 * w / (sizes[iu] * sizes[ju])
    beta = a / sizes.astype(float) ** 2
    # |∂E/∂G[j, i]| for i, j < k − 1 when the other blocks are derived as in _assemble:
    # G[last, j] subtracts every G[i, j] of column j, G[last, last] adds every G[i, j] back
    full = np.zeros((k, k))
    full[iu, ju] = alpha
    coef = np.triu(full[:km, :km], 1) - np.diag(beta[:km])
    coef = coef - full[:km, km][None, :] - beta[km]
    into_last = float(alpha[ju == km].sum() + 2.0 * k * beta[km])
    screen = np.abs(coef)
    for arr in (alpha, beta, screen):  # shared by every thread through the cache
        arr.flags.writeable = False
    return _Coefficients(alpha, beta, screen, into_last)


def _onehot(labels: np.ndarray, km: int, dtype: type) -> np.ndarray:
    """Indicators of the first *km* groups, shape (m, km, c): ``[i, j, b]`` = point i in group j."""
    lab = np.ascontiguousarray(labels.T)  # (m, c): one row per point
    onehot = np.empty((lab.shape[0], km, lab.shape[1]), dtype=dtype)
    for j in range(km):
        onehot[:, j, :] = lab == j
    return onehot


def _assemble(
    g: np.ndarray, colsum: np.ndarray, total: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Upper and diagonal block sums from ``G[i, j]`` (i, j < k − 1), the column sums of
    ``D L`` (T, c, k − 1) and the totals ``1ᵀ D 1``."""
    km = k - 1
    last = colsum - g.sum(axis=2)  # G[last, j] = Σ_i (D L_j)_i − Σ_{i < k−1} G[i, j]
    iu, ju = np.triu_indices(k, 1)
    inner = ju < km
    upper = np.empty((*g.shape[:2], len(iu)))
    upper[..., inner] = g[:, :, iu[inner], ju[inner]]
    upper[..., ~inner] = last[:, :, iu[~inner]]  # G[i, last] = G[last, i] (D is symmetric)
    diag = np.empty((*g.shape[:2], k))
    diag[..., :km] = g[:, :, np.arange(km), np.arange(km)]
    diag[..., km] = total[:, None] - g.sum(axis=(2, 3)) - 2.0 * last.sum(axis=2)
    return upper, diag


def block_sums(dist, labels: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cross and diagonal block sums of each test under each relabelling.

    Parameters
    ----------
    dist : _Stacked or _Blockwise
        Distances of ``T`` tests of ``m`` points each.
    labels : ndarray, shape (c, m)
        Group of each point under each relabelling (row ``b``).
    sizes : ndarray, shape (k,)
        Group sizes, largest last.

    Returns
    -------
    upper : ndarray, shape (T, c, k(k-1)/2)
        ``G_ij`` for ``i < j`` (row-major upper triangle).
    diag : ndarray, shape (T, c, k)
        ``G_ii``.
    """
    c, m = labels.shape
    km = len(sizes) - 1
    onehot = _onehot(labels, km, np.float64)
    dl = dist.matmul(onehot.reshape(m, km * c)).reshape(len(dist), m, km, c)
    g = np.einsum("ijb,tikb->tbjk", onehot, dl)  # (T, c, km, km): G[i, j] for i, j < k − 1
    colsum = np.moveaxis(dl.sum(axis=1), 2, 1)  # (T, c, km)
    return _assemble(g, colsum, dist.total, len(sizes))


#: Unit roundoff of float32.
_U32 = float(np.finfo(np.float32).eps) / 2


def single_precision_statistics(
    dist: _Stacked, labels: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """E of each test under each relabelling from single-precision products, and a bound.

    Every ``G[i, j]`` (i, j < k − 1) is a sum of non-negative distances, so in
    single precision it carries a relative error of at most ``γ = γ_{2m+2}``
    (``γ_n = n u / (1 − n u)``, ``u = 2⁻²⁴``: one rounding of each distance,
    at most m terms in each of the two sums, in any order). The other blocks
    come from double-precision row sums, and E is linear in the ``G[i, j]``,
    so ``|Ê − E| ≤ γ/(1 − γ) Σ |∂E/∂G_ij| Ĝ_ij``, plus an allowance for the
    double-precision sums and for distances below float32's normal range.

    Parameters
    ----------
    dist : _Stacked
        Built with ``screen=True``.
    labels : ndarray, shape (c, m)
    sizes : ndarray, shape (k,)
        Group sizes, largest last.

    Returns
    -------
    stats, bound : ndarray, shape (T, c)
    """
    c, m = labels.shape
    k = len(sizes)
    km = k - 1
    onehot = _onehot(labels, km, np.float32)
    flat = onehot.reshape(m, km * c)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow: inf, never decided
        dl = dist.matmul32(flat).reshape(len(dist), m, km, c)
        g = np.einsum("ijb,tikb->tbjk", onehot, dl).astype(np.float64)
    colsum = np.moveaxis((dist.rowsum @ flat).reshape(len(dist), km, c), 2, 1)
    upper, diag = _assemble(g, colsum, dist.total, k)
    n = 2 * m + 2
    gamma = n * _U32 / (1.0 - n * _U32)
    coef = _coefficients(sizes)
    screened = np.einsum("tbjk,jk->tb", g, coef.screen)
    # the double-precision part: row sums and totals enter E through the last group
    scale = term_scale(upper, diag, sizes) + screened + coef.into_last * dist.total[:, None]
    eps = float(np.finfo(float).eps)
    bound = (
        gamma / (1.0 - gamma) * screened
        + 64.0 * (m + k) * eps * scale
        + m * m * float(np.finfo(np.float32).tiny) * coef.screen.sum()
    )
    return statistics(upper, diag, sizes), bound


def screened_statistics(
    dist: _Stacked,
    labels: np.ndarray,
    sizes: np.ndarray,
    threshold: np.ndarray,
    near: np.ndarray | None = None,
    upper: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """E of each test under each relabelling, exact on the side of *threshold* it falls.

    Relabellings whose single-precision ``Ê`` lies within its rounding bound
    of *threshold* (:func:`single_precision_statistics`), for any test, are
    evaluated again in double precision (:func:`block_sums`), so
    ``E ≥ threshold`` is decided as the double-precision engine decides it.

    Parameters
    ----------
    dist, labels, sizes
        As in :func:`single_precision_statistics`.
    threshold : ndarray, shape (T,)
        ``E_obs − τ`` of each test.
    near : ndarray, shape (T,), optional
        A second threshold decided the same way (``E_obs − τ_tie``: the band
        between the two is settled exactly, :mod:`rrmap.stats._ties`).
    upper : ndarray, shape (T,), optional
        A third (``E_obs + τ``: the upper end of the ties the mid-p counts half).

    Returns
    -------
    stats : ndarray, shape (T, c)
    share : float
        Share of the relabellings evaluated again in double precision.
    """
    stats, bound = single_precision_statistics(dist, labels, sizes)
    # decided: clearly on one side; NaN or inf (float32 overflow) is never decided
    decided = np.abs(stats - threshold[:, None]) > bound
    for also in (near, upper):
        if also is not None:
            decided &= np.abs(stats - also[:, None]) > bound
    redo = ~decided.all(axis=0)
    if redo.any():
        stats[:, redo] = statistics(*block_sums(dist, labels[redo], sizes), sizes)
    return stats, float(redo.mean()) if len(redo) else 0.0


def statistics(upper: np.ndarray, diag: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """E from block sums: ``Σ_{i<j} w_ij (2 M_ij − M_ii − M_jj)``, ``M = G / (n_i n_j)``."""
    coef = _coefficients(sizes)
    return upper @ coef.alpha - diag @ coef.beta


def term_scale(upper: np.ndarray, diag: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``S = Σ_{i<j} w_ij (2 M_ij + M_ii + M_jj)``: the size of the terms that make E."""
    coef = _coefficients(sizes)
    return upper @ coef.alpha + diag @ coef.beta


def tolerance(observed: np.ndarray, scale: np.ndarray, m: int) -> np.ndarray:
    """τ: relabellings within τ below E_obs tie with it (docs/tests.md)."""
    eps = float(np.finfo(float).eps)
    return REL_TOL * np.abs(observed) + ROUNDING_ULPS * m * eps * scale


def _chunk_cap(m: int, k: int, t: int, chunk_size: int | None, chunk_bytes: int) -> int:
    if chunk_size is not None:
        return chunk_size
    per_column = 8 * m * (2 * t * max(k - 1, 1) + k + 2)
    return max(1, chunk_bytes // per_column)


@dataclass
class _Progress:
    """Running counts of a batch: which tests still draw, their hits and results."""

    observed: np.ndarray
    tau: np.ndarray
    hits: np.ndarray
    pvalue: np.ndarray
    used: np.ndarray
    active: np.ndarray
    ties: np.ndarray
    mid: np.ndarray

    def record(self, stats: np.ndarray, done: int, stop_hits: int | None) -> np.ndarray:
        """Count the hits (and the ties among them) of a chunk (rows: active tests); return
        which tests go on."""
        act = self.active
        reach = stats >= (self.observed[act] - self.tau[act])[:, None]
        cum = self.hits[act][:, None] + np.cumsum(reach, axis=1)
        tie = reach & (stats <= (self.observed[act] + self.tau[act])[:, None])
        cum_ties = self.ties[act][:, None] + np.cumsum(tie, axis=1)
        self.hits[act], self.ties[act] = cum[:, -1], cum_ties[:, -1]
        keep = np.ones(len(act), dtype=bool)
        if stop_hits:
            stop = cum[:, -1] >= stop_hits
            at = np.argmax(cum >= stop_hits, axis=1) + 1 + done
            self.used[act[stop]] = at[stop]
            self.pvalue[act[stop]] = stop_hits / at[stop]
            ties_at = cum_ties[np.arange(len(act)), at - 1 - done]
            self.mid[act[stop]] = (stop_hits - 0.5 * ties_at[stop]) / at[stop]
            keep = ~stop
        self.active = act[keep]
        return keep


#: Screening is given up for the rest of a batch when more than this share of a
#: chunk's relabellings had to be evaluated again (it would no longer save time).
SCREEN_GIVE_UP = 0.5


def _chunk(
    dist,
    labels: np.ndarray,
    sizes: np.ndarray,
    threshold: np.ndarray,
    near: np.ndarray,
    upper: np.ndarray,
):
    """E of the active tests under *labels*, screened in single precision when *dist* allows
    (decided exactly at *threshold*, *near* and *upper*), with the relabellings in the band
    ``[threshold, near)`` settled exactly (they tie with ``E_obs``, and are given the value
    *near*, or fall short of it).

    Returns the statistics and the distances to use next (without the
    single-precision copy once screening stopped paying).
    """
    if dist.d32 is None:
        stats = statistics(*block_sums(dist, labels, sizes), sizes)
    else:
        stats, share = screened_statistics(dist, labels, sizes, threshold, near, upper)
        if share > SCREEN_GIVE_UP:
            dist = dist.unscreened()
    band = (stats >= threshold[:, None]) & (stats < near[:, None])
    if band.any() and isinstance(dist, _Stacked):  # row blocks hold no distance matrix
        base = np.repeat(np.arange(len(sizes)), sizes)
        for t in np.flatnonzero(band.any(axis=1)):  # one call per test: its pairs set up once
            cols = np.flatnonzero(band[t])
            reach = settle(dist.d[t], base, labels[cols], sizes)
            stats[t, cols] = np.where(reach, near[t], -np.inf)
    return stats, dist


def dispersion_share(diag: np.ndarray, total: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Between-sample share of the energy dispersion, ``1 − W / T`` (R ``energy::disco``, α = 1).

    ``T = 1ᵀ D 1 / (2N)`` is the total dispersion and ``W = Σ_j G_jj / (2 n_j)``
    the within-sample one; NaN when every point is the same (T = 0).
    """
    n = float(sizes.sum())
    within = diag @ (1.0 / sizes.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = 1.0 - within * n / total
    return np.where(total > 0, share, np.nan)


def run_batch(
    dist,
    sizes: np.ndarray,
    n_perm: int,
    rng: np.random.Generator | None,
    stop_hits: int | None = None,
    chunk_size: int | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    source: Shuffles | BlockShuffles | None = None,
) -> list[Outcome]:
    """Statistics and (sequential) permutation p-values of the tests of one batch.

    Parameters
    ----------
    dist : _Stacked or _Blockwise
        Distances of ``T`` tests, points ordered by group (largest group last).
    sizes : ndarray, shape (k,)
        Group sizes, ascending.
    n_perm : int
        Maximum number of relabellings ``B``.
    rng : Generator
        Source of the relabellings shared by the batch (unused by an enumeration).
    stop_hits : int, optional
        Besag–Clifford ``h``; None draws all ``B`` relabellings.
    chunk_size : int, optional
        Relabellings per product (default: from *chunk_bytes*).
    source : Shuffles, BlockShuffles or BlockEnumeration, optional
        Which relabellings (default: :class:`Shuffles` of *sizes*). With a
        :class:`BlockEnumeration` every relabelling is evaluated once,
        ``p = #{E_b ≥ E_obs − τ} / N`` exactly, and *n_perm* and
        *stop_hits* are ignored.
    """
    source = Shuffles(sizes) if source is None else source
    if source.total is not None:  # an enumeration: every relabelling, no stopping
        n_perm, stop_hits = source.total, None
    m = int(sizes.sum())
    t = len(dist)
    cap = _chunk_cap(m, len(sizes), t, chunk_size, chunk_bytes)
    # the observed labels alone: the statistic does not depend on the chunk size
    upper, diag = block_sums(dist, source.base[None, :], sizes)
    observed = statistics(upper, diag, sizes)[:, 0]
    share = dispersion_share(diag[:, 0], dist.total, sizes)
    scale = term_scale(upper[:, 0], diag[:, 0], sizes)
    tau = tolerance(observed, scale, m)
    first = min(n_perm, cap if not stop_hits else min(cap, max(2 * stop_hits, 32)))
    threshold = observed - tau
    near = observed - np.minimum(tie_tolerance(scale, m), tau)
    upper = observed + tau
    stats, dist = _chunk(dist, source.draw(first, rng), sizes, threshold, near, upper)
    state = _Progress(
        observed=observed,
        tau=tau,
        hits=np.zeros(t, dtype=np.int64),
        pvalue=np.full(t, np.nan),
        used=np.full(t, n_perm, dtype=np.int64),
        active=np.arange(t),
        ties=np.zeros(t, dtype=np.int64),
        mid=np.full(t, np.nan),
    )
    done, c = 0, first
    while c > 0:
        keep = state.record(stats, done, stop_hits)
        done += c
        if not len(state.active) or done >= n_perm:
            break
        if not keep.all():
            dist = dist.subset(keep)
        c = min(2 * c if stop_hits else cap, cap, n_perm - done)
        act = state.active
        stats, dist = _chunk(
            dist, source.draw(c, rng), sizes, threshold[act], near[act], upper[act]
        )
    rest = state.active
    hits, ties = state.hits[rest], state.ties[rest]
    if source.total is not None:  # the observed labels are among those enumerated
        state.pvalue[rest] = hits / float(source.total)
        state.mid[rest] = (hits - 0.5 * ties) / float(source.total)
    elif n_perm > 0:  # the observed statistic counts once more, as a tie
        state.pvalue[rest] = (1.0 + hits) / (n_perm + 1.0)
        state.mid[rest] = (0.5 + hits - 0.5 * ties) / (n_perm + 1.0)
    return [
        Outcome(
            float(observed[i]),
            float(state.pvalue[i]),
            int(state.used[i]),
            float(share[i]),
            float(state.mid[i]),
        )
        for i in range(t)
    ]


@dataclass(frozen=True)
class PlannedTest:
    """One test: positions of its points in the pooled array, and their group codes.

    ``blocks`` > 0 marks a complete matched test: every group has ``blocks`` points,
    listed in the same block (comparison key) order, and relabellings permute the
    labels within blocks. ``strata`` marks an incomplete one: the stratum (comparison
    key) of each point, the labels permuted within each stratum among the points on it.
    With ``exact`` every such relabelling is enumerated instead of drawn.
    """

    index: np.ndarray
    codes: np.ndarray
    k: int
    blocks: int = 0
    exact: bool = False
    strata: np.ndarray | None = None


def _strata_key(spec: PlannedTest) -> bytes | None:
    """The structure of an incomplete matched test as the engine orders its points (group by
    group, the largest last): tests share relabellings only when it is the same."""
    if spec.strata is None:
        return None
    order, _ = order_groups(spec.codes, spec.k)
    _, dense = np.unique(spec.strata[order], return_inverse=True)
    return dense.astype(np.int64).tobytes()


def _batches(specs: Sequence[PlannedTest]) -> dict[tuple, list[int]]:
    """Tests grouped by sorted group sizes and relabelling scheme, in order of first
    appearance: ``(sizes, blocks, exact, strata)``."""
    out: dict[tuple, list[int]] = {}
    for i, spec in enumerate(specs):
        sizes = tuple(sorted(np.bincount(spec.codes, minlength=spec.k).tolist()))
        out.setdefault((sizes, spec.blocks, spec.exact, _strata_key(spec)), []).append(i)
    return out


def _source(sizes: tuple[int, ...], blocks: int, exact: bool, strata: bytes | None = None):
    if strata is not None:
        base = np.repeat(np.arange(len(sizes)), sizes)
        layout = np.frombuffer(strata, dtype=np.int64)
        return StrataEnumeration(base, layout) if exact else StrataShuffles(base, layout)
    if not blocks:
        return Shuffles(np.array(sizes))
    return BlockEnumeration(len(sizes), blocks) if exact else BlockShuffles(len(sizes), blocks)


def screens(m: int, n_perm: int, memory_bytes: int) -> bool:
    """Whether a batch of *m* points is screened in single precision: when it draws
    relabellings and a test's float64 distances and their float32 copy fit half the budget.

    The rounding bound grows like m², but a test far from its null (the costly kind: it
    never stops early) stays far outside it; a batch whose relabellings fall inside it
    gives screening up after one chunk (:data:`SCREEN_GIVE_UP`).

    Examples
    --------
    >>> screens(3000, 5000, 2**30), screens(3000, 0, 2**30), screens(10_000, 5000, 2**30)
    (True, False, False)
    """
    return n_perm > 0 and 12 * m * m <= memory_bytes // 2


def run_tests(
    points: np.ndarray,
    specs: Sequence[PlannedTest],
    n_perm: int,
    streams: Callable[[tuple], np.random.Generator],
    stop_hits: int | None = None,
    chunk_size: int | None = None,
    memory_bytes: int = DEFAULT_MEMORY_BYTES,
) -> list[Outcome]:
    """Every test of *specs* on *points*, batched by group sizes and relabelling scheme.

    Each batch draws from ``streams(key)``, ``key = (sizes, blocks, exact, strata)``
    (the caller makes it depend on the family's identity, never on which
    other batches run). Tests whose distances do not fit *memory_bytes*
    together are split into several products that each replay the batch's
    stream.
    """
    out: list[Outcome | None] = [None] * len(specs)
    for key, members in _batches(specs).items():
        sizes, blocks, exact, strata = key
        gen = None if exact else streams(key)
        m = sum(sizes)
        seed = None if gen is None else gen.bit_generator.state
        screen = screens(m, n_perm, memory_bytes)
        per_test = (12 if screen else 8) * m * m  # float64 distances, float32 to screen
        fit = max(1, (memory_bytes // 2) // per_test)
        for s0 in range(0, len(members), fit):
            part = members[s0 : s0 + fit]
            if gen is not None:
                gen.bit_generator.state = seed  # every part replays the batch's stream
            pts = []
            for i in part:
                order, _ = order_groups(specs[i].codes, specs[i].k)
                pts.append(points[specs[i].index[order]])
            if per_test > memory_bytes // 2:
                rows = max(1, (memory_bytes // 4) // (8 * m))
                dist = _Blockwise(pts[0], rows)
                cb = max(DEFAULT_CHUNK_BYTES, memory_bytes // 4)
            else:
                d = np.empty((len(pts), m, m))
                for i, p in enumerate(pts):
                    distances(p, p, out=d[i])
                dist = _Stacked(d, screen=screen)
                cb = DEFAULT_CHUNK_BYTES
            res = run_batch(
                dist,
                np.array(sizes),
                n_perm,
                gen,
                stop_hits,
                chunk_size,
                cb,
                _source(sizes, blocks, exact, strata),
            )
            for i, r in zip(part, res, strict=True):
                out[i] = r
    return out  # type: ignore[return-value]
