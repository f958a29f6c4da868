"""The shipped synthetic rating example loads and runs through the rating pipeline."""

from pathlib import Path

import numpy as np

import rrmap
from rrmap.judge import FunctionChat
from rrmap.judge.prompting.corpora import load_corpora
from rrmap.judge.prompting.criteria import study_criteria
from rrmap.judge.tasks.rating import merge_ratings, rate_corpora

ROOT = Path(__file__).resolve().parents[2]
ANSWER = (
    '{"A": {"reference": [20, 70], "generated": [35, 55]}, '
    '"B": {"reference": [25, 65], "generated": [30, 50]}, '
    '"C": {"reference": [30, 80], "generated": [45, 60]}}'
)


def test_rate_example_matches_the_human_design():
    corpora = load_corpora(ROOT / "data" / "rate_example" / "corpora.csv")
    assert len(corpora) == 15
    out = rate_corpora(
        FunctionChat(lambda m: ANSWER, name="fixed"), corpora, study_criteria(), progress=False
    )
    assert len(out.failures) == 0 and len(out.ratings) == 15 * 9 * 2
    pts = rrmap.points(
        rrmap.load_ratings(merge_ratings(rrmap.datasets.example_ratings_path(), out))
    )
    assert pts.groupby("expert").size().to_dict() == {"E1": 135, "E2": 135, "E3": 135, "fixed": 135}
    # the fixed answer for corpus A: reference [20, 70], generated [35, 55] → R = 20/50
    r = pts.loc[(pts.expert == "fixed") & (pts.modality == "movement"), "r"]
    assert len(r) == 45 and np.allclose(r, 0.4, rtol=1e-12)
