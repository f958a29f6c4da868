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
