"""Judges that are not HTTP endpoints: plain Python callables and baselines.

Two interfaces, both duck-typed:

- a *chat backend* (what :class:`~rrmap.judge.transport.client.ChatClient` is) answers
  chat messages with text: an ``async chat(messages) -> ChatResult`` method,
  a ``name`` and ``stats``, usable with ``async with``. :class:`FunctionChat`
  turns any Python function ``messages -> str`` (a local transformers or
  llama.cpp model, say) into one, so every prompting mode, the
  multiple-choice and the interpretation scoring work with it unchanged;
- a *pair judge* decides a 2AFC pair directly from the image files, with a
  ``name`` and ``judge_pair(source, left, right, style) -> "left" | "right" |
  "tie"``. :class:`ScoreJudge` wraps an aesthetic predictor (image → score)
  and :class:`RandomJudge` is the seeded coin-flip baseline.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from rrmap.judge.transport._provenance import record_call, utc_now
from rrmap.judge.transport.usage import ChatResult, UsageStats

__all__ = ["ChatBackend", "FunctionChat", "PairJudge", "RandomJudge", "ScoreJudge"]


@runtime_checkable
class ChatBackend(Protocol):
    """What the judging functions need from a model that reads chat messages.

    Examples
    --------
    >>> isinstance(FunctionChat(lambda m: "ok", "local"), ChatBackend)
    True
    """

    name: str
    stats: UsageStats

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> ChatResult: ...

    async def __aenter__(self) -> Any: ...

    async def __aexit__(self, *exc: object) -> None: ...


@runtime_checkable
class PairJudge(Protocol):
    """What the 2AFC judging needs from a judge that looks at image files directly.

    Examples
    --------
    >>> isinstance(RandomJudge(rng=0), PairJudge)
    True
    """

    name: str

    def judge_pair(self, source: Path, left: Path, right: Path, style: str) -> str: ...


class FunctionChat:
    """A chat backend calling a Python function instead of an HTTP endpoint.

    Parameters
    ----------
    func : callable
        ``func(messages) -> str`` (or an ``async`` function); *messages* are
        chat-completions messages, images as ``data:`` URLs.
    name : str
        Shown in the ``model`` column of outputs.

    Examples
    --------
    >>> import asyncio
    >>> echo = FunctionChat(lambda msgs: '{"winner": 0}', name="always-left")
    >>> async def ask():
    ...     async with echo:
    ...         return (await echo.chat([{"role": "user", "content": "?"}])).text
    >>> asyncio.run(ask())
    '{"winner": 0}'
    """

    def __init__(self, func: Callable[[list[dict[str, Any]]], Any], name: str) -> None:
        self.func = func
        self.name = name
        self.stats = UsageStats()

    async def __aenter__(self) -> FunctionChat:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> ChatResult:
        """Call the function (in a worker thread when it is synchronous)."""
        msgs = [dict(m) for m in messages]
        if inspect.iscoroutinefunction(self.func):
            text = await self.func(msgs)
        else:
            text = await asyncio.to_thread(self.func, msgs)
        result = ChatResult(text=str(text), answered_at=utc_now())
        self.stats.add(result)
        record_call(result)
        return result


class ScoreJudge:
    """2AFC by an image scorer: the candidate with the higher score wins.

    Parameters
    ----------
    score : callable
        ``score(path) -> float``, e.g. a LAION-style aesthetic predictor.
    name : str
    tolerance : float
        Scores closer than this give ``"tie"``.

    Examples
    --------
    >>> judge = ScoreJudge(lambda p: len(p.name), name="name-length")
    >>> judge.judge_pair(Path("s.png"), Path("a.png"), Path("bbb.png"), "any")
    'right'
    """

    def __init__(self, score: Callable[[Path], float], name: str, tolerance: float = 0.0) -> None:
        self.score = score
        self.name = name
        self.tolerance = tolerance

    def judge_pair(self, source: Path, left: Path, right: Path, style: str) -> str:
        """Return ``"left"``, ``"right"`` or ``"tie"``."""
        a, b = float(self.score(left)), float(self.score(right))
        if abs(a - b) <= self.tolerance:
            return "tie"
        return "left" if a > b else "right"


class RandomJudge:
    """The random-guess baseline: left or right with probability 1/2 each, seeded.

    Parameters
    ----------
    rng : int, numpy Generator or None
        Seed or generator; draws happen in the order pairs are judged.
    name : str

    Examples
    --------
    >>> j = RandomJudge(rng=3)
    >>> [j.judge_pair(Path("s"), Path("a"), Path("b"), "") for _ in range(4)]
    ['left', 'left', 'right', 'right']
    """

    def __init__(self, rng: int | np.random.Generator | None = None, name: str = "random") -> None:
        self.rng = np.random.default_rng(rng)
        self.name = name

    def judge_pair(self, source: Path, left: Path, right: Path, style: str) -> str:
        """Return ``"left"`` or ``"right"`` at random."""
        return "left" if self.rng.random() < 0.5 else "right"
