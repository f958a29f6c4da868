"""``rrmap judge``: 2AFC, multiple-choice and interpretation judging from the shell."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pandas as pd

from rrmap.cli.common import CONTEXT_SETTINGS
from rrmap.judge.cli._common import (
    _also_write,
    _check_outputs,
    _client,
    _emit,
    _execute,
    _finish,
    _prompts_identity,
    _provenance,
    _shown,
    _streams,
)
from rrmap.judge.cli._options import (
    ALLOW_OUTSIDE_OPTION,
    MAX_SIDE_OPTION,
    PROMPTS_OPTION,
    RAW_CSV_OPTION,
    JudgeOptions,
    OutputOptions,
    endpoint_options,
)
from rrmap.judge.cli._rate import rate_command
from rrmap.judge.prompting._sources import input_source, is_stdin

if TYPE_CHECKING:
    from rrmap.judge.tasks.interpret import InterpretResult
    from rrmap.judge.tasks.judges import ChatBackend
    from rrmap.judge.tasks.mcq import McqResult
    from rrmap.judge.tasks.pairwise import PairwiseResult
    from rrmap.judge.transport.client import ChatClient


@click.group("judge", context_settings=CONTEXT_SETTINGS)
def judge_group() -> None:
    """Multimodal LLMs as aesthetic judges (any OpenAI-compatible endpoint).

    Every command shares the backend options (--base-url, --model,
    --api-key-env, --concurrency, --cache, --timeout); the key is read from
    the named environment variable and never written anywhere.

    Every input table may be '-' (standard input; its image paths are then
    relative to the current folder), and every output table '-' (standard
    output, one table at most); messages and progress bars go to stderr.
    """


@judge_group.command("2afc", context_settings=CONTEXT_SETTINGS)
@click.argument("pairs", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--mode", type=click.Choice(["base", "cot", "artcot"]), default="artcot", help="Prompting mode."
)
@click.option(
    "--orders",
    type=click.Choice(["both", "ab"]),
    default="both",
    help="Judge each pair in both left/right orders, or only as listed.",
)
@PROMPTS_OPTION
@MAX_SIDE_OPTION
@click.option(
    "--separate-images",
    is_flag=True,
    help="Send source, left and right as three images instead of one composite.",
)
@click.option("--image-format", type=click.Choice(["PNG", "JPEG", "WEBP"]), default="PNG")
@click.option(
    "--format-retries",
    type=click.IntRange(0),
    default=1,
    help="Re-asks with a format reminder when the final answer is unreadable.",
)
@click.option(
    "--baseline",
    type=click.Choice(["random"]),
    default=None,
    help="Use a seeded random judge instead of an endpoint.",
)
@click.option(
    "--per-order",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write one row per pair and order (with raw answers) here ('-': stdout).",
)
@click.option(
    "--bias",
    "bias_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the position-bias table here ('-': stdout).",
)
@ALLOW_OUTSIDE_OPTION
@endpoint_options
def twoafc_command(
    pairs: Path,
    mode: str,
    orders: str,
    prompts_file: Path | None,
    max_side: int,
    separate_images: bool,
    image_format: str,
    format_retries: int,
    baseline: str | None,
    per_order: Path | None,
    bias_out: Path | None,
    allow_outside: bool,
    options: JudgeOptions,
) -> None:
    """Judge the image pairs of PAIRS (CSV) and write a comparisons table.

    PAIRS has one row per pair: instance, style, source_image, candidate_a,
    image_a, candidate_b, image_b (image paths relative to the file, inside
    its folder unless --allow-outside; PAIRS '-' reads stdin, images relative
    to the current folder). Every image is checked before any request is
    sent. The output (instance, left, right, winner, ...) is what
    `rrmap rank align` reads.
    """
    from rrmap.judge.prompting.prompts import load_prompts
    from rrmap.judge.tasks.judges import RandomJudge
    from rrmap.judge.tasks.pairwise import judge_pairs, read_pairs, stage_fields
    from rrmap.judge.transport._planner import placeholder_reply

    out = options.output
    _streams(
        out.path, {"PAIRS": pairs, "--batch-results": options.batch.results},
        per_order=per_order, bias=bias_out,
    )  # fmt: skip
    table = read_pairs(pairs, allow_outside=allow_outside)
    prompts = load_prompts(prompts_file)
    judge_these = functools.partial(
        judge_pairs,
        table,
        orders=orders,
        mode=mode,
        prompts=prompts,
        composite=not separate_images,
        max_side=max_side,
        image_format=image_format,
    )
    judge: ChatClient | RandomJudge
    backend: ChatBackend | RandomJudge
    if baseline == "random":
        if options.dry_run:
            click.echo(
                f"dry run: the random baseline sends no request; {len(table)} pair(s)", err=True
            )
            return
        judge = RandomJudge(rng=options.seed)
        result, backend = judge_these(judge), judge
    else:
        judge = _client(options)
        if not options.dry_run:
            _check_outputs(out.force, out.path, per_order, bias_out)

        def run(backend: ChatBackend) -> PairwiseResult:
            return judge_these(backend, format_retries=format_retries, progress=not options.quiet)

        done = _execute(
            options, judge, run, placeholder_reply(stage_fields(mode)), f"{len(table)} pair(s)"
        )
        if done is None:
            return
        result, backend = done
    _check_outputs(out.force, out.path, per_order, bias_out)
    _write_2afc(result, out, per_order, bias_out, options.seed)
    stats = None if isinstance(backend, RandomJudge) else backend.stats
    _provenance(
        out.path,
        judge,
        stats,
        options,
        "2afc",
        mode=mode,
        orders=orders,
        image_max_side=max_side,
        image_format=image_format,
        composite=not separate_images,
        prompts=_prompts_identity(prompts, prompts_file),
        pairs=_shown(pairs),
    )
    if stats is not None and not isinstance(judge, RandomJudge):
        click.echo(stats.summary(), err=True)
        where = (
            _where(per_order) if per_order else "the excluded pairs above (--per-order FILE: all)"
        )
        _finish(stats, where, judge.budget, usable=len(result.comparisons))


def _write_2afc(
    result: PairwiseResult,
    out: OutputOptions,
    per_order: Path | None,
    bias_out: Path | None,
    seed: int,
) -> None:
    """Write the comparisons, the per-order answers and the bias table; say what was left
    out and why."""
    raw = out.raw_csv
    comparisons = result.comparisons.assign(seed=seed)
    _emit(comparisons, out.path, "comparisons", raw, prepare=_comparisons_table)
    said = f"wrote {len(result.per_order)} per-order answers to"
    _also_write(per_order, result.per_order.assign(seed=seed), raw, said)
    _also_write(bias_out, result.bias.assign(seed=seed), raw, None)
    for line in result.summary().splitlines():
        click.echo(line, err=True)
    for r in result.excluded.itertuples(index=False):
        click.echo(
            f"excluded: {r.instance} {r.candidate_a} vs {r.candidate_b}: {r.reason}", err=True
        )


def _comparisons_table(table: pd.DataFrame) -> pd.DataFrame:
    """A checked comparisons table, its required columns first (as `rrmap rank` reads it)."""
    from rrmap.rank import COMPARISON_COLUMNS, validate_comparisons

    clean = validate_comparisons(table)
    rest = [c for c in clean.columns if c not in COMPARISON_COLUMNS]
    return clean[[*COMPARISON_COLUMNS, *rest]]


@judge_group.command("mcq", context_settings=CONTEXT_SETTINGS)
@click.argument("questions", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--circular",
    is_flag=True,
    help="Ask once per rotation of the options; correct only if always correct.",
)
@click.option(
    "--llm-match",
    is_flag=True,
    help="Ask the model to match replies the explicit rules leave unmatched.",
)
@click.option(
    "--by", "by", multiple=True, help="Metadata column to aggregate accuracy by (repeatable)."
)
@PROMPTS_OPTION
@MAX_SIDE_OPTION
@click.option(
    "--responses",
    "responses_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write every reply with its match here ('-': stdout).",
)
@ALLOW_OUTSIDE_OPTION
@endpoint_options
def mcq_command(
    questions: Path,
    circular: bool,
    llm_match: bool,
    by: tuple[str, ...],
    prompts_file: Path | None,
    max_side: int,
    responses_out: Path | None,
    allow_outside: bool,
    options: JudgeOptions,
) -> None:
    """Ask the multiple-choice QUESTIONS (JSONL or CSV) and report Acc and NAcc.

    Images are relative to QUESTIONS and inside its folder unless
    --allow-outside; every one is checked before any request is sent.
    QUESTIONS '-' reads stdin (JSONL when it starts with '{'), images
    relative to the current folder.

    The accuracy table (per --by group) goes to stdout or -o; unmatched
    replies count as wrong and are listed on stderr.
    """
    from rrmap.judge.prompting.prompts import load_prompts
    from rrmap.judge.tasks.mcq import evaluate_mcq, mcq_accuracy, read_questions

    out = options.output
    _streams(
        out.path, {"QUESTIONS": questions, "--batch-results": options.batch.results},
        responses=responses_out,
    )  # fmt: skip
    table = read_questions(questions, allow_outside=allow_outside)
    missing = [c for c in by if c not in table.columns]
    if missing:
        raise click.UsageError(f"--by column(s) not in {_shown(questions)}: {', '.join(missing)}")
    prompts = load_prompts(prompts_file)
    client = _client(options)
    if not options.dry_run:
        _check_outputs(out.force, out.path, responses_out)

    def run(backend: ChatBackend) -> McqResult:
        return evaluate_mcq(
            table,
            backend,
            circular=circular,
            llm_match=llm_match,
            prompts=prompts,
            max_side=max_side,
            progress=not options.quiet,
        )

    done = _execute(options, client, run, "A", f"{len(table)} question(s)")
    if done is None:
        return
    res, backend = done
    acc = mcq_accuracy(res.per_question, by=list(by) or None).assign(
        model=client.name, circular=circular, seed=options.seed
    )
    _emit(acc, out.path, "accuracy rows", raw=out.raw_csv)
    replies = res.responses.assign(model=client.name, seed=options.seed)
    _also_write(responses_out, replies, out.raw_csv, f"wrote {len(res.responses)} replies to")
    unmatched = res.unmatched()
    click.echo(
        f"{len(res.per_question)} question(s), {len(res.responses)} repl(ies); "
        f"{len(unmatched)} unmatched (counted wrong)",
        err=True,
    )
    for r in unmatched.head(20).itertuples(index=False):
        click.echo(
            f"unmatched: {r.id} (rotation {r.rotation}): {r.match_rule}: "
            f"{' '.join(str(r.reply).split())[:80]!r}",
            err=True,
        )
    _provenance(
        out.path,
        client,
        backend.stats,
        options,
        "mcq",
        circular=circular,
        llm_match=llm_match,
        image_max_side=max_side,
        prompts=_prompts_identity(prompts, prompts_file),
        questions=_shown(questions),
    )
    click.echo(backend.stats.summary(), err=True)
    where = _where(responses_out) if responses_out else "the unmatched replies above"
    matched = int((res.responses["matched"].fillna("").astype(str) != "").sum())
    _finish(backend.stats, where, client.budget, usable=matched, what="matched reply")


@judge_group.command("interpret", context_settings=CONTEXT_SETTINGS)
@click.argument("responses", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--by", "by", multiple=True, help="Metadata column to summarise by (repeatable).")
@PROMPTS_OPTION
@click.option(
    "--format-retries",
    type=click.IntRange(0),
    default=1,
    help="Re-asks with a format reminder when a grade is unreadable.",
)
@click.option(
    "--summary",
    "summary_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the mean scores table here ('-': stdout).",
)
@endpoint_options
def interpret_command(
    responses: Path,
    by: tuple[str, ...],
    prompts_file: Path | None,
    format_retries: int,
    summary_out: Path | None,
    options: JudgeOptions,
) -> None:
    """Grade RESPONSES (CSV/JSONL: id, response, reference[, question]) on 0-2.

    A judge model scores relevance, precision and completeness against the
    reference, with its reasons; one row per response goes to stdout or -o,
    the means to stderr (and --summary). RESPONSES '-' reads stdin (JSONL
    when it starts with '{').
    """
    from rrmap.judge.prompting.prompts import load_prompts
    from rrmap.judge.tasks.interpret import (
        interpret_fields,
        interpretation_summary,
        read_interpretations,
        score_interpretations,
    )
    from rrmap.judge.transport._planner import placeholder_reply

    out = options.output
    _streams(
        out.path, {"RESPONSES": responses, "--batch-results": options.batch.results},
        summary=summary_out,
    )  # fmt: skip
    table = read_interpretations(responses)
    missing = [c for c in by if c not in table.columns]
    if missing:
        raise click.UsageError(f"--by column(s) not in {_shown(responses)}: {', '.join(missing)}")
    prompts = load_prompts(prompts_file)
    client = _client(options)
    if not options.dry_run:
        _check_outputs(out.force, out.path, summary_out)

    def run(backend: ChatBackend) -> InterpretResult:
        return score_interpretations(
            table,
            backend,
            prompts=prompts,
            format_retries=format_retries,
            progress=not options.quiet,
        )

    done = _execute(
        options, client, run, placeholder_reply(interpret_fields()), f"{len(table)} response(s)"
    )
    if done is None:
        return
    res, backend = done
    scores = res.scores.assign(judge_model=client.name, seed=options.seed)
    _emit(scores, out.path, "graded responses", raw=out.raw_csv)
    summary = interpretation_summary(res.scores, by=list(by) or None).assign(
        judge_model=client.name
    )
    _also_write(summary_out, summary, out.raw_csv, None)
    click.echo(summary.to_string(index=False), err=True)
    for r in res.scores[~res.scores["valid"]].itertuples(index=False):
        click.echo(f"invalid: {r.id}: {r.error}", err=True)
    _provenance(
        out.path,
        client,
        backend.stats,
        options,
        "interpret",
        format_retries=format_retries,
        prompts=_prompts_identity(prompts, prompts_file),
        responses=_shown(responses),
    )
    click.echo(backend.stats.summary(), err=True)
    _finish(
        backend.stats,
        (_where(out.path) if out.path else "the invalid rows above") + " (column error)",
        client.budget,
        usable=int(res.scores["valid"].sum()),
        what="score",
    )


@judge_group.command("subjectivity", context_settings=CONTEXT_SETTINGS)
@click.argument("per_order", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--by", "by", multiple=True, default=("model", "mode"), help="Columns to group by (repeatable)."
)
@click.option(
    "--turn",
    "turns",
    multiple=True,
    help="Only these turns (e.g. artcot_critic); default every turn.",
)
@click.option(
    "--lexicon",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Your own lexicon TSV (word, subjectivity 0-1, kind; '-': stdin).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the table here instead of stdout ('-': stdout).",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@RAW_CSV_OPTION
def subjectivity_command(
    per_order: Path,
    by: tuple[str, ...],
    turns: tuple[str, ...],
    lexicon: Path | None,
    output: Path | None,
    force: bool,
    raw_csv: bool,
) -> None:
    """Subjectivity of the replies in PER_ORDER (from `2afc --per-order`), per model and mode.

    Mean lexicon subjectivity (0-1) and subjective words per 100 words, as in
    ArtCoT's comparison of prompting modes. No model is called. PER_ORDER
    '-' reads stdin.
    """
    from rrmap.judge.tasks.subjectivity import load_lexicon, reply_texts, subjectivity_by

    _streams(output, {"PER_ORDER": per_order, "--lexicon": lexicon})
    src = input_source(per_order)
    table = pd.read_csv(src.readable(), dtype=str, keep_default_na=False)
    if "answers" not in table.columns:
        raise click.ClickException(
            f"{src.name}: no 'answers' column; write it with `rrmap judge 2afc --per-order FILE`"
        )
    texts = reply_texts(table)
    if turns:
        texts = texts[texts["turn"].isin(turns)]
    _check_outputs(force, output)
    out = subjectivity_by(texts, by=list(by), lexicon=load_lexicon(lexicon))
    _emit(out, output, "rows", raw=raw_csv)


def _where(path: Path) -> str:
    """Where a further table went, for the closing lines: its file, or standard output."""
    return "standard output" if is_stdin(path) else str(path)


judge_group.add_command(rate_command)
