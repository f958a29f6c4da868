"""Names of :mod:`rrmap.judge`, each imported from its module on first use (see ``rrmap._lazy``)."""

from . import (
    cache,
    client,
    corpora,
    criteria,
    images,
    interpret,
    judges,
    mcq,
    model_ratings,
    orders,
    pairwise,
    parsing,
    prompts,
    rating,
    usage,
)
from .cache import CacheWarning, ResponseCache, cache_key, hash_images
from .client import CallFailedError, ChatClient, Endpoint, EndpointError
from .corpora import Corpus, load_corpora, meta_image
from .criteria import Criterion, Pole, load_criteria, study_criteria
from .images import (
    composite_2afc,
    data_url,
    downscale,
    grid_image,
    image_part,
    image_problem,
    load_image,
)
from .interpret import (
    DIMENSIONS,
    InterpretResult,
    interpretation_summary,
    read_interpretations,
    score_interpretations,
    validate_interpretations,
)
from .judges import ChatBackend, FunctionChat, PairJudge, RandomJudge, ScoreJudge
from .mcq import (
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
from .model_ratings import ModelRatings
from .orders import combine_orders, position_bias
from .pairwise import (
    MODES,
    PAIR_COLUMNS,
    PairwiseResult,
    first_messages,
    judge_pairs,
    read_pairs,
    validate_pairs,
)
from .parsing import Parsed, choice01, extract_mapping, parse_fields, score012, text_field
from .prompts import DEFAULT_PROMPTS, Prompts, load_prompts, render
from .rating import RATING_PROMPTS, RatingPrompts, merge_ratings, parse_intervals, rate_corpora
from .subjectivity import (
    SUBJECTIVE_THRESHOLD,
    load_lexicon,
    reply_texts,
    subjectivity,
    subjectivity_by,
)
from .usage import ChatResult, UsageStats
