import warnings

import pandas as pd
import pytest

import rrmap
from rrmap.errors import RatingsError
from rrmap.ratings import RatingsSchema, RatingsWarning, load_ratings

H = "movement,expert,criterion,criterion group,origin,modality,modality name,low rating,high rating"


def row(
    expert="E1", origin="real", low="30", high="50", criterion="left-right", modality="movement"
):
    return f"cubism,{expert},{criterion},topological,{origin},{modality},Cubism,{low},{high}"


def good_pair(**kw):
    return [row(origin="real", **kw), row(origin="generated", low="35", high="45", **kw)]


def test_study_file_loads_with_no_options(example_ratings):
    df = example_ratings
    assert df.shape == (810, 10)
    assert list(df.columns) == [
        "expert",
        "origin",
        "movement",
        "criterion",
        "criterion_group",
        "modality",
        "modality_name",
        "low",
        "high",
        "line",
    ]
    assert df.attrs["rrmap"]["categories"] == [
        "movement",
        "criterion",
        "criterion_group",
        "modality",
        "modality_name",
    ]
    assert df["line"].tolist() == list(range(2, 812))


def test_example_mean_sigma_are_consistent_so_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_ratings(rrmap.datasets.example_ratings_path())


def test_headers_match_case_and_separator_insensitively(write_csv):
    header = "MOVEMENT,Expert,criterion,Criterion_Group,ORIGIN,modality,modality-name,Low_Rating,high-RATING"
    df = load_ratings(write_csv([header, *good_pair()]))
    assert list(df.columns)[:2] == ["expert", "origin"]
    assert "modality_name" in df.columns and "criterion_group" in df.columns


def test_other_schema_by_naming_roles(write_csv):
    path = write_csv(
        [
            "annotator,item,corpus,lo,hi",
            "A,faces,human,2,5",
            "A,faces,model,3,4.5",
            "B,faces,human,1.5,6",
            "B,faces,model,1,7",
        ]
    )
    df = load_ratings(
        path,
        rater="annotator",
        origin="corpus",
        low="lo",
        high="hi",
        reference="human",
        query="model",
        scale=(1, 7),
    )
    assert df["expert"].tolist() == ["A", "A", "B", "B"]
    assert df.attrs["rrmap"]["categories"] == ["item"]
    pts = rrmap.points(df)
    assert len(pts) == 2
    assert pts["r"].iloc[0] == pytest.approx(1.5 / 3)


def test_schema_object_and_keyword_override(write_csv):
    path = write_csv(["annotator,item,corpus,lo,hi", "A,x,human,2,5", "A,x,model,3,4"])
    sch = RatingsSchema(
        rater="annotator",
        origin="corpus",
        low="lo",
        high="hi",
        reference="human",
        query="model",
        scale=(1, 7),
    )
    assert len(load_ratings(path, schema=sch)) == 2
    with pytest.raises(RatingsError, match=r"outside the scale \[3, 7\]"):
        load_ratings(path, schema=sch, scale=(3, 7))


def test_missing_role_columns_names_them_and_the_headers_found(write_csv):
    path = write_csv(["who,origin,lo,hi", "A,real,1,2"])
    with pytest.raises(RatingsError) as exc:
        load_ratings(path)
    msg = str(exc.value)
    assert (
        "missing rater column 'expert', low column 'low rating', high column 'high rating'" in msg
    )
    assert "headers found: 'who', 'origin', 'lo', 'hi'" in msg
    assert str(path) in msg


def test_all_value_problems_are_reported_at_once_with_file_lines(write_csv):
    lines = [
        H,
        *good_pair(),  # lines 2-3 fine
        row(criterion="top-bottom", low="abc"),  # 4 non-numeric
        row(criterion="top-bottom", origin="generated", high=""),  # 5 missing
        row(criterion="sharp-blurry", low="60", high="40"),  # 6 low > high
        row(criterion="sharp-blurry", origin="generated", low="40", high="40"),  # 7 zero width
        row(criterion="dense-sparse", low="-5", high="20"),  # 8 outside
        row(criterion="dense-sparse", origin=""),  # 9 no origin
    ]
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv(lines))
    err = exc.value
    msg = str(err)
    assert "column 'low rating': not a number: 'abc' (line 4)" in msg
    assert "column 'high rating': missing value on line 5" in msg
    assert "low > high ('low rating' above 'high rating'): [60, 40] (line 6)" in msg
    assert "zero-width interval" in msg and "[40, 40] (line 7)" in msg
    assert "interval outside the scale [0, 100]: [-5, 20] (line 8)" in msg
    assert "column 'origin': missing value on line 9" in msg
    assert len(err.problems) >= 6


def test_unpaired_and_duplicated_keys_are_listed(write_csv):
    lines = [
        H,
        *good_pair(),
        row(criterion="top-bottom"),  # 4 reference without query
        row(criterion="dense-sparse", origin="generated"),  # 5 query without reference
        *good_pair(criterion="sharp-blurry"),  # 6-7
        row(criterion="sharp-blurry", low="31"),  # 8 duplicate reference
    ]
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv(lines))
    duplicated, unpaired = exc.value.problems
    assert duplicated.startswith(
        "1 comparison key(s) with more than one 'real' and one 'generated' interval: ["
    )
    assert "duplicated intervals (2 reference, 1 query) on lines 6, 7, 8" in duplicated
    assert unpaired.startswith(
        "2 comparison key(s) without one 'real' and one 'generated' interval (2 rows): ["
    )
    assert (
        "criterion=top-bottom" in unpaired
        and "a reference but no query interval on line 4" in unpaired
    )
    assert "a query but no reference interval (1 query) on line 5" in unpaired
    assert unpaired.endswith(
        " — drop_incomplete=True (--drop-incomplete) drops them, counted and listed"
    )


def test_missing_category_value_is_reported(write_csv):
    bad = "cubism,E1,,topological,real,movement,Cubism,30,50"
    with pytest.raises(RatingsError, match="column 'criterion': missing value on line 4"):
        load_ratings(write_csv([H, *good_pair(), bad]))


def test_inconsistent_mean_sigma_warns_and_interval_wins(write_csv):
    header = H + ",mean,sigma"
    lines = [header, row() + ",40,5.1", row(origin="generated", low="35", high="45") + ",99,2.55"]
    with pytest.warns(RatingsWarning, match=r"column 'mean' disagrees with the interval on line 3"):
        df = load_ratings(write_csv(lines))
    pts = rrmap.points(df, z=1.96)
    assert pts["m_query"].iloc[0] == 40.0


def test_min_width_floors_explicitly_and_reports(write_csv):
    lines = [H, row(), row(origin="generated", low="40", high="40")]
    with pytest.raises(RatingsError, match="zero-width"):
        load_ratings(write_csv(lines))
    with pytest.warns(
        RatingsWarning, match=r"1 interval\(s\) narrower than min_width=2 were widened"
    ):
        df = load_ratings(write_csv(lines), min_width=2)
    assert df.loc[1, ["low", "high"]].tolist() == [39.0, 41.0]
    assert df.attrs["rrmap"]["widened"] == 1


def test_min_width_stays_inside_the_scale(write_csv):
    lines = [H, row(), row(origin="generated", low="100", high="100")]
    with pytest.warns(RatingsWarning):
        df = load_ratings(write_csv(lines), min_width=4)
    assert df.loc[1, ["low", "high"]].tolist() == [96.0, 100.0]


def test_dataframe_input_uses_row_positions():
    df = pd.DataFrame(
        {
            "expert": ["A", "A"],
            "origin": ["real", "generated"],
            "item": ["x", "x"],
            "low rating": [10, 30],
            "high rating": [20, 25],
        }
    )
    with pytest.raises(RatingsError, match=r"<DataFrame>: 1 problem: low > high .*\(row 1\)"):
        load_ratings(df)


def test_long_problem_lists_are_summarised_but_counted(write_csv):
    lines = [H]
    for i in range(40):
        lines += [row(criterion=f"c{i}", low="x"), row(criterion=f"c{i}", origin="generated")]
    with pytest.raises(RatingsError, match=r"… and 10 more"):
        load_ratings(write_csv(lines))


def test_empty_and_missing_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(RatingsError, match=r"empty\.csv: 1 problem: the file is empty"):
        load_ratings(empty)
    with pytest.raises(FileNotFoundError):
        load_ratings(tmp_path / "nope.csv")


def test_reference_equal_to_query_is_rejected(write_csv):
    with pytest.raises(RatingsError, match="both 'real'"):
        load_ratings(write_csv([H, *good_pair()]), query="real")


def test_nothing_is_dropped(example_ratings):
    assert len(example_ratings) == 810
    assert example_ratings.groupby("expert").size().tolist() == [270, 270, 270]


def test_header_and_category_problems(write_csv):
    same = write_csv(
        [H.replace("modality name", "Modality_Name,modality-name"), row() + ",x"], name="same.csv"
    )
    with pytest.raises(
        RatingsError, match="columns 7 'Modality_Name' and 8 'modality-name' are the same header"
    ):
        load_ratings(same)
    path = write_csv([H, *good_pair()])
    with pytest.raises(
        RatingsError, match=r"category column\(s\) \['style'\] not found; headers found: 'movement'"
    ):
        load_ratings(path, categories=["style"])
    with pytest.raises(
        RatingsError, match=r"column\(s\) \['origin'\] cannot be both a role and a category"
    ):
        load_ratings(path, categories=["origin"])
    clash = write_csv(
        ["who,origin,line,low rating,high rating", "A,real,1,1,2", "A,generated,1,1,3"],
        name="clash.csv",
    )
    with pytest.raises(
        RatingsError, match=r"category column\(s\) \['line'\] clash with rrmap's output names"
    ):
        load_ratings(clash, rater="who")


def test_infinite_bounds_and_bad_min_width(write_csv):
    with pytest.raises(
        RatingsError, match=r"columns 'low rating'/'high rating': infinite value on line 3"
    ):
        load_ratings(write_csv([H, row(), row(origin="generated", high="inf")]))
    with pytest.raises(RatingsError, match="min_width must be a positive number, got -1"):
        load_ratings(write_csv([H, *good_pair()]), min_width=-1)


def test_unreadable_table(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_text('expert,origin\n"A,real\n')
    with pytest.raises(RatingsError, match=r"broken\.csv: 1 problem: not a readable table"):
        load_ratings(path)


def test_the_steps_of_load_ratings_work_on_their_own():
    """load_ratings is read → headers → origins → values → keys → pairing; each step alone."""
    import numpy as np

    from rrmap._io.corpora import origins
    from rrmap._io.tabular import Table
    from rrmap.ratings import (
        _bounds,
        _first_pass,
        _key_text,
        _key_values,
        _match_headers,
        _pairing,
        _Rows,
    )

    cells = pd.DataFrame(
        [
            ["E1", "real", "a", "10", "20"],
            ["E1", "generated", "a", "12,5", "30"],
            ["E1", "real", "b", "10", "x"],
        ]
    )
    table = Table(
        ["Rater", "origin", "item", "Low Rating", "high_rating"],
        cells,
        np.array([2, 3, 5]),
        "t.csv",
        "line",
        {"format": "text"},
    )
    sch = RatingsSchema(rater="rater")
    rows = _Rows(table.source, table.lines, table.unit)
    cols = _match_headers(table, sch)
    assert (cols.rater, cols.low, cols.high, cols.categories) == (
        "rater",
        "low_rating",
        "high_rating",
        ["item"],
    )
    first = _first_pass(table, cols, {"mean", "sigma"})
    lo, hi, ok, problems, blank = _bounds(table, cols, sch, ",", False, first, rows)
    assert hi[0] == 20.0
    assert lo.tolist()[:2] == [10.0, 12.5] and ok.tolist() == [True, True, False]
    assert problems == ["column 'high rating': not a number with decimal mark ',': 'x' (line 5)"]
    assert not blank.any()
    ori = origins(_key_text(table, cols.by_key[cols.origin]), sch, rows)
    assert ori.values.tolist() == ["real", "generated", "real"]
    assert ori.ref.tolist() == [True, False, True] and not ori.problems
    assert ori.queries == ["generated"] and ori.corpus.tolist() == [-1, 0, -1]
    keys, problems = _key_values(table, cols, rows)
    assert list(keys) == ["rater", "item"] and not problems
    (pairing,) = _pairing(keys, ori.ref, ori.corpus, ori.queries, "real", rows).problems
    assert "[rater=E1, item=b] has a reference but no query interval on line 5" in pairing


# --- labels in Unicode NFC ---------------------------------------------------------------


def test_labels_composed_and_decomposed_are_one_label_with_a_warning(write_csv):
    composed, decomposed = "Caf\u00e9", "Cafe\u0301"  # look the same, differ in code points
    lines = [
        H,
        row().replace("cubism", composed),
        row(origin="generated", low="35", high="45").replace("cubism", decomposed),
    ]
    with pytest.warns(RatingsWarning) as caught:
        df = load_ratings(write_csv(lines))
    (warning,) = [w for w in caught if "composed" in str(w.message)]
    assert str(warning.message).endswith(
        "column 'movement': labels that differ only in how their accents are encoded (Unicode "
        "composed or decomposed) are read as one: 'Café' (written 'Caf\\xe9' and "
        "'Cafe\\u0301')"
    )
    assert df["movement"].tolist() == [composed, composed]
    pts = rrmap.points(df)
    assert len(pts) == 1 and pts["movement"].tolist() == [composed]


def test_a_decomposed_header_matches_a_composed_option(write_csv):
    header = H.replace("modality name", "mode\u0301lit\u00e9")  # 'modélité', half decomposed
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one spelling of each label: nothing to warn about
        df = load_ratings(
            write_csv([header, *good_pair()]), categories=["movement", "mod\u00e9lit\u00e9"]
        )
    assert df.attrs["rrmap"]["categories"] == ["movement", "mod\u00e9lit\u00e9"]
    assert df.attrs["rrmap"]["headers"]["mod\u00e9lit\u00e9"] == "mod\u00e9lit\u00e9"


# --- the narrowest interval ---------------------------------------------------------------


def test_an_interval_narrower_than_the_floor_is_an_error_naming_it(write_csv):
    lines = [
        H,
        row(low="0", high="5e-324"),  # line 2: σ rounds to zero
        row(origin="generated", low="40", high="40.00000001"),  # line 3: 1e-8 < 1e-7
        row(criterion="top-bottom", low="40", high="40.000001"),  # 1e-6: taken
        row(criterion="top-bottom", origin="generated"),
    ]
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv(lines))
    assert exc.value.problems == [
        "columns 'low rating'/'high rating': interval narrower than 1e-07 (MIN_WIDTH_FRACTION "
        "= 1e-09 of the scale's width [0, 100]; rounding can make its standard deviation "
        "zero): [0.0, 5e-324] (line 2), [40.0, 40.00000001] (line 3); pass min_width= "
        "(--min-width) to floor widths explicitly"
    ]


def test_the_floor_follows_the_scale_or_the_span_of_the_bounds(write_csv):
    lines = [H, row(low="1", high="1.00000001"), row(origin="generated", low="1", high="7")]
    assert load_ratings(write_csv(lines), scale=(1, 7))["high"].iloc[0] == 1.00000001
    with pytest.raises(RatingsError, match=r"narrower than 1e-07 \(MIN_WIDTH_FRACTION = 1e-09 "
                       r"of the scale's width \[0, 100\]"):  # fmt: skip
        load_ratings(write_csv(lines))
    lines[1] = row(low="1", high="1.000000001")
    with pytest.raises(RatingsError, match=r"narrower than 6e-09 \(MIN_WIDTH_FRACTION = 1e-09 "
                       r"of the span of the bounds \[1, 7\]"):  # fmt: skip
        load_ratings(write_csv(lines), scale=None)


def test_min_width_floors_narrow_intervals_and_is_itself_at_least_the_floor(write_csv):
    lines = [H, row(low="0", high="5e-324"), row(origin="generated", low="35", high="45")]
    with pytest.warns(RatingsWarning, match=r"1 interval\(s\) narrower than min_width=0\.001"):
        df = load_ratings(write_csv(lines), min_width=1e-3)
    assert df.loc[0, ["low", "high"]].tolist() == [0.0, 1e-3]
    assert rrmap.points(df)["r"].tolist() == [10 / 1e-3]
    with pytest.raises(
        RatingsError,
        match=r"min_width=1e-12 is narrower than the narrowest interval rrmap takes, 1e-07",
    ):
        load_ratings(write_csv(lines), min_width=1e-12)


# --- values from the file in messages ----------------------------------------------------


def test_long_labels_are_cut_and_direction_overrides_escaped_in_messages(write_csv):
    long_origin = "o" * 500_000
    spoof = "E1\u202egnp.exe"
    lines = [
        H,
        *good_pair(),
        row(origin=long_origin, criterion="top-bottom"),  # line 4
        row(expert=spoof, criterion="dense-sparse"),  # line 5: no query
        row(low="x" * 300, criterion="sharp-blurry"),  # line 6
    ]
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv(lines), query="generated")  # the long origin is left out
    msg = str(exc.value)
    assert len(msg) < 3000
    assert "\u202e" not in msg
    with pytest.warns(RatingsWarning, match=r"left out: 'o{100}… \(500000 characters\)' \(1 row\)"):
        with pytest.raises(RatingsError):
            load_ratings(write_csv(lines), query="generated")
    with pytest.raises(RatingsError) as exc:  # every other value is a query corpus
        load_ratings(write_csv(lines))
    msg = str(exc.value)
    assert len(msg) < 3000
    assert f"'{'o' * 100}… (500000 characters)'" in msg
    assert "expert=E1\\u202egnp.exe" in msg
    assert f"not a number: '{'x' * 100}… (300 characters)' (line 6)" in msg


def test_thousands_of_headers_are_listed_in_part(write_csv, monkeypatch):
    monkeypatch.setenv("RRMAP_MAX_COLUMNS", "6000")  # above rrmap._io.reading_limits.MAX_COLUMNS
    header = ",".join(
        ["who", "origin", "low rating", "high rating"] + [f"c{i}" for i in range(5000)]
    )
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv([header, "E1,real,1,2," + ",".join(["v"] * 5000)]))
    assert exc.value.problems[0].startswith(
        "missing rater column 'expert'; headers found: 'who', 'origin', 'low rating', "
        "'high rating', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5' and 4994 more"
    )


# --- several query corpora, incomplete ratings -------------------------------------------


def test_every_origin_but_the_reference_is_a_query_corpus(write_csv):
    lines = [
        H,
        *good_pair(),
        row(origin="sdxl", low="33", high="44"),  # line 4: the same key, a second generator
        *good_pair(criterion="top-bottom"),  # lines 5-6: sdxl did not rate this key
    ]
    df = load_ratings(write_csv(lines))
    meta = df.attrs["rrmap"]
    assert meta["queries"] == ["generated", "sdxl"] and meta["query"] == ["generated", "sdxl"]
    assert meta["excluded"] == {} and len(df) == 5
    # query= selects; the others are left out, counted and warned about; a reference
    # needs a query among those analysed (top-bottom has none in sdxl)
    with pytest.warns(RatingsWarning, match=r"left out: 'generated' \(2 rows\)"):
        with pytest.raises(RatingsError, match=r"top-bottom.*a reference but no query .* line 5"):
            load_ratings(write_csv(lines), query="sdxl")
    with pytest.warns(RatingsWarning, match=r"left out: 'generated' \(1 row\)"):
        one = load_ratings(write_csv(lines[:4]), query="sdxl")
    assert one.attrs["rrmap"]["excluded"] == {"generated": 1}
    assert one["line"].tolist() == [2, 4]


def test_corpora_that_are_not_there_and_tiny_corpora(write_csv):
    lines = [H, *good_pair(), row(origin="sdxl")]
    with pytest.raises(RatingsError, match=r"no row of the query corpus 'dalle'; values found: "
                       r"'real', 'generated', 'sdxl'"):  # fmt: skip
        load_ratings(write_csv(lines), query=["sdxl", "dalle"])
    with pytest.raises(RatingsError, match=r"no row of the reference corpus 'human'"):
        load_ratings(write_csv(lines), reference="human")
    with pytest.raises(RatingsError, match="every row is the reference 'real'"):
        load_ratings(write_csv([H, row(), row(criterion="x")]))
    with pytest.raises(RatingsError, match="query corpus named twice: 'sdxl'"):
        load_ratings(write_csv(lines), query=["sdxl", "sdxl"])
    # a typo in the origin column makes a corpus of its own: warned about
    many = [H] + [r for c in range(12) for r in good_pair(criterion=f"c{c}")]
    with pytest.warns(RatingsWarning, match=r"query corpus 'generatd' \(1 rows\) is far smaller"):
        load_ratings(write_csv([*many, row(criterion="c0", origin="generatd")]))


def test_drop_incomplete_drops_blank_and_unpaired_rows_and_counts_them(write_csv):
    lines = [
        H,
        *good_pair(),  # 2-3
        row(criterion="top-bottom", low=""),  # 4: blank bound
        row(criterion="top-bottom", origin="generated"),  # 5: its reference is blank
        row(criterion="dense-sparse"),  # 6: a reference without query
        *good_pair(criterion="sharp-blurry"),  # 7-8
    ]
    with pytest.raises(RatingsError) as exc:
        load_ratings(write_csv(lines))
    assert "column 'low rating': missing value on line 4 (drop_incomplete=True" in str(exc.value)
    with pytest.warns(RatingsWarning) as caught:
        df = load_ratings(write_csv(lines), drop_incomplete=True)
    assert [str(w.message).split(": ", 1)[1] for w in caught] == [
        "3 row(s) dropped (drop_incomplete): 1 with a blank interval bound (line 4); "
        "2 without a partner interval (lines 5, 6)"
    ]
    assert df["line"].tolist() == [2, 3, 7, 8]
    dropped = df.attrs["rrmap"]["dropped"]
    assert (dropped["rows"], dropped["blank"], dropped["unpaired"]) == (3, 1, 2)
    assert dropped["lines"] == [4, 5, 6] and dropped["blank_lines"] == [4]
    assert len(dropped["unpaired_keys"]) == 2 and "line 6" in dropped["unpaired_keys"][1]
    # text that is not a number, and duplicates, stay errors
    bad = [*lines, row(criterion="x", low="abc"), row(criterion="x", origin="generated")]
    with pytest.raises(RatingsError, match="not a number: 'abc'"):
        load_ratings(write_csv(bad), drop_incomplete=True)
    twice = [H, *good_pair(), row(low="31")]
    with pytest.raises(RatingsError, match=r"duplicated intervals \(2 reference, 1 query\)"):
        load_ratings(write_csv(twice), drop_incomplete=True)
