"""rrmap.rank: pairwise preferences → rankings, and alignment with humans.

Read 2AFC comparisons (:func:`read_comparisons`, :func:`read_fineartbench`),
design what to ask (:mod:`rrmap.rank.designs`), filter subjective pairs and
instances (:mod:`rrmap.rank.filters`), rank candidates with Bradley–Terry and its tie models
(:func:`fit_bradley_terry`, with bootstrap intervals) or Elo
(:func:`fit_elo`), check annotators against the consensus
(:mod:`rrmap.rank.annotators`), and measure how well a
model's ranking agrees with the human one (:mod:`rrmap.rank.alignment`).
"""

from rrmap._lazy import attach_stub

# every name is imported from its module on first use; the names are listed once,
# in __init__.pyi
__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
