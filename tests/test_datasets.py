import itertools

import pandas as pd

import rrmap
from rrmap.datasets import example_ratings_path


def test_example_file_has_the_study_schema_and_size():
    raw = pd.read_csv(example_ratings_path())
    assert list(raw.columns) == [
        "movement",
        "expert",
        "criterion",
        "criterion group",
        "origin",
        "modality",
        "modality name",
        "low rating",
        "high rating",
        "mean",
        "sigma",
    ]
    assert len(raw) == 3 * 5 * 3 * 2 * 9 == 810
    design = set(
        itertools.product(
            raw.expert.unique(),
            raw.movement.unique(),
            raw.modality.unique(),
            raw.origin.unique(),
            raw.criterion.unique(),
        )
    )
    assert (
        set(map(tuple, raw[["expert", "movement", "modality", "origin", "criterion"]].to_numpy()))
        == design
    )
    assert raw.groupby("criterion group").criterion.nunique().to_dict() == {
        "chromatic": 3,
        "eidetic": 3,
        "topological": 3,
    }


def test_painters_as_in_the_study():
    raw = pd.read_csv(example_ratings_path())
    painters = set(raw.loc[raw.modality != "movement", "modality name"])
    assert {"Pablo Picasso", "Marie Laurencin", "Hilma af Klint", "Dorothea Tanning"} <= painters
    assert len(painters) == 10


def test_raters_differ_as_the_paper_reports(example_points):
    share = rrmap.proportions(example_points, wide=True).set_index("expert")
    # E2 generous: fair is its largest level; E3 harsh: bad is; E1 balanced: no level dominates
    assert share.loc["E2", ["excellent", "fair", "stereotype", "bad"]].idxmax() == "fair"
    assert share.loc["E3", ["excellent", "fair", "stereotype", "bad"]].idxmax() == "bad"
    assert share.loc["E1", ["excellent", "fair", "stereotype", "bad"]].max() < 0.45
    assert share.loc["E3", "bad"] + share.loc["E3", "stereotype"] > 0.8


def test_generator_reproduces_the_shipped_file():
    import importlib.util
    from pathlib import Path

    script = Path(rrmap.__file__).resolve().parents[1] / "data" / "make_example_ratings.py"
    spec = importlib.util.spec_from_file_location("make_example_ratings", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fresh = mod.simulate(2025)
    shipped = pd.read_csv(example_ratings_path())
    pd.testing.assert_frame_equal(fresh.reset_index(drop=True), shipped, check_dtype=False)
