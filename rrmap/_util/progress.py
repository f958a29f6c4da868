"""Progress bars on stderr: shown on a terminal and in Jupyter, off when stderr is redirected
(so a log file never holds a bar's frames)."""

from __future__ import annotations

import sys
from typing import Any


def shows_progress() -> bool:
    """Whether :func:`progress_bar` shows its bar: in Jupyter, or where stderr is a terminal
    (or cannot say it is not one), as tqdm decides.

    Examples
    --------
    >>> import io, contextlib
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     shows_progress()
    False
    """
    if "ipykernel" in sys.modules:
        return True
    isatty = getattr(sys.stderr, "isatty", None)
    if isatty is None:
        return True
    try:
        return bool(isatty())
    except ValueError:  # a closed stream: tqdm's own call fails as well
        return True


def progress_bar(total: int, desc: str, unit: str) -> Any:
    """A tqdm bar of *total* steps on stderr, off when stderr is not a terminal (except in
    Jupyter, whose stderr is not one but shows bars).

    Examples
    --------
    >>> with progress_bar(3, "tests", "family") as bar:
    ...     bar.update(3)
    """
    from tqdm import tqdm

    in_notebook = "ipykernel" in sys.modules
    return tqdm(
        total=total, desc=desc, unit=unit, file=sys.stderr, disable=False if in_notebook else None
    )
