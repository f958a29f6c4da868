"""Render the reference pages of ``docs/`` from the code itself.

``docs/cli.md`` holds the ``--help`` of every command; ``docs/api.md`` lists
the public Python API (each package's ``__all__`` with the first line of each
docstring and its signature). Regenerate both with
``python -m rrmap.cli._reference_docs``; a test checks that the committed files
equal this output, so neither can drift.
"""

from __future__ import annotations

import html
import importlib
import inspect
import re
import sys
from pathlib import Path

import click

from rrmap.cli import main

_WIDTH = 100
API_PACKAGES = (
    "rrmap",
    "rrmap.stats",
    "rrmap.plot",
    "rrmap.rank",
    "rrmap.judge",
)


def _walk(cmd: click.Command, path: list[str]):
    yield path, cmd
    if isinstance(cmd, click.Group):
        ctx = cmd.context_class(cmd, info_name=" ".join(path))
        for name in sorted(cmd.list_commands(ctx)):
            yield from _walk(cmd.get_command(ctx, name), [*path, name])


def cli_reference() -> str:
    """Markdown with the ``--help`` text of every rrmap command and sub-command."""
    parts = [
        "# Command-line reference",
        "",
        "Generated from the commands' own `--help` by `python -m rrmap.cli._reference_docs`; "
        "the test suite checks it is up to date.",
        "",
        "**Exit codes.** `0`: done. `1`: bad input — a file, column, value or setting rrmap "
        "cannot use — reported as one line `Error: …` on stderr (set `RRMAP_DEBUG=1` for a "
        "traceback). `2`: the command line itself is wrong — an unknown option or command, a "
        "missing argument, a value of the wrong type or out of range — reported with the "
        "command's usage, as in every click program. `130`/`143`/`129`: stopped by Ctrl-C, "
        "`kill` (SIGTERM) or a closed terminal (SIGHUP), reported as one line "
        "`Interrupted.`, `Terminated.` or `Hangup.`; no process of the run is left. "
        "Warnings about the input (a guessed "
        "encoding, `mean` columns that disagree with the intervals) are lines `Warning: …` "
        "on stderr and do not change the exit code.",
        "",
    ]
    for path, cmd in _walk(main, ["rrmap"]):
        settings = {**cmd.context_settings, "terminal_width": _WIDTH, "max_content_width": _WIDTH}
        ctx = cmd.context_class(cmd, info_name=" ".join(path), **settings)
        parts += [f"## `{' '.join(path)}`", "", "```text", cmd.get_help(ctx).rstrip(), "```", ""]
    return "\n".join(parts)


def _signature(obj: object) -> str:
    try:
        full = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    bare = [p.replace(annotation=inspect.Parameter.empty) for p in full.parameters.values()]
    plain = full.replace(parameters=bare, return_annotation=inspect.Signature.empty)
    sig = str(plain)
    return sig if len(sig) <= 80 else "(...)"


#: A Sphinx cross-reference role, as the docstrings write them (``:func:`agreement```).
_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const):`(~?)([^`<>]+)`")


def _canonical(name: str, scope: object) -> str:
    """Where *name*, written in the docstring of *scope*, is defined (``rrmap.tables.agreement``):
    looked up in *scope* (a class's methods), its module, then its package, as Sphinx does;
    *name* itself when it is none of theirs (``pandas.DataFrame``)."""
    name = name.strip().removesuffix("()")
    module = sys.modules.get(getattr(scope, "__module__", "") or "")
    places = [scope, module, sys.modules.get(getattr(module, "__package__", "") or "")]
    if name.startswith("rrmap."):
        places = [sys.modules["rrmap"]]
        name = name.removeprefix("rrmap.")
    for place in places:
        found: object = place
        for part in name.split("."):
            found = getattr(found, part, None) if found is not None else None
        if found is not None and hasattr(found, "__qualname__") and hasattr(found, "__module__"):
            return f"{found.__module__}.{found.__qualname__}"
        if inspect.ismodule(found):
            return found.__name__
    return name


def _link(identifier: str, text: str) -> str:
    """A link to *identifier* where the site documents it, else *text* as code: the
    ``optional`` reference of mkdocs-autorefs (GitHub shows the code)."""
    return (
        f'<autoref identifier="{html.escape(identifier)}" optional>'
        f"<code>{html.escape(text, quote=False)}</code></autoref>"
    )


def _without_roles(text: str, scope: object) -> str:
    """*text* with each Sphinx role written as a link to what it names (a raw role reads
    ``:func:`agreement``` on the page)."""

    def one(match: re.Match[str]) -> str:
        tilde, name = match.groups()
        title = name.strip().split(".")[-1] if tilde else name.strip()
        return _link(_canonical(name, scope), title)

    return _ROLE.sub(one, text)


def _constant(value: object) -> str:
    """A constant's value, unless it depends on the machine (a path) or is too long."""
    text = repr(value)
    if isinstance(value, str) and Path(value).is_absolute():
        return "a file path inside the installed package"
    return f"`{text}`" if len(text) <= 80 else f"a `{type(value).__name__}`"


def api_reference() -> str:
    """Markdown listing each package's public names with their one-line summary."""
    parts = [
        "# Python API",
        "",
        "Generated from the packages' `__all__` and docstrings by "
        "`python -m rrmap.cli._reference_docs`; the test suite checks it is up to date. "
        "Full documentation, with parameters and examples, is in each docstring "
        "(`help(rrmap.points)` or `rrmap.points?` in Jupyter); each name below links to its "
        "entry in the reference pages, with its full signature.",
        "",
    ]
    for pkg_name in API_PACKAGES:
        pkg = importlib.import_module(pkg_name)
        parts += [f"## `{pkg_name}`", "", "| name | kind | summary |", "|---|---|---|"]
        for name in sorted(getattr(pkg, "__all__", []), key=str.lower):
            obj = getattr(pkg, name)
            if inspect.ismodule(obj):
                kind, sig = "module", ""
            elif inspect.isclass(obj):
                kind, sig = "class", ""
            elif callable(obj):
                kind, sig = "function", _signature(obj)
            else:
                kind, sig = "constant", ""
            doc = inspect.getdoc(obj) if kind != "constant" else _constant(obj)
            summary = (doc or "").strip().split("\n\n")[0].replace("\n", " ")
            summary = _without_roles(summary, obj).replace("|", "\\|")
            where = getattr(obj, "__module__", pkg_name) if kind != "constant" else pkg_name
            call = f"`{name}{sig}`"
            if kind in ("module", "class", "function"):  # a link to its entry in the reference
                call = _link(_canonical(name, pkg), f"{name}{sig}")
            call = call.replace("|", "\\|")
            parts.append(f"| {call} | {kind} (`{where}`) | {summary} |")
        parts.append("")
    return "\n".join(parts)


def write(folder: Path) -> list[Path]:
    """Write ``cli.md`` and ``api.md`` into *folder*."""
    out = []
    for name, text in (("cli.md", cli_reference()), ("api.md", api_reference())):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write(Path(__file__).resolve().parents[2] / "docs"):
        print(f"wrote {p}")
