"""rrmap.rank: pairwise preferences → rankings, and alignment with humans.

Three layers, each importing only those below it:

- :mod:`rrmap.rank.data`: read 2AFC comparisons (:func:`read_comparisons`,
  :func:`read_fineartbench`) and design what to ask (:func:`sample_global`,
  :func:`sample_per_instance`);
- :mod:`rrmap.rank.models`: rank candidates with Bradley–Terry and its tie models
  (:func:`fit_bradley_terry`, with bootstrap intervals), Elo (:func:`fit_elo`) or
  Plackett–Luce (:func:`fit_plackett_luce`);
- :mod:`rrmap.rank.agreement`: filter subjective pairs and instances
  (:func:`filter_subjective`), check annotators against the consensus
  (:func:`annotator_agreement`), and measure how well a model's ranking agrees with the
  human one (:func:`align_rankings`).

:mod:`rrmap.rank.limits` bounds every size; ``rrmap rank`` is :mod:`rrmap.rank.cli`.
Every public name is importable from here.
"""

from rrmap._util.lazy import attach_stub

# every name is imported from its module on first use; the names are listed once,
# in __init__.pyi
__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
