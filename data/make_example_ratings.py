"""Generate ``example_ratings.csv``: SIMULATED ratings in the published study's schema.

The file mirrors the design of the RRMap study (Deliège et al., 2025, §2.1–2.2):
3 raters × 5 movements × 3 modalities (movement, male painter, female painter)
× 2 origins (real, generated) × 9 criteria in 3 groups = 810 interval ratings
on a 0–100 scale, with the study's headers. The numbers are drawn at random;
they are NOT the experts' ratings.

The three simulated raters differ the way the paper reports its experts:
E1 balanced (excellent / fair / stereotype in similar shares), E2 generous
(mostly fair and excellent), E3 harsh (mostly bad and stereotype). Movement,
criterion-group and modality effects are built in for some raters so that the
tests of ``rrmap analyze`` have something to find: E1 and E3 place the movements'
generated images differently (abstract art drifts away, cubism is stereotyped), which the
default analysis finds for both; E2 barely does (weight 0.15), and the tests rightly find
nothing for E2; nothing is built in for single criteria, and the criterion tests rightly
find nothing.

Run ``python data/make_example_ratings.py`` to regenerate the file (seed 2025).

``--generators 2`` writes ``example_two_generators.csv``: the same reference intervals
and the same first query corpus (``gen-A``, the rows of ``generated`` above), and a
second simulated generator (``gen-B``) rated by the same raters on the same keys, drawn
from a stream of its own. gen-B is built to match the reference better than gen-A for
abstract art and cubism (more excellent- and fair-like points), to stereotype the
chromatic criteria (narrower intervals), and to behave like gen-A elsewhere, so that the
generator effect has something to find and something it should not find.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from rrmap.study import CRITERIA, HEADERS, MODALITIES, MOVEMENTS

Z_PAPER = 1.96  # the study computed mean/sigma with the rounded quantile

# Share of comparisons each simulated rater puts in each kind of place:
# (excellent-like, fair-like, stereotype-like, bad-like).
RATER_MIX = {
    "E1": (0.28, 0.34, 0.32, 0.06),  # balanced
    "E2": (0.22, 0.60, 0.08, 0.10),  # generous
    "E3": (0.04, 0.05, 0.32, 0.59),  # harsh
}
# Movement effect on the relative shift (scaled per rater) and criterion-group
# effect on the relative dispersion.
MOVEMENT_SHIFT = {
    "abstract art": 2.1,
    "cubism": -1.8,
    "expressionism": 0.9,
    "impressionism": 0.0,
    "surrealism": -0.6,
}
RATER_MOVEMENT_WEIGHT = {"E1": 1.0, "E2": 0.15, "E3": 1.0}
# How a movement moves a rater's matches between the kinds (multipliers of RATER_MIX), for
# the raters with RATER_MOVEMENT_WEIGHT 1: abstract art's generated images drift away
# (bad), cubism's are stereotyped; the other movements keep the rater's mix.
MOVEMENT_MIX = {
    "abstract art": (0.3, 0.3, 0.5, 8.0),
    "cubism": (0.3, 0.3, 3.0, 0.3),
}
GROUP_SPREAD = {"topological": 1.15, "eidetic": 1.0, "chromatic": 0.85}
FEMALE_SHIFT = {"E1": 0.2, "E2": 0.0, "E3": 0.8}


def _relative_point(kind: int, rng: np.random.Generator) -> tuple[float, float]:
    """Draw (Δ, R) in the region of one kind of match."""
    if kind == 0:  # excellent: near (0, 1)
        return rng.normal(0, 0.15), float(np.exp(rng.normal(0, 0.08)))
    if kind == 1:  # fair
        return rng.uniform(-1.6, 1.6), rng.uniform(0.72, 1.42)
    if kind == 2:  # stereotype: centred and narrow
        return rng.uniform(-1.5, 1.5), rng.uniform(0.2, 0.6)
    # bad: shifted away or dilated
    if rng.random() < 0.7:
        return rng.choice([-1, 1]) * rng.uniform(2.3, 6.0), rng.uniform(0.3, 1.6)
    return rng.uniform(-1.5, 1.5), rng.uniform(1.7, 3.0)


def _rater_mix(expert: str, movement: str) -> np.ndarray:
    """The shares of the four kinds of match *expert* puts *movement*'s comparisons in."""
    mix = np.array(RATER_MIX[expert])
    if RATER_MOVEMENT_WEIGHT[expert] == 1.0 and movement in MOVEMENT_MIX:
        mix = mix * np.array(MOVEMENT_MIX[movement])
    return mix / mix.sum()


#: The second generator of ``--generators 2``: where it differs from the first.
GEN_B_BETTER = {"abstract art", "cubism"}  # more excellent- and fair-like matches
GEN_B_STEREOTYPED = {"chromatic"}  # narrower intervals: stereotypes
GEN_NAMES = ("gen-A", "gen-B")


def _second_query(
    expert: str, movement: str, group: str, lo1: float, hi1: float, rng: np.random.Generator
) -> tuple[float, float]:
    """gen-B's interval for one key, against the reference interval [lo1, hi1]."""
    mix = np.array(RATER_MIX[expert])
    if movement in GEN_B_BETTER:
        mix = mix * np.array([5.0, 2.0, 0.3, 0.1])
    if group in GEN_B_STEREOTYPED:
        mix = mix * np.array([0.3, 0.3, 6.0, 0.5])
    kind = rng.choice(4, p=mix / mix.sum())
    d, r = _relative_point(kind, rng)
    s1 = (hi1 - lo1) / (2 * Z_PAPER)
    return _query_interval(lo1, hi1, s1, d, r)


def _query_interval(lo1: float, hi1: float, s1: float, d: float, r: float) -> tuple[float, float]:
    """The query interval at (Δ, R) = (d, r) of the reference [lo1, hi1], on the scale."""
    m2 = (lo1 + hi1) / 2 + d * s1
    half2 = max(r * s1 * Z_PAPER, 1.0)
    lo2, hi2 = np.clip(m2 - half2, 0, 100), np.clip(m2 + half2, 0, 100)
    if hi2 - lo2 < 2:  # keep intervals non-degenerate after clipping
        lo2, hi2 = (lo2, lo2 + 2) if lo2 < 50 else (hi2 - 2, hi2)
    return float(lo2), float(hi2)


def simulate(seed: int = 2025, generators: int = 1) -> pd.DataFrame:
    """Return the simulated ratings table (see the module docstring): 810 rows with one
    query corpus (``generated``), 1215 with two (``gen-A``, ``gen-B``)."""
    rng = np.random.default_rng(seed)
    rng_b = np.random.default_rng([seed, 2])  # the second generator's own stream
    corpora = ("generated",) if generators == 1 else GEN_NAMES[:generators]
    rows = []
    for movement in MOVEMENTS:
        names = dict(zip(MODALITIES, MOVEMENTS[movement], strict=True))
        for criterion, group in CRITERIA.items():
            for modality in MODALITIES:
                # a shared "true" historical interval that all raters perceive with noise
                centre = rng.uniform(25, 75)
                width = rng.uniform(18, 45)
                for expert in RATER_MIX:
                    mix = _rater_mix(expert, movement)
                    c = np.clip(centre + rng.normal(0, 6), 15, 85)
                    w = np.clip(width * np.exp(rng.normal(0, 0.15)), 10, 60)
                    lo1, hi1 = max(0.0, c - w / 2), min(100.0, c + w / 2)
                    s1 = (hi1 - lo1) / (2 * Z_PAPER)
                    kind = rng.choice(4, p=mix)
                    d, r = _relative_point(kind, rng)
                    if kind in (1, 3):  # category effects on the less precise matches
                        d += RATER_MOVEMENT_WEIGHT[expert] * MOVEMENT_SHIFT[movement]
                        r *= GROUP_SPREAD[group]
                    if modality == "female painter":
                        d += FEMALE_SHIFT[expert] * (1 if kind != 0 else 0)
                    intervals = [
                        ("real", (lo1, hi1)),
                        (corpora[0], _query_interval(lo1, hi1, s1, d, r)),
                    ]
                    if generators > 1:
                        second = _second_query(expert, movement, group, lo1, hi1, rng_b)
                        intervals.append((corpora[1], second))
                    for origin, (lo, hi) in intervals:
                        lo, hi = round(float(lo), 1), round(float(hi), 1)
                        rows.append(
                            {
                                "movement": movement,
                                "expert": expert,
                                "criterion": criterion,
                                "criterion group": group,
                                "origin": origin,
                                "modality": modality,
                                "modality name": names[modality],
                                "low rating": lo,
                                "high rating": hi,
                                "mean": round((lo + hi) / 2, 3),
                                "sigma": round((hi - lo) / (2 * Z_PAPER), 3),
                            }
                        )
    df = pd.DataFrame(rows)
    return (
        df[list(HEADERS)]
        .sort_values(["expert", "movement", "criterion", "modality", "origin"], kind="stable")
        .reset_index(drop=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--generators", type=int, choices=(1, 2), default=1)
    parser.add_argument("-o", "--out", type=Path, default=None)
    args = parser.parse_args()
    name = "example_ratings.csv" if args.generators == 1 else "example_two_generators.csv"
    out = args.out or Path(__file__).with_name(name)
    simulate(args.seed, args.generators).to_csv(out, index=False)
    print(f"wrote {out} (seed {args.seed})")


if __name__ == "__main__":
    main()
