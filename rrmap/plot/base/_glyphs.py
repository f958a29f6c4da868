"""One clear warning for characters the font lacks, instead of matplotlib's many.

Matplotlib warns once per missing glyph each time a text is measured or drawn
(``Glyph 19987 (...) missing from font(s) DejaVu Sans.``): a figure with a
rater called ``专家`` gives dozens of them. The figure functions and the
figures they make gather those warnings while they work and give one message
naming the characters, the font and what to do. Other warnings pass through
unchanged.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

__all__: list[str] = []

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: matplotlib's message: ``Glyph 19987 (\\N{...}) missing from font(s) DejaVu Sans.``
#: (``missing from current font`` before matplotlib 3.6).
_GLYPH = re.compile(r"Glyph (\d+)\b.*? missing from (?:font\(s\) (.+)|current font)\.$")
#: Characters named in the message; more are counted.
_SHOWN = 8
_depth = threading.local()


def outside_frame() -> int:
    """The *stacklevel* of the first caller outside rrmap.plot, matplotlib and contextlib."""
    inner = ("rrmap.plot", "matplotlib", "plotnine", "contextlib", "functools")
    frame, level = sys._getframe(1), 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(inner):
        frame, level = frame.f_back, level + 1
    return level


def _message(missing: dict[str, str]) -> str:
    fonts = ", ".join(dict.fromkeys(f for f in missing.values() if f)) or "the current font"
    chars = [f"{c!r} (U+{ord(c):04X})" for c in list(missing)[:_SHOWN]]
    more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    return (
        f"the figure's labels hold characters its font ({fonts}) lacks, drawn as empty "
        f"boxes: {', '.join(chars)}{more}. Put a font that has them first in "
        "matplotlib's rcParams['font.sans-serif'] (e.g. Noto Sans CJK for Chinese, "
        "Japanese and Korean names), or give them other display names with labels=."
    )


@contextmanager
def gathered_glyph_warnings() -> Iterator[None]:
    """Within the block, matplotlib's missing-glyph warnings become one message at its
    end (only the outermost of nested blocks gathers)."""
    if getattr(_depth, "n", 0):
        yield
        return
    _depth.n = 1
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        _depth.n = 0
    missing: dict[str, str] = {}
    for w in caught:
        m = _GLYPH.match(str(w.message))
        if m and issubclass(w.category, UserWarning):
            missing.setdefault(chr(int(m.group(1))), m.group(2) or "")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    if missing:
        warnings.warn(_message(missing), UserWarning, stacklevel=outside_frame())


def gathers_glyph_warnings(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorate a figure function: its missing-glyph warnings come as one message."""

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with gathered_glyph_warnings():
            return func(*args, **kwargs)

    return wrapper
