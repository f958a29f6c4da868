"""Agreement: the subjectivity filters (tied pairs, non-transitive instances), annotators
against the consensus ranking, and a model's ranking against the human one.

Imports :mod:`rrmap.rank.models` and :mod:`rrmap.rank.data`; only the command line
imports it.
"""
