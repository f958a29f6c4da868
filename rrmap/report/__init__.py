"""The reports of an analysis, as renderers of its tables (docs/analyze.md).

- :mod:`rrmap.report.markdown`: ``report.md`` (:func:`render_report`) and its opening
  sentences (:func:`summary_lines`);
- :mod:`rrmap.report.html`: ``report.html``, a page to read in a browser (:func:`render_html`,
  :func:`key_findings`);
- :mod:`rrmap.report.latex`: the same tables as booktabs LaTeX;
- :mod:`rrmap.report.designs`: each design's tests side by side (:func:`side_by_side`,
  :func:`design_frames`); :mod:`rrmap.report.overall`: the overall tests at a glance;
  :mod:`rrmap.report.sections`: proportions, agreement, reliability, the generator
  comparison; :mod:`rrmap.report.format`: how p-values and tests are written.

They read a result through :class:`rrmap.report.protocol.Result` (the fields of
:class:`rrmap.analysis.AnalysisResult`) and never import the analysis.

Examples
--------
>>> import rrmap
>>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
>>> render_report(res).splitlines()[0]
'# RRMap analysis report'
"""

from rrmap._util.escape import split_groups
from rrmap.report.designs import design_frame, design_frames, design_sections, side_by_side
from rrmap.report.format import format_pvalue, is_pvalue_column
from rrmap.report.html import key_findings, render_html
from rrmap.report.latex import (
    agreement_latex,
    latex_pvalue,
    proportions_latex,
    result_latex,
    tests_latex,
)
from rrmap.report.markdown import render_report, summary_lines
from rrmap.report.overall import aligned_text, overall_html, overall_markdown, overall_text
from rrmap.report.protocol import Result

__all__ = [
    "Result",
    "agreement_latex",
    "aligned_text",
    "design_frame",
    "design_frames",
    "design_sections",
    "format_pvalue",
    "is_pvalue_column",
    "key_findings",
    "latex_pvalue",
    "overall_html",
    "overall_markdown",
    "overall_text",
    "proportions_latex",
    "render_html",
    "render_report",
    "result_latex",
    "side_by_side",
    "split_groups",
    "summary_lines",
    "tests_latex",
]


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the modules."""
    return sorted(__all__)
