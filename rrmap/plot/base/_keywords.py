"""Unknown keywords of the figure functions: one ``TypeError`` listing the accepted ones.

``plot_rrmap(pts, title="E1")`` would otherwise be Python's bare "unexpected
keyword argument"; the figure functions that pass ``**style`` on to their
panels would not even name themselves. The message names the function, the
unknown keywords with the closest accepted one, and every keyword accepted.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

__all__: list[str] = []

_P = ParamSpec("_P")
_R = TypeVar("_R")


def keywords_message(func: str, unknown: Sequence[str], accepted: Iterable[str]) -> str:
    """The message for *unknown* keywords of *func*: each with the accepted one it most
    likely meant, then every accepted keyword.

    Examples
    --------
    >>> for part in keywords_message("plot_rrmap", ["colour"], ["color", "ax"]).split("; "):
    ...     print(part)
    plot_rrmap() got an unexpected keyword argument 'colour' (did you mean 'color'?)
    it accepts: ax, color
    """
    accepted = sorted(set(accepted))
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, accepted, n=1)
        hints.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return (
        f"{func}() got an unexpected keyword argument {', '.join(hints)}; "
        f"it accepts: {', '.join(accepted)}"
    )


def check_keywords(func: str, given: Mapping[str, Any], accepted: Iterable[str]) -> None:
    """Raise ``TypeError`` (:func:`keywords_message`) if *given* holds a keyword not in
    *accepted*."""
    accepted = set(accepted)
    unknown = [k for k in given if k not in accepted]
    if unknown:
        raise TypeError(keywords_message(func, unknown, accepted))


def lists_keywords(
    extra: Iterable[str] = (),
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorate a figure function: a keyword that is neither one of its parameters nor
    one of *extra* (what its ``**style`` accepts) raises :func:`keywords_message`."""
    extra = tuple(extra)

    def decorate(func: Callable[_P, _R]) -> Callable[_P, _R]:
        params = inspect.signature(func).parameters.values()
        named = {p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        accepted = named | set(extra)

        @functools.wraps(func)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            check_keywords(func.__name__, kwargs, accepted)
            return func(*args, **kwargs)

        return wrapper

    return decorate
