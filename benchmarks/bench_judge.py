"""Throughput of rrmap.judge against a local chat-completions server with fixed latency.

Setup: ``tests/judge/chat_server.py`` runs in its own process and answers every call
after ``--latency`` seconds (default 0.1 s). rrmap judges ``--pairs`` ArtCoT
pairs (default 1,000) in both orders — three calls per pair and order, so
6,000 calls — at ``--concurrency`` 32, with the on-disk cache on (a fresh
temporary directory). Everything rrmap does is included: composite images,
base64 encoding, cache keys and atomic cache writes, parsing, the three-turn
conversations, the tables.

Baseline, same run and same server: bare ``httpx.AsyncClient`` posts of the
same number of requests with an ``asyncio.Semaphore`` of the same size, no
images built, no cache, no parsing — the floor any client pays.

Printed: wall time, calls/s, the ideal calls/s (concurrency / latency), and the
overhead per call over the server's latency, computed as
``wall × concurrency / calls − latency`` (time a concurrency slot spends per
call beyond the server's own wait).

Run: ``python benchmarks/bench_judge.py [--pairs 1000] [--concurrency 32]``.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def _pairs(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """n pairs of small synthetic images (32 px), 10 candidates per instance."""
    rows = []
    for i in range(n):
        src = Image.fromarray(rng.integers(0, 255, (32, 32, 3), dtype=np.uint8))
        a = Image.new("RGB", (32, 32), tuple(int(v) for v in rng.integers(0, 255, 3)))
        b = Image.new("RGB", (32, 32), tuple(int(v) for v in rng.integers(0, 255, 3)))
        rows.append({"instance": f"inst{i // 45}", "style": f"style number {i // 45}",
                     "source_image": src, "candidate_a": f"m{i % 10}", "image_a": a,
                     "candidate_b": f"m{(i % 10) + 10}", "image_b": b})  # fmt: skip
    return pd.DataFrame(rows)


def _start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge" / "chat_server.py"), "--latency", str(latency),
         "--no-key", "--cheap"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = proc.stdout.readline().strip()
    return proc, url


def _run_rrmap(url: str, pairs: pd.DataFrame, concurrency: int) -> tuple[float, int, object]:
    from rrmap.judge import ChatClient, Endpoint, judge_pairs

    with tempfile.TemporaryDirectory() as cache:
        client = ChatClient(
            Endpoint(url, "judge-model", api_key_env=None, concurrency=concurrency),
            cache=cache,
        )
        t0 = time.perf_counter()
        res = judge_pairs(pairs, client, mode="artcot", orders="both", max_side=64)
        wall = time.perf_counter() - t0
    return wall, client.stats.requests, res


async def _raw_httpx(url: str, n_calls: int, concurrency: int) -> float:
    import httpx

    body = {
        "model": "judge-model",
        "messages": [{"role": "user", "content": "Step 3 of 3: summary. " + "x" * 2000}],
        "temperature": 0.0,
        "max_tokens": 1024,
    }
    sem = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:

        async def one() -> None:
            async with sem:
                r = await http.post(url + "/chat/completions", json=body)
                r.raise_for_status()
                r.json()["choices"][0]["message"]["content"]

        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(n_calls)))
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    pairs = _pairs(args.pairs, np.random.default_rng(args.seed))
    n_calls = args.pairs * 2 * 3
    proc, url = _start_server(args.latency)
    try:
        raw_wall = asyncio.run(_raw_httpx(url, n_calls, args.concurrency))
        wall, requests, res = _run_rrmap(url, pairs, args.concurrency)
    finally:
        proc.terminate()
        proc.wait()
    ideal = args.concurrency / args.latency

    def line(name: str, wall_s: float) -> str:
        rate = n_calls / wall_s
        over = wall_s * args.concurrency / n_calls - args.latency
        return (f"{name:<28} {wall_s:8.2f} s  {rate:8.1f} calls/s  "
                f"overhead/call {1000 * over:7.2f} ms")  # fmt: skip

    print(f"bench_judge: {args.pairs} ArtCoT pairs x 2 orders x 3 turns = {n_calls} calls, "
          f"concurrency {args.concurrency}, server latency {1000 * args.latency:.0f} ms, "
          f"seed {args.seed}")  # fmt: skip
    print(f"ideal (concurrency / latency)          {ideal:8.1f} calls/s")
    print(line("raw httpx + semaphore", raw_wall))
    print(line("rrmap judge_pairs (cache on)", wall))
    print(
        f"rrmap / raw httpx throughput ratio: {raw_wall / wall:.3f}; "
        f"rrmap / ideal: {(n_calls / wall) / ideal:.3f}"
    )
    print(
        f"rrmap HTTP requests {requests}, verdicts {len(res.comparisons)}, "
        f"invalid answers {int((~res.per_order['valid']).sum())}"
    )


if __name__ == "__main__":
    main()
