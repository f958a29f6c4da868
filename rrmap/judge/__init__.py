"""rrmap.judge: multimodal LLMs as aesthetic judges.

An async client for any OpenAI-compatible chat-completions endpoint with a
crash-safe cache (:mod:`~rrmap.judge.client`, :mod:`~rrmap.judge.cache`),
ArtCoT-style 2AFC judging of stylised images (:mod:`~rrmap.judge.pairwise`),
AesBench/AesTest-style multiple-choice evaluation (:mod:`~rrmap.judge.mcq`),
interpretation scoring (:mod:`~rrmap.judge.interpret`) and the subjectivity
of replies (:mod:`~rrmap.judge.subjectivity`).
"""

from rrmap.judge.cache import ResponseCache, cache_key, hash_images
from rrmap.judge.client import (
    CallFailedError,
    ChatClient,
    ChatResult,
    Endpoint,
    EndpointError,
    UsageStats,
)
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
    "SUBJECTIVE_THRESHOLD",
    "CallFailedError",
    "ChatBackend",
    "ChatClient",
    "ChatResult",
    "Endpoint",
    "EndpointError",
    "FunctionChat",
    "InterpretResult",
    "McqResult",
    "PairJudge",
    "PairwiseResult",
    "Parsed",
    "Prompts",
    "RandomJudge",
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
    "load_image",
    "load_lexicon",
    "load_prompts",
    "match_option",
    "mcq_accuracy",
    "mcq_messages",
    "parse_fields",
    "position_bias",
    "read_interpretations",
    "read_pairs",
    "read_questions",
    "render",
    "reply_texts",
    "score012",
    "score_interpretations",
    "subjectivity",
    "subjectivity_by",
    "text_field",
    "validate_interpretations",
    "validate_pairs",
    "validate_questions",
]
