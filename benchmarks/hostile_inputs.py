"""Hostile inputs through the command line: how many end in a clear error, how many in a
traceback, and the time and memory of the largest accepted inputs.

Each case is one ``rrmap`` process (bad files, pipes and FIFOs, labels that are
commands of an output format, options past every limit, folders that cannot be
written, huge inputs, a hostile chat-completions server: replies without usage
under a budget, malformed usage, answers trickled a byte at a time, a huge
``Retry-After``; the server is ``tests/judge/chat_server.py``, started for the
case on 127.0.0.1). A case ends in one of: ``ok`` (exit 0), ``clear`` (exit
1 or 2 with one ``Error:`` line and no traceback), ``traceback`` (a Python
traceback on stderr), ``hang`` (killed after ``--timeout`` seconds), ``lost``
(a file the case keeps, ``keep``, was changed, replaced or removed: a device
node, a user's file, another run's staged folder), ``leftover`` (a run left a
file on the mounted disk, such as a stale lock), ``wrong`` (a case with a
``check`` of its outputs — a valid input — refused, or its outputs wrong: rows
lost in a CSV, a formula cell, a file missing, a raw control character in a
report) or ``other`` (any other ending). A run stopped by a signal while its
figure workers draw (``kill -9``, ``kill``, Ctrl-C to its process group) is
``clear`` when it ends with exit code 128 + the signal's number and one line
(nothing for ``kill -9``), and no process of it is left and its output pipes are
closed 2 s after it ended; ``orphans`` when some are. With ``--baseline REV`` the
same cases run, in
the same run, against a git worktree of REV (default: the commit before the
outputs work), so the two columns compare like with like.

Run: ``python benchmarks/hostile_inputs.py [--baseline 11a917d] [--timeout 60]
[--match 'judge ']`` (``--match``: only the cases whose name holds the text)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example_ratings.csv"
FAST = ["--permutations", "99", "--bootstrap", "0", "-q"]


def _write_cases(tmp: Path) -> list[tuple[str, list[str], dict]]:
    """(name, rrmap arguments, options) of every case; files are made in *tmp*."""
    df = pd.read_csv(EXAMPLE)
    cases: list[tuple[str, list[str], dict]] = []

    def csv(name: str, frame: pd.DataFrame) -> str:
        path = tmp / name
        frame.to_csv(path, index=False)
        return str(path)

    def raw(name: str, data: bytes) -> str:
        path = tmp / name
        path.write_bytes(data)
        return str(path)

    # reading
    text = EXAMPLE.read_text()
    files = {
        "empty": raw("empty.csv", b""),
        "all NUL (300 KB)": raw("nul.csv", b"\0" * 300_000),
        "NUL inside a row": raw("nulrow.csv", text.replace("E1", "E\0" + "1", 1).encode()),
        "UTF-16": raw("u16.csv", text.encode("utf-16")),
        "UTF-32": raw("u32.csv", text.encode("utf-32")),
        "latin-1 bytes": raw(
            "latin.csv", text.replace("abstract", "abstrakt \xe9").encode("latin-1")
        ),
        "header only": raw("head.csv", text.splitlines()[0].encode() + b"\n"),
        "binary garbage": raw("garbage.csv", os.urandom(200_000)),
        "a 10 MB field": raw(
            "longfield.csv", (text.splitlines()[0] + "\n" + "x" * 10_000_000 + ",E1\n").encode()
        ),
        "a 5 MB label": csv(
            "biglabel.csv",
            df.assign(expert=df["expert"].where(df["expert"] != "E1", "L" * 5_000_000)),
        ),
        "RTL override label": csv("rtl.csv", df.assign(movement="abc\u202edef")),
        "NFC and NFD labels": csv(
            "nfd.csv",
            df.assign(movement=["Caf\u00e9" if i % 2 else "Cafe\u0301" for i in range(len(df))]),
        ),
        "interval 5e-324 wide": csv(
            "tiny.csv", df.assign(**{"low rating": 0.0, "high rating": 5e-324})
        ),
        "10,000 extra columns": csv(
            "wide.csv",
            pd.concat(
                [df.head(8), pd.DataFrame({f"x{i}": [0] * 8 for i in range(10_000)})], axis=1
            ),
        ),
        "a folder": str(tmp),
        "missing file": str(tmp / "nope.csv"),
        "/dev/zero": "/dev/zero",
    }
    for name, path in files.items():
        cases.append((f"points: {name}", ["points", path], {}))
    cases.append(("points: a pipe (stdin)", ["points", "/dev/stdin"], {"stdin": EXAMPLE}))
    cases.append(("points: a FIFO with a writer", ["points", str(tmp / "fifo")], {"fifo": True}))
    cases.append(("points: a zip-bomb xlsx", ["points", _zip_bomb(tmp / "bomb.xlsx")], {}))
    cases += _size_cases(tmp, df)

    # labels that are commands of an output format
    hostile = df.assign(
        expert=df["expert"].map(
            {"E1": "[1pt]", "E2": "$\\undefinedcmd{$", "E3": '=HYPERLINK("x")'}
        ),
        movement=df["movement"].map(
            dict(
                zip(
                    sorted(df["movement"].unique()),
                    ["**x**", "<script>", "$x^2$", "a|b", "R" * 300],
                    strict=True,
                )
            )
        ),
    ).rename(columns={"movement": "mv{1}"})
    path = csv("hostile.csv", hostile)
    cases.append(
        ("analyze: hostile labels, figures", ["analyze", path, "--out", str(tmp / "h1"), *FAST], {})
    )
    cases.append(
        ("points: hostile labels to markdown", ["points", path, "--format", "markdown"], {})
    )
    cases.append(("points: hostile labels to CSV", ["points", path, "-o", str(tmp / "h.csv")], {}))

    # options past every limit
    for name, args in {
        "--permutations 1e30": ["--permutations", str(10**30)],
        "--permutations 1e9": ["--permutations", str(10**9)],
        "--chi2-monte-carlo 1e12": ["--chi2-monte-carlo", str(10**12)],
        "--bootstrap 1e10": ["--bootstrap", str(10**10)],
        "--dpi 20000": ["--dpi", "20000"],
        "--width 1000in": ["--width", "1000in"],
        "--jobs 0": ["--jobs", "0"],
        "--by a missing column": ["--by", "painter"],
    }.items():
        out = str(tmp / f"o-{len(cases)}")
        cases.append((f"analyze: {name}", ["analyze", str(EXAMPLE), "--out", out, *args, "-q"], {}))

    # folders that cannot be written
    (tmp / "afile").write_text("x")
    cases.append(
        (
            "analyze: --out is a file",
            ["analyze", str(EXAMPLE), "--out", str(tmp / "afile"), *FAST],
            {},
        )
    )
    cases.append(
        (
            "analyze: --out on a read-only disk",
            ["analyze", str(EXAMPLE), "--out", "RO/out", *FAST],
            {"mount": "ro"},
        )
    )
    cases.append(
        (
            "analyze: --out on a full disk",
            ["analyze", str(EXAMPLE), "--out", "FULL/out", *FAST],
            {"mount": "full"},
        )
    )
    cases.append(
        (
            "points: -o on a full disk",
            ["points", str(EXAMPLE), "-o", "FULL/p.csv"],
            {"mount": "full"},
        )
    )
    cases.append(
        (
            "points: -o past the file-size limit",
            ["points", str(EXAMPLE), "-o", str(tmp / "lim.csv")],
            {"fsize": 20_000},
        )
    )
    cases.append(
        (
            "table: a results.json nested 200,000 deep",
            ["table", raw("deep.json", b"[" * 200_000), "tests"],
            {},
        )
    )
    cases += _target_cases(tmp)
    cases += _rank_and_judge_cases(tmp, raw)
    cases += _label_text_cases(tmp, df)
    cases += _signal_cases(tmp)
    return cases


def _signal_cases(tmp: Path) -> list[tuple[str, list[str], dict]]:
    """Runs stopped by a signal: analyze once its figure workers exist, rank while it reads
    a standard input that never ends."""
    slow = ["--permutations", "5000", "-q"]
    cases = [
        (
            f"analyze: {name} while the figure workers draw",
            ["analyze", str(EXAMPLE), "--out", str(tmp / f"sig-{sig}-{group}"), *slow],
            {"signal": sig, "group": group, "when": "workers"},
        )
        for name, sig, group in [
            ("kill -9", "SIGKILL", False),
            ("kill (SIGTERM)", "SIGTERM", False),
            ("Ctrl-C (SIGINT to the group)", "SIGINT", True),
        ]
    ]
    cases.append(
        (
            "rank fit -: Ctrl-C while it reads standard input",
            ["rank", "fit", "-"],
            {"signal": "SIGINT", "group": True, "when": "reading", "stdin_open": True},
        )
    )
    return cases


def _target_cases(tmp: Path) -> list[tuple[str, list[str], dict]]:
    """Outputs that are no regular files, planted locks, a user's files in a results
    folder, glob characters in --out, full disks: each keeps the files it must not touch."""
    quick = [*FAST, "--no-figures"]

    def special(name: str, kind: str) -> str:
        path = tmp / name
        if kind == "device":
            try:  # a character device as /dev/null is (1, 3): needs CAP_MKNOD
                os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
            except PermissionError:
                os.mkfifo(path)
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/proc/self/fd/1")
        return str(path)

    cases = []
    for kind in ("device", "fifo", "link to /proc/self/fd/1"):
        for command, suffix in (("points", "csv"), ("plot", "pdf")):
            target = special(f"{command}-{kind.split()[0]}.{suffix}", kind)
            cases.append(
                (
                    f"{command}: -o a {kind}, --force",
                    [command, str(EXAMPLE), "-o", target, "--force"],
                    {"keep": [target]},
                )
            )
    prefs = tmp / "prefs.csv"
    prefs.write_text("instance,left,right,winner\ni1,a,b,left\ni1,b,c,left\n")
    fifo = special("rank.csv", "fifo")
    cases.append(
        (
            "rank fit: -o a FIFO, --force",
            ["rank", "fit", str(prefs), "-o", fifo, "--force"],
            {"keep": [fifo]},
        )
    )
    cases.append(("rank fit: -o a folder", ["rank", "fit", str(prefs), "-o", str(tmp)], {}))
    victim = tmp / "victim.txt"
    victim.write_text("keep me")
    (tmp / ".locked.lock").symlink_to(victim)
    cases.append(
        (
            "analyze: a planted lock symlink",
            ["analyze", str(EXAMPLE), "--out", str(tmp / "locked"), *quick],
            {"keep": [str(victim)]},
        )
    )
    earlier = tmp / "earlier"
    (earlier / "figures").mkdir(parents=True)
    for name in ("tests.csv", "figures/a.pdf", "figures/notes.txt"):
        (earlier / name).write_text("earlier")
    (earlier / "results.json").write_text(json.dumps({"figures": ["figures/a.pdf"]}))
    cases.append(
        (
            "analyze: --force, a user's file in figures/",
            ["analyze", str(EXAMPLE), "--out", str(earlier), "--force", *quick],
            {"keep": [str(earlier / "figures" / "notes.txt")]},
        )
    )
    staged = tmp / ".rfoo.tmp-abcd1234"
    staged.mkdir()
    (staged / "tests.csv").write_text("another run's")
    cases.append(
        (
            "analyze: --out 'r*' beside another run's staged folder",
            ["analyze", str(EXAMPLE), "--out", str(tmp / "r*"), "--force", *quick],
            {"keep": [str(staged / "tests.csv")]},
        )
    )
    cases.append(
        (
            "analyze: refused on a filled disk",
            ["analyze", str(EXAMPLE), "--out", "FULL/out", *quick],
            {"mount": "filled"},
        )
    )
    cases.append(
        (
            "plot: -o on a filled disk",
            ["plot", str(EXAMPLE), "-o", "FULL/x.pdf"],
            {"mount": "filled"},
        )
    )
    return cases


def _label_text_cases(tmp: Path, df: pd.DataFrame) -> list[tuple[str, list[str], dict]]:
    """Labels with a bare carriage return before a formula, a U+FEFF and a right-to-left
    override: each case checks the outputs it wrote (rows read back, no formula cell, every
    figure written, no raw control character in a report)."""
    import csv as csv_module

    cr = tmp / "cr.csv"  # quoted: the label is read as written
    df.assign(expert=df["expert"].replace({"E1": "ok\r=1+1", "E2": "a\n@b\r\n-c"})).to_csv(
        cr, index=False, quoting=csv_module.QUOTE_NONNUMERIC
    )
    bom, rtl = tmp / "bom.csv", tmp / "rtl_rater.csv"
    df.assign(expert=df["expert"].replace({"E1": "E\ufeff1", "E2": "E\u200b2"})).to_csv(
        bom, index=False
    )
    df.assign(expert=df["expert"].replace({"E3": "abc\u202edef"})).to_csv(rtl, index=False)
    rtl_option = tmp / "rtl_criterion.csv"  # one of 9: in report.html's hover list of groups
    df.assign(criterion=df["criterion"].replace({"top-bottom": '"><b>x</b>\u202edef'})).to_csv(
        rtl_option, index=False
    )
    prefs = tmp / "prefs_cr.csv"
    names = ["ok\r=1+1", "B", "C"]
    pd.DataFrame(
        [(f"i{k}", names[a], names[b], "left") for k in range(3) for a in range(3)
         for b in range(3) if a != b],
        columns=["instance", "left", "right", "winner"],
    ).to_csv(prefs, index=False, quoting=csv_module.QUOTE_ALL)  # fmt: skip
    out = {name: str(tmp / name) for name in ("cr_out", "bom_out", "rtl_out", "rtl_opt_out")}
    reports = [f"{out['rtl_out']}/{f}" for f in ("report.html", "report.md", "tests.tex")]
    return [
        ("points: a label with a bare CR to CSV",
         ["points", str(cr), "-o", str(tmp / "cr_points.csv")],
         {"check": {"csv": str(tmp / "cr_points.csv"), "rows": len(df) // 2}}),
        ("analyze: a label with a bare CR, tables",
         ["analyze", str(cr), "--out", out["cr_out"], "--no-figures", *FAST],
         {"check": {"csv": f"{out['cr_out']}/points.csv", "rows": len(df) // 2}}),
        ("rank fit: a candidate with a bare CR",
         ["rank", "fit", str(prefs), "-o", str(tmp / "cr_fit.csv")],
         {"check": {"csv": str(tmp / "cr_fit.csv"), "rows": 3}}),
        ("analyze: a U+FEFF in a rater label, figures",
         ["analyze", str(bom), "--out", out["bom_out"], *FAST],
         {"check": {"files": [f"{out['bom_out']}/figures/rrmap_by_rater.pdf",
                              f"{out['bom_out']}/report.html"]}}),
        ("plot: a U+FEFF in a rater label to PDF",
         ["plot", str(bom), "-o", str(tmp / "bom.pdf")],
         {"check": {"files": [str(tmp / "bom.pdf")]}}),
        ("analyze: a right-to-left override in a rater label, reports",
         ["analyze", str(rtl), "--out", out["rtl_out"], "--no-figures", *FAST],
         {"check": {"files": reports, "no_raw": reports}}),
        ("analyze: a right-to-left override and markup in one of 9 criteria, report.html",
         ["analyze", str(rtl_option), "--by", "criterion", "--out", out["rtl_opt_out"],
          "--no-figures", *FAST],
         {"check": {"files": [f"{out['rtl_opt_out']}/report.html"],
                    "no_raw": [f"{out['rtl_opt_out']}/report.html"]}}),
    ]  # fmt: skip


def _check_outputs(check: dict) -> str | None:
    """What is wrong with a case's outputs (None: nothing): rows of a CSV as pandas and the
    csv module read them, a cell a spreadsheet would run, a missing file, a raw invisible
    or bidirectional control character in a shown output."""
    import csv as csv_module
    import io
    import re

    for path in check.get("files", []):
        if not Path(path).is_file():
            return f"{path} not written"
    if "csv" in check:
        text = Path(check["csv"]).read_bytes().decode("utf-8")
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        rows = list(csv_module.reader(io.StringIO(text, newline="")))
        if len(frame) != check["rows"] or len(rows) != check["rows"] + 1:
            return f"{len(frame)} rows (pandas), {len(rows) - 1} (csv) of {check['rows']}"
        start = re.compile("(?:^|(?<=[\n\r]))[=+@\t\r]|(?:^|(?<=[\n\r]))-(?![0-9.])")
        formulas = [c for row in rows for c in row if start.search(c)]
        if formulas:
            return f"{len(formulas)} cells start a formula, e.g. {formulas[0]!r}"
    for path in check.get("no_raw", []):
        if re.search("[\ufeff\u200b\u202a-\u202e\u2066-\u2069]", Path(path).read_text()):
            return f"{path} holds a raw control character"
    return None


def _rank_and_judge_cases(tmp: Path, raw) -> list[tuple[str, list[str], dict]]:
    """Cases of ``rrmap rank`` and ``rrmap judge`` (the judge's fail before any request)."""
    import numpy as np

    rng = np.random.default_rng(0)
    k = 10_000  # candidates: dense k × k matrices of 800 MB each
    left, right = rng.integers(0, k, 20_000), rng.integers(0, k, 20_000)
    keep = left != right
    many = pd.DataFrame(
        {
            "instance": "i1",
            "left": [f"c{i}" for i in left[keep]],
            "right": [f"c{i}" for i in right[keep]],
            "winner": "left",
        }
    )
    many_path = tmp / "many.csv"
    many.to_csv(many_path, index=False)
    injected = pd.DataFrame(
        {
            "instance": ["i1"] * 4,
            "left": ["=HYPERLINK(1)", "b", "=HYPERLINK(1)", "c"],
            "right": ["b", "c", "c", "=HYPERLINK(1)"],
            "winner": ["left", "left", "right", "left"],
        }
    )
    injected_path = tmp / "injected.csv"
    injected.to_csv(injected_path, index=False)
    ragged = raw("ragged.csv", b"instance,left,right,winner\ni1,Smith, J.,Doe,left\n")
    pairs = ROOT / "data" / "judge_example" / "PAIRS.csv"
    outside = tmp / "outside.csv"
    outside.write_text(
        pairs.read_text().replace("images/", "../../../etc/") if pairs.exists() else ""
    )
    judge = ["--model", "m", "--dry-run"]
    no_rows = raw("no_questions.csv", b"id,question,options,answer\n")
    corpora = tmp / "corpora"
    corpora.mkdir(exist_ok=True)
    (corpora / "c.csv").write_text(
        "movement,modality,modality name,query,reference\n"
        f"cubism,movement,Cubism,{ROOT / 'data' / 'judge_example' / 'images'},the Cubists\n"
    )
    nul = raw(
        "nul.jsonl",
        b'{"id": "q1", "question": "Q?", "options": ["a", "b"], "answer": "A", '
        b'"image": "x\\u0000y.png"}\n{"id": "q1", "question": "", "options": ["a"]}\n',
    )
    return [
        (
            "judge mcq: no question rows",
            ["judge", "mcq", no_rows, "--base-url", "http://h/v1", "--model", "m"],
            {},
        ),
        (
            "judge mcq: no question rows, dry run",
            ["judge", "mcq", no_rows, "--base-url", "http://h/v1", *judge],
            {},
        ),
        (
            "judge mcq: a NUL in an image path",
            ["judge", "mcq", nul, "--base-url", "http://h/v1", *judge],
            {},
        ),
        (
            "judge rate: a corpus folder outside the file's folder",
            [
                "judge",
                "rate",
                "--corpus",
                str(corpora / "c.csv"),
                "--base-url",
                "http://h/v1",
                *judge,
            ],
            {},
        ),
        (
            "judge 2afc: a password in a refused --base-url",
            ["judge", "2afc", str(pairs), "--base-url", "http://u:s3cret@h/v1?key=s3cret", *judge],
            {},
        ),
        *_hostile_server_cases(pairs),
        ("rank fit: 10,000 candidates", ["rank", "fit", str(many_path)], {}),
        ("rank fit: a CSV injection", ["rank", "fit", str(injected_path)], {}),
        ("rank fit: a row with more fields", ["rank", "fit", ragged], {}),
        (
            "rank fit: FineArtBench JSON nested 200,000 deep",
            ["rank", "fit", raw("deep_fab.json", b"[" * 200_000), "--input-format", "fineartbench"],
            {},
        ),
        (
            "rank sample: --instances 1e9",
            [
                "rank",
                "sample",
                "--design",
                "global",
                "--candidates",
                "a,b,c",
                "--instances",
                "1000000000",
                "-n",
                "10",
            ],
            {},
        ),
        ("rank fit: a negative --seed", ["rank", "fit", str(injected_path), "--seed", "-1"], {}),
        (
            "rank sample: a negative --seed",
            [
                "rank",
                "sample",
                "--design",
                "global",
                "--candidates",
                "a,b,c",
                "--instances",
                "2",
                "-n",
                "3",
                "--seed",
                "-1",
            ],
            {},
        ),
        (
            "judge 2afc: a base URL with a query",
            ["judge", "2afc", str(pairs), "--base-url", "http://h/v1?q=1", *judge],
            {},
        ),
        ("judge 2afc: images outside the folder", ["judge", "2afc", str(outside), *judge], {}),
    ]


def _hostile_server_cases(pairs: Path) -> list[tuple[str, list[str], dict]]:
    """Cases against a hostile chat-completions server (``opts["server"]``: its arguments;
    ``SERVER`` in the case's arguments is its base URL, ``opts["show"]`` the start of the
    stderr line to report)."""
    run = ["judge", "2afc", str(pairs), "--mode", "base", "--base-url", "SERVER", "--model",
           "judge-model", "--quiet"]  # fmt: skip
    budget = ["--max-cost", "0.02", "--price-in", "2.5", "--price-out", "2.5", "--max-tokens",
              "64"]  # fmt: skip
    return [
        ("judge 2afc: an honest server under --max-cost 0.02", [*run, *budget],
         {"server": [], "show": "budget:"}),
        ("judge 2afc: a server without usage under --max-cost 0.02", [*run, *budget],
         {"server": ["--usage", "omit"], "show": "budget:"}),
        ("judge 2afc: a server with negative usage under --max-cost 0.02", [*run, *budget],
         {"server": ["--usage", '{"prompt_tokens": -5000, "completion_tokens": -10}'],
          "show": "budget:"}),
        ("judge 2afc: usage \"lots\" in the 10th answer", [*run, "--max-cost", "1", *budget[2:]],
         {"server": ["--fault", '10=usage="lots"'], "show": "paid calls"}),
        ("judge 2afc: usage 1e400 in the 10th answer", [*run, "--max-cost", "1", *budget[2:]],
         {"server": ["--fault", '10=usage={"prompt_tokens": 1e400, "completion_tokens": 1}'],
          "show": "paid calls"}),
        ("judge 2afc: a server trickling a byte every 2 s, --timeout 10",
         [*run, "--timeout", "10", "--max-retries", "0"],
         {"server": ["--fault", "*=trickle", "--trickle-seconds", "2"]}),
        ("judge 2afc: Retry-After 999999, --timeout 10", [*run, "--timeout", "10",
                                                          "--max-retries", "1"],
         {"server": ["--fault", "1=429", "--retry-after", "999999"], "show": "judge-model: HTTP"}),
    ]  # fmt: skip


@contextlib.contextmanager
def _server(args: list[str] | None):
    """The base URL of a chat server started with *args* (``None``: no server)."""
    if args is None:
        yield None
        return
    script = ROOT / "tests" / "judge" / "chat_server.py"
    proc = subprocess.Popen([sys.executable, str(script), "--no-key", "--latency", "0", *args],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.kill()
        proc.wait()


def _size_cases(tmp: Path, df: pd.DataFrame) -> list[tuple[str, list[str], dict]]:
    """Sizes past a limit: each refused before the work it would cost (a far cell, repeated
    cells, a 1 GB line, a FIFO nobody writes to, thousands of panels or legend entries)."""
    one = df[df["expert"] == "E1"]
    raters = tmp / "raters1000.csv"
    pd.concat([one.assign(expert=f"R{i}") for i in range(1000)]).to_csv(raters, index=False)
    options = tmp / "options1000.csv"
    pd.concat([one.assign(movement=f"m{i}") for i in range(1000)]).to_csv(options, index=False)
    line = tmp / "oneline.csv"
    with open(line, "wb") as fh:
        fh.write(b"instance,left,right,winner\n")
        for _ in range(1000):
            fh.write(b"x" * 1_000_000)
    never = {"fifo": "no writer", "env": {"RRMAP_MAX_FIFO_WAIT": "3"}}
    return [
        ("points: an xlsx with a value at XFD1048576", ["points", _far_cell(tmp / "far.xlsx")], {}),
        ("points: an ods of 82 million repeated cells", ["points", _ods_bomb(tmp / "b.ods")], {}),
        (
            "points: an xls with a value at row 65,536, column 16,384",
            ["points", str(ROOT / "tests" / "data" / "hostile" / "far_cell.xls")],
            {},
        ),
        ("points: a 1 GB one-line file", ["points", str(line)], {}),
        ("rank fit: a 1 GB one-line file", ["rank", "fit", str(line)], {}),
        ("points: a FIFO no program writes to", ["points", str(tmp / "fifo")], never),
        ("plot: 1,000 raters", ["plot", str(raters), "-o", str(tmp / "r.pdf"), "--force"], {}),
        (
            "plot: a colour of 1,000 options",
            ["plot", str(options), "--facet", "none", "-o", str(tmp / "o.pdf"), "--force"],
            {},
        ),
    ]


def _far_cell(path: Path) -> str:
    """A workbook of 2 kB whose one far value asked the reader for 512 GiB."""
    ns = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "_rels/.rels",
            '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>",
        )
        zf.writestr(
            "xl/workbook.xml",
            f'<workbook {ns}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>',
        )
        zf.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            "</Relationships>",
        )
        zf.writestr(
            "xl/worksheets/sheet1.xml",
            '<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>expert</t></is>'
            '</c></row><row r="1048576"><c r="XFD1048576"><v>1</v></c></row></sheetData>'
            "</worksheet>",
        )
    return str(path)


def _ods_bomb(path: Path) -> str:
    """An OpenDocument sheet of 1 kB whose repeated cells its reader builds on opening."""
    cell = '<table:table-cell office:value-type="float" office:value="1"{}/>'
    rows = (
        f"<table:table-row>{cell.format('')}</table:table-row>"
        '<table:table-row table:number-rows-repeated="5000">'
        + cell.format(' table:number-columns-repeated="16382"')
        + "</table:table-row>"
    )
    content = (
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body>'
        f'<office:spreadsheet><table:table table:name="S">{rows}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr(
            "META-INF/manifest.xml",
            '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
            'manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type='
            '"application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>',
        )
        zf.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
    return str(path)


def _zip_bomb(path: Path) -> str:
    """An xlsx-shaped zip whose sheet inflates from ~3 MB to ~3 GB."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        with zf.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as fh:
            block = b"<row>" + b"0" * (1 << 20)
            for _ in range(3000):
                fh.write(block)
    return str(path)


def _classify(rc: int | None, err: str) -> str:
    """How a case ended; a clear error is one ``Error:`` line (notes such as what was read
    may stand before it) with exit code 1 or 2 and no traceback."""
    if rc is None:
        return "hang"
    if "Traceback" in err:
        return "traceback"
    if rc == 0:
        return "ok"
    errors = [ln for ln in err.splitlines() if ln.startswith("Error: ")]
    return "clear" if rc in (1, 2) and len(errors) == 1 else "other"


@contextlib.contextmanager
def _mounted(kind: str | None, tmp: Path):
    if kind is None:
        yield {}
        return
    folder = tmp / f"mnt-{kind}-{time.monotonic_ns()}"
    folder.mkdir()
    opts = "size=64k" + (",ro" if kind == "ro" else "")
    ok = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )
    if ok and kind == "filled":  # no byte left: every write fails, even a lock's PID
        with contextlib.suppress(OSError), open(folder / "fill", "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    try:
        yield {"RO" if kind == "ro" else "FULL": str(folder)} if ok else None
    finally:
        if ok:
            subprocess.run(["umount", str(folder)], check=False)


def _group(pgid: int) -> dict[int, int]:
    """Live processes of process group *pgid* (``/proc``): pid → parent pid."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text(errors="replace")
        except (OSError, ValueError):
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found[int(entry)] = int(fields[1])
    return found


def _ready(pid: int, when: str) -> bool:
    """Whether run *pid* is where its case signals it: figure workers forked, or waiting
    in a read from a pipe (its main thread's kernel wait)."""
    if when == "workers":
        procs = _group(pid)
        return any(ppid in procs and ppid != pid for ppid in procs.values())
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text(errors="replace")
    except OSError:
        return False


def _run_signal_case(
    args: list[str], opts: dict, tmp: Path, env: dict, timeout: float
) -> tuple[str, float, float, str]:
    """Start the run in a process group of its own, signal it once it is ready, and see
    what is left of it 2 s after it ended."""
    sig = getattr(signal, opts["signal"])
    read, write = os.pipe()  # a standard input that never ends, for those that read it
    proc = subprocess.Popen(
        [sys.executable, "-m", "rrmap.cli", *args],
        stdin=read if opts.get("stdin_open") else subprocess.DEVNULL,
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    os.close(read)
    closed = {name: threading.Event() for name in ("stdout", "stderr")}
    text: dict[str, bytes] = {}

    def drain(name: str) -> None:
        text[name] = getattr(proc, name).read()
        closed[name].set()

    for name in closed:
        threading.Thread(target=drain, args=(name,), daemon=True).start()
    try:
        deadline = time.monotonic() + timeout
        while not _ready(proc.pid, opts["when"]):
            if proc.poll() is not None or time.monotonic() > deadline:
                return "other", 0.0, 0.0, "ended (or hung) before it could be signalled"
            time.sleep(0.01)
        (os.killpg if opts.get("group") else os.kill)(proc.pid, sig)
        start = time.perf_counter()
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        ended = time.perf_counter()
        while time.perf_counter() - ended < 2.0:
            if not _group(proc.pid) and all(e.is_set() for e in closed.values()):
                break
            time.sleep(0.01)
        left, still_open = _group(proc.pid), [n for n, e in closed.items() if not e.is_set()]
        wall = time.perf_counter() - start
    finally:
        _end_group(proc)
        os.close(write)
    for event in closed.values():
        event.wait(10)
    err = text.get("stderr", b"").decode("utf-8", "replace")
    lines = err.splitlines()
    said = f"exit {code}, {len(left)} processes left, open: {', '.join(still_open) or 'none'}"
    if left or still_open:
        kind = "orphans"
    elif "Traceback" in err:
        kind = "traceback"
    elif sig == signal.SIGKILL:
        kind = "clear" if code == -signal.SIGKILL else "other"
    else:
        kind = "clear" if code == 128 + sig and len(lines) == 1 else "other"
    return kind, wall, usage.ru_maxrss / 1024, f"{said}; stderr: {' | '.join(lines)[:80]}"


def _end_group(proc: subprocess.Popen) -> None:
    """End what is left of *proc*'s process group (nothing of a run outlives its case):
    the resource tracker last, once it removed the run's semaphores."""

    def tracker(pid: int) -> bool:
        with contextlib.suppress(OSError):
            return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        return False

    for pid in [p for p in _group(proc.pid) if not tracker(p)]:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in _group(proc.pid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _run_case(
    args: list[str], opts: dict, tmp: Path, env: dict, timeout: float
) -> tuple[str, float, float, str]:
    if "signal" in opts:
        return _run_signal_case(args, opts, tmp, env, timeout)
    with _mounted(opts.get("mount"), tmp) as where, _server(opts.get("server")) as url:
        if where is None:
            return "skipped", 0.0, 0.0, "cannot mount a tmpfs"
        args = [url if a == "SERVER" else a for a in args]
        args = [
            a.replace("RO/", where.get("RO", "RO") + "/").replace(
                "FULL/", where.get("FULL", "FULL") + "/"
            )
            for a in args
        ]
        stdin = open(opts["stdin"], "rb") if "stdin" in opts else subprocess.DEVNULL
        fifo = tmp / "fifo"
        if opts.get("fifo"):
            with contextlib.suppress(FileNotFoundError):
                fifo.unlink()
            os.mkfifo(fifo)
        if opts.get("fifo") is True:  # else no program writes to it
            threading.Thread(
                target=lambda: fifo.write_bytes(EXAMPLE.read_bytes()), daemon=True
            ).start()
        limit = opts.get("fsize")
        kept = {path: _state(path) for path in opts.get("keep", [])}
        disk = where.get("FULL")
        listed = sorted(os.listdir(disk)) if disk else None

        def _pre() -> None:
            if limit:
                import resource

                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "rrmap.cli", *args],
            stdin=stdin,
            cwd=tmp,  # not the repository: python -m would import rrmap from there
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**env, **opts.get("env", {})},
            preexec_fn=_pre,
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        err = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        rc = None if proc.returncode == -signal.SIGKILL else proc.returncode
        if "stdin" in opts:
            stdin.close()
        first = next(
            (ln for ln in err.splitlines() if ln.startswith(opts.get("show", "Error"))),
            err.strip().splitlines()[-1:] or [""],
        )
        first = first if isinstance(first, str) else first[0]
        kind = _classify(rc, err)
        if any(_state(path) != state for path, state in kept.items()):
            kind = "lost"
        elif listed is not None and rc != 0 and sorted(os.listdir(disk)) != listed:
            kind = "leftover"
        elif "check" in opts and kind == "clear":  # a valid input refused
            kind = "wrong"
        elif "check" in opts and kind == "ok":
            wrong = _check_outputs(opts["check"])
            if wrong:
                kind, first = "wrong", wrong
        return kind, wall, usage.ru_maxrss / 1024, first[:150]


def _state(path: str) -> tuple | None:
    """What a kept file is: its kind, inode and, for a regular file, its bytes' hash."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    digest = None
    if stat.S_ISREG(st.st_mode):
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return st.st_mode, st.st_ino, digest


def _worktree(rev: str, tmp: Path) -> Path:
    path = tmp / f"baseline-{rev}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
        check=True,
        capture_output=True,
    )
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=None, help="git revision to compare with")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--match", default="", help="only the cases whose name holds this text")
    ap.add_argument("--make", type=Path, help=argparse.SUPPRESS)  # write the case files here
    a = ap.parse_args()
    if a.make:
        print(json.dumps(_write_cases(a.make), default=str))
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        # the files are made by a child process: a forked case would count this one's memory
        made = subprocess.run(
            [sys.executable, __file__, "--make", str(tmp)],
            capture_output=True,
            text=True,
            check=True,
        )
        cases = [c for c in json.loads(made.stdout) if a.match in c[0]]
        trees = {"now": ROOT}
        if a.baseline:
            trees[a.baseline] = _worktree(a.baseline, tmp)
        tally = {name: Counter() for name in trees}
        rows = []
        for label, args, opts in cases:
            row = [label]
            for name, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                env.pop("RRMAP_DEBUG", None)
                kind, wall, rss, first = _run_case(args, opts, tmp, env, a.timeout)
                tally[name][kind] += 1
                row.append(f"{kind} {wall:.1f}s {rss:.0f}MB")
                if name == "now" or "show" in opts:  # what a baseline said, where it matters
                    row.append(first)
            rows.append(row)
            print(" | ".join(row), flush=True)
        print()
        for name, counts in tally.items():
            print(
                f"{name}: {len(cases)} cases: "
                + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            )
        if a.baseline:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[a.baseline])],
                check=False,
            )


if __name__ == "__main__":
    main()
