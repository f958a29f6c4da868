"""Every example in the docs runs as written, and every output shown is a fresh run's.

- Python blocks of each page run in order in one namespace, from a scratch folder that
  holds the repository's ``data/`` (the paths the examples use). A Python block followed
  by a ``text`` block must print exactly that text. A guide's examples (docs/) write into
  a folder they name (a temporary one), never into the current folder.
- A ``console`` block of ``$ rrmap ...`` commands followed by output (a markdown table,
  and a ``text`` block after a line ``stderr:``) must print exactly that output.
- The one example that calls a paid endpoint (docs/judge.md) runs against the local
  chat-completions server of the judge tests: its URL, model and key are substituted.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]

#: The pages a reader starts from run in the README's test command; the guides, like the
#: notebooks, run whole studies and draw the paper's figures (a minute in all), and run in
#: the slow tier (``pytest -m slow``, which CI runs).
FIRST_PAGES = ("README.md", "getting-started.md")


def _pages(pages):
    return [
        pytest.param(p, id=p.name, marks=() if p.name in FIRST_PAGES else pytest.mark.slow)
        for p in pages
    ]


FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def fenced(text):
    """(language, body, line, text after the block) of every fenced block."""
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((m.group(1), m.group(2), line, text[m.end() :]))
    return out


def shown_output(after):
    """The ``text`` block right after a block (blank lines between), or None."""
    m = re.match(r"\s*```text\n(.*?)^```\n", after, re.S | re.M)
    return m.group(1) if m else None


def _scratch(tmp_path, monkeypatch):
    (tmp_path / "data").symlink_to(ROOT / "data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)


def _endpoint_substitutions(page, stack):
    if page.name != "judge.md":
        return {}
    sys.path.insert(0, str(ROOT / "tests" / "judge"))
    from chat_server import API_KEY, ChatServer

    server = stack.enter_context(ChatServer(models=("gpt-4o",)))
    os.environ["OPENAI_API_KEY"] = API_KEY
    stack.callback(os.environ.pop, "OPENAI_API_KEY", None)
    return {'"https://api.openai.com/v1"': repr(server.base_url)}


@pytest.mark.parametrize("page", _pages(PAGES))
def test_python_examples_run_and_print_what_is_shown(page, tmp_path, monkeypatch):
    blocks = [b for b in fenced(page.read_text(encoding="utf-8")) if b[0] == "python"]
    if not blocks:
        pytest.skip(f"{page.name} has no Python example")
    _scratch(tmp_path, monkeypatch)
    namespace: dict = {"__name__": "__docs__"}
    printed: list[str] = []
    with contextlib.ExitStack() as stack:
        subs = _endpoint_substitutions(page, stack)
        for _, body, line, after in blocks:
            code = body
            for old, new in subs.items():
                code = code.replace(old, new)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
            expected = shown_output(after)
            if expected is not None:
                assert out.getvalue() == expected, f"{page.name}:{line} prints something else"
            plt.close("all")
            printed.append(out.getvalue())
    if page.parent.name == "docs":  # a guide's examples write into a folder they name
        written = sorted(p.name for p in tmp_path.iterdir() if p.name != "data")
        assert written == [], f"{page.name}'s examples wrote {written} into the current folder"
    else:  # the README's example: the quality shares, the agreement and a results folder
        assert "excellent" in printed[-1] and "all different" in printed[-1]
        assert (tmp_path / "results" / "tests.csv").is_file()
        assert (tmp_path / "results" / "report.md").is_file()


def console_examples(page):
    """(line, [commands], stdout table or None, stderr text or None) of the console blocks
    that show their output (a markdown table, and a text block after ``stderr:``)."""
    out = []
    for lang, body, line, after in fenced(page.read_text(encoding="utf-8")):
        if lang != "console" or not body.startswith("$ "):
            continue
        table = re.match(r"\s*\n((?:\|[^\n]*\n)+)", after)
        stderr = re.match(
            r"\s*\nstderr:\n\n```text\n(.*?)^```\n\s*\n((?:\|[^\n]*\n)+)?", after, re.S | re.M
        )
        if stderr:
            table = stderr.group(2)
        elif table:
            table = table.group(1)
        if table is None and stderr is None:
            continue
        commands = [c.strip() for c in body.replace("\\\n", " ").split("\n$ ") if c.strip()]
        commands[0] = commands[0].removeprefix("$ ")
        out.append((line, commands, table, stderr.group(1) if stderr else None))
    return out


CONSOLE = [p for p in PAGES if console_examples(p)]


@pytest.mark.parametrize("page", _pages(CONSOLE))
def test_console_output_is_a_fresh_run(page, tmp_path, monkeypatch):
    """The page's commands with output run in order from one scratch folder (later ones
    read what earlier ones wrote); each shows the output of its last command."""
    from rrmap.cli import main

    _scratch(tmp_path, monkeypatch)
    for line, commands, table, stderr in console_examples(page):
        for command in commands:
            words = shlex.split(command.split("  #")[0])
            if words[:2] == ["mkdir", "-p"]:
                Path(words[2]).mkdir(parents=True, exist_ok=True)
                continue
            assert words[0] == "rrmap", f"{page.name}:{line}: only rrmap commands run here"
            res = CliRunner().invoke(main, words[1:])
            assert res.exit_code == 0, f"{page.name}:{line}: {command}\n{res.output}"
        if table is not None:
            assert res.stdout == table, f"{page.name}:{line}: the table is not today's output"
        if stderr is not None:
            assert res.stderr == stderr, f"{page.name}:{line}: stderr is not today's"
