"""Sphinx roles in the docstrings (``:func:`rrmap.points```) as links of the docs site.

The docstrings are numpydoc and keep Sphinx's cross-reference roles, which read
well in ``help()`` and IDEs. mkdocstrings does not know them, so this griffe
extension rewrites each role, before the docstring is parsed, as an *optional*
mkdocs-autorefs reference: a link where the target is documented on the site, the
name in code style where it is not (``pandas.DataFrame``), never a broken link.
Short names (``:func:`plot_rrmap```) are looked up in the object's module, then in
its package, as Sphinx does. The ``::`` that opens a literal block (``is::``) is
written ``:``; the indented block below it is code in Markdown too.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

_LITERAL = re.compile(r"(?<=\S)::$", flags=re.MULTILINE)  # "is::" opens a literal block
_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|const):`(~?)([^`<>]+)`")


def _target(obj: griffe.Object, name: str, loader: griffe.GriffeLoader) -> str:
    """The documented path of *name* as seen from *obj*.

    A short name is looked up in the object's module, then its package; an
    alias (``rrmap.load_ratings``) becomes the path it is documented under
    (``rrmap.ratings.load_ratings``), and a module named like its one function
    (``rrmap.points``) that function.
    """
    name = name.strip().removesuffix("()")
    path = name
    if not (name == "rrmap" or name.startswith("rrmap.")):
        scopes = [obj.module]
        if obj.module.parent is not None:
            scopes.append(obj.module.parent)
        head = name.split(".")[0]
        path = next((f"{s.path}.{name}" for s in scopes if head in s.members), name)
    try:
        found = loader.modules_collection[path]
        if found.is_alias:
            found = found.final_target
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return path
    last = found.path.rsplit(".", 1)[-1]
    if found.is_module and last in found.members:
        return f"{found.path}.{last}"
    return found.path


def rewrite(text: str, obj: griffe.Object, loader: griffe.GriffeLoader) -> str:
    """*text* with every role replaced by an optional autorefs reference, and the
    ``::`` that opens a reStructuredText literal block written as ``:``."""

    def one(match: re.Match[str]) -> str:
        tilde, name = match.groups()
        target = _target(obj, name, loader)
        title = name.strip().split(".")[-1] if tilde else name.strip()
        return (
            f'<autoref identifier="{html.escape(target)}" optional>'
            f"<code>{html.escape(title)}</code></autoref>"
        )

    return _LITERAL.sub(":", _ROLE.sub(one, text))


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles of every docstring once the object tree is complete."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None and ":" in obj.docstring.value:
            obj.docstring.value = rewrite(obj.docstring.value, obj, loader)
