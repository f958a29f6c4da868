"""Throughput of rrmap.judge against a local chat-completions server with fixed latency.

Setup: ``tests/judge/chat_server.py`` runs in its own process and answers every
call after ``--latency`` seconds (default 0.1 s). ``--pairs`` pairs (default
500) of painting-like images (smooth colour fields, 512 px) are judged with
ArtCoT in both orders — three calls per pair and order — at ``--concurrency``
32, with the on-disk cache on (a fresh temporary folder each time). Each
request carries its composite image as a JPEG data URL (inputs at most 256 px),
about 40 KB a request, as a run on photographs of paintings does with
``--image-format JPEG --max-side 256``.

Measured in the same run, on the same server:

* **bare httpx**: ``httpx.AsyncClient`` with an ``asyncio.Semaphore`` of the same
  size posting the very request bodies rrmap sends (built beforehand, so no
  image work, no cache, no parsing) — the floor any client pays;
* **rrmap, Python**: ``judge_pairs`` on the pairs table — everything included:
  composite images, encoding, cache keys and atomic cache writes, parsing,
  three-turn conversations, the tables;
* **rrmap, CLI**: ``rrmap judge 2afc PAIRS.csv`` in a subprocess (reading the
  image files, writing the outputs; start-up included), against
* **bare httpx, script**: the same bare client as a script in a subprocess
  (start-up and reading the bodies from a JSONL file included) — the shell
  counterpart of the in-process floor.

Each variant runs ``--repeat`` times (default 2); the best time counts.

Printed: wall time, calls/s, the ideal calls/s (concurrency / latency), the
overhead per call beyond the server's latency (``wall × concurrency / calls −
latency``) and the ratio of rrmap's throughput to bare httpx's.

Run: ``python benchmarks/bench_judge.py [--pairs 500] [--concurrency 32]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
MODEL = "judge-model"
#: Painting-like images sent as JPEG, each input at most 256 px: a composite of about
#: 35 KB, ~40 KB a request (PNG at 512 px would be some 1.5 MB).
FORMAT = "JPEG"
MAX_SIDE = 256


def _judge_artcot(pairs, client):
    """Every pair in both orders with ArtCoT, images as the benchmark sends them."""
    from rrmap.judge import judge_pairs

    return judge_pairs(pairs, client, mode="artcot", orders="both", image_format=FORMAT,
                       max_side=MAX_SIDE)  # fmt: skip


def _painting(rng: np.random.Generator, side: int = 512) -> Image.Image:
    """A smooth, painting-like image: a few blurred colour fields and strokes."""
    small = rng.integers(0, 255, (6, 6, 3), dtype=np.uint8)
    img = Image.fromarray(small).resize((side, side), Image.BICUBIC)
    noise = rng.normal(0, 2, (side, side, 3))
    arr = np.clip(np.asarray(img, dtype=float) + noise, 0, 255).astype(np.uint8)
    return Image.fromarray(arr)


def make_pairs(folder: Path, n: int, rng: np.random.Generator) -> Path:
    """A PAIRS.csv with n pairs over a pool of 40 image files."""
    pool = []
    for i in range(40):
        path = folder / f"img{i}.jpg"
        _painting(rng).save(path, quality=90)
        pool.append(path.name)
    rows = []
    for i in range(n):
        a, b, src = rng.choice(len(pool), 3, replace=False)
        rows.append({"instance": f"inst{i // 45}", "style": f"style number {i}",
                     "source_image": pool[src], "candidate_a": f"m{i % 10}",
                     "image_a": pool[a], "candidate_b": f"m{i % 10 + 10}",
                     "image_b": pool[b]})  # fmt: skip
    path = folder / "PAIRS.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _start_server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge" / "chat_server.py"),
         "--latency", str(latency), "--no-key", "--cheap"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    return proc, proc.stdout.readline().strip()


def _bodies(url: str, pairs_csv: Path) -> list[dict]:
    """Every request body of the run, as rrmap sends it (recorded from a run on a cache)."""
    from rrmap.judge import ChatClient, Endpoint, read_pairs

    with tempfile.TemporaryDirectory() as cache:
        client = ChatClient(Endpoint(url, MODEL, api_key_env=None, concurrency=32), cache=cache)
        _judge_artcot(read_pairs(pairs_csv), client)
        bodies = []
        for path in sorted(Path(cache).glob("??/*.json")):
            record = json.loads(path.read_text())
            bodies.append(record)
    return bodies


async def _bare_httpx(url: str, bodies: list[bytes], concurrency: int) -> float:
    import httpx

    sem = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:

        async def one(body: bytes) -> None:
            async with sem:
                r = await http.post(url + "/chat/completions", content=body, headers=headers)
                r.raise_for_status()
                r.json()["choices"][0]["message"]["content"]

        t0 = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - t0


def _rrmap_python(url: str, pairs_csv: Path, concurrency: int) -> tuple[float, int]:
    from rrmap.judge import ChatClient, Endpoint, read_pairs

    table = read_pairs(pairs_csv)
    with tempfile.TemporaryDirectory() as cache:
        client = ChatClient(
            Endpoint(url, MODEL, api_key_env=None, concurrency=concurrency), cache=cache
        )
        t0 = time.perf_counter()
        _judge_artcot(table, client)
        return time.perf_counter() - t0, client.stats.paid


_BARE_SCRIPT = """
import asyncio, sys, httpx
url, path, concurrency = sys.argv[1], sys.argv[2], int(sys.argv[3])
bodies = open(path, "rb").read().splitlines()
async def main():
    sem = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Content-Type": "application/json"}
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        async def one(body):
            async with sem:
                r = await http.post(url + "/chat/completions", content=body, headers=headers)
                r.raise_for_status()
                r.json()["choices"][0]["message"]["content"]
        await asyncio.gather(*(one(b) for b in bodies))
asyncio.run(main())
"""


def _bare_script(url: str, bodies: list[str], concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bodies.jsonl"
        path.write_text("\n".join(bodies) + "\n", encoding="utf-8")
        cmd = [sys.executable, "-c", _BARE_SCRIPT, url, str(path), str(concurrency)]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        return time.perf_counter() - t0


def _rrmap_cli(url: str, pairs_csv: Path, concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "rrmap.cli", "judge", "2afc", str(pairs_csv),
               "--base-url", url, "--model", MODEL, "--concurrency", str(concurrency),
               "--cache", str(Path(tmp) / "cache"), "-o", str(Path(tmp) / "out.csv"),
               "--image-format", FORMAT, "--max-side", str(MAX_SIDE), "--quiet"]  # fmt: skip
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ))
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2, help="runs per variant; the best counts")
    args = ap.parse_args()
    n_calls = args.pairs * 2 * 3
    with tempfile.TemporaryDirectory() as tmp:
        pairs_csv = make_pairs(Path(tmp), args.pairs, np.random.default_rng(args.seed))
        proc, url = _start_server(args.latency)
        try:
            records = _bodies(url, pairs_csv)
            bodies = [
                json.dumps({"model": r["model"], "messages": r["messages"], **r["params"]})
                for r in records
            ]
            # the cache keeps image hashes, not images: put the images back for the bare client
            full = _full_bodies(url, pairs_csv)
            size = np.mean([len(b) for b in full]) / 1024
            encoded = [b.encode() for b in full]
            bare, script, py, cli = (float("inf"),) * 4
            for _ in range(args.repeat):
                bare = min(bare, asyncio.run(_bare_httpx(url, encoded, args.concurrency)))
                script = min(script, _bare_script(url, full, args.concurrency))
                wall, paid = _rrmap_python(url, pairs_csv, args.concurrency)
                py = min(py, wall)
                cli = min(cli, _rrmap_cli(url, pairs_csv, args.concurrency))
        finally:
            proc.terminate()
            proc.wait()
    assert len(bodies) == n_calls == paid, (len(bodies), n_calls, paid)
    ideal = args.concurrency / args.latency

    def line(name: str, wall_s: float, floor: float) -> str:
        rate = n_calls / wall_s
        over = wall_s * args.concurrency / n_calls - args.latency
        return (f"{name:<28} {wall_s:8.2f} s  {rate:8.1f} calls/s  "
                f"overhead/call {1000 * over:7.2f} ms  ratio to bare httpx "
                f"{floor / wall_s:5.3f}")  # fmt: skip

    print(f"bench_judge: {args.pairs} ArtCoT pairs x 2 orders x 3 turns = {n_calls} calls of "
          f"{size:.0f} KB on average, concurrency {args.concurrency}, server latency "
          f"{1000 * args.latency:.0f} ms, seed {args.seed}")  # fmt: skip
    print(f"ideal (concurrency / latency)          {ideal:8.1f} calls/s")
    print(line("bare httpx, same bodies", bare, bare))
    print(line("rrmap judge_pairs (Python)", py, bare))
    print(line("bare httpx script (process)", script, script))
    print(line("rrmap judge 2afc (CLI)", cli, script))


def _full_bodies(url: str, pairs_csv: Path) -> list[str]:
    """The request bodies with their images, recorded by a client that keeps them."""
    from rrmap.judge import ChatClient, Endpoint, read_pairs

    seen: list[str] = []

    class Recorder(ChatClient):
        async def chat(self, messages):  # type: ignore[override]
            seen.append(json.dumps(self.request_body(messages)))
            return await super().chat(messages)

    client = Recorder(Endpoint(url, MODEL, api_key_env=None, concurrency=32))
    _judge_artcot(read_pairs(pairs_csv), client)
    return seen


if __name__ == "__main__":
    main()
