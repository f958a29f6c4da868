"""The statistical tests of the RRMap and their designs (docs/tests.md).

- :mod:`rrmap.stats.energy`: the k-sample energy distance permutation test on
  (Δ, R) points (:func:`energy_test`, :func:`energy_tests`, :func:`energy_statistic`);
- :mod:`rrmap.stats.chi2`: the χ² test of a groups × quality-levels table (:func:`chi2_test`),
  Cramér's V (:func:`cramers_v`);
- :mod:`rrmap.stats.matched`: zone tests of matched raters (:func:`stuart_maxwell_test`,
  :func:`marginal_homogeneity_test`);
- :mod:`rrmap.stats.designs`: the paper's three designs, and the generator effect of a
  study with several query corpora, run for both tests into one tidy table
  (:func:`run_designs` and its parts, :func:`generator_effect`), matched where the raters
  (or the corpora) rated the same keys;
- :mod:`rrmap.stats.adjust`: p-values adjusted within each family (:func:`adjust_pvalues`).

Examples
--------
>>> import rrmap, rrmap.stats
>>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
>>> res = rrmap.stats.expert_effect(pts, n_perm=199, rng=0)
>>> res.groupby("test").size().to_dict()
{'energy': 4, 'marginal_homogeneity': 1, 'stuart_maxwell': 3}
"""

from rrmap._util.lazy import attach_stub

# every name is imported from its module on first use; the names are listed once,
# in __init__.pyi
__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
