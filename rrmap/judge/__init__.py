"""rrmap.judge: multimodal LLMs as aesthetic judges.

An async client for any OpenAI-compatible chat-completions endpoint with a
crash-safe cache (:mod:`~rrmap.judge.client`, :mod:`~rrmap.judge.cache`),
ArtCoT-style 2AFC judging of stylised images (:mod:`~rrmap.judge.pairwise`),
AesBench/AesTest-style multiple-choice evaluation (:mod:`~rrmap.judge.mcq`),
interpretation scoring (:mod:`~rrmap.judge.interpret`), the subjectivity
of replies (:mod:`~rrmap.judge.subjectivity`), and a model as one more RRMap
rater (:mod:`~rrmap.judge.rating`, with :mod:`~rrmap.judge.corpora` and
:mod:`~rrmap.judge.criteria`).
"""

from typing import TYPE_CHECKING

import lazy_loader as _lazy

# bound at import: the function has its module's name, which would otherwise shadow it
from rrmap.judge.subjectivity import subjectivity

if TYPE_CHECKING:  # pragma: no cover - the names load on first use (below)
    from rrmap.judge.cache import ResponseCache, cache_key, hash_images
    from rrmap.judge.client import (
        CallFailedError,
        ChatClient,
        ChatResult,
        Endpoint,
        EndpointError,
        UsageStats,
    )
    from rrmap.judge.corpora import Corpus, load_corpora, meta_image
    from rrmap.judge.criteria import Criterion, Pole, load_criteria, study_criteria
    from rrmap.judge.images import (
        composite_2afc,
        data_url,
        downscale,
        grid_image,
        image_part,
        load_image,
    )
    from rrmap.judge.interpret import (
        DIMENSIONS,
        InterpretResult,
        interpretation_summary,
        read_interpretations,
        score_interpretations,
        validate_interpretations,
    )
    from rrmap.judge.judges import ChatBackend, FunctionChat, PairJudge, RandomJudge, ScoreJudge
    from rrmap.judge.mcq import (
        MATCH_RULES,
        McqResult,
        evaluate_mcq,
        format_options,
        match_option,
        mcq_accuracy,
        mcq_messages,
        read_questions,
        validate_questions,
    )
    from rrmap.judge.model_ratings import ModelRatings
    from rrmap.judge.pairwise import (
        MODES,
        PAIR_COLUMNS,
        PairwiseResult,
        combine_orders,
        first_messages,
        judge_pairs,
        position_bias,
        read_pairs,
        validate_pairs,
    )
    from rrmap.judge.parsing import (
        Parsed,
        choice01,
        extract_mapping,
        parse_fields,
        score012,
        text_field,
    )
    from rrmap.judge.prompts import DEFAULT_PROMPTS, Prompts, load_prompts, render
    from rrmap.judge.rating import (
        RATING_PROMPTS,
        RatingPrompts,
        merge_ratings,
        parse_intervals,
        rate_corpora,
    )
    from rrmap.judge.subjectivity import (
        SUBJECTIVE_THRESHOLD,
        load_lexicon,
        reply_texts,
        subjectivity,
        subjectivity_by,
    )

__all__ = [
    "DEFAULT_PROMPTS",
    "DIMENSIONS",
    "MATCH_RULES",
    "MODES",
    "PAIR_COLUMNS",
    "RATING_PROMPTS",
    "SUBJECTIVE_THRESHOLD",
    "CallFailedError",
    "ChatBackend",
    "ChatClient",
    "ChatResult",
    "Corpus",
    "Criterion",
    "Endpoint",
    "EndpointError",
    "FunctionChat",
    "InterpretResult",
    "McqResult",
    "ModelRatings",
    "PairJudge",
    "PairwiseResult",
    "Parsed",
    "Pole",
    "Prompts",
    "RandomJudge",
    "RatingPrompts",
    "ResponseCache",
    "ScoreJudge",
    "UsageStats",
    "cache_key",
    "choice01",
    "combine_orders",
    "composite_2afc",
    "data_url",
    "downscale",
    "evaluate_mcq",
    "extract_mapping",
    "first_messages",
    "format_options",
    "grid_image",
    "hash_images",
    "image_part",
    "interpretation_summary",
    "judge_pairs",
    "load_corpora",
    "load_criteria",
    "load_image",
    "load_lexicon",
    "load_prompts",
    "match_option",
    "mcq_accuracy",
    "mcq_messages",
    "merge_ratings",
    "meta_image",
    "parse_fields",
    "parse_intervals",
    "position_bias",
    "rate_corpora",
    "read_interpretations",
    "read_pairs",
    "read_questions",
    "render",
    "reply_texts",
    "score012",
    "score_interpretations",
    "study_criteria",
    "subjectivity",
    "subjectivity_by",
    "text_field",
    "validate_interpretations",
    "validate_pairs",
    "validate_questions",
]

# every name is imported from its module on first use: importing the package is cheap
__getattr__, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=[
        "cache",
        "client",
        "corpora",
        "criteria",
        "images",
        "interpret",
        "judges",
        "mcq",
        "model_ratings",
        "orders",
        "pairwise",
        "parsing",
        "prompts",
        "rating",
        "usage",
    ],
    submod_attrs={
        "orders": ["combine_orders", "position_bias"],
        "usage": ["ChatResult", "UsageStats"],
        "cache": ["ResponseCache", "cache_key", "hash_images"],
        "client": [
            "CallFailedError",
            "ChatClient",
            "Endpoint",
            "EndpointError",
        ],
        "corpora": ["Corpus", "load_corpora", "meta_image"],
        "criteria": ["Criterion", "Pole", "load_criteria", "study_criteria"],
        "images": [
            "composite_2afc",
            "data_url",
            "downscale",
            "grid_image",
            "image_part",
            "load_image",
        ],
        "interpret": [
            "DIMENSIONS",
            "InterpretResult",
            "interpretation_summary",
            "read_interpretations",
            "score_interpretations",
            "validate_interpretations",
        ],
        "judges": ["ChatBackend", "FunctionChat", "PairJudge", "RandomJudge", "ScoreJudge"],
        "mcq": [
            "MATCH_RULES",
            "McqResult",
            "evaluate_mcq",
            "format_options",
            "match_option",
            "mcq_accuracy",
            "mcq_messages",
            "read_questions",
            "validate_questions",
        ],
        "model_ratings": ["ModelRatings"],
        "pairwise": [
            "MODES",
            "PAIR_COLUMNS",
            "PairwiseResult",
            "first_messages",
            "judge_pairs",
            "read_pairs",
            "validate_pairs",
        ],
        "parsing": [
            "Parsed",
            "choice01",
            "extract_mapping",
            "parse_fields",
            "score012",
            "text_field",
        ],
        "prompts": ["DEFAULT_PROMPTS", "Prompts", "load_prompts", "render"],
        "rating": [
            "RATING_PROMPTS",
            "RatingPrompts",
            "merge_ratings",
            "parse_intervals",
            "rate_corpora",
        ],
        "subjectivity": [
            "SUBJECTIVE_THRESHOLD",
            "load_lexicon",
            "reply_texts",
            "subjectivity",
            "subjectivity_by",
        ],
    },
)


def __dir__() -> list[str]:
    return sorted({*__all__, *_lazy_dir()})
