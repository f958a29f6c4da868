"""Every file of an analysis written into a folder (the staged folder of
:meth:`rrmap.analysis.AnalysisResult.write`), in the order they are listed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rrmap.analysis import AnalysisResult
    from rrmap.plot.analysis_figures import AnalysisFigures


#: Files written by :meth:`AnalysisResult.write` (figures come on top).
OUTPUT_FILES: tuple[str, ...] = (
    "tests.csv",
    "points.csv",
    "proportions.csv",
    "agreement.csv",
    "reliability.csv",
    "tests.tex",
    "proportions.tex",
    "agreement.tex",
    "results.json",
    "report.md",
    "report.html",
)


def is_output(path: Path) -> bool:
    """Whether *path*, in a results folder, is a file an analysis writes."""
    if path.name == "figures":
        return path.is_dir() and not path.is_symlink()
    return path.name in OUTPUT_FILES


def existing_outputs(folder: str | os.PathLike[str]) -> list[str]:
    """Names of :data:`OUTPUT_FILES` already present in *folder* (and ``figures/`` if not empty).

    Parameters
    ----------
    folder : path

    Returns
    -------
    list of str

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     existing_outputs(tmp)
    []
    """
    folder = Path(folder)
    found = [name for name in OUTPUT_FILES if (folder / name).exists()]
    figures = folder / "figures"
    if figures.is_dir() and any(figures.iterdir()):
        found.append("figures/")
    return found


def write_files(
    result: AnalysisResult,
    stage: Path,
    *,
    figures: bool | AnalysisFigures,
    width: float | str | None,
    dpi: int,
    raw: bool,
    progress: bool = False,
) -> list[str]:
    """The tables (CSV, LaTeX), the figures, ``results.json`` and the reports into *stage*;
    their names relative to it: tables, figures, then results.json and the reports."""
    from rrmap._writing import csv_text

    written: list[str] = []

    def put(name: str, text: str) -> None:
        (stage / name).write_text(text, encoding="utf-8", newline="")
        written.append(name)

    def csv(name: str, frame: pd.DataFrame) -> None:
        put(name, csv_text(frame, raw=raw))

    csv("tests.csv", result.tests)
    csv("points.csv", result.points.assign(quality=result.points["quality"].astype(str)))
    csv("proportions.csv", result.proportions)
    csv("agreement.csv", result.agreement)
    csv("reliability.csv", result.reliability)
    for table in ("tests", "proportions", "agreement"):
        put(f"{table}.tex", result.latex(table))
    # figures drawn by workers: their names are known, so results.json and the reports'
    # text are made while the workers draw, and only the figures wait for them
    drawing = not isinstance(figures, bool)
    if drawing:
        if figures.points is None:
            figures.draw(result.points, categories=_categories(result))
        fig_names = [f"figures/{name}" for name in figures.file_names()]
        page = _results_and_report(result, fig_names, raw, put)
    fig_paths = []
    if figures:
        fig_paths = _figures(result, stage / "figures", figures, width, dpi, progress)
    names = [p.relative_to(stage).as_posix() for p in fig_paths]  # figures/<name>
    if not drawing:
        fig_names = names
        page = _results_and_report(result, fig_names, raw, put)
    from rrmap.report_html import _render_page

    embedded = dict(zip(fig_names, fig_paths, strict=True))
    interactive: bool | str = bool(figures)
    if drawing and figures.interactive:
        interactive = figures.map_html() or False  # made by a worker meanwhile
    put("report.html", _render_page(page, embedded, interactive=interactive, result=result))
    return written[:-3] + fig_names + written[-3:]


def _categories(result: AnalysisResult) -> list[str] | None:
    return list(result.settings["by"]) or None


def _results_and_report(
    result: AnalysisResult, fig_names: list[str], raw: bool, put: Callable[[str, str], None]
) -> dict[str, Any]:
    """``results.json`` and ``report.md`` listing *fig_names*, written with *put*; the
    HTML report's page, to render with the figures."""
    from rrmap._json import json_text  # pandas: not imported to check a folder
    from rrmap.report_html import _page_context

    payload = result.to_dict()
    payload["figures"] = fig_names
    payload["csv_cells"] = "raw" if raw else "spreadsheet-safe"
    put("results.json", json_text(payload))
    put("report.md", result.report(figures=fig_names))
    return _page_context(result)


def _figures(
    result: AnalysisResult,
    folder: Path,
    figures: bool | AnalysisFigures,
    width: float | str | None,
    dpi: int,
    progress: bool,
) -> list[Path]:
    """The analysis figures, or none when the plotting module cannot be imported."""
    categories = _categories(result)
    if not isinstance(figures, bool):  # an AnalysisFigures: drawn while the tests ran
        return figures.save(folder, progress=progress)
    try:
        from rrmap.plot import save_analysis_figures
    except ImportError:
        return []
    files = save_analysis_figures(
        result.points, folder, categories=categories, width=width, dpi=dpi, progress=progress
    )
    return [Path(p) for p in files]
