"""Ranking models fitted to a comparisons table: Bradley–Terry and its tie models
(Davidson, Rao–Kupper), Elo, Plackett–Luce, their bootstrap and interval methods.

One batched Newton method (``_likelihood``) serves every likelihood model; ``_existence``
decides whether a maximum-likelihood estimate exists. Imports :mod:`rrmap.rank.data`.
"""
