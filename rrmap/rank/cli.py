"""``rrmap rank``: fit rankings, sample designs, measure alignment, from the shell."""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path

import click
import pandas as pd

from rrmap._io.writing import csv_text
from rrmap._util.atomic import write_text
from rrmap._util.escape import markdown_text, message_text
from rrmap._util.markdown import markdown_table
from rrmap.cli.common import CONTEXT_SETTINGS, OutputPath, refuse_overwrite
from rrmap.errors import InputError
from rrmap.rank.agreement.alignment import align_rankings
from rrmap.rank.agreement.annotators import (
    annotator_agreement,
    annotator_weights,
    filter_annotators,
)
from rrmap.rank.agreement.filters import filter_subjective
from rrmap.rank.data.comparisons import read_comparisons, read_fineartbench, read_json, record_lines
from rrmap.rank.data.designs import sample_global, sample_per_instance
from rrmap.rank.data.rankings import read_rankings
from rrmap.rank.data.sources import (
    Source,
    looks_like_json,
    named_bytes,
    read_input,
    source_name,
    stdin_input,
)
from rrmap.rank.limits import (
    MAX_FILE_BYTES,
    MAX_PERMUTATIONS,
    MAX_QUESTIONS,
    MAX_RESAMPLES,
    format_bytes,
)
from rrmap.rank.models.bradley_terry import BootstrapWarning, fit_bradley_terry
from rrmap.rank.models.elo import fit_elo
from rrmap.rank.models.plackett_luce import fit_plackett_luce


def _log(msg: str) -> None:
    click.echo(msg, err=True)


def _input(path: Path) -> Source:
    """*path*, or standard input read whole (named ``<stdin>``) for ``-``."""
    return stdin_input() if str(path) == "-" else path


def _one_stdin(*paths: Path) -> None:
    """Standard input can be read once: refuse ``-`` for two inputs of one command."""
    if sum(str(p) == "-" for p in paths) > 1:
        raise click.UsageError("- (standard input) can stand for one input only")


def _is_json(source: Source) -> bool:
    """A ``.json`` path, or standard input that starts like JSON."""
    if isinstance(source, Path):
        return source.suffix.lower() == ".json"
    return looks_like_json(source.getvalue())  # type: ignore[union-attr]


def _read_prefs(path: Path | Source, fmt: str) -> pd.DataFrame:
    """Read a comparisons CSV or FineArtBench JSON (``-``: standard input, its format from
    ``--input-format`` or its first character); report what the reader left out."""
    source = _input(path) if isinstance(path, Path) else path
    if fmt == "auto":
        fmt = "fineartbench" if _is_json(source) else "csv"
    if fmt == "csv":
        df = read_comparisons(source)
        _log(f"{source_name(source)}: {len(df)} comparisons")
        return df
    fab = read_fineartbench(source)
    parts = ", ".join(f"{r} {n}" for r, n in zip(fab.excluded.reason, fab.excluded.n_records,
                                                     strict=True))  # fmt: skip
    _log(f"{source_name(source)}: {fab.n_records} records, {len(fab.comparisons)} "
         f"comparisons used; excluded: {parts}")  # fmt: skip
    return fab.comparisons


def _run_filters(df: pd.DataFrame, band, eta, by: str, min_agreement: float | None,
                 consensus: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """The subjectivity filters, then the annotator filter, each reported on stderr.

    Returns the kept comparisons, every dropped pair/instance/annotator and the
    instance reports of the non-transitivity filter (empty if it did not run).
    """
    kept, parts, instances = df, [], pd.DataFrame()
    if band is not None or eta is not None:
        res = filter_subjective(kept, band=band, eta=eta, by=by)
        _report(res)
        kept, instances = res.comparisons, res.instances
        parts.append(res.dropped)
    if min_agreement is not None:
        res = filter_annotators(kept, min_agreement=min_agreement, **consensus)
        _report(res)
        kept = res.comparisons
        parts.append(res.dropped)
    if parts:
        _log(f"filters: {len(kept)} of {len(df)} comparisons kept")
    if not parts:
        return kept, pd.DataFrame(), instances
    dropped = pd.concat([p for p in parts if not p.empty] or parts, ignore_index=True)
    return kept, dropped, instances


def _csv_text(df: pd.DataFrame, raw_csv: bool) -> str:
    """*df* as CSV; unless *raw_csv*, cells a spreadsheet would run as formulas start with '."""
    return csv_text(df, raw=raw_csv)


def _stdout(path: Path | None) -> bool:
    return path is not None and str(path) == "-"


def _check_outputs(force: bool, output: Path | None, *reports: Path | None) -> None:
    """Refuse existing outputs before any work (and again when writing); ``-`` is standard
    output, which a report (``--dropped``…) may take only when the main output is a file."""
    if any(_stdout(p) for p in reports) and (output is None or _stdout(output)):
        raise click.UsageError("- (standard output) already carries the main output: "
                               "give -o FILE to send a report to standard output")  # fmt: skip
    if sum(_stdout(p) for p in reports) > 1:
        raise click.UsageError("- (standard output) can stand for one report only")
    for path in (output, *reports):
        if path is not None and not _stdout(path):
            refuse_overwrite(path, force)


def _write_report(path: Path | None, table: pd.DataFrame, what: str, force: bool,
                  raw_csv: bool) -> None:  # fmt: skip
    if _stdout(path):
        sys.stdout.write(_csv_text(table, raw_csv))
    elif path is not None:
        refuse_overwrite(path, force)
        write_text(path, _csv_text(table, raw_csv))
        _log(f"wrote {len(table)} {what} to {path}")


def _filter(df: pd.DataFrame, band, eta, by: str, dropped_path: Path | None, force: bool,
            annot: dict, raw_csv: bool) -> pd.DataFrame:  # fmt: skip
    """Filters before a fit, then annotator weights; each step reported on stderr."""
    if (band is not None or eta is not None) and by == "instance" and by not in df.columns:
        raise InputError("filters need an 'instance' column")
    filtered = band is not None or eta is not None or annot["min_agreement"] is not None
    if df.empty:
        raise InputError("no comparisons to rank (nothing was filtered: the input has none)")
    df, dropped, _ = _run_filters(df, band, eta, by, annot["min_agreement"], annot["consensus"])
    if filtered:
        _write_report(dropped_path, dropped, "dropped pairs/instances/annotators", force,
                      raw_csv)  # fmt: skip
    if df.empty:
        raise InputError("no comparisons left after filtering")
    if annot["weight"]:
        table = annotator_agreement(df, **annot["consensus"])
        df = df.assign(annotator_weight=annotator_weights(df, table))
        zero = int((table["weight"] == 0).sum())
        _log(f"annotators: {len(table)} weighted by their log-odds of agreeing with the "
             f"leave-one-out consensus (raw weights {table['weight'].min():.3g} to "
             f"{table['weight'].max():.3g}; {zero} at 0, no better than chance)")  # fmt: skip
    return df


def _report(res) -> None:
    units = {"tie_band": "pairs", "non_transitive": "instances",
             "annotator_agreement": "annotators"}  # fmt: skip
    for r in res.summary().itertuples(index=False):
        _log(f"filters: dropped {r.n_dropped} {units[r.reason]} ({r.n_comparisons} "
             f"comparisons): {r.reason}")  # fmt: skip


def _select(df: pd.DataFrame, columns: str | None) -> pd.DataFrame:
    if not columns:
        return df
    wanted = [c.strip() for c in columns.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in df.columns]
    if unknown:
        raise InputError(
            f"--columns: unknown column{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(unknown)} (available: {', '.join(map(str, df.columns))})"
        )
    return df[wanted]


def _markdown_once(df: pd.DataFrame, settings_once: bool) -> str:
    """*df* as Markdown; with *settings_once*, the columns that hold one value on every
    row of a longer table (the settings of a fit) are said once above it, not repeated."""
    if not settings_once or len(df) < 2:
        return markdown_table(df) + "\n"
    same = [c for c in df.columns if df[c].nunique(dropna=False) == 1 and c != "candidate"]
    if not same:
        return markdown_table(df) + "\n"
    said = "; ".join(f"{markdown_text(c)} = {markdown_text(df[c].iloc[0])}" for c in same)
    return f"Every row: {said}.\n\n" + markdown_table(df.drop(columns=same)) + "\n"


def _emit(df: pd.DataFrame, output: Path | None, fmt: str, force: bool, what: str,
          columns: str | None = None, raw_csv: bool = False) -> None:  # fmt: skip
    """Write *df* (CSV spreadsheet-safe unless *raw_csv*, JSON, or Markdown with every
    label escaped) to stdout or, all-or-nothing, to *output*."""
    df = _select(df, columns)
    if _stdout(output):
        output = None
    if output is not None:
        refuse_overwrite(output, force)
    if fmt == "csv":
        text = _csv_text(df, raw_csv)
    elif fmt == "json":
        text = df.to_json(orient="records", indent=1) + "\n"
    else:
        text = _markdown_once(df, settings_once=columns is None)
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)
        _log(f"wrote {len(df)} {what} to {output}")


_MODEL_NAMES = {"bt": "bradley-terry", "davidson": "davidson", "rao-kupper": "rao-kupper"}
_FIT_COLUMNS = [
    *("model", "mle_exists", "problem", "regularized", "alpha", "tie_parameter"),
    *("tie_parameter_se", "converged", "level", "n_bootstrap", "bootstrap_by", "ci", "seed"),
]


_POSITION_COLUMNS = [
    *("position_effect", "position_effect_se", "position_lr_statistic", "position_lr_p"),
]


def _notes(fit) -> None:
    notes = fit.notes
    if len(notes) <= 3:
        for note in notes:
            _log("note: " + note)
        return
    n_missing = int((~fit.fits["mle_exists"]).sum())
    if n_missing:
        _log(f"note: the maximum-likelihood estimate does not exist for {n_missing} of "
             f"{len(fit.fits)} groups (see the mle_exists/problem columns); those were "
             f"fitted with a Gaussian penalty")  # fmt: skip
    n_slow = int((~fit.fits["converged"]).sum())
    if n_slow:
        _log(f"note: Newton's method did not converge for {n_slow} groups")
    n_boot = int(fit.fits["n_bootstrap_no_mle"].sum())
    if n_boot:
        _log(f"note: {n_boot} bootstrap resamples had no maximum-likelihood estimate and were "
             "fitted with the fallback penalty (see n_bootstrap_no_mle)")  # fmt: skip


def _fit_rankings(path: Path, by: str | None, opts: dict, filtered) -> pd.DataFrame:
    """``--model plackett-luce``: the rankings file fitted, one row per candidate."""
    if by or filtered or opts["position_effect"]:
        raise InputError("--model plackett-luce takes no --by, filters, annotator weights or "
                         "--position-effect")  # fmt: skip
    if opts["ci"] != "percentile":
        raise InputError("--model plackett-luce has percentile bootstrap intervals only")
    source = _input(path)
    rankings = read_rankings(source)
    _log(f"{source_name(source)}: {len(rankings)} rankings")
    fit = fit_plackett_luce(rankings, alpha=opts["alpha"], fallback_alpha=opts["fallback_alpha"],
                            bootstrap=opts["bootstrap"], top_k=tuple(opts["top_k"]) or (1,),
                            level=opts["level"], rng=opts["seed"])  # fmt: skip
    info = fit.fits.iloc[0]
    if not info["mle_exists"]:
        how = f"fitted with a Gaussian penalty, alpha={info['alpha']:g}"
        _log(f"note: maximum-likelihood estimate does not exist ({info['problem']}); {how}")
    if info["n_bootstrap_no_mle"]:
        _log(f"note: {info['n_bootstrap_no_mle']} bootstrap resamples had no maximum-likelihood "
             "estimate and were fitted with the fallback penalty")  # fmt: skip
    cols = ["model", "mle_exists", "problem", "regularized", "alpha", "converged", "level",
            "n_bootstrap", "n_bootstrap_no_mle", "seed"]  # fmt: skip
    table = fit.table.assign(**fit.fits[cols].iloc[0])
    return table.sort_values(["rank", "candidate"], ignore_index=True)


def _ties_for(model: str, ties: str | None) -> str:
    if ties is None:
        return "half" if model in ("bt", "elo") else "model"
    if ties == "model" and model in ("bt", "elo"):
        raise InputError(f"--ties model needs a tie model (--model davidson or rao-kupper); "
                         f"{model} takes --ties half or drop")  # fmt: skip
    return ties


def _fit(df: pd.DataFrame, model: str, by: str | None, opts: dict) -> pd.DataFrame:
    """:func:`_fit_table`, its bootstrap warnings shown as ``warning:`` lines on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BootstrapWarning)
        table = _fit_table(df, model, by, opts)
    for w in caught:
        if issubclass(w.category, BootstrapWarning):
            _log(f"warning: {w.message}")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return table


def _fit_table(df: pd.DataFrame, model: str, by: str | None, opts: dict) -> pd.DataFrame:
    if model == "plackett-luce":
        raise InputError("a comparisons file is fitted with bt, davidson, rao-kupper or elo; "
                         "fit rankings with 'rrmap rank fit RANKINGS --model plackett-luce' "
                         "and pass the output")  # fmt: skip
    ties = _ties_for(model, opts["ties"])
    keys = [by] if by else []
    boot = {"bootstrap": opts["bootstrap"], "bootstrap_by": opts["bootstrap_by"],
            "top_k": tuple(opts["top_k"]) or (1,), "level": opts["level"], "rng": opts["seed"],
            "progress": opts["bootstrap"] > 0 and not opts["quiet"]}  # fmt: skip
    if model != "elo":
        weights = "annotator_weight" if "annotator_weight" in df.columns else None
        fit = fit_bradley_terry(df, by=by, model=_MODEL_NAMES[model], ties=ties,
                                alpha=opts["alpha"], fallback_alpha=opts["fallback_alpha"],
                                weights=weights, position_effect=opts["position_effect"],
                                ci=opts["ci"], **boot)  # fmt: skip
        _notes(fit)
        position = _POSITION_COLUMNS if opts["position_effect"] else []
        info = fit.fits[[*keys, *_FIT_COLUMNS, *position, "n_bootstrap_no_mle"]]
        table = fit.table.merge(info, on=keys) if by else fit.table.assign(**info.iloc[0])
        table = table.assign(tie_handling=ties)
        return table.sort_values([*keys, "rank", "candidate"], ignore_index=True)
    if opts["position_effect"]:
        raise InputError("--position-effect needs a likelihood model (bt, davidson, rao-kupper)")
    if opts["ci"] != "percentile":
        raise InputError("--ci basic, bca and wald need a likelihood model (bt, davidson, "
                         "rao-kupper); Elo's intervals are percentile ones")  # fmt: skip
    fit = fit_elo(df, by=by, k=opts["k"], initial=opts["initial"], scale=opts["scale"],
                  n_shuffles=opts["shuffles"], ties=ties, **boot)  # fmt: skip
    table = fit.table.assign(model="elo", k=opts["k"], n_shuffles=opts["shuffles"],
                             tie_handling=ties, level=opts["level"],
                             n_bootstrap=opts["bootstrap"],
                             bootstrap_by=opts["bootstrap_by"] if opts["bootstrap"] else "",
                             seed=opts["seed"])  # fmt: skip
    return table.sort_values([*keys, "rank", "candidate"], ignore_index=True)


_AUTO_HELP = (
    "auto: *.json is FineArtBench JSON, and so is standard input (-) starting with "
    "[ or {; anything else CSV."
)

_out_opts = [
    click.option("-o", "--output", type=OutputPath(),
                 help="Write here instead of stdout (- is stdout)."),
    click.option("--format", "fmt", type=click.Choice(["csv", "json", "markdown"]),
                 default="csv", help="Output format."),
    click.option("--force", is_flag=True, help="Overwrite existing output files."),
    click.option("--columns", default=None,
                 help="Comma-separated columns to output (default: all)."),
    click.option("--raw-csv", is_flag=True,
                 help="Write CSV text cells as they are, for programs reading the output. "
                 "By default a cell starting with = + - @, a tab or a carriage return (or "
                 "holding one after a line break inside the cell) gets a ' there, so that a "
                 "spreadsheet shows it as text."),
]  # fmt: skip

_model_opts = [
    click.option("--model", type=click.Choice(["bt", "davidson", "rao-kupper", "elo",
                                               "plackett-luce"]),
                 default="bt",
                 help="Bradley-Terry (maximum likelihood, with standard errors), its tie "
                 "models Davidson and Rao-Kupper (one tie parameter), Elo (averaged over "
                 "shuffled orders), or Plackett-Luce for k-way rankings (a CSV with a "
                 "ranking column, candidates best first separated by >)."),
    click.option("--input-format", type=click.Choice(["auto", "csv", "fineartbench"]),
                 default="auto", help=_AUTO_HELP),
    click.option("--ties", type=click.Choice(["drop", "half", "model"]), default=None,
                 help="How ties enter: left out (still counted), half a win each, or "
                 "modelled (davidson, rao-kupper). Default: model for the tie models, half "
                 "for bt and elo."),
    click.option("--alpha", type=float, default=None,
                 help="Bradley-Terry penalty (prior precision). Default: none when the MLE "
                 "exists, else --fallback-alpha; 0 forbids the penalty."),
    click.option("--fallback-alpha", type=float, default=0.1,
                 help="Penalty used when the MLE does not exist."),
    click.option("--position-effect", is_flag=True,
                 help="Fit the judge's preference for the left position with the scores "
                 "(theta_left - theta_right + delta; bt, davidson, rao-kupper): adds "
                 "position_effect (log-odds, > 0 favours left), its se and a likelihood-ratio "
                 "test against the model without it."),
    click.option("--k", "k", type=float, default=32.0, help="Elo K-factor."),
    click.option("--initial", type=float, default=1500.0, help="Elo starting rating."),
    click.option("--scale", type=float, default=400.0, help="Elo logistic scale."),
    click.option("--shuffles", type=click.IntRange(1, MAX_RESAMPLES), default=100,
                 help="Elo: number of random orders."),
    click.option("--bootstrap", type=click.IntRange(0, MAX_RESAMPLES), default=0,
                 help="Bootstrap resamples (0: none): percentile intervals of scores and "
                 "ranks, top-k probabilities."),
    click.option("--ci", type=click.Choice(["percentile", "basic", "bca", "wald"]),
                 default="percentile",
                 help="Method of the bootstrap intervals (bt, davidson, rao-kupper): "
                 "percentile, basic (2*score - percentile), bca (bias-corrected, jackknife "
                 "acceleration over the resampling units) or wald (score +- z*se)."),
    click.option("--bootstrap-by", default="comparison",
                 help="Resampling unit: comparison, or a column resampled whole (e.g. "
                 "instance: pairs within an instance are not independent)."),
    click.option("--top-k", "top_k", type=click.IntRange(min=1), multiple=True,
                 help="With --bootstrap: add p_top{K}, the share of resamples ranking a "
                 "candidate K-th or better (repeatable; default 1)."),
    click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True),
                 default=0.95, help="Coverage of the intervals."),
    click.option("--seed", type=click.IntRange(min=0), default=0,
                 help="Random seed (bootstrap, Elo orders, permutations)."),
    click.option("-q", "--quiet", is_flag=True, help="No progress bar."),
]  # fmt: skip

_filter_opts = [
    click.option("--tie-band", nargs=2, type=float, default=None,
                 help="Filter: drop pairs whose preference lies in [LOW, HIGH], e.g. 0.4 0.6."),
    click.option("--eta", type=float, default=None,
                 help="Filter: drop instances with |FAS|/|E| >= ETA, e.g. 0.15."),
    click.option("--dropped", type=OutputPath(),
                 help="Write the filters' dropped pairs/instances/annotators here."),
    click.option("--min-agreement", type=click.FloatRange(0, 1), default=None,
                 help="Filter: drop annotators whose agreement with the leave-one-out "
                 "consensus ranking is below this share (needs an annotator column)."),
    click.option("--weight-annotators", is_flag=True,
                 help="Weight each comparison by its annotator's log-odds of agreeing with "
                 "the leave-one-out consensus (chance = 0); not for elo."),
]  # fmt: skip


def _apply(options):
    def deco(f):
        for opt in reversed(options):
            f = opt(f)
        return f

    return deco


@click.group("rank", context_settings=CONTEXT_SETTINGS)
def rank_group() -> None:
    """Pairwise preferences: rankings (Bradley-Terry, Elo), designs, alignment."""


@rank_group.command("fit", context_settings=CONTEXT_SETTINGS)
@click.argument("prefs", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--by", default=None, help="Fit one ranking per value of this column "
              "(e.g. instance).")  # fmt: skip
@_apply(_model_opts)
@_apply(_filter_opts)
@_apply(_out_opts)
def fit_command(prefs: Path, by, model, input_format, output, fmt, force, columns, raw_csv,
                tie_band, eta, dropped, min_agreement, weight_annotators,
                **opts) -> None:  # fmt: skip
    """Rank the candidates of a comparisons file PREFS (CSV or FineArtBench JSON).

    Output: one row per candidate (and group) with score, uncertainty (se and
    95 % interval for Bradley-Terry, spread and 2.5-97.5 % range over orders
    for Elo), rank and win/loss/tie counts. PREFS - reads standard input.
    """
    _check_outputs(force, output, dropped)
    if model == "plackett-luce":
        table = _fit_rankings(prefs, by, opts, tie_band or eta or min_agreement
                              or weight_annotators)  # fmt: skip
        _emit(table, output, fmt, force, "ranking rows", columns, raw_csv)
        return
    df = _read_prefs(prefs, input_format)
    if weight_annotators and model == "elo":
        raise InputError("--weight-annotators needs a likelihood model (bt, davidson, "
                         "rao-kupper); Elo takes no weights")  # fmt: skip
    consensus = {"model": _MODEL_NAMES.get(model, "bradley-terry"),
                 "ties": _ties_for(model, opts["ties"]) if model != "elo" else "half"}  # fmt: skip
    annot = {"min_agreement": min_agreement, "weight": weight_annotators, "consensus": consensus}
    df = _filter(df, tuple(tie_band) if tie_band else None, eta, by or "instance", dropped,
                 force, annot, raw_csv)  # fmt: skip
    table = _fit(df, model, by, opts)
    _emit(table, output, fmt, force, "ranking rows", columns, raw_csv)


@rank_group.command("filter", context_settings=CONTEXT_SETTINGS)
@click.argument("prefs", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--tie-band",
    nargs=2,
    type=float,
    default=(0.4, 0.6),
    help="Drop pairs whose preference lies in [LOW, HIGH].",
)
@click.option("--eta", type=float, default=0.15, help="Drop instances with |FAS|/|E| >= ETA.")
@click.option("--min-agreement", type=click.FloatRange(0, 1), default=None,
              help="Also drop annotators whose agreement with the leave-one-out consensus "
              "(Bradley-Terry, ties half) is below this share.")  # fmt: skip
@click.option("--no-tie-filter", is_flag=True, help="Skip the tied-pair filter.")
@click.option("--no-fas-filter", is_flag=True, help="Skip the non-transitivity filter.")
@click.option("--by", default="instance", help="The instance column.")
@click.option(
    "--input-format",
    type=click.Choice(["auto", "csv", "fineartbench"]),
    default="auto",
    help=_AUTO_HELP,
)
@click.option(
    "--dropped",
    type=OutputPath(),
    help="Write the dropped pairs/instances (with reasons) here.",
)
@click.option(
    "--instances-report",
    type=OutputPath(),
    help="Write every instance's feedback-arc-set statistics here.",
)
@_apply(_out_opts)
def filter_command(prefs, tie_band, eta, min_agreement, no_tie_filter, no_fas_filter, by,
                   input_format, dropped, instances_report, output, fmt, force,
                   columns, raw_csv) -> None:  # fmt: skip
    """Drop tied pairs and non-transitive instances from PREFS; write the kept comparisons.

    The paper's filters with its values (band [0.4, 0.6], eta 0.15). What was
    dropped, and why, is summarised on stderr and listed in --dropped.
    PREFS - reads standard input.
    """
    _check_outputs(force, output, dropped, instances_report)
    df = _read_prefs(prefs, input_format)
    band = None if no_tie_filter else tuple(tie_band)
    eta_value = None if no_fas_filter else eta
    if band is None and eta_value is None and min_agreement is None:
        raise InputError("both filters are switched off: nothing to do")
    if by not in df.columns:
        raise InputError(f"column {by!r} (--by) not in {prefs}")
    kept, all_dropped, instances = _run_filters(df, band, eta_value, by, min_agreement, {})
    _write_report(dropped, all_dropped, "dropped pairs/instances/annotators", force, raw_csv)
    _write_report(instances_report, instances, "instance reports", force, raw_csv)
    _emit(kept, output, fmt, force, "comparisons", columns, raw_csv)


@rank_group.command("annotators", context_settings=CONTEXT_SETTINGS)
@click.argument("prefs", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", type=click.Choice(["bt", "davidson", "rao-kupper"]), default="bt",
              help="The consensus model.")  # fmt: skip
@click.option("--ties", type=click.Choice(["drop", "half", "model"]), default=None,
              help="How ties enter the consensus (default: model for the tie models, "
              "else half).")  # fmt: skip
@click.option("--annotator-column", default="annotator", help="The annotator column.")
@click.option("--pooled", is_flag=True,
              help="Score against the consensus of everyone, annotator included "
              "(default: leave the annotator out).")  # fmt: skip
@click.option("--input-format", type=click.Choice(["auto", "csv", "fineartbench"]),
              default="auto",
              help=_AUTO_HELP)  # fmt: skip
@_apply(_out_opts)
def annotators_command(prefs, model, ties, annotator_column, pooled, input_format, output, fmt,
                       force, columns, raw_csv) -> None:  # fmt: skip
    """Agreement of each annotator of PREFS with the consensus ranking.

    One row per annotator: decisive judgements, share agreeing with the
    consensus, the share the consensus model expects on the same pairs, a
    z-score of the difference, and the log-odds weight --weight-annotators uses.
    PREFS - reads standard input.
    """
    _check_outputs(force, output)
    df = _read_prefs(prefs, input_format)
    table = annotator_agreement(df, model=_MODEL_NAMES[model], ties=_ties_for(model, ties),
                                annotator=annotator_column, leave_one_out=not pooled)  # fmt: skip
    _emit(table, output, fmt, force, "annotator rows", columns, raw_csv)


@rank_group.command("sample", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--design",
    type=click.Choice(["global", "instance"]),
    required=True,
    help="global: N questions uniformly over all (instance, pair); instance: N "
    "questions per instance forming a connected, degree-uniform graph.",
)
@click.option(
    "--candidates",
    required=True,
    help="Comma-separated candidate names, or @FILE with one name per line (@- reads "
    "standard input).",
)
@click.option(
    "--instances",
    required=True,
    help="Comma-separated instance names, @FILE with one per line (@- reads standard "
    "input), or a number N for instances i1..iN.",
)
@click.option(
    "-n",
    "--n",
    "n",
    type=click.IntRange(1, MAX_QUESTIONS),
    required=True,
    help="global: total questions; instance: questions per instance.",
)
@click.option("--keep-sides", is_flag=True, help="Do not randomise left/right.")
@click.option("--seed", type=click.IntRange(min=0), default=0, help="Random seed.")
@_apply(_out_opts)
def sample_command(design, candidates, instances, n, keep_sides, seed, output, fmt, force,
                   columns, raw_csv) -> None:  # fmt: skip
    """Write a design: which pairs to show, ready for annotators or a judge.

    At most 1,000,000 questions in all (and as many instances); see docs/rank.md.
    """
    _check_outputs(force, output)
    cands = _names_arg(candidates, "--candidates")
    if instances.strip().isdigit():
        inst = [f"i{j}" for j in range(1, _instance_count(instances) + 1)]
    else:
        inst = _names_arg(instances, "--instances")
    if len(inst) > MAX_QUESTIONS:
        raise InputError(f"--instances: {len(inst)} names, above the limit of {MAX_QUESTIONS} "
                         "(rrmap.rank.limits.MAX_QUESTIONS)")  # fmt: skip
    fn = sample_global if design == "global" else sample_per_instance
    table = fn(inst, cands, n, rng=seed, randomize_sides=not keep_sides)
    _emit(table.assign(design=design, seed=seed), output, fmt, force, "questions", columns,
          raw_csv)  # fmt: skip


def _instance_count(value: str) -> int:
    """``--instances N``: N, checked before a single name is made."""
    digits = value.strip().lstrip("0") or "0"
    if len(digits) > len(str(MAX_QUESTIONS)) or int(digits) > MAX_QUESTIONS:
        raise InputError(
            f"--instances {message_text(value.strip(), 40)}: above the limit of "
            f"{MAX_QUESTIONS} instances (rrmap.rank.limits.MAX_QUESTIONS)"
        )
    return int(digits)


def _names_arg(value: str, opt: str) -> list[str]:
    if value == "@-":
        text = stdin_input(MAX_FILE_BYTES).getvalue().decode("utf-8")
        names = [x for x in (ln.strip() for ln in text.splitlines()) if x]
    elif value.startswith("@"):
        path = Path(value[1:])
        if not path.exists():
            raise FileNotFoundError(2, "No such file or directory", str(path))
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(f"{opt} {path}: {format_bytes(path.stat().st_size)}, above the "
                             f"limit of {format_bytes(MAX_FILE_BYTES)} for a list of names "
                             "(rrmap.rank.limits.MAX_FILE_BYTES)")  # fmt: skip
        with open(path, encoding="utf-8") as fh:
            names = [ln.strip() for ln in fh.read(MAX_FILE_BYTES).splitlines()]
        names = [x for x in names if x]
    else:
        names = [x.strip() for x in value.split(",") if x.strip()]
    if not names:
        raise InputError(f"{opt}: no names given")
    return names


def _ranking_json(data: bytes, name: str) -> pd.DataFrame | None:
    """A ranking written by ``rank fit --format json`` (records with candidate and score)."""
    records = read_json(named_bytes(data, name))
    if isinstance(records, list) and records and isinstance(records[0], dict) and {
        "candidate", "score"} <= set(records[0]):  # fmt: skip
        return pd.DataFrame(records)
    return None


def _ranking(path: Path, by: str | None, model: str, input_format: str, opts: dict):
    """A ranking table from a ranking file (CSV/JSON of ``rank fit``) or fitted comparisons;
    ``-`` is standard input, JSON when it starts like JSON."""
    data, name = read_input(_input(path))
    source = named_bytes(data, name)
    if input_format == "fineartbench":
        return _fit(_read_prefs(source, input_format), model, by, opts)
    if path.suffix.lower() == ".json" or (str(path) == "-" and looks_like_json(data)):
        table = _ranking_json(data, name)
        if table is None:
            return _fit(_read_prefs(source, "fineartbench"), model, by, opts)
        table["candidate"] = table["candidate"].astype(str)
        if by is not None and by in table.columns:
            table[by] = table[by].astype(str)
        return table
    record_lines(source)  # a row with more or fewer fields than the header is an error
    head = pd.read_csv(io.BytesIO(data), nrows=0, index_col=False).columns
    if "winner" in head:
        return _fit(_read_prefs(named_bytes(data, name), "csv"), model, by, opts)
    return pd.read_csv(io.BytesIO(data), dtype={"candidate": str, **({by: str} if by else {})},
                       index_col=False)  # fmt: skip


@rank_group.command("align", context_settings=CONTEXT_SETTINGS)
@click.argument("human", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("model_file", metavar="MODEL", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--by", default=None, help="Per-group alignment (e.g. instance): rho per group, "
              "mean rho and Fisher's combined p.")  # fmt: skip
@click.option(
    "--alternative",
    type=click.Choice(["two-sided", "greater", "less"]),
    default="two-sided",
    help="Alternative hypothesis of each Spearman test.",
)
@click.option(
    "--method",
    type=click.Choice(["auto", "exact", "permutation", "asymptotic"]),
    default="auto",
    help="p-value method (auto: exact when possible).",
)
@click.option(
    "--permutations",
    type=click.IntRange(1, MAX_PERMUTATIONS),
    default=9999,
    help="Permutations when not exact.",
)
@click.option("--summary-only", is_flag=True, help="Print only the one-row summary.")
@_apply(_model_opts)
@_apply(_out_opts)
def align_command(human, model_file, by, alternative, method, permutations, summary_only,
                  model, input_format, output, fmt, force, columns, raw_csv,
                  **opts) -> None:  # fmt: skip
    """Spearman agreement of the MODEL ranking with the HUMAN ranking.

    Each file is either a ranking table (candidate, score[, group]) such as
    the output of ``rrmap rank fit`` (CSV or JSON, any model, with or
    without --bootstrap), or a comparisons file (CSV with a winner column,
    or FineArtBench JSON) that is first fitted with --model
    (filter comparisons beforehand with ``rrmap rank filter``). One of the
    two may be - (standard input), read as JSON when it starts with [ or {.
    The summary (mean rho, Fisher's combined p, exclusions) goes to stderr
    unless --summary-only sends it to the output.
    """
    _check_outputs(force, output)
    _one_stdin(human, model_file)
    h = _ranking(human, by, model, input_format, opts)
    m = _ranking(model_file, by, model, input_format, opts)
    res = align_rankings(h, m, by=by, alternative=alternative, method=method,
                         n_permutations=permutations, rng=opts["seed"],
                         labels=(str(human), str(model_file)))  # fmt: skip
    summary = res.summary.assign(seed=opts["seed"])
    excluded = ", ".join(f"{r} {n}" for r, n in zip(res.excluded.reason, res.excluded.n,
                                                        strict=True))  # fmt: skip
    if summary_only:
        _emit(summary.assign(**{f"excluded_{r}": n for r, n in
                                zip(res.excluded.reason, res.excluded.n, strict=True)}),
              output, fmt, force, "summary rows", columns, raw_csv)  # fmt: skip
        return
    s = summary.iloc[0]
    _log(f"alignment: {s.n_groups} group(s), mean rho {s.mean_rho:.4f}"
         + (f", Fisher combined p {s.fisher_p:.4g}" if by else "")
         + f" ({alternative}); excluded: {excluded}")  # fmt: skip
    _emit(res.table.assign(alternative=alternative, seed=opts["seed"]), output, fmt, force,
          "alignment rows", columns, raw_csv)  # fmt: skip
