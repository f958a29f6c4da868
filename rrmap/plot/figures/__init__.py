"""The matplotlib figures: one panel (``map``, also on a user's own Axes: ``_user_axes``),
one panel per rater and raters × categories (``layouts``), example intervals
(``intervals``), quality proportions and agreement (``summaries``). Imports
:mod:`rrmap.plot.base` only.
"""
