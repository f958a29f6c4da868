"""Random streams that depend on the seed and a test's identity only (docs/tests.md).

Every random step of the tests draws from a generator made from two things:
the *root* (the user's seed) and the *identity* of what draws (e.g. the
energy tests of ``by = expert, within = movement=cubism`` with group sizes
(27, 27), or the χ² test of ``E1|E2`` in that family). The identity is
hashed with SHA-256 into the ``spawn_key`` of a
:class:`numpy.random.SeedSequence`, so

- a test's p-value never depends on which other tests run, in which order,
  with how many jobs, or through which function (``analyze``,
  ``run_designs``, ``compare_groups``);
- two different identities get statistically independent streams (the
  guarantee of ``SeedSequence``);
- the streams are the same on every platform and Python version (no
  ``hash()``, whose value changes between processes).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from rrmap.errors import InputError

__all__ = ["Streams"]


def _words(identity: tuple) -> tuple[int, ...]:
    """Four 32-bit words of the SHA-256 of *identity* (every part as text, in order)."""
    text = json.dumps([str(part) for part in identity], ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


class Streams:
    """Generators keyed by identity, all from one root seed.

    Parameters
    ----------
    root : int
        The seed (non-negative).

    Examples
    --------
    >>> s = Streams(0)
    >>> a = s.generator("energy", "expert", "all").integers(1000, size=3)
    >>> b = Streams(0).generator("energy", "expert", "all").integers(1000, size=3)
    >>> bool((a == b).all())
    True
    """

    def __init__(self, root: int, prefix: tuple[str, ...] = ()) -> None:
        self.root = int(root)
        self.prefix = tuple(str(p) for p in prefix)

    def within(self, *prefix: object) -> Streams:
        """The same root with every identity prefixed by *prefix*: the streams of one part
        of a study (the tests of one query corpus), independent of the other parts'.

        Examples
        --------
        >>> s = Streams(0)
        >>> a = s.within("query", "sdxl").generator("energy").integers(1000)
        >>> b = s.generator("query", "sdxl", "energy").integers(1000)
        >>> bool(a == b), bool(a == s.generator("energy").integers(1000))
        (True, False)
        """
        return Streams(self.root, (*self.prefix, *map(str, prefix)))

    @classmethod
    def of(cls, rng: int | np.random.Generator | Streams | None) -> Streams:
        """The streams of a seed, a generator (one 63-bit root is drawn from it) or None
        (a fresh root from the operating system's entropy)."""
        if isinstance(rng, Streams):
            return rng
        if isinstance(rng, np.random.Generator):
            return cls(int(rng.integers(2**63)))
        if rng is None:
            return cls(int(np.random.SeedSequence().entropy % (2**63)))
        if isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0:
            raise InputError(f"rng must be a non-negative integer seed or a Generator, got {rng!r}")
        return cls(int(rng))

    def generator(self, *identity: object) -> np.random.Generator:
        """The generator of *identity* (any parts; compared as text)."""
        seq = np.random.SeedSequence(self.root, spawn_key=_words((*self.prefix, *identity)))
        return np.random.default_rng(seq)
