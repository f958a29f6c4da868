"""``rrmap judge rate``: a multimodal model rates corpora like the study's experts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
import pandas as pd

from rrmap.cli.common import CONTEXT_SETTINGS, refuse_overwrite
from rrmap.judge.cli._common import _also_write, _client, _execute, _finish, _streams
from rrmap.judge.cli._options import ALLOW_OUTSIDE_OPTION, JudgeOptions, endpoint_options
from rrmap.judge.prompting._sources import input_source, is_stdin

if TYPE_CHECKING:
    from rrmap.judge.tasks.judges import ChatBackend
    from rrmap.judge.tasks.model_ratings import ModelRatings


@click.command("rate", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--corpus",
    "corpus_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Corpora CSV: movement, modality, modality name, query (image folder), "
    "reference (text), optional reference images (folder); '-': stdin, folders relative "
    "to the current folder.",
)
@click.option(
    "--criteria",
    "criteria_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Criteria YAML/JSON [default: the study's nine criteria].",
)
@click.option(
    "--setup",
    type=click.Choice(["relative", "single"]),
    default="relative",
    help="relative: all corpora of a movement on one sheet (the study's protocol); "
    "single: one corpus per request.",
)
@click.option(
    "--repeats",
    type=click.IntRange(1),
    default=1,
    help="Independent seeded runs (use --temperature > 0 to see variability).",
)
@click.option("--rater", default=None, help="Rater name in the output [default: the model].")
@click.option(
    "--max-reasks",
    type=click.IntRange(0),
    default=2,
    help="Re-asks of an invalid answer before it is recorded as a failure.",
)
@click.option(
    "--grid-limit",
    type=click.IntRange(1),
    default=20,
    help="Images per meta-image (the study used 20).",
)
@click.option("--grid-columns", type=click.IntRange(1), default=5, help="Meta-image columns.")
@click.option("--cell", type=click.IntRange(16), default=256, help="Meta-image cell size (px).")
@click.option(
    "--merge-with",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Human ratings (study schema) to stack with the model's ('-': stdin).",
)
@click.option(
    "--merged-output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the merged ratings [default: OUTPUT with .merged.csv; '-': stdout].",
)
@ALLOW_OUTSIDE_OPTION
@endpoint_options
def rate_command(
    corpus_file: Path,
    criteria_file: Path | None,
    setup: str,
    repeats: int,
    rater: str | None,
    max_reasks: int,
    grid_limit: int,
    grid_columns: int,
    cell: int,
    merge_with: Path | None,
    merged_output: Path | None,
    allow_outside: bool,
    options: JudgeOptions,
) -> None:
    """Ask a multimodal model for 95 % intervals per criterion, as one more RRMap rater.

    Writes OUTPUT (ratings in the study's schema, the model as the rater) with
    sidecars OUTPUT.runs.csv, .variability.csv, .failures.csv and .json
    (settings and seeds). The image folders, and their images, lie inside the
    corpora file's folder unless --allow-outside; every image is checked before
    any request is sent. `rrmap analyze` takes it merged with human ratings.
    A model rating from knowledge is not an expert: this measures agreement,
    not truth.
    """
    from rrmap.judge.prompting.corpora import load_corpora
    from rrmap.judge.prompting.criteria import load_criteria, study_criteria
    from rrmap.judge.tasks.rating import merge_ratings, rate_corpora

    out = options.output
    inputs = {"--corpus": corpus_file, "--merge-with": merge_with}
    _streams(out.path, {**inputs, "--batch-results": options.batch.results})
    if is_stdin(out.path):
        raise click.UsageError(
            "-o -: rate writes its ratings with four files beside them (runs, variability, "
            "failures, settings); give a file name (--merged-output - writes the merged "
            "ratings to stdout)"
        )
    corpora = load_corpora(corpus_file, allow_outside=allow_outside)
    human = None
    if merge_with is not None:  # read before any call: a mistake costs nothing
        human = pd.read_csv(input_source(merge_with).readable())
    criteria = load_criteria(criteria_file) if criteria_file else study_criteria()
    client = _client(options)
    if not options.dry_run:
        if out.path is None:
            raise click.UsageError(
                "give -o/--output: the ratings file (sidecars are written beside it)"
            )
        merged_path = merged_output or (
            out.path.with_suffix("").with_name(out.path.stem + ".merged.csv")
            if merge_with
            else None
        )
        if merged_path is not None and not is_stdin(merged_path):
            refuse_overwrite(merged_path, out.force)

    def run(backend: ChatBackend) -> ModelRatings:
        return rate_corpora(
            backend,
            corpora,
            criteria,
            setup=setup,
            repeats=repeats,
            rng=options.seed,
            rater=rater,
            max_reasks=max_reasks,
            grid_limit=grid_limit,
            grid_columns=grid_columns,
            cell=cell,
            concurrency=options.backend.concurrency,
            progress=not options.quiet,
        )

    what = f"{len(corpora)} corpora × {len(criteria)} criteria × {repeats} run(s)"
    done = _execute(options, client, run, None, what)
    if done is None or out.path is None:
        return
    result, backend = done
    paths = result.write(out.path, force=out.force, raw_csv=out.raw_csv)
    click.echo(
        f"wrote {len(result.ratings)} intervals to {paths[0]} "
        f"(runs, variability, failures and settings beside it)",
        err=True,
    )
    if len(result.failures):
        click.echo(
            f"{len(result.failures)} sheet(s) failed or stayed invalid after {max_reasks} "
            f"re-ask(s); see {paths[3]}",
            err=True,
        )
    click.echo(backend.stats.summary(), err=True)
    _finish(backend.stats, str(paths[3]), client.budget, usable=len(result.ratings), what="rating")
    if human is not None:
        merged = merge_ratings(human, result)
        said = f"wrote {len(merged)} human + model ratings to"
        _also_write(merged_path, merged, out.raw_csv, said)
