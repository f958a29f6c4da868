"""statsmodels' ``multipletests``, the reference of rrmap's adjusted p-values, without the
full garbage collection its Holm branch runs on every call (``import gc; gc.collect()``
after the step-down: about 0.6 s in a test process whose heap holds the suite's modules and
figures, so that a test comparing 200 families spent most of its time collecting). The
values are statsmodels' own: only the collection is skipped, for the call's duration."""

from __future__ import annotations

import gc
from typing import Any

from statsmodels.stats import multitest as _multitest


def _no_collection(generation: int = 2) -> int:
    return 0


def multipletests(pvals: Any, *args: Any, **kwargs: Any) -> tuple:
    """:func:`statsmodels.stats.multitest.multipletests` with ``gc.collect`` a no-op."""
    collect = gc.collect
    gc.collect = _no_collection
    try:
        return _multitest.multipletests(pvals, *args, **kwargs)
    finally:
        gc.collect = collect
