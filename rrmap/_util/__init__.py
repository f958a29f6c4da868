"""Plumbing every layer of rrmap shares: files written all or nothing (``atomic``), labels
escaped for each output format (``escape``), random streams keyed by a test's identity
(``streams``), names loaded on first use (``lazy``), progress bars, markdown and LaTeX tables,
the ``within`` labels of the tests table. Private: its names may change without notice.
"""
