"""Relabellings of the energy tests: which labellings of the points a test compares with.

- :class:`Shuffles`: independent samples, uniform shuffles of the pooled labels;
- :class:`BlockShuffles`: matched samples, the labels shuffled within each block
  (one comparison key rated by every rater), as ``permute::how(blocks=)`` or
  vegan's ``strata``;
- :class:`BlockEnumeration`: every within-block relabelling, for exact p-values
  when there are no more of them than permutations asked for.

Each gives the observed labels as ``base`` and relabellings as rows of
``draw(c, rng)``; a random source draws so that ``c₁`` then ``c₂`` rows are the
rows of one draw of ``c₁ + c₂`` (the result never depends on chunk sizes).
"""

from __future__ import annotations

from itertools import permutations
from math import factorial

import numpy as np

__all__ = ["BlockEnumeration", "BlockShuffles", "Shuffles", "draw", "enumeration_size"]


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
    for 5 raters). Every draw consumes a fixed number of words of the stream,
    so drawing ``c₁`` then ``c₂`` rows gives the same rows as drawing ``c₁ + c₂``.
    """

    total: int | None = None

    def __init__(self, k: int, blocks: int) -> None:
        self.k, self.blocks = k, blocks
        self.base = np.repeat(np.arange(k), blocks)
        # labels as small integers: a chunk of relabellings is rows × points of them
        self.perms = np.array(list(permutations(range(k))), dtype=np.int8)

    def draw(self, c: int, rng: np.random.Generator) -> np.ndarray:
        k, nb = self.k, self.blocks
        if k == 2:  # a swap per block: one uniform double each
            swap = rng.random((c, nb)) < 0.5
            labels = np.empty((c, 2 * nb), dtype=np.int8)
            labels[:, :nb] = swap
            labels[:, nb:] = ~swap
            return labels
        raw = rng.bit_generator.random_raw(c * nb)
        index = (raw % np.uint64(len(self.perms))).astype(np.intp).reshape(c, nb)
        labels = np.empty((c, k * nb), dtype=np.int8)
        for g in range(k):  # group g's label on every block: a lookup in the k! permutations
            np.take(self.perms[:, g], index, out=labels[:, g * nb : (g + 1) * nb])
        return labels


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
