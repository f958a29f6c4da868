"""Header matching: case-insensitive, spaces/underscores/hyphens equivalent."""

from __future__ import annotations

import re

_SEP = re.compile(r"[\s_\-]+")


def snake(name: object) -> str:
    """Normalise a header to snake_case (``'Criterion Group'`` → ``'criterion_group'``)."""
    return _SEP.sub("_", str(name).strip().lower()).strip("_")
