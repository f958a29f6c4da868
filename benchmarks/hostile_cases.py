"""The cases of ``hostile_inputs.py``: the files, folders, options and servers each case
runs ``rrmap`` against, grouped by what they attack (writing and reading, signals, output
targets, labels in every format, rank and judge, sizes past every limit)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example_ratings.csv"
FAST = ["--permutations", "99", "--bootstrap", "0", "-q"]


def write_cases(tmp: Path) -> list[tuple[str, list[str], dict]]:
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
        "--stereotype-r 1/0": ["--stereotype-r", "1/0"],
        "--stereotype-r 1e400/3": ["--stereotype-r", "1e400/3"],
        "--stereotype-r 2/3/4": ["--stereotype-r", "2/3/4"],
        "--stereotype-r 1e400 as a fraction": ["--stereotype-r", "1" + "0" * 400 + "/3"],
        "--stars mid": ["--stars", "mid"],
        "--ci student": ["--ci", "student"],
        "--p-adjust gatekeeping": ["--p-adjust", "gatekeeping"],
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
    """Runs stopped by a signal: analyze once its figure workers exist, and once its forked
    test workers exist; rank while it reads a standard input that never ends."""
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
    cases += [
        (
            f"analyze --no-figures --jobs 2: {name} while the forked test workers run",
            [
                "analyze",
                str(EXAMPLE),
                "--out",
                str(tmp / f"sig-tests-{sig}-{group}"),
                "--no-figures",
                "--jobs",
                "2",
                *slow,
            ],
            {"signal": sig, "group": group, "when": "test workers"},
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


def check_outputs(check: dict) -> str | None:
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
def server(args: list[str] | None):
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
