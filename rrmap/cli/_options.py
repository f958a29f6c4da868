"""Click options shared by commands that read ratings (file format, schema, coverage, zones)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

_FILE_OPTIONS: list[tuple[str, str, str]] = [
    ("--sheet", "sheet", "Sheet of an .xlsx/.ods workbook, by name or 1-based number [first]."),
    ("--encoding", "encoding", "Encoding of a text file (e.g. cp1252) [detected]."),
    ("--sep", "sep", "Field separator of a text file (',' ';' tab '|') [detected]."),
]

_ROLE_OPTIONS: list[tuple[str, str, str | None]] = [
    ("--rater", "rater", "Column naming the rater [study: expert]."),
    ("--origin", "origin", "Column saying reference or query [study: origin]."),
    ("--low", "low", "Column of lower bounds [study: low rating]."),
    ("--high", "high", "Column of upper bounds [study: high rating]."),
    ("--reference", "reference", "Origin value of the reference corpus [study: real]."),
]


class _Number(click.ParamType):
    """A number, written as a decimal (0.5) or as a fraction (2/3).

    Examples
    --------
    >>> _NUMBER.convert("2/3", None, None) == 2 / 3, _NUMBER.convert("0.5", None, None)
    (True, 0.5)
    """

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, float):
            return value
        try:
            return float(value)
        except ValueError:
            pass
        try:
            return float(Fraction(str(value).strip()))
        except (ValueError, ZeroDivisionError, OverflowError):
            self.fail(f"{value!r} is not a number (write 0.5 or 2/3)", param, ctx)


_NUMBER = _Number()


def ratings_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a click command with the ratings-schema, coverage and zone options."""
    opts = [
        click.option(flag, dest, default=None, help=help_) for flag, dest, help_ in _FILE_OPTIONS
    ]
    opts += [
        click.option(
            "--decimal",
            type=click.Choice([".", ","]),
            default=None,
            help="Decimal mark of the numbers [detected from the numbers].",
        )
    ]
    opts += [
        click.option(flag, dest, default=None, help=help_) for flag, dest, help_ in _ROLE_OPTIONS
    ]
    opts += [
        click.option(
            "--query",
            "query",
            multiple=True,
            help="Origin value of a query corpus (a generator) to compare with the reference "
            "(repeatable). Default: every value but the reference (study: generated); rows "
            "of the others are left out, counted.",
        ),
        click.option(
            "--drop-incomplete",
            is_flag=True,
            help="Drop rows with a blank interval bound and intervals without a partner "
            "(a query without its reference, a reference without any query) instead of "
            "refusing the file; they are counted and listed in the report.",
        ),
        click.option(
            "--category",
            "categories",
            multiple=True,
            help="Category column (repeatable). Default: every non-role column.",
        ),
        click.option(
            "--scale", nargs=2, type=float, default=(0.0, 100.0), help="Bounds of the rating scale."
        ),
        click.option(
            "--no-scale-check", is_flag=True, help="Do not reject intervals outside the scale."
        ),
        click.option(
            "--min-width",
            type=float,
            default=None,
            help="Floor interval widths to this value instead of rejecting "
            "zero-width intervals (off by default).",
        ),
        click.option(
            "--coverage", type=float, default=0.95, help="Probability mass of each rated interval."
        ),
        click.option(
            "--z",
            "z",
            type=float,
            default=None,
            help="Use this quantile instead of the exact one (1.96 = paper).",
        ),
        click.option("--excellent-bc", type=float, default=0.98, help="BC above which: excellent."),
        click.option(
            "--delta-bound",
            type=float,
            default=2.0,
            help="|Δ| bound of the stereotype and fair zones (1.96 unrounded).",
        ),
        click.option(
            "--stereotype-r",
            type=_NUMBER,
            default="2/3",
            help="R below which a centred point is a stereotype (a number or a fraction).",
        ),
        click.option("--fair-r", type=float, default=1.5, help="Upper R bound of the fair zone."),
    ]
    return functools.reduce(lambda f, o: o(f), reversed(opts), func)


_OPTION_KEYS = [
    "sheet",
    "encoding",
    "sep",
    "decimal",
    "rater",
    "origin",
    "low",
    "high",
    "reference",
    "query",
    "drop_incomplete",
    "categories",
    "scale",
    "no_scale_check",
    "min_width",
    "coverage",
    "z",
    "excellent_bc",
    "delta_bound",
    "stereotype_r",
    "fair_r",
]


def check_jobs(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """``--jobs``: a positive number of workers, or -1 (every core), -2 (all but one), …"""
    if value == 0:
        raise click.BadParameter("0 workers: give 1 or more, or -1 for every core")
    return value


def _plain(info: dict[str, Any]) -> bool:
    """A UTF-8, comma-separated file read with nothing skipped: nothing worth saying."""
    return (
        info.get("format") == "text"
        and info.get("encoding") == "utf-8"
        and info.get("sep") == ","
        and info.get("decimal", ".") == "."
        and not info.get("empty_lines")
        and not info.get("dropped_columns")
    )


def _corpora_line(df: pd.DataFrame) -> str:
    """``Corpora: reference 'real' (405 rows); query 'gen-A' (405), 'gen-B' (405).``"""
    from rrmap._util.escape import message_text

    meta = df.attrs["rrmap"]
    counts = df["origin"].value_counts()
    queries = ", ".join(f"{message_text(q)!r} ({int(counts.get(q, 0))})" for q in meta["queries"])
    ref = meta["reference"]
    return (
        f"Corpora: reference {message_text(ref)!r} ({int(counts.get(ref, 0))} rows); "
        f"{len(meta['queries'])} query corpora {queries}"
    )


def ratings_from_options(
    path: Path, opts: dict[str, Any], quiet: bool = False
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Load *path* with the shared options; return the ratings and the ``points`` settings.

    Pops the shared options out of *opts* so that the command keeps only its own.
    Says on stderr how the file was read, unless it is a plain UTF-8
    comma-separated file or *quiet* is set, and prints each
    :class:`~rrmap.ratings.RatingsWarning` as one ``Warning:`` line.
    """
    # imported here, not with the options: a command starts its work (analyze: its figure
    # workers) before pandas is imported
    from rrmap._io.tabular import describe_reading
    from rrmap.gaussian import z_value
    from rrmap.ratings import RatingsWarning, load_ratings
    from rrmap.zones import Thresholds

    o = {k: opts.pop(k) for k in _OPTION_KEYS}
    # settings first: a bad option is reported before the file is read
    th = Thresholds(
        excellent_bc=o["excellent_bc"],
        delta_bound=o["delta_bound"],
        stereotype_r=o["stereotype_r"],
        fair_r=o["fair_r"],
    )
    z_value(o["coverage"], o["z"])
    sep = o["sep"]
    if sep is not None and sep.lower() in ("tab", "\\t"):
        sep = "\t"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RatingsWarning)
        df = load_ratings(
            path,
            rater=o["rater"],
            origin=o["origin"],
            low=o["low"],
            high=o["high"],
            reference=o["reference"],
            query=list(o["query"]) or None,
            drop_incomplete=o["drop_incomplete"],
            categories=list(o["categories"]) or None,
            scale=None if o["no_scale_check"] else tuple(o["scale"]),
            min_width=o["min_width"],
            coverage=o["coverage"],
            z=o["z"],
            sep=sep,
            encoding=o["encoding"],
            decimal=o["decimal"],
            sheet=o["sheet"],
        )
    meta = df.attrs["rrmap"]
    if not quiet and not _plain(meta["read"]):
        click.echo(describe_reading(meta["read"], meta["source"], len(df)), err=True)
    if not quiet and len(meta.get("queries", [])) > 1:
        click.echo(_corpora_line(df), err=True)
    for w in caught:
        if issubclass(w.category, RatingsWarning):
            click.echo(f"Warning: {' '.join(str(w.message).split())}", err=True)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return df, {"coverage": o["coverage"], "z": o["z"], "thresholds": th}
