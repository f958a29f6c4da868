"""The reference library dcor, imported on first use, without compiling its numba code.

Importing dcor compiles its numba kernels: about 10 s of CPU in every process that imports
it, every time (the kernels it generates at import miss numba's on-disk cache). Imported at
the top of a test module, it cost every pytest worker those seconds while collecting.

The tests compare rrmap.stats with dcor's energy statistics and tests, which dcor computes
with NumPy and SciPy, not with those kernels (they serve distance covariance). So dcor is
imported with numba's JIT off: its kernels stay Python functions, with the same results,
and its row-wise generalised ufuncs are compiled on their first call, not at import.
"""

from __future__ import annotations

import functools
from unittest import mock

import pytest


def _compiled_on_first_call(guvectorize):
    """``numba.guvectorize`` deferred: the generalised ufunc is built when first called."""

    def decorator_of(*args, **kwargs):
        def decorate(func):
            @functools.cache
            def built():
                return guvectorize(*args, **kwargs)(func)

            @functools.wraps(func)
            def call(*a, **k):
                return built()(*a, **k)

            return call

        return decorate

    return decorator_of


@pytest.fixture(scope="session")
def dcor():
    """The dcor package (energy statistics and tests: the reference of rrmap.stats)."""
    import numba

    lazy = _compiled_on_first_call(numba.guvectorize)
    with (
        mock.patch.object(numba.config, "DISABLE_JIT", True),
        mock.patch.object(numba, "guvectorize", lazy),
    ):
        import dcor

    return dcor
