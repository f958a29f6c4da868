"""Small helpers of the figure tests: the paper's BC formula, toy points, PDF streams."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd


def bc_paper(delta, r):
    """Paper eq. 3 with the reference N(0, 1) and the query N(Δ, R)."""
    s1, s2, dm = 1.0, np.asarray(r, float), np.asarray(delta, float)
    return np.sqrt(2 * s1 * s2 / (s1**2 + s2**2)) * np.exp(-(dm**2) / (4 * (s1**2 + s2**2)))


def inflates(raw: bytes) -> bool:
    try:
        zlib.decompress(raw)
    except zlib.error:
        return False
    return True


def toy_points(delta, r, cat=None):
    df = pd.DataFrame({"delta": delta, "r": r})
    if cat is not None:
        df["movement"] = cat
    return df
