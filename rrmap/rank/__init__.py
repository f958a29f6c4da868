"""rrmap.rank: pairwise preferences → rankings, and alignment with humans.

Read 2AFC comparisons (:func:`read_comparisons`, :func:`read_fineartbench`),
design what to ask (:mod:`rrmap.rank.designs`), filter subjective pairs and
instances (:mod:`rrmap.rank.filters`), rank candidates with Bradley–Terry and its tie models
(:func:`fit_bradley_terry`, with bootstrap intervals) or Elo
(:func:`fit_elo`), check annotators against the consensus
(:mod:`rrmap.rank.annotators`), and measure how well a
model's ranking agrees with the human one (:mod:`rrmap.rank.alignment`).
"""

from typing import TYPE_CHECKING

import lazy_loader as _lazy

if TYPE_CHECKING:  # pragma: no cover - the names load on first use (below)
    from rrmap.rank.alignment import (
        EXACT_SPEARMAN_LIMIT,
        Alignment,
        align_rankings,
        spearman_test,
        split_half_alignment,
    )
    from rrmap.rank.annotators import annotator_agreement, annotator_weights, filter_annotators
    from rrmap.rank.bradley_terry import (
        MODELS,
        BradleyTerryFit,
        fit_bradley_terry,
        mle_existence,
    )
    from rrmap.rank.comparisons import (
        COMPARISON_COLUMNS,
        WINNERS,
        FineArtBench,
        read_comparisons,
        read_fineartbench,
        validate_comparisons,
        write_comparisons,
    )
    from rrmap.rank.designs import degree_uniform_subgraph, sample_global, sample_per_instance
    from rrmap.rank.elo import EloFit, elo_ratings, fit_elo
    from rrmap.rank.filters import (
        EXACT_FAS_LIMIT,
        FeedbackArcSet,
        FilterResult,
        filter_nontransitive,
        filter_subjective,
        filter_ties,
        minimum_feedback_arc_set,
        pair_preferences,
    )

__all__ = [
    "COMPARISON_COLUMNS",
    "EXACT_FAS_LIMIT",
    "EXACT_SPEARMAN_LIMIT",
    "MODELS",
    "WINNERS",
    "Alignment",
    "BradleyTerryFit",
    "EloFit",
    "FeedbackArcSet",
    "FilterResult",
    "FineArtBench",
    "align_rankings",
    "annotator_agreement",
    "annotator_weights",
    "degree_uniform_subgraph",
    "elo_ratings",
    "filter_annotators",
    "filter_nontransitive",
    "filter_subjective",
    "filter_ties",
    "fit_bradley_terry",
    "fit_elo",
    "minimum_feedback_arc_set",
    "mle_existence",
    "pair_preferences",
    "read_comparisons",
    "read_fineartbench",
    "sample_global",
    "sample_per_instance",
    "spearman_test",
    "split_half_alignment",
    "validate_comparisons",
    "write_comparisons",
]

# every name is imported from its module on first use: importing the package is cheap
__getattr__, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=[
        "alignment",
        "annotators",
        "bradley_terry",
        "comparisons",
        "designs",
        "elo",
        "filters",
    ],
    submod_attrs={
        "alignment": [
            "Alignment",
            "EXACT_SPEARMAN_LIMIT",
            "align_rankings",
            "spearman_test",
            "split_half_alignment",
        ],
        "annotators": ["annotator_agreement", "annotator_weights", "filter_annotators"],
        "bradley_terry": ["MODELS", "BradleyTerryFit", "fit_bradley_terry", "mle_existence"],
        "comparisons": [
            "COMPARISON_COLUMNS",
            "FineArtBench",
            "WINNERS",
            "read_comparisons",
            "read_fineartbench",
            "validate_comparisons",
            "write_comparisons",
        ],
        "designs": ["degree_uniform_subgraph", "sample_global", "sample_per_instance"],
        "elo": ["EloFit", "elo_ratings", "fit_elo"],
        "filters": [
            "EXACT_FAS_LIMIT",
            "FeedbackArcSet",
            "FilterResult",
            "filter_nontransitive",
            "filter_subjective",
            "filter_ties",
            "minimum_feedback_arc_set",
            "pair_preferences",
        ],
    },
)


def __dir__() -> list[str]:
    return sorted({*__all__, *_lazy_dir()})
