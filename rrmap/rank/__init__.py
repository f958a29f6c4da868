"""rrmap.rank: pairwise preferences → rankings, and alignment with humans."""

from rrmap.rank.comparisons import (
    COMPARISON_COLUMNS,
    WINNERS,
    FineArtBench,
    read_comparisons,
    read_fineartbench,
    validate_comparisons,
    write_comparisons,
)

__all__ = [
    "COMPARISON_COLUMNS",
    "WINNERS",
    "FineArtBench",
    "read_comparisons",
    "read_fineartbench",
    "validate_comparisons",
    "write_comparisons",
]
