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
from rrmap.judge.judges import ChatBackend, FunctionChat, PairJudge, RandomJudge, ScoreJudge
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

__all__ = [
    "DEFAULT_PROMPTS",
    "MODES",
    "PAIR_COLUMNS",
    "CallFailedError",
    "ChatBackend",
    "ChatClient",
    "ChatResult",
    "Endpoint",
    "EndpointError",
    "FunctionChat",
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
    "extract_mapping",
    "first_messages",
    "grid_image",
    "hash_images",
    "image_part",
    "judge_pairs",
    "load_image",
    "load_prompts",
    "parse_fields",
    "position_bias",
    "read_pairs",
    "render",
    "score012",
    "text_field",
    "validate_pairs",
]
