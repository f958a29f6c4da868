"""One conversation's turns, for a budget that buys whole conversations (docs/judge.md).

A judging function marks the calls of one judgement (ArtCoT's three turns and
their format re-ask) with :func:`conversation`; a backend with a budget
(:class:`~rrmap.judge.transport.client.ChatClient`) then reserves every turn left at the
conversation's first paid call, and a planner counts the turns declared but
not made as possible re-asks.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any

from rrmap.judge.transport.budget import Reservation

__all__ = ["conversation"]


@dataclass
class _Conversation:
    """The turns of one conversation so far, and what the budget set aside for them."""

    turns: int
    made: int = 0
    budget: Any = None
    reservation: Reservation | None = None
    bought: bool = False  # an earlier turn was answered by a batch job in this run
    last: Any = None  # a dry run: the latest request of this conversation to send


_CONVERSATION: contextvars.ContextVar[_Conversation | None] = contextvars.ContextVar(
    "rrmap_conversation", default=None
)


@contextlib.asynccontextmanager
async def conversation(backend: Any, turns: int) -> Any:
    """Mark the calls inside as the *turns* turns of one conversation (e.g. ArtCoT's three).

    With a budget, the first call that is paid for sets aside every turn left,
    so a budget pays for whole conversations, never for a first turn whose
    later turns it could not buy. Backends without a budget ignore it.

    Examples
    --------
    >>> import asyncio
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> async def two_turns(backend):
    ...     async with conversation(backend, 2):
    ...         a = await backend.chat([{"role": "user", "content": "1"}])
    ...         return (await backend.chat([{"role": "user", "content": "2"}])).text
    >>> asyncio.run(two_turns(FunctionChat(lambda m: "ok", "f")))
    'ok'
    """
    opener = getattr(backend, "open_conversation", None)
    if opener is None:
        yield
        return
    async with opener(turns):
        yield
