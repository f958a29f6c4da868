"""One rule for every judge command's inputs: an input without rows, folders and images
outside the input's folder, a NUL in a path, credentials in a URL.

Each case runs the command line as a user would (dry runs included) and
checks the one ``Error:`` line it prints and its exit code.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.judge.tasks.judges import FunctionChat
from rrmap.judge.tasks.mcq import evaluate_mcq

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
BACKEND = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--quiet"]
DRY = [[], ["--dry-run"]]


def _run(args: list[str]):
    return CliRunner().invoke(main, args)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _headers() -> dict[str, str]:
    pairs = (EXAMPLE / "PAIRS.csv").read_text().splitlines()[0]
    return {
        "mcq": "id,question,options,answer",
        "2afc": pairs,
        "interpret": "id,response,reference",
        "rate": "movement,modality,modality name,query,reference",
    }


NO_ROWS = {
    "mcq": "no questions to ask (the file has no rows)",
    "2afc": "no pairs to judge (the table has no rows)",
    "interpret": "no responses to grade (the table has no rows)",
    "rate": "no corpora to rate (the file has no rows)",
}


def _command(name: str, path: Path) -> list[str]:
    if name == "rate":
        return ["judge", "rate", "--corpus", str(path), "-o", str(path.with_name("r.csv"))]
    return ["judge", name, str(path)]


@pytest.mark.parametrize("dry", DRY, ids=["run", "dry run"])
@pytest.mark.parametrize("name", NO_ROWS)
def test_an_input_without_rows_is_one_clear_error(tmp_path, name, dry):
    """Before: mcq ended in `unexpected KeyError: 'correct'`, interpret in `KeyError: 'valid'`,
    2afc printed an empty table; each dry run exited 0."""
    path = _write(tmp_path / "header_only.csv", _headers()[name] + "\n")
    r = _run([*_command(name, path), *BACKEND, *dry])
    assert r.exit_code == 1, r.output
    assert r.stdout == ""
    assert r.stderr.splitlines()[-1] == f"Error: {path}: {NO_ROWS[name]}"


@pytest.mark.parametrize("text", ["", "\n\n"], ids=["empty", "blank lines"])
@pytest.mark.parametrize("dry", DRY, ids=["run", "dry run"])
def test_a_questions_jsonl_without_questions(tmp_path, text, dry):
    path = _write(tmp_path / "q.jsonl", text)
    r = _run(["judge", "mcq", str(path), *BACKEND, *dry])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == f"Error: {path}: no questions to ask (the file has no rows)"


@pytest.mark.parametrize("name", NO_ROWS)
def test_an_empty_file_is_named(tmp_path, name):
    path = _write(tmp_path / "zero.csv", "")
    r = _run([*_command(name, path), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == f"Error: {path}: the file is empty"


def test_evaluate_mcq_refuses_an_empty_table():
    with pytest.raises(InputError, match=r"^questions: no questions to ask"):
        evaluate_mcq(pd.DataFrame(), FunctionChat(lambda m: "A", "fixed"))


# --- images and image folders inside the input's folder, for every command -------------------


def _image(path: Path, shade: int = 0) -> Path:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (shade, 0, 0)).save(path)
    return path


def _corpora(tmp_path: Path) -> tuple[Path, Path]:
    """A corpora file in tmp/inner naming folders outside it (../, absolute), one holding a
    link leading out and a broken image; and the folder outside."""
    outside = tmp_path / "outside"
    _image(outside / "0.png")
    inner = tmp_path / "inner"
    _image(inner / "gen" / "ok.png")
    (inner / "gen" / "link.png").symlink_to(outside / "0.png")
    (inner / "gen" / "broken.png").write_bytes(b"\x89PNG not really")
    path = _write(inner / "corpora.csv", "movement,modality,modality name,query,reference\n"
                  "cubism,movement,Cubism,../outside,the Cubists\n"
                  f"fauvism,movement,Fauvism,{outside},the Fauves\n"
                  "dada,movement,Dada,gen,the Dadaists\n")  # fmt: skip
    return path, outside


def test_rate_refuses_folders_and_images_outside_the_corpora_folder(tmp_path):
    """Before: `judge rate` sent ../ and absolute folders, and links leading out, which
    `2afc` and `mcq` refuse."""
    path, outside = _corpora(tmp_path)
    inner = path.parent
    why = f"is outside the folder {inner} (give --allow-outside to send it anyway)"
    r = _run(["judge", "rate", "--corpus", str(path), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == (
        f"Error: {path}: 4 problem(s): line 2: query folder {inner / '../outside'} {why}; "
        f"line 3: query folder {outside} {why}; line 4: image file {inner / 'gen/broken.png'} "
        "is not a readable image (cannot identify image file "
        f"'{inner / 'gen/broken.png'}'); line 4: image file {inner / 'gen/link.png'} {why}"
    )
    allowed = _run(["judge", "rate", "--corpus", str(path), *BACKEND, "--dry-run",
                    "--allow-outside"])  # fmt: skip
    assert allowed.exit_code == 1  # the broken image stays a problem
    assert allowed.stderr.splitlines()[-1] == (
        f"Error: {path}: 1 problem(s): line 4: image file {inner / 'gen/broken.png'} is not a "
        f"readable image (cannot identify image file '{inner / 'gen/broken.png'}')"
    )
    (inner / "gen" / "broken.png").unlink()
    ok = _run(["judge", "rate", "--corpus", str(path), *BACKEND, "--dry-run", "--allow-outside"])
    assert ok.exit_code == 0, ok.output


def test_the_outside_rule_reads_the_same_for_pairs_and_corpora(tmp_path):
    path, _ = _corpora(tmp_path)
    inner = path.parent
    pairs = (EXAMPLE / "PAIRS.csv").read_text().replace("images/", "../outside/")
    _write(inner / "pairs.csv", pairs)
    r = _run(["judge", "2afc", str(inner / "pairs.csv"), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert f"is outside the folder {inner} (give --allow-outside to send it anyway)" in r.stderr


# --- a NUL in a path is one problem among the others ----------------------------------------


def test_a_nul_in_an_image_path_hides_no_other_problem(tmp_path):
    """Before: `Error: embedded null byte`, and nothing else about the file."""
    q = _write(tmp_path / "q.jsonl",
               '{"id": "q1", "question": "Q?", "options": ["a", "b"], "answer": "A", '
               '"image": "x\\u0000y.png"}\n'
               '{"id": "q1", "question": "", "options": ["a"], "answer": "Z", '
               '"image": "missing.png"}\n')  # fmt: skip
    r = _run(["judge", "mcq", str(q), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == (
        f"Error: {q}: 5 problems: line 1: image file {tmp_path}/x\\x00y.png has a NUL "
        "character in its name; line 2: id 'q1' already used on line 1; line 2: 'question' "
        f"is empty; line 2: needs at least 2 options, found 1; line 2: image file "
        f"{tmp_path}/missing.png not found"
    )


def test_a_nul_in_a_pairs_image_or_a_corpus_folder(tmp_path):
    for name in ("s.png", "a.png", "b.png"):
        _image(tmp_path / name)
    pairs = _write(tmp_path / "p.csv",
                   "instance,style,source_image,candidate_a,image_a,candidate_b,image_b\n"
                   "i1,ink,s.png,m1,a\0b.png,m1,b.png\n")  # fmt: skip
    r = _run(["judge", "2afc", str(pairs), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == (
        f"Error: {pairs}: 2 problems: line 2: candidate_a and candidate_b are both 'm1'; "
        f"column 'image_a': image file {tmp_path}/a\\x00b.png has a NUL character in its name "
        "(line(s) 2)"
    )
    corpora = _write(tmp_path / "c.csv", "movement,modality,modality name,query,reference\n"
                     "cubism,movement,Cubism,g\0en,\n")  # fmt: skip
    r = _run(["judge", "rate", "--corpus", str(corpora), *BACKEND, "--dry-run"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == (
        f"Error: {corpora}: 2 problem(s): line 2: column 'reference' is empty; line 2: query "
        f"folder {tmp_path}/g\\x00en has a NUL character in its name"
    )


# --- credentials in a base URL are never shown --------------------------------------------


SECRET_URLS = [
    "http://alice:s3cret@127.0.0.1:9/v1?key=s3cret#s3cret",
    "http://alice:s3cret@127.0.0.1:x/v1",
    "ftp://alice:s3cret@h/v1",
    "http://alice:s3 cret@h/v1",
    "http://alice:s3cret@/v1",
    "http://alice:s3cret@[::1/v1",
]


@pytest.mark.parametrize("url", SECRET_URLS)
def test_a_refused_base_url_is_shown_without_its_credentials(url):
    r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--base-url", url, "--model", "m",
              "--dry-run"])  # fmt: skip
    assert r.exit_code == 1
    assert r.stderr.startswith("Error: endpoint: base URL '") and "***@" in r.stderr
    assert "alice" not in r.output and "s3cret" not in r.output and "s3 cret" not in r.output


def test_the_dry_run_shows_no_credentials():
    """Before: `POST http://alice:s3cret@127.0.0.1:9/v1/chat/completions`."""
    r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--base-url",
              "http://alice:s3cret@127.0.0.1:9/v1", "--model", "m", "--dry-run"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "POST http://127.0.0.1:9/v1/chat/completions"
    assert "alice" not in r.output and "s3cret" not in r.output


def test_an_endpoint_shows_no_credentials():
    from rrmap.judge.transport.client import Endpoint

    shown = repr(Endpoint("http://alice:s3cret@127.0.0.1:8000/v1", "m"))
    assert shown.startswith("Endpoint(base_url='http://***@127.0.0.1:8000/v1', model='m'")
    assert "s3cret" not in shown and "alice" not in shown


def test_no_file_or_message_of_a_run_holds_the_credentials(tmp_path):
    from chat_server import MODEL, ChatServer

    out = tmp_path / "out.csv"
    with ChatServer(api_key=None, faults={3: "500"}) as server:
        url = server.base_url.replace("http://", "http://alice:s3cret@")
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "--base-url",
                  url, "--model", MODEL, "--quiet", "--cache", str(tmp_path / "cache"), "-o",
                  str(out), "--per-order", str(tmp_path / "po.csv"), "--max-retries", "0"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert server.base_url in out.with_name("out.csv.json").read_text()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 20  # outputs, sidecar, cache records
    for text in [r.output, *(p.read_text(errors="replace") for p in written)]:
        assert "s3cret" not in text and "alice" not in text
