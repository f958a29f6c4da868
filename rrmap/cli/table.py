"""``rrmap table``: one table of an ``rrmap analyze`` results folder as booktabs LaTeX."""

from __future__ import annotations

import json
from pathlib import Path

import click

from rrmap._util.atomic import write_text
from rrmap.cli.common import CONTEXT_SETTINGS, refuse_overwrite
from rrmap.errors import InputError


@click.command("table", context_settings=CONTEXT_SETTINGS)
@click.argument("results", type=click.Path(exists=True, path_type=Path))
@click.argument("which", type=click.Choice(["tests", "proportions", "agreement"]))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="LaTeX file to write ('-' or none: standard output).",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@click.option(
    "--table-width",
    type=click.Choice(["column", "text"]),
    default="column",
    show_default=True,
    help="Fit the table to a column (table; also in two-column documents) or to the text "
    "block (table*, spanning both columns; the tests side by side).",
)
def table_command(
    results: Path, which: str, output: Path | None, force: bool, table_width: str
) -> None:
    """Write one table of an analysis (RESULTS folder) as booktabs LaTeX.

    RESULTS is a folder written by ``rrmap analyze`` (or its results.json);
    WHICH is tests (every design, p < 0.05 in bold), proportions (quality
    shares per rater and per rater × option) or agreement (pointwise
    agreement across raters). Captions carry the permutations and seed of the
    run. Tables fit --table-width; long ones continue in further floats. Needs
    \\usepackage{booktabs}.
    """
    from rrmap.analysis import load_result
    from rrmap.report.latex import result_latex

    path = results / "results.json" if results.is_dir() else results
    if not path.is_file():
        raise InputError(f"{results}: no results.json; give a folder written by rrmap analyze")
    try:
        result = load_result(path)
    except RecursionError:
        raise InputError(f"{path}: nested too deeply for a results.json of rrmap") from None
    except (json.JSONDecodeError, KeyError) as exc:
        raise InputError(f"{path}: not a results.json of rrmap analyze ({exc})") from exc
    text = result_latex(result, which, width=table_width)
    if output is None or str(output) == "-":
        click.echo(text, nl=False)
        return
    refuse_overwrite(output, force)
    write_text(output, text)
    click.echo(f"wrote {output}", err=True)
