"""The comparisons table: reading 2AFC records (CSV, FineArtBench JSON, standard input),
validating them, and the designs that choose which pairs to ask.

Imports only :mod:`rrmap.rank.limits` and the core of rrmap; the models and the agreement
measures build on it.
"""
