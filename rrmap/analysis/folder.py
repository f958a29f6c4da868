"""Every file of an analysis written into a folder (the staged folder of
:meth:`rrmap.analysis.AnalysisResult.write`), in the order they are listed, and
the record of them (:data:`MANIFEST`) that lets ``--force`` replace exactly those."""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rrmap._util.atomic import check_replaceable
from rrmap._version import __version__

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rrmap.plot.analysis_figures import AnalysisFigures
    from rrmap.report.protocol import Result


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

#: The record of the files an analysis wrote into its folder (names relative to it), so
#: that replacing the folder never takes a file of the user's with it.
MANIFEST = ".rrmap-files.json"

#: Records larger than this are not read (a folder of an earlier rrmap: its results.json).
_RECORD_LIMIT = 64 * 2**20


def is_output(folder: Path, name: str) -> bool:
    """Whether *name* (relative to the results *folder*, ``figures/a.pdf``) is a file an
    analysis wrote there: one :data:`MANIFEST` lists.

    In a folder an earlier rrmap wrote without a manifest, the names of
    :data:`OUTPUT_FILES` and the figures its ``results.json`` lists count.
    ``figures`` itself is one if it is a folder (not a link); what it holds
    is asked for each file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = pathlib.Path(tmp)
    ...     _ = (folder / MANIFEST).write_text('{"files": ["figures/map.pdf"]}')
    ...     is_output(folder, "figures/map.pdf"), is_output(folder, "figures/notes.txt")
    (True, False)
    """
    if name == "figures":
        return (folder / name).is_dir() and not (folder / name).is_symlink()
    return name == MANIFEST or name in _written(folder)


def _written(folder: Path) -> frozenset[str]:
    """The names rrmap wrote into *folder* (read again only when the records change)."""
    stamps = []
    for name in (MANIFEST, "results.json"):
        try:
            st = os.stat(folder / name)
        except OSError:
            stamps.append(None)
        else:
            stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return _read_records(str(folder), tuple(stamps))


@functools.lru_cache(maxsize=8)
def _read_records(folder: str, stamps: tuple) -> frozenset[str]:
    """:data:`MANIFEST`'s names, or those of a folder without one (see :func:`is_output`);
    *stamps* only key the cache."""
    manifest = _names(Path(folder) / MANIFEST, "files")
    if manifest is not None:
        return frozenset(manifest)
    return frozenset([*OUTPUT_FILES, *(_names(Path(folder) / "results.json", "figures") or [])])


def _names(path: Path, key: str) -> list[str] | None:
    """The list of names under *key* in the JSON object in *path*, or None (missing, too
    large, not such a list)."""
    with contextlib.suppress(OSError, ValueError, RecursionError):
        if path.is_file() and path.stat().st_size <= _RECORD_LIMIT:
            data = json.loads(path.read_bytes())
            names = data.get(key) if isinstance(data, dict) else None
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                return names
    return None


def existing_outputs(folder: str | os.PathLike[str]) -> list[str]:
    """Names of :data:`OUTPUT_FILES` already present in *folder* (and ``figures/`` if not empty).

    Parameters
    ----------
    folder : path

    Returns
    -------
    list of str

    Raises
    ------
    InputError
        If *folder* holds anything else (at any depth, :func:`is_output`): it
        is refused before any work, as replacing it would lose those files.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     existing_outputs(tmp)
    []
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    check_replaceable(folder, is_output)
    found = [name for name in OUTPUT_FILES if (folder / name).exists()]
    figures = folder / "figures"
    if figures.is_dir() and any(figures.iterdir()):
        found.append("figures/")
    return found


def write_files(
    result: Result,
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
    from rrmap._io.writing import csv_text

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
    from rrmap.report.html import render_page

    embedded = dict(zip(fig_names, fig_paths, strict=True))
    interactive: bool | str = bool(figures)
    if drawing and figures.interactive:
        interactive = figures.map_html() or False  # made by a worker meanwhile
    put("report.html", render_page(page, embedded, interactive=interactive, result=result))
    names = written[:-3] + fig_names + written[-3:]
    record = {"rrmap": __version__, "files": names}
    (stage / MANIFEST).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return names


def _categories(result: Result) -> list[str] | None:
    return list(result.settings["by"]) or None


def _results_and_report(
    result: Result, fig_names: list[str], raw: bool, put: Callable[[str, str], None]
) -> dict[str, Any]:
    """``results.json`` and ``report.md`` listing *fig_names*, written with *put*; the
    HTML report's page, to render with the figures."""
    from rrmap._io.results_json import json_text  # pandas: not imported to check a folder
    from rrmap.report.html import page_context

    payload = result.to_dict()
    payload["figures"] = fig_names
    payload["csv_cells"] = "raw" if raw else "spreadsheet-safe"
    put("results.json", json_text(payload))
    put("report.md", result.report(figures=fig_names))
    return page_context(result)


def _figures(
    result: Result,
    folder: Path,
    figures: bool | AnalysisFigures,
    width: float | str | None,
    dpi: int,
    progress: bool,
) -> list[Path]:
    """The analysis figures: drawn by *figures* while the tests ran, or drawn now."""
    categories = _categories(result)
    if not isinstance(figures, bool):  # an AnalysisFigures: drawn while the tests ran
        return figures.save(folder, progress=progress)
    from rrmap.plot import save_analysis_figures

    files = save_analysis_figures(
        result.points, folder, categories=categories, width=width, dpi=dpi, progress=progress
    )
    return [Path(p) for p in files]
