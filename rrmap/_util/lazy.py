"""Private: a package's lazily loaded names, listed once, in the ``__init__.pyi`` beside it;
optional modules imported on first use, with the install hint when they are missing."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lazy_loader

from rrmap.errors import InputError


def attach_stub(package: str, init_file: str) -> tuple[Callable, Callable, list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of *package* from its stub.

    The stub's ``from .module import name`` lines are the public names
    (``__all__``), each imported from its module on first use; its
    ``from . import module`` lines are submodules, also imported on first use
    but not part of ``__all__``. Editors and type checkers read the same stub,
    so every name is written down once.

    Examples
    --------
    >>> import rrmap.rank
    >>> "fit_bradley_terry" in rrmap.rank.__all__, "alignment" in rrmap.rank.__all__
    (True, False)
    """
    stub = Path(init_file).with_suffix(".pyi")
    submodules: list[str] = []
    attrs: dict[str, list[str]] = {}
    for node in ast.parse(stub.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [alias.name for alias in node.names]
            if node.module is None:
                submodules += names
            else:
                attrs.setdefault(node.module, []).extend(names)
    getattr_, lazy_dir, _ = lazy_loader.attach(package, submodules, attrs)
    public = sorted({name for names in attrs.values() for name in names})

    def __dir__() -> list[str]:
        return sorted({*public, *lazy_dir()})

    return getattr_, __dir__, public


def optional_module(module: str, need: str, extra: str) -> Any:
    """*module*, imported now, or an :class:`~rrmap.errors.InputError` that says *need* (what
    needs which package) and how to install it: the ``rrmap[extra]`` extra.

    Examples
    --------
    >>> optional_module("json", "reading needs json", "all").__name__
    'json'
    >>> optional_module("no_such_module", "this needs nothing", "judge")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: this needs nothing, which is not installed: pip install 'rrmap[judge]'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{need}, which is not installed: pip install 'rrmap[{extra}]'") from None
