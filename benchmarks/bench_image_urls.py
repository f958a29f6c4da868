"""Benchmark: the 2AFC composites' data URLs, encoded every time against kept.

Each pair of ``data/judge_example/PAIRS.csv`` in both orders (24 composites of 96-pixel
images), or ``--pairs`` pairs of painting-like 512-pixel images made here (seeded), is
turned into the data URL a request carries, ``--passes`` times over, as a judge run and
a run resumed in the same session (or a second model on the same pairs) do:

* **every time**: ``data_url(composite_2afc(...))``, what each request did before the
  URLs were kept (both functions are public and unchanged);
* **kept**: ``composite_data_url(...)``, which keeps the URL while the files are unchanged
  (up to 64 MB of them).

The first pass of each costs the same (the URLs are made); later passes of ``kept`` only
look them up, until the URLs no longer fit. Printed: milliseconds per pass, the ratio
kept / every time of the later passes, and whether every URL is the same string.

Usage::

    python benchmarks/bench_image_urls.py [--passes 3] [--pairs 0] [--seed 0]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rrmap.judge.prompting import images
from rrmap.judge.prompting.images import composite_2afc, composite_data_url, data_url

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "judge_example"


def _example() -> list[tuple[Path, Path, Path]]:
    df = pd.read_csv(EXAMPLE / "PAIRS.csv")
    ab = [
        (EXAMPLE / r.source_image, EXAMPLE / r.image_a, EXAMPLE / r.image_b)
        for r in df.itertuples()
    ]
    return ab + [(s, b, a) for s, a, b in ab]


def _paintings(n: int, seed: int) -> list[tuple[Path, Path, Path]]:
    """*n* pairs of smooth colour fields with brush-like noise, 512 px, written as PNG."""
    from PIL import Image

    g = np.random.default_rng(seed)
    folder = Path(tempfile.mkdtemp())
    y, x = np.mgrid[0:512, 0:512] / 512.0

    def painting(name: str) -> Path:
        base = np.stack([np.sin(x * g.uniform(1, 6) + y * g.uniform(1, 6)) for _ in range(3)], -1)
        rgb = (127 + 90 * base + g.normal(0, 12, base.shape)).clip(0, 255).astype(np.uint8)
        path = folder / f"{name}.png"
        Image.fromarray(rgb).save(path)
        return path

    pairs = [(painting(f"s{i}"), painting(f"a{i}"), painting(f"b{i}")) for i in range(n)]
    return pairs + [(s, b, a) for s, a, b in pairs]


def _passes(make, triples, passes: int) -> tuple[list[float], list[str]]:
    times, urls = [], []
    for _ in range(passes):
        t = time.perf_counter()
        urls = [make(*t3) for t3 in triples]
        times.append(time.perf_counter() - t)
    return times, urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=0, help="0: the shipped example")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    triples = _paintings(args.pairs, args.seed) if args.pairs else _example()
    images._KEPT.clear()
    every, urls_every = _passes(
        lambda s, a, b: data_url(composite_2afc(s, a, b, max_side=512)), triples, args.passes
    )
    kept, urls_kept = _passes(
        lambda s, a, b: composite_data_url(s, a, b, max_side=512), triples, args.passes
    )
    size = sum(map(len, urls_kept)) / 2**20
    print(f"{len(triples)} composites, {size:.1f} MB of URLs, {args.passes} passes")
    print(f"{'pass':<6}{'every time (ms)':>17}{'kept (ms)':>12}{'kept / every':>14}")
    for i, (e, k) in enumerate(zip(every, kept, strict=True), 1):
        print(f"{i:<6}{e * 1000:17.1f}{k * 1000:12.1f}{k / e:14.3f}")
    print(f"same URLs: {urls_every == urls_kept}")


if __name__ == "__main__":
    main()
