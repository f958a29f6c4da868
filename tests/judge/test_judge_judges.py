"""rrmap.judge.tasks.judges: Python-callable backends and baselines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from rrmap.errors import InputError
from rrmap.judge.tasks.judges import ChatBackend, FunctionChat, PairJudge, RandomJudge, ScoreJudge
from rrmap.judge.tasks.pairwise import judge_pairs


def _ask(backend, n=3):
    async def run():
        async with backend:
            return [(await backend.chat([{"role": "user", "content": str(i)}])).text
                    for i in range(n)]  # fmt: skip

    return asyncio.run(run())


def test_function_chat_sync_and_async():
    seen = []
    sync = FunctionChat(lambda msgs: seen.append(msgs) or f"got {msgs[0]['content']}", "s")

    async def coro(msgs):
        return "async " + msgs[0]["content"]

    assert _ask(sync) == ["got 0", "got 1", "got 2"]
    assert _ask(FunctionChat(coro, "a"), 2) == ["async 0", "async 1"]
    assert sync.stats.calls == 3 and len(seen) == 3
    assert isinstance(sync, ChatBackend)


@pytest.mark.parametrize("seed", [0, 1, 42])
def test_random_judge_is_numpy_coin_flips(seed):
    judge = RandomJudge(rng=seed)
    got = [judge.judge_pair(Path("s"), Path("a"), Path("b"), "") for _ in range(50)]
    ref = ["left" if u < 0.5 else "right" for u in np.random.default_rng(seed).random(50)]
    assert got == ref
    assert isinstance(judge, PairJudge)


@pytest.mark.parametrize(
    ("a", "b", "tol", "expected"),
    [(2.0, 1.0, 0.0, "left"), (1.0, 2.0, 0.0, "right"), (1.0, 1.05, 0.1, "tie")],
)
def test_score_judge(a, b, tol, expected):
    scores = {"a": a, "b": b}
    judge = ScoreJudge(lambda p: scores[p.name], "scorer", tolerance=tol)
    assert judge.judge_pair(Path("s"), Path("a"), Path("b"), "") == expected


def test_pair_judge_with_a_bad_answer_is_named():
    class Broken:
        name = "broken"

        def judge_pair(self, source, left, right, style):
            return "both"

    im = Image.new("RGB", (4, 4))
    df = pd.DataFrame([{"instance": "i", "style": "s", "source_image": im, "candidate_a": "x",
                        "image_a": im, "candidate_b": "y", "image_b": im}])  # fmt: skip
    with pytest.raises(InputError, match="judge 'broken' returned 'both'"):
        judge_pairs(df, Broken())
