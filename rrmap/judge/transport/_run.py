"""Running many async judge calls: bounded fan-out, progress bar, sync entry point."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from rrmap.judge.transport._provenance import row_provenance, tracing

T = TypeVar("T")


def run_sync(coro: Awaitable[T]) -> T:
    """Run *coro* to completion, also from inside a running event loop (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)  # type: ignore[arg-type]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()  # type: ignore[arg-type]


async def run_all(
    jobs: Sequence[Callable[[], Awaitable[T]]],
    *,
    in_flight: int,
    progress: bool,
    desc: str,
    provenance: list[dict[str, str]] | None = None,
) -> list[T]:
    """Await every job with at most *in_flight* running; results in job order.

    The first exception cancels the remaining jobs and is re-raised. When
    *provenance* is given, its items are set to the provenance columns of
    each job's calls (:func:`rrmap.judge.transport._provenance.row_provenance`), in job
    order.
    """
    from tqdm import tqdm

    from rrmap._util.progress import progress_bar

    results: list[Any] = [None] * len(jobs)
    if provenance is not None:
        provenance[:] = [row_provenance([]) for _ in jobs]
    gate = asyncio.Semaphore(max(1, in_flight))
    # on stderr, and only on a terminal (or in Jupyter): a log file never holds its frames
    bar = progress_bar(len(jobs), desc, "item") if progress else tqdm(disable=True)

    async def one(i: int) -> None:
        async with gate:
            with tracing() as calls:
                results[i] = await jobs[i]()
        if provenance is not None:
            provenance[i] = row_provenance(calls)
        bar.update(1)

    tasks = [asyncio.ensure_future(one(i)) for i in range(len(jobs))]
    try:
        if tasks:
            done, _pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for t in done:
                if t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
    finally:
        for t in tasks:
            if not t.done():
                t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        bar.close()
    return results
