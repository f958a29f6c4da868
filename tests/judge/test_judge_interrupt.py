"""Ctrl-C and ``kill`` stop ``rrmap judge`` while a request is in flight: one line, exit
code 130 or 143, no traceback, no output file (click's was ``Aborted!`` and exit code 1).

The run is a real process in its own process group; the server is the local one of
these tests, answering after a minute (the model thinking).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from chat_server import API_KEY, MODEL, ChatServer
from process_group import GroupRun, rrmap_command

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"


@pytest.mark.slow  # a further command stopped while it waits: rank's stays in the first tier
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes read from /proc")
@pytest.mark.parametrize(
    ("sig", "code", "line"),
    [(signal.SIGINT, 130, "Interrupted."), (signal.SIGTERM, 143, "Terminated.")],
    ids=["ctrl-c", "kill"],
)
def test_a_judge_waiting_for_an_answer_stops_with_one_line(tmp_path, sig, code, line):
    with ChatServer(latency=60) as server:
        args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "-o", "model.csv",
                "--cache", "cache", "--base-url", server.base_url, "--model", MODEL,
                "--api-key-env", KEY_ENV, "--quiet"]  # fmt: skip
        env = {**os.environ, KEY_ENV: API_KEY}
        run = GroupRun(rrmap_command(*args), cwd=tmp_path, env=env)
        try:
            run.wait_for("a request", lambda: server.received >= 1)
            os.killpg(run.pgid, sig)
            assert run.end(within=2.0) == (code, {}, [])
        finally:
            run.kill_group()
            server.kill()  # the answers still waiting are cut
    assert run.stderr() == f"{line}\n"
    assert not (tmp_path / "model.csv").exists()
