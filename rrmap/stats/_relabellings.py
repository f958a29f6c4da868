"""Relabellings of the energy tests: which labellings of the points a test compares with.

- :class:`Shuffles`: independent samples, uniform shuffles of the pooled labels;
- :class:`BlockShuffles`: matched samples, the labels shuffled within each block
  (one comparison key rated by every rater), as ``permute::how(blocks=)`` or
  vegan's ``strata``;
- :class:`BlockEnumeration`: every within-block relabelling, for exact p-values
  when there are no more of them than permutations asked for;
- :class:`StrataShuffles`: incomplete matched samples, the labels shuffled within
  each stratum (a comparison key) among the groups present on it, whatever their
  number (``permute::how(blocks=)`` with blocks of any size);
- :class:`StrataEnumeration`: every distinct within-stratum relabelling.

Each gives the observed labels as ``base`` and relabellings as rows of
``draw(c, rng)``; a random source draws so that ``c₁`` then ``c₂`` rows are the
rows of one draw of ``c₁ + c₂`` (the result never depends on chunk sizes).
"""

from __future__ import annotations

from itertools import permutations
from math import factorial, prod

import numpy as np

__all__ = [
    "BlockEnumeration",
    "BlockShuffles",
    "Shuffles",
    "StrataEnumeration",
    "StrataShuffles",
    "draw",
    "enumeration_size",
    "strata_enumeration_size",
]


def draw(base: np.ndarray, c: int, rng: np.random.Generator) -> np.ndarray:
    """*c* uniform random relabellings of the labels *base*, shape (c, len(base)).

    Each row is a shuffle of *base* drawn in turn from the generator's
    stream, so drawing ``c₁`` then ``c₂`` rows gives the same rows as
    drawing ``c₁ + c₂``.
    """
    return rng.permuted(np.broadcast_to(base, (c, len(base))), axis=1)


class Shuffles:
    """Relabellings of independent samples: uniform shuffles of the pooled labels.

    ``base`` holds the observed labels (groups one after the other, as
    :func:`order_groups` puts them); ``total`` is None (drawn at random).
    """

    total: int | None = None

    def __init__(self, sizes: np.ndarray) -> None:
        self.base = np.repeat(np.arange(len(sizes)), sizes)

    def draw(self, c: int, rng: np.random.Generator) -> np.ndarray:
        return draw(self.base, c, rng)


class BlockShuffles:
    """Relabellings of matched samples: the labels are shuffled within each block.

    The ``k`` groups have ``blocks`` points each, and position ``g·blocks + j``
    holds group g's point of block j (one comparison key rated by every
    rater). A relabelling draws one uniform permutation of the k labels per
    block, as ``permute::how(blocks=)`` or vegan's ``strata`` do: for two
    groups a fair coin per block (one uniform double below or above 1/2), for
    more one of the k! permutations per block, its index the remainder of a
    raw 64-bit draw modulo k! (off uniform by at most k!/2⁶⁴, below 4·10⁻¹⁸
    for 5 raters); past :data:`MAX_LISTED_K` groups, the order of k uniform
    doubles per block. Every draw consumes a fixed number of words of the stream,
    so drawing ``c₁`` then ``c₂`` rows gives the same rows as drawing ``c₁ + c₂``.
    """

    total: int | None = None

    def __init__(self, k: int, blocks: int) -> None:
        self.k, self.blocks = k, blocks
        self.base = np.repeat(np.arange(k), blocks)
        # labels as small integers: a chunk of relabellings is rows × points of them; the k!
        # permutations are listed only while they are few (8! = 40,320)
        self.perms = _permutations(k) if k <= MAX_LISTED_K else None

    def draw(self, c: int, rng: np.random.Generator) -> np.ndarray:
        k, nb = self.k, self.blocks
        if k == 2:  # a swap per block: one uniform double each
            swap = rng.random((c, nb)) < 0.5
            labels = np.empty((c, 2 * nb), dtype=np.int8)
            labels[:, :nb] = swap
            labels[:, nb:] = ~swap
            return labels
        if self.perms is None:  # many groups: each block's permutation by sorting k doubles
            order = np.argsort(rng.random((c, nb, k)), axis=2)  # [b, j, g]: group g's label
            dtype = np.int8 if k < 127 else np.intp
            return np.ascontiguousarray(order.transpose(0, 2, 1)).reshape(c, k * nb).astype(dtype)
        raw = rng.bit_generator.random_raw(c * nb)
        index = (raw % np.uint64(len(self.perms))).astype(np.intp).reshape(c, nb)
        labels = np.empty((c, k * nb), dtype=np.int8)
        for g in range(k):  # group g's label on every block: a lookup in the k! permutations
            np.take(self.perms[:, g], index, out=labels[:, g * nb : (g + 1) * nb])
        return labels


#: Up to this many groups, :class:`BlockShuffles` draws one of the listed k! permutations
#: per block; past it, each block's order comes from sorting k uniform doubles (8! = 40,320
#: listed; 18! could not be).
MAX_LISTED_K = 8


def _permutations(k: int) -> np.ndarray:
    """Every permutation of k labels, as rows of small integers."""
    return np.array(list(permutations(range(k))), dtype=np.int8 if k < 127 else np.intp)


def _labels_of(perms: np.ndarray) -> np.ndarray:
    """Labels (c, k·blocks) from one permutation per block (c, blocks, k): position
    g·blocks + j gets the label that block j's permutation gives group g."""
    c, nb, k = perms.shape
    return np.ascontiguousarray(perms.transpose(0, 2, 1)).reshape(c, k * nb)


class BlockEnumeration(BlockShuffles):
    """Every relabelling within blocks, in a fixed order: ``(k!)^blocks`` of them.

    The first is the observed labelling. ``draw`` ignores the generator and
    returns the next *c* relabellings of the enumeration.
    """

    def __init__(self, k: int, blocks: int) -> None:
        super().__init__(k, blocks)
        self.perms = _permutations(k)  # an enumeration is asked for only when they are few
        self.total = len(self.perms) ** blocks
        self.done = 0

    def draw(self, c: int, rng: np.random.Generator | None = None) -> np.ndarray:
        nb = self.blocks
        index = np.arange(self.done, self.done + c, dtype=np.int64)
        self.done += c
        digits = np.empty((c, nb), dtype=np.intp)
        for j in range(nb):  # mixed radix k!: block j's permutation
            index, digits[:, j] = np.divmod(index, len(self.perms))
        return _labels_of(self.perms[digits])


def enumeration_size(k: int, blocks: int, limit: int) -> int | None:
    """``(k!)^blocks`` if it is at most *limit*, else None (without forming huge numbers)."""
    n, f = 1, factorial(k)
    for _ in range(blocks):
        n *= f
        if n > limit:
            return None
    return n


class _Strata:
    """The points a within-stratum relabelling can move, grouped by stratum.

    Only strata holding at least two different labels can change; ``moving`` lists
    their points stratum by stratum (``starts``: where each stratum begins), in the
    order of the positions inside a stratum.
    """

    def __init__(self, base: np.ndarray, strata: np.ndarray) -> None:
        self.base = np.asarray(base)
        _, dense = np.unique(np.asarray(strata), return_inverse=True)
        order = np.lexsort((np.arange(len(dense)), dense))
        ds, lab = dense[order], self.base[order]
        starts = np.flatnonzero(np.r_[True, ds[1:] != ds[:-1]])
        ends = np.r_[starts[1:], len(ds)]
        mixed = [
            i for i, (a, b) in enumerate(zip(starts, ends, strict=True)) if len(set(lab[a:b])) > 1
        ]
        pieces = [order[starts[i] : ends[i]] for i in mixed]
        self.moving = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.intp)
        sizes = [len(piece) for piece in pieces]
        self.stratum = np.repeat(np.arange(len(pieces), dtype=float), sizes)
        self.starts = np.cumsum([0, *sizes])[:-1].astype(np.intp)
        self.sizes = np.asarray(sizes, dtype=np.intp)

    def labels_with(self, words: np.ndarray) -> np.ndarray:
        """Relabellings (c, m): the moving points take the labels of the rows of *words*."""
        dtype = np.int8 if self.base.max(initial=0) < 127 else np.intp
        labels = np.empty((len(words), len(self.base)), dtype=dtype)
        labels[:] = self.base
        labels[:, self.moving] = words
        return labels

    def labels_of(self, order: np.ndarray) -> np.ndarray:
        """Relabellings (c, m): within each stratum, the moving points in row *order*
        of the moving positions take the stratum's labels in position order."""
        c = len(order)
        dtype = np.int8 if self.base.max(initial=0) < 127 else np.intp
        labels = np.empty((c, len(self.base)), dtype=dtype)
        labels[:] = self.base
        rows = np.arange(c)[:, None]
        labels[rows, self.moving[order]] = self.base[self.moving][None, :]
        return labels


class StrataShuffles:
    """Relabellings of incomplete matched samples: the labels shuffled within each stratum.

    ``strata[i]`` names the stratum (the comparison key) of the point at position i and
    ``base[i]`` its observed label; a relabelling permutes the labels of each stratum
    uniformly among its points, whatever their number (a key rated by two raters of
    three swaps two labels; a key rated by one keeps it), as ``permute::how(blocks=)``
    with blocks of unequal sizes. A row draws one uniform double per movable point and
    orders each stratum's points by them, so drawing ``c₁`` then ``c₂`` rows gives the
    same rows as drawing ``c₁ + c₂``.

    Examples
    --------
    >>> src = StrataShuffles(np.array([0, 0, 1, 1, 1]), np.array([7, 8, 7, 8, 9]))
    >>> rows = src.draw(200, np.random.default_rng(0))
    >>> sorted({tuple(r) for r in rows.tolist()})  # the point of stratum 9 never moves
    [(0, 0, 1, 1, 1), (0, 1, 1, 0, 1), (1, 0, 0, 1, 1), (1, 1, 0, 0, 1)]
    """

    total: int | None = None

    def __init__(self, base: np.ndarray, strata: np.ndarray) -> None:
        self.base = np.asarray(base)
        self._strata = _Strata(self.base, strata)

    def draw(self, c: int, rng: np.random.Generator) -> np.ndarray:
        st = self._strata
        u = rng.random((c, len(st.moving)))
        order = np.argsort(st.stratum[None, :] + u, axis=1, kind="stable")
        return st.labels_of(order)


def _words(counts: dict[int, int], n: int) -> list[tuple[int, ...]]:
    """Every distinct sequence of *n* labels with these counts, in lexicographic order."""
    if n == 0:
        return [()]
    out = []
    for value in sorted(counts):
        if counts[value]:
            counts[value] -= 1
            out += [(value, *rest) for rest in _words(counts, n - 1)]
            counts[value] += 1
    return out


class StrataEnumeration:
    """Every distinct within-stratum relabelling, in a fixed order.

    Their number is the product over strata of the multinomial coefficients of the
    labels present (:func:`strata_enumeration_size`); each is as likely as any other
    under the within-stratum permutation null. ``draw`` ignores the generator and
    returns the next *c* of them.

    Examples
    --------
    >>> src = StrataEnumeration(np.array([0, 0, 1, 1, 1]), np.array([7, 8, 7, 8, 9]))
    >>> src.total, sorted(map(tuple, src.draw(4).tolist()))[0]
    (4, (0, 0, 1, 1, 1))
    """

    def __init__(self, base: np.ndarray, strata: np.ndarray) -> None:
        self.base = np.asarray(base)
        self._strata = st = _Strata(self.base, strata)
        moving_labels = self.base[st.moving].tolist()
        self._options = []
        for a, n in zip(st.starts, st.sizes, strict=True):
            counts: dict[int, int] = {}
            for v in moving_labels[a : a + n]:
                counts[int(v)] = counts.get(int(v), 0) + 1
            self._options.append(np.array(_words(counts, int(n)), dtype=np.intp))
        self.total = prod(len(o) for o in self._options)
        self.done = 0

    def draw(self, c: int, rng: np.random.Generator | None = None) -> np.ndarray:
        st = self._strata
        index = np.arange(self.done, self.done + c, dtype=np.int64)
        self.done += c
        words = np.empty((c, len(st.moving)), dtype=np.intp)
        for a, n, opts in zip(st.starts, st.sizes, self._options, strict=True):
            index, digit = np.divmod(index, len(opts))  # mixed radix: stratum by stratum
            words[:, a : a + n] = opts[digit]
        return st.labels_with(words)


def strata_enumeration_size(base: np.ndarray, strata: np.ndarray, limit: int) -> int | None:
    """The number of distinct within-stratum relabellings if at most *limit*, else None.

    Examples
    --------
    >>> strata_enumeration_size(np.array([0, 1, 2, 0, 1]), np.array([1, 1, 1, 2, 2]), 100)
    12
    """
    base, strata = np.asarray(base, dtype=np.intp), np.asarray(strata)
    if not len(base):
        return 1
    _, dense = np.unique(strata, return_inverse=True)
    k = int(base.max()) + 1
    counts = np.bincount(dense * k + base, minlength=(int(dense.max()) + 1) * k).reshape(-1, k)
    n = 1
    for row in counts:
        if n > limit:
            return None
        size = factorial(int(row.sum()))
        for r in row:
            size //= factorial(int(r))
        n *= size
    return n if n <= limit else None
