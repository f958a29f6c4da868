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
    block, as ``permute::how(blocks=)`` or vegan's ``strata`` do. Drawing
    ``c₁`` then ``c₂`` rows gives the same rows as drawing ``c₁ + c₂``.
    """

    total: int | None = None

    def __init__(self, k: int, blocks: int) -> None:
        self.k, self.blocks = k, blocks
        self.base = np.repeat(np.arange(k), blocks)

    def draw(self, c: int, rng: np.random.Generator) -> np.ndarray:
        k, nb = self.k, self.blocks
        if k == 2:  # a swap per block: one uniform double each (cheaper than a shuffle)
            swap = (rng.random((c, nb)) < 0.5).astype(np.intp)
            return np.concatenate([swap, 1 - swap], axis=1)
        perms = rng.permuted(np.broadcast_to(np.arange(k), (c * nb, k)), axis=1)
        # [b, g·nb + j] = the label given to group g's point of block j
        return np.ascontiguousarray(perms.reshape(c, nb, k).transpose(0, 2, 1)).reshape(c, k * nb)


class BlockEnumeration(BlockShuffles):
    """Every relabelling within blocks, in a fixed order: ``(k!)^blocks`` of them.

    The first is the observed labelling. ``draw`` ignores the generator and
    returns the next *c* relabellings of the enumeration.
    """

    def __init__(self, k: int, blocks: int) -> None:
        super().__init__(k, blocks)
        self.perms = np.array(list(permutations(range(k))), dtype=np.intp)
        self.total = len(self.perms) ** blocks
        self.done = 0

    def draw(self, c: int, rng: np.random.Generator | None = None) -> np.ndarray:
        k, nb = self.k, self.blocks
        index = np.arange(self.done, self.done + c, dtype=np.int64)
        self.done += c
        digits = np.empty((c, nb), dtype=np.intp)
        for j in range(nb):  # mixed radix k!: block j's permutation
            index, digits[:, j] = np.divmod(index, len(self.perms))
        perms = self.perms[digits]  # (c, nb, k)
        return np.ascontiguousarray(perms.transpose(0, 2, 1)).reshape(c, k * nb)


def enumeration_size(k: int, blocks: int, limit: int) -> int | None:
    """``(k!)^blocks`` if it is at most *limit*, else None (without forming huge numbers)."""
    n, f = 1, factorial(k)
    for _ in range(blocks):
        n *= f
        if n > limit:
            return None
    return n
