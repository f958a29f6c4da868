"""How many examples a property test draws.

The README's command draws a quarter of each property test's count (at least 10): the
same properties, checked on fewer random examples. Where the environment variable
``RRMAP_PROPERTY_EXAMPLES`` is ``all``, every count is drawn in full; ``.ci/run`` runs
every property test so (``pytest -m property``: :mod:`tiers` marks them).
"""

from __future__ import annotations

import os

#: The variable that selects the counts: unset for a quarter, ``all`` for every example.
VARIABLE = "RRMAP_PROPERTY_EXAMPLES"


def every_example() -> bool:
    """Whether property tests draw their whole count (``RRMAP_PROPERTY_EXAMPLES=all``)."""
    value = os.environ.get(VARIABLE, "")
    if value not in ("", "all"):
        raise ValueError(f"{VARIABLE} must be 'all' or unset, got {value!r}")
    return value == "all"


def examples(count: int) -> int:
    """*count* examples with ``RRMAP_PROPERTY_EXAMPLES=all``, else a quarter of it (at
    least 10, never more than *count*).

    >>> examples(200) == (200 if every_example() else 50)
    True
    """
    return count if every_example() else min(count, max(10, count // 4))
