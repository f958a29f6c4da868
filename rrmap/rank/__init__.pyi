"""Names of :mod:`rrmap.rank`, each imported from its module on first use
(see ``rrmap._util.lazy``)."""

from . import agreement, data, limits, models
from .agreement.alignment import (
    EXACT_SPEARMAN_LIMIT,
    EXACT_TIED_SPEARMAN_LIMIT,
    Alignment,
    align_rankings,
    spearman_test,
    split_half_alignment,
)
from .agreement.annotators import annotator_agreement, annotator_weights, filter_annotators
from .agreement.filters import (
    EXACT_FAS_LIMIT,
    FeedbackArcSet,
    FilterResult,
    filter_nontransitive,
    filter_subjective,
    filter_ties,
    minimum_feedback_arc_set,
    pair_preferences,
)
from .data.comparisons import (
    COMPARISON_COLUMNS,
    WINNERS,
    FineArtBench,
    read_comparisons,
    read_fineartbench,
    validate_comparisons,
    write_comparisons,
)
from .data.designs import degree_uniform_subgraph, sample_global, sample_per_instance
from .data.rankings import read_rankings
from .models.bradley_terry import (
    MIN_BOOTSTRAP_UNITS,
    MODELS,
    BootstrapWarning,
    BradleyTerryFit,
    fit_bradley_terry,
    mle_existence,
)
from .models.elo import EloFit, elo_ratings, fit_elo
from .models.intervals import CI_METHODS, bootstrap_interval
from .models.plackett_luce import PlackettLuceFit, fit_plackett_luce
