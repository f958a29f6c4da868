"""Former home of :mod:`rrmap.report.html` (``report.html``); its names are importable from
here as before."""

from rrmap.report.html import key_findings, render_html

__all__ = ["key_findings", "render_html"]


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
