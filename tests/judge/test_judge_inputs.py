"""Images named by questions and pairs files: checked, all at once, before anything is sent."""

from __future__ import annotations

import functools
import io
import json
import os
import re
from pathlib import Path

import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner
from PIL import Image

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.judge.prompting.images import image_problem, load_image
from rrmap.judge.tasks.mcq import read_questions
from rrmap.judge.tasks.pairwise import read_pairs

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
PIXELS = f"{Image.MAX_IMAGE_PIXELS:,}"


def _question(qid: str, **extra) -> str:
    return json.dumps(
        {
            "id": qid,
            "question": f"Balanced ({qid})?",
            "options": ["Yes", "No"],
            "answer": "A",
            **extra,
        }
    )


def _bomb(path: Path) -> Path:
    """A PNG of a few kilobytes that decodes to 20,000² pixels."""
    path.write_bytes(_bomb_bytes())
    return path


@functools.cache
def _bomb_bytes(side: int = 20_000) -> bytes:
    """The bytes of :func:`_bomb`'s file (encoding its 50 MB of pixels takes seconds: once)."""
    buf = io.BytesIO()
    Image.new("1", (side, side)).save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "questions"
    d.mkdir()
    Image.new("RGB", (8, 8), "red").save(d / "ok.png")
    Image.new("RGB", (8, 8), "blue").save(tmp_path / "outside.png")
    return d


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _backend(server: ChatServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", MODEL, "--api-key-env", KEY_ENV, "--quiet"]


def test_every_image_problem_is_reported_at_once_before_any_request(folder):
    (folder / "empty.png").write_bytes(b"")
    good = (folder / "ok.png").read_bytes()
    (folder / "cut.png").write_bytes(good[: len(good) // 2])
    (folder / "notes.png").write_text("not an image")
    os.mkfifo(folder / "pipe.png")
    _bomb(folder / "bomb.png")
    lines = [
        _question("q1", image=""),
        _question("q2", image="ok.png"),
        _question("q3", image="empty.png"),
        _question("q4", images=["ok.png", ""]),
        _question("q5", image="cut.png"),
        _question("q6", image="pipe.png"),
        _question("q7", image="bomb.png"),
        _question("q8", image="missing.png"),
        _question("q9", image="../outside.png"),
        _question("q10", image=str(folder.parent / "outside.png")),
        _question("q11", image="notes.png"),
    ]
    path = folder / "q.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with ChatServer() as server:
        r = _run(["judge", "mcq", str(path), *_backend(server)])
        assert server.received == 0
    assert r.exit_code == 1
    message = r.stderr.strip()
    assert len(message.splitlines()) == 1 and message.startswith(f"Error: {path}: 10 problems:")
    expected = [
        "line 1: 'image' is empty (leave it out, or write null, for a question without an image)",
        "line 3: image file {d}/empty.png is empty",
        "line 4: an image path is empty",
        "line 5: image file {d}/cut.png is not a readable image",
        "line 6: image file {d}/pipe.png is not a regular file",
        f"line 7: image file {{d}}/bomb.png has more than the {PIXELS} pixels allowed",
        "line 8: image file {d}/missing.png not found",
        "line 9: image file {d}/../outside.png is outside the folder {d} (give --allow-outside",
        "line 10: image file {o} is outside the folder {d} (give --allow-outside",
        "line 11: image file {d}/notes.png is not a readable image",
    ]
    for text in expected:
        assert text.format(d=folder, o=folder.parent / "outside.png") in message
    assert "line 2" not in message


def test_images_outside_the_folder_need_allow_outside(folder):
    (folder / "link.png").symlink_to(folder.parent / "outside.png")
    path = folder / "q.jsonl"
    path.write_text(
        "\n".join(
            [
                _question("a", image="../outside.png"),
                _question("b", image=str(folder.parent / "outside.png")),
                _question("c", image="link.png"),  # a link leading out of the folder
                _question("d", image="ok.png"),
            ]
        )
        + "\n"
    )
    with pytest.raises(InputError) as info:
        read_questions(path)
    assert re.findall(r"line (\d): image file \S+ is outside the folder", str(info.value)) == [
        "1",
        "2",
        "3",
    ]
    # without the files checked, where they are still is
    with pytest.raises(InputError, match=r"line 3: image file .*link\.png is outside"):
        read_questions(path, check_files=False)
    table = read_questions(path, allow_outside=True)
    assert [len(images) for images in table["images"]] == [1, 1, 1, 1]
    with ChatServer(lambda body: "A") as server:
        refused = _run(["judge", "mcq", str(path), *_backend(server)])
        assert refused.exit_code == 1 and server.received == 0
        allowed = _run(["judge", "mcq", str(path), "--allow-outside", *_backend(server)])
        assert allowed.exit_code == 0, allowed.output
        assert server.received == 4
    sent = [body["messages"][0]["content"][0]["type"] for body in server.answered]
    assert sent == ["image_url"] * 4


def test_text_only_questions_are_written_without_the_image(folder):
    path = folder / "q.jsonl"
    path.write_text(
        _question("a") + "\n" + _question("b", image=None) + "\n" + _question("c", images=[]) + "\n"
    )
    assert read_questions(path)["images"].tolist() == [[], [], []]
    csv = folder / "q.csv"
    csv.write_text("id,question,options,answer,image\na,Q?,Yes|No,A,\nb,Q?,Yes|No,A,ok.png\n")
    table = read_questions(csv)
    assert table["images"].tolist() == [[], [str(folder / "ok.png")]]
    csv.write_text("id,question,options,answer,images\na,Q?,Yes|No,A,ok.png|\n")
    with pytest.raises(InputError, match="line 2: an image path is empty"):
        read_questions(csv)


def test_blank_lines_keep_true_line_numbers_and_every_problem(folder):
    path = folder / "q.jsonl"
    path.write_text(
        _question("a", image="") + "\n\n" + _question("a", image="nope.png") + "\n\n"
        + _question("c", image="ok.png") + "\n"
    )  # fmt: skip
    with pytest.raises(InputError) as info:
        read_questions(path)
    message = str(info.value)
    assert "3 problems" in message
    assert "line 1: 'image' is empty" in message
    assert "line 3: id 'a' already used on line 1" in message
    assert "line 3: image file" in message and "nope.png not found" in message


def _pairs(folder: Path, rows: list[str]) -> Path:
    path = folder / "pairs.csv"
    header = "instance,style,source_image,candidate_a,image_a,candidate_b,image_b"
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def test_pairs_images_are_checked_with_their_lines(folder):
    _bomb(folder / "bomb.png")
    (folder / "empty.png").write_bytes(b"")
    path = _pairs(
        folder,
        [
            "i1,s,ok.png,m1,../outside.png,m2,ok.png",
            "i2,s,ok.png,m1,bomb.png,m2,empty.png",
            "i3,s,ok.png,m1,bomb.png,m2,ok.png",
        ],
    )
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(path), "--mode", "base", *_backend(server)])
        assert server.received == 0
    assert r.exit_code == 1
    message = r.stderr
    assert "3 problems" in message
    assert f"column 'image_a': image file {folder}/../outside.png is outside the folder" in message
    assert f"{folder} (give --allow-outside to send it anyway) (line(s) 2)" in message
    assert re.search(
        rf"column 'image_a': image file {re.escape(str(folder))}/bomb.png has more than "
        rf"the {PIXELS} pixels allowed .*\(line\(s\) 3, 4\)",
        message,
    )
    assert f"column 'image_b': image file {folder}/empty.png is empty (line(s) 3)" in message


def test_pairs_outside_the_folder_are_judged_with_allow_outside(folder):
    Image.new("RGB", (8, 8), "white").save(folder / "bright.png")
    path = _pairs(folder, ["i1,s,ok.png,m1,../outside.png,m2,bright.png"])
    with pytest.raises(InputError, match="is outside the folder"):
        read_pairs(path)
    assert read_pairs(path, allow_outside=True)["image_a"][0] == str(folder / "../outside.png")
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(path), "--mode", "base", "--allow-outside",
                  *_backend(server)])  # fmt: skip
        assert r.exit_code == 0, r.output
        assert server.received == 2
    assert "right" in r.stdout  # the bright image wins in both orders


def test_image_problem_and_load_image_name_the_file(tmp_path, monkeypatch):
    small = tmp_path / "small.png"
    Image.new("RGB", (40, 40)).save(small)
    assert image_problem(small) is None
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    assert image_problem(small) == "has more than the 1,000 pixels allowed (Pillow's " + (
        "Image.MAX_IMAGE_PIXELS)"
    )
    with pytest.warns(Image.DecompressionBombWarning), pytest.raises(InputError) as info:
        load_image(small)
    assert str(info.value) == (
        f"{small}: has 40×40 = 1,600 pixels, more than the 1,000 allowed "
        "(Pillow's Image.MAX_IMAGE_PIXELS)"
    )
    monkeypatch.undo()
    bomb = _bomb(tmp_path / "bomb.png")
    with pytest.raises(InputError, match=rf"bomb\.png: has more than the {PIXELS} pixels"):
        load_image(bomb)
    os.mkfifo(tmp_path / "pipe.png")
    with pytest.raises(InputError, match=r"pipe\.png: not a regular file"):
        load_image(tmp_path / "pipe.png")


@pytest.mark.parametrize(
    "reader",
    [
        "rrmap.judge.tasks.pairwise:read_pairs",
        "rrmap.judge.tasks.mcq:read_questions",
        "rrmap.judge.tasks.interpret:read_interpretations",
        "rrmap.judge.tasks.subjectivity:load_lexicon",
        "rrmap.judge.prompting.corpora:load_corpora",
    ],
)
@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_every_judge_reader_names_a_missing_input_or_a_folder_alike(tmp_path, reader, kind):
    """One check, in input_source, for every reader: the same OS error naming the path
    (the command line's one Error: line), before anything is read."""
    import errno
    import importlib

    module, name = reader.split(":")
    read = getattr(importlib.import_module(module), name)
    path = tmp_path / "input.csv"
    if kind == "folder":
        path.mkdir()
    with pytest.raises(OSError) as err:
        read(path)
    want = errno.ENOENT if kind == "missing" else errno.EISDIR
    assert err.value.errno == want and err.value.filename == str(path)


@pytest.mark.parametrize("command", ["interpret", "mcq"])
def test_a_missing_judge_input_is_one_error_line(tmp_path, command):
    """What the user sees: the path and the reason on one line, exit code 1."""
    missing = tmp_path / "nope.jsonl"
    r = CliRunner().invoke(main, ["judge", command, str(missing)])
    assert r.exit_code == 1
    assert r.output.strip().splitlines()[-1] == f"Error: {missing}: no such file or folder"
