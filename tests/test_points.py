import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

import rrmap
from rrmap.comparison import compare_intervals
from rrmap.zones import Thresholds


def test_one_point_per_comparison(example_points):
    pts = example_points
    assert len(pts) == 405
    assert pts.groupby("expert").size().tolist() == [135, 135, 135]
    keys = ["expert", "movement", "criterion", "criterion_group", "modality", "modality_name"]
    assert list(pts.columns[: len(keys)]) == keys
    assert not pts.duplicated(keys).any()
    assert pts.quality.cat.ordered
    assert list(pts.quality.cat.categories) == ["excellent", "fair", "stereotype", "bad"]


def test_values_equal_the_scalar_closed_form(example_points):
    sample = example_points.sample(25, random_state=1)
    for rec in sample.itertuples():
        d, r, bc = compare_intervals((rec.low_ref, rec.high_ref), (rec.low_query, rec.high_query))
        assert (rec.delta, rec.r, rec.bc) == pytest.approx((d, r, bc), rel=1e-12)


def test_points_trace_back_to_the_file_lines(example_ratings, example_points):
    rec = example_points.iloc[0]
    by_line = example_ratings.set_index("line")
    assert by_line.loc[rec.line_ref, "origin"] == "real"
    assert by_line.loc[rec.line_query, "origin"] == "generated"
    assert by_line.loc[rec.line_ref, "low"] == rec.low_ref


def test_paper_rounding_and_options(example_ratings):
    exact = rrmap.points(example_ratings)
    paper = rrmap.points(example_ratings, z=1.96)
    moved = exact.delta != 0
    np.testing.assert_allclose(paper.delta[moved] / exact.delta[moved], 1.96 / rrmap.Z_95)
    assert (paper.delta[~moved] == 0).all()
    np.testing.assert_allclose(paper.r, exact.r, rtol=1e-14)
    strict = rrmap.points(example_ratings, thresholds=Thresholds(delta_bound=1.96))
    assert (strict.quality == "bad").sum() >= (exact.quality == "bad").sum()
    assert paper.attrs["rrmap"]["z"] == 1.96


def test_accepts_a_path_and_a_raw_frame(tmp_path, example_ratings):
    from_path = rrmap.points(rrmap.datasets.example_ratings_path())
    raw = pd.read_csv(rrmap.datasets.example_ratings_path())
    from_raw = rrmap.points(raw)
    pd.testing.assert_frame_equal(
        from_path.drop(columns=["line_ref", "line_query"]),
        from_raw.drop(columns=["line_ref", "line_query"]),
    )


def test_vectorised_on_many_comparisons():
    rng = np.random.default_rng(0)
    n = 20_000
    lo1 = rng.uniform(0, 50, n)
    lo2 = rng.uniform(0, 50, n)
    w1 = rng.uniform(1, 50, n)
    w2 = rng.uniform(1, 50, n)
    df = pd.DataFrame(
        {
            "expert": np.repeat(["A"], 2 * n),
            "origin": np.tile(["real", "generated"], n),
            "item": np.repeat(np.arange(n).astype(str), 2),
            "low rating": np.ravel(np.column_stack([lo1, lo2])),
            "high rating": np.ravel(np.column_stack([lo1 + w1, lo2 + w2])),
        }
    )
    pts = rrmap.points(rrmap.load_ratings(df))
    assert len(pts) == n
    pts = pts.set_index(pts["item"].astype(int)).sort_index()
    np.testing.assert_allclose(pts.r.to_numpy(), w2 / w1, rtol=1e-12)


def test_pairing_of_a_tampered_table_is_refused():
    """A loaded table edited afterwards (a duplicated or a lone interval) is not paired silently."""
    ratings = rrmap.datasets.load_example_ratings()
    twice = pd.concat([ratings, ratings.iloc[[0]]], ignore_index=True)
    twice.attrs = ratings.attrs
    with pytest.raises(ValueError, match=r"405 reference and 406 query intervals paired into 404 "
                       r"comparisons; validate the table with rrmap\.load_ratings first"):  # fmt: skip
        rrmap.points(twice)
    lone = ratings.iloc[1:].reset_index(drop=True)
    lone.attrs = ratings.attrs
    with pytest.raises(ValueError, match="paired into 404 comparisons"):
        rrmap.points(lone)
    # other origins alone are left out, as before
    extra = pd.concat([ratings, ratings.iloc[[0]].assign(origin="draft")], ignore_index=True)
    extra.attrs = ratings.attrs
    pd.testing.assert_frame_equal(rrmap.points(extra), rrmap.points(ratings))


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["E1", "E2", None]), st.sampled_from(["a", "b", "c", None])),
        min_size=1,
        max_size=30,
    )
)
def test_key_codes_equal_pandas_groups(rows):
    """Group ids of the combined key: pandas' groupby numbering (first appearance, NA kept)."""
    from rrmap._io.keys import key_codes as _key_codes

    df = pd.DataFrame(rows, columns=["expert", "item"]).astype("str")
    expected = df.groupby(["expert", "item"], sort=False, dropna=False).ngroup().to_numpy()
    np.testing.assert_array_equal(_key_codes({"expert": df["expert"], "item": df["item"]}),
                                  expected)  # fmt: skip


def _wide_ratings(path, n_extra: int):
    """8 rows (2 raters × 2 items × 2 origins) with *n_extra* more category columns."""
    header = ["expert", "origin", "item", "low rating", "high rating"]
    header += [f"x{i}" for i in range(n_extra)]
    lines = [",".join(header)]
    for expert in ("E1", "E2"):
        for item in ("a", "b"):
            for origin, low, high in (("real", 40, 60), ("generated", 45, 70)):
                lines.append(
                    ",".join([expert, origin, item, str(low), str(high)] + ["v"] * n_extra)
                )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_many_category_columns_cost_no_copy_of_attrs_per_column(tmp_path, attrs_copies):
    """pandas deep-copies ``attrs`` into every column taken from a frame: with thousands of
    columns that made loading and pairing quadratic. The copies made do not grow with the
    number of columns."""
    calls = attrs_copies
    counts = {}
    for n in (20, 400):  # one copy per column would make 380 more
        calls.clear()
        pts = rrmap.points(rrmap.load_ratings(_wide_ratings(tmp_path / f"w{n}.csv", n)))
        counts[n] = len(calls)
        assert pts.shape == (4, 16 + n)
        assert pts[f"x{n - 1}"].tolist() == ["v"] * 4
        # Δ = (57.5 − 50) / (20 / 2z), R = 25 / 20
        assert pts["delta"].round(6).tolist() == [1.469973] * 4
        assert pts["r"].tolist() == [1.25] * 4
    assert counts[400] == counts[20] <= 2
