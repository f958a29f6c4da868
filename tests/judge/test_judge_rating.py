"""The model rater, against the local chat-completions server over real HTTP."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from PIL import Image
from rating_model import _text, interval_model

import rrmap
from rrmap.errors import InputError
from rrmap.judge.prompting.corpora import load_corpora, meta_image
from rrmap.judge.prompting.criteria import study_criteria
from rrmap.judge.tasks.rating import merge_ratings, parse_intervals, rate_corpora
from rrmap.judge.transport.client import ChatClient, Endpoint


@pytest.fixture
def server():
    with ChatServer(interval_model) as srv:
        yield srv


def client(server, tmp_path, temperature=0.0, **kw):
    ep = Endpoint(
        server.base_url,
        MODEL,
        api_key_env="RRMAP_TEST_KEY",
        temperature=temperature,
        max_retries=2,
        backoff=0.01,
        **kw,
    )
    return ChatClient(ep, cache=tmp_path / "cache")


def test_parse_intervals_formats_and_problems():
    ok, _ = parse_intervals(
        "Here: {'A': {'real': {'low': 10, 'high': 30}, 'query': [12, 20]}}", ["A"], (0, 100)
    )
    assert ok == {"A": {"reference": (10.0, 30.0), "generated": (12.0, 20.0)}}
    single, _ = parse_intervals('{"reference": [1, 2], "generated": [1.5, 1.8]}', ["A"], (1, 7))
    assert single == {"A": {"reference": (1.0, 2.0), "generated": (1.5, 1.8)}}
    bad, problems = parse_intervals(
        '{"A": {"reference": [10, 10], "generated": ["x", 3]}}', ["A", "B"], (0, 100)
    )
    assert bad is None
    assert problems == [
        "A reference: low 10 is not below high 10",
        "A generated: expected two numbers, got ['x', 3]",
        "corpus B is missing",
    ]
    assert parse_intervals("no numbers here", ["A"], (0, 100)) == (
        None,
        ["no JSON object found in the answer"],
    )


def test_meta_image_limits_and_samples(corpora_file):
    folder = corpora_file.parent / "gen" / "Cubism"
    assert meta_image(folder, columns=2, cell=10).size == (24, 24)  # 2 × 10 px + a 4 px gap
    assert meta_image(folder, limit=2, columns=2, cell=10).size == (24, 10)
    a = np.asarray(meta_image(folder, limit=2, cell=10, rng=1))
    b = np.asarray(meta_image(folder, limit=2, cell=10, rng=1))
    assert (a == b).all()


def test_corpora_file_problems_listed_at_once(tmp_path):
    (tmp_path / "empty").mkdir()
    path = tmp_path / "c.csv"
    path.write_text(
        "movement,modality,modality name,query,reference\n"
        "cubism,movement,Cubism,nope,the works\n"
        "cubism,movement,Cubism,empty,\n"
    )
    with pytest.raises(InputError) as exc:
        load_corpora(path)
    msg = str(exc.value)
    assert "line 2: query folder not found" in msg
    assert "line 3: column 'reference' is empty" in msg
    assert "line 3: no images in query folder" in msg
    assert "line 3: duplicates line 2 (cubism, movement, Cubism)" in msg


def test_rating_over_http_with_reask_and_failures(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    crits = [
        c for c in study_criteria() if c.name in ("centered-edges", "left-right", "top-bottom")
    ]
    out = rate_corpora(
        client(server, tmp_path),
        load_corpora(corpora_file),
        crits,
        progress=False,
        rater="judge-model",
        max_reasks=1,
    )
    # relative setup: 5 sheets × 3 criteria; left-right needs a re-ask; top-bottom fails twice
    assert server.received == 5 * 1 + 5 * 2 + 5 * 2
    assert len(out.failures) == 5
    assert set(out.failures.criterion) == {"top-bottom"}
    assert (out.failures.attempts == 2).all()
    assert out.failures.problems.str.contains("outside the scale").all()
    assert out.failures.raw.str.contains("-10").all()
    assert len(out.ratings) == 5 * 3 * 2 * 2  # sheets × corpora × valid criteria × origins
    assert list(out.ratings.columns) == [
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
    # each sheet holds the three modalities of one movement, as in the study
    first = server.answered[0]
    assert len(re.findall(r"Corpus [A-C]:", _text(first))) == 3
    n_images = sum(p.get("type") == "image_url" for p in first["messages"][1]["content"])
    assert n_images == 3
    loaded = rrmap.load_ratings(out.ratings)
    assert len(rrmap.points(loaded)) == 30
    assert API_KEY not in json.dumps(out.settings)


def test_cache_resumes_without_new_calls(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    crits = study_criteria()[:1]
    first = rate_corpora(
        client(server, tmp_path), load_corpora(corpora_file), crits, progress=False
    )
    n = server.received
    again = rate_corpora(
        client(server, tmp_path), load_corpora(corpora_file), crits, progress=False
    )
    assert server.received == n
    pd.testing.assert_frame_equal(first.ratings, again.ratings)


def test_repeats_show_the_models_variability(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    crits = study_criteria()[:1]
    out = rate_corpora(
        client(server, tmp_path, temperature=0.7),
        load_corpora(corpora_file),
        crits,
        repeats=3,
        rng=7,
        progress=False,
    )
    assert out.runs.run.nunique() == 3 and len(set(out.settings["seeds"])) == 3
    seeds_sent = {b["seed"] for b in server.answered}
    assert seeds_sent == set(out.settings["seeds"])
    med = out.runs.groupby(["modality name", "origin"])["low rating"].median()
    got = out.ratings.set_index(["modality name", "origin"])["low rating"]
    assert np.allclose(got.loc[med.index].to_numpy(), med.to_numpy())
    v = out.variability
    assert (v.n_runs == 3).all() and (v.low_max >= v.low_min).all()
    assert (v.low_max > v.low_min).any()  # the seeds make the runs differ


def test_run_points_and_their_spread(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    out = rate_corpora(
        client(server, tmp_path, temperature=0.7),
        load_corpora(corpora_file),
        study_criteria()[:1],
        repeats=3,
        rng=7,
        progress=False,
    )
    pts = out.run_points()
    assert len(pts) == 15 * 3 and sorted(pts.run.unique()) == [1, 2, 3]
    one = out.runs[out.runs.run == 2].drop(columns=["run", "seed"])
    direct = rrmap.points(rrmap.load_ratings(one))
    got = pts[pts.run == 2].sort_values("modality_name")["delta"].to_numpy()
    np.testing.assert_allclose(got, direct.sort_values("modality_name")["delta"], rtol=1e-12)
    spread = out.point_spread()
    assert len(spread) == 15 and (spread.n_runs == 3).all()
    assert (spread.delta_min <= spread.delta_max).all() and (spread.r_min <= spread.r_max).all()
    for rec in spread.itertuples():
        sub = pts[pts.modality_name == rec.modality_name]
        assert rec.delta_min == sub.delta.min() and rec.r_max == sub.r.max()
        counts = sub.quality.astype(str).value_counts()
        assert rec.modal_share == counts.max() / 3
        assert set(rec.zones.split("|")) == set(counts.index)


def test_single_setup_sends_one_corpus_per_request(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    out = rate_corpora(
        client(server, tmp_path),
        load_corpora(corpora_file),
        study_criteria()[:1],
        setup="single",
        progress=False,
    )
    assert server.received == 15
    assert len(out.ratings) == 30


def test_end_to_end_model_beside_the_human_raters(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    out = rate_corpora(
        client(server, tmp_path),
        load_corpora(corpora_file),
        study_criteria(),
        progress=False,
        rater="judge-model",
    )
    assert len(out.failures) == 5  # top-bottom, reported
    merged = merge_ratings(rrmap.datasets.example_ratings_path(), out)
    ratings = rrmap.load_ratings(merged)
    pts = rrmap.points(ratings)
    assert pts.groupby("expert").size().to_dict() == {
        "E1": 135,
        "E2": 135,
        "E3": 135,
        "judge-model": 120,
    }
    props = rrmap.proportions(pts, wide=True).set_index("expert")
    assert props.loc["judge-model", ["excellent", "fair", "stereotype", "bad"]].sum() == 1
    # the judge's ratings go through the whole analysis: few draws suffice for that
    res = rrmap.analyze(ratings, by=["movement"], n_perm=99, n_boot=99, chi2_n_perm=99, rng=0,
                        progress=False)  # fmt: skip
    overall = res.tests[(res.tests.by == "expert") & (res.tests.within == "all")]
    assert "E1|E2|E3|judge-model" in set(overall.groups)
    assert "E1|judge-model" in set(overall.groups)
    assert overall.pvalue.notna().all()
    with pytest.raises(InputError, match="already human raters"):
        merge_ratings(rrmap.datasets.example_ratings_path(), out.ratings.assign(expert="E1"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"setup": "sheet"}, "setup must be 'relative' or 'single', got 'sheet'"),
        ({"repeats": 0}, "repeats must be at least 1, got 0"),
        ({"criteria": []}, "need at least one corpus and one criterion"),
    ],
)
def test_bad_rating_settings_are_named(corpora_file, kwargs, message):
    from rrmap.judge import FunctionChat

    args = {"criteria": study_criteria()[:1], **kwargs}
    crits = args.pop("criteria")
    with pytest.raises(InputError, match=re.escape(message)):
        rate_corpora(
            FunctionChat(lambda m: "", name="x"),
            load_corpora(corpora_file),
            crits,
            progress=False,
            **args,
        )


def test_merge_checks_the_schema_and_the_overlap():
    human = pd.read_csv(rrmap.datasets.example_ratings_path())
    model = human[human.expert == "E1"].assign(expert="m")
    with pytest.raises(
        InputError, match=r"human ratings lack the study's column\(s\) \['origin'\]"
    ):
        merge_ratings(human.drop(columns="origin"), model)
    with pytest.raises(InputError, match=r"the model rated no \(movement, criterion, modality\)"):
        merge_ratings(human, model.assign(movement="fauvism"))


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            '{"A": {"reference": [10, "inf"], "generated": [1, 2]}}',
            "A reference: expected finite numbers, got [10, 'inf']",
        ),
        (
            '{"A": {"reference": [10, 20, 30], "generated": [1, 2]}}',
            "A reference: expected [low, high], got [10, 20, 30]",
        ),
        ('{"A": {"reference": [10, 20]}}', "A generated: missing"),
    ],
)
def test_parse_interval_problems(answer, problem):
    parsed, problems = parse_intervals(answer, ["A"], (0, 100))
    assert parsed is None and problems == [problem]


def test_write_refuses_to_overwrite(tmp_path):
    from rrmap.judge.tasks.rating import ModelRatings

    mr = ModelRatings(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), {})
    mr.write(tmp_path / "m.csv")
    with pytest.raises(InputError, match=r"m\.csv, .*m\.json exist\(s\); use --force"):
        mr.write(tmp_path / "m.csv")
    assert len(mr.write(tmp_path / "m.csv", force=True)) == 5


def test_meta_image_and_reference_folder_problems(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no images in .*empty"):
        meta_image(tmp_path / "empty")
    with pytest.raises(InputError, match=r"image folder not found: .*nope"):
        meta_image(tmp_path / "nope")
    (tmp_path / "gen").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "gen" / "1.png")
    path = tmp_path / "c.csv"
    path.write_text(
        "movement,modality,modality name,query,reference,reference images\n"
        "cubism,movement,Cubism,gen,the works,refs\n"
    )
    with pytest.raises(InputError, match=r"line 2: reference images folder not found: .*refs"):
        load_corpora(path)
