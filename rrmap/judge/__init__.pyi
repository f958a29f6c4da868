"""Names of :mod:`rrmap.judge`, each imported from its module on first use
(see ``rrmap._util.lazy``)."""

from . import cli, prompting, tasks, transport
from .prompting.corpora import Corpus, load_corpora, meta_image
from .prompting.criteria import Criterion, Pole, load_criteria, study_criteria
from .prompting.images import (
    composite_2afc,
    composite_data_url,
    data_url,
    downscale,
    grid_image,
    image_part,
    image_problem,
    load_image,
)
from .prompting.parsing import Parsed, choice01, extract_mapping, parse_fields, score012, text_field
from .prompting.prompts import DEFAULT_PROMPTS, Prompts, load_prompts, render
from .tasks.interpret import (
    DIMENSIONS,
    InterpretResult,
    interpretation_summary,
    read_interpretations,
    score_interpretations,
    validate_interpretations,
)
from .tasks.judges import ChatBackend, FunctionChat, PairJudge, RandomJudge, ScoreJudge
from .tasks.mcq import (
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
from .tasks.model_ratings import ModelRatings
from .tasks.orders import combine_orders, position_bias
from .tasks.pairwise import (
    MODES,
    PAIR_COLUMNS,
    PairwiseResult,
    first_messages,
    judge_pairs,
    read_pairs,
    validate_pairs,
)
from .tasks.rating import (
    RATING_PROMPTS,
    RatingPrompts,
    merge_ratings,
    parse_intervals,
    rate_corpora,
)
from .tasks.subjectivity import (
    SUBJECTIVE_THRESHOLD,
    load_lexicon,
    reply_texts,
    subjectivity,
    subjectivity_by,
)
from .transport.cache import CacheWarning, ResponseCache, cache_key, hash_images
from .transport.client import ChatClient
from .transport.endpoint import CallFailedError, Endpoint, EndpointError
from .transport.usage import ChatResult, UsageStats
