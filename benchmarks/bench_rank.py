"""Speed of rrmap.rank on the sizes named in its design: prints times and ratios.

    python benchmarks/bench_rank.py [--seed 0]

* Bradley–Terry on 100,000 comparisons among 50 candidates, against choix
  (``ilsr_pairwise``) and a statsmodels logit GLM on the ±1 design, same data;
* the bootstrap (1,000 resamples, Bradley–Terry and Davidson with 10 % ties)
  on the same 100,000 comparisons, whole ``rrmap rank fit --bootstrap 1000``
  CLI runs included, with one choix fit of the same data as the yardstick
  (the target: under 10 s on 2 cores), and the per-instance FineArtBench
  rankings bootstrapped (many small groups, most resamples without an MLE);
* Elo on the same data, 100 shuffled orders, against a plain one-comparison-
  at-a-time Python loop over the same orders;
* split-half alignment on FineArtBench's global comparisons (200 splits, 400
  Bradley–Terry fits of about 1,000 comparisons: the per-call cost of a fit),
  against choix fitting the same 400 halves (scores only, ties left out);
* minimum feedback arc sets on 250 instances of 10 candidates with 20
  comparisons each (the FineArtBench per-instance design): exact dynamic
  programme against the Eades–Lin–Smyth heuristic (time, and how often the
  heuristic is optimal).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def _timed(fn, repeat: int = 1):
    best = np.inf
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _comparisons(n: int, k: int, rng: np.random.Generator):
    theta = rng.normal(scale=1.0, size=k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    win = rng.random(n) < p
    names = np.array([f"m{i:02d}" for i in range(k)])
    df = pd.DataFrame(
        {
            "instance": "all",
            "left": names[left],
            "right": names[right],
            "winner": np.where(win, "left", "right"),
        }
    )
    return df, left, right, win


def bench_bradley_terry(df, left, right, win, k):
    import choix
    import statsmodels.api as sm

    from rrmap.rank import fit_bradley_terry

    t_ours, fit = _timed(lambda: fit_bradley_terry(df), repeat=3)
    data = [(a, b) if w else (b, a) for a, b, w in zip(left, right, win, strict=True)]
    t_choix, ref = _timed(lambda: choix.ilsr_pairwise(k, data, alpha=0.0, tol=1e-10))
    x = np.zeros((len(left), k))
    x[np.arange(len(left)), left] = 1.0
    x[np.arange(len(left)), right] = -1.0
    t_glm, glm = _timed(
        lambda: sm.GLM(win.astype(float), x[:, 1:], family=sm.families.Binomial()).fit()
    )
    score = fit.table["score"].to_numpy()
    ref = ref - ref.mean()
    print(f"Bradley-Terry, {len(df):,} comparisons, {k} candidates")
    print(f"  rrmap fit_bradley_terry (MLE + covariance): {t_ours:8.3f} s")
    print(f"  choix ilsr_pairwise (scores only):          {t_choix:8.3f} s  "
          f"ratio {t_choix / t_ours:6.1f}x")  # fmt: skip
    print(f"  statsmodels GLM logit (scores + se):        {t_glm:8.3f} s  "
          f"ratio {t_glm / t_ours:6.1f}x")  # fmt: skip
    print(f"  max |score - choix|: {np.max(np.abs(score - ref)):.2e}; "
          f"max |diff vs GLM|: {np.max(np.abs(score[1:] - score[0] - glm.params)):.2e}")  # fmt: skip


def bench_bootstrap(df, left, right, win, k, seed):
    import os
    import subprocess
    import sys
    import tempfile

    import choix

    from rrmap.rank import fit_bradley_terry

    data = [(a, b) if w else (b, a) for a, b, w in zip(left, right, win, strict=True)]
    t_choix, _ = _timed(lambda: choix.ilsr_pairwise(k, data, alpha=0.0, tol=1e-10))
    rng = np.random.default_rng(seed + 1)
    with_ties = df.assign(winner=np.where(rng.random(len(df)) < 0.1, "tie", df["winner"]))
    print(f"Bootstrap, 1,000 resamples, {len(df):,} comparisons, {k} candidates "
          f"(yardstick: one choix ilsr_pairwise fit, {t_choix:.3f} s)")  # fmt: skip
    for label, frame, model in (("Bradley-Terry", df, "bradley-terry"),
                                ("Davidson, 10 % ties", with_ties, "davidson")):  # fmt: skip
        t, fit = _timed(lambda f=frame, m=model: fit_bradley_terry(f, model=m, bootstrap=1000,
                                                                   rng=0))  # fmt: skip
        print(f"  {label:<22} fit_bradley_terry(bootstrap=1000): {t:7.2f} s = "
              f"{t / t_choix:6.1f} choix fits; resamples without MLE: "
              f"{fit.fits['n_bootstrap_no_mle'].iloc[0]}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prefs.csv")
        with_ties.to_csv(path, index=False)
        for model in ("bt", "davidson"):
            cmd = [sys.executable, "-m", "rrmap.cli", "rank", "fit", path, "--model", model,
                   "--bootstrap", "1000", "--seed", "0", "-q", "-o", os.path.join(tmp, "o.csv"),
                   "--force"]  # fmt: skip
            t, _ = _timed(lambda c=cmd: subprocess.run(c, check=True, capture_output=True))
            print(f"  rrmap rank fit --model {model:<8} --bootstrap 1000 (whole CLI run): "
                  f"{t:6.2f} s = {t / t_choix:6.1f} choix fits")  # fmt: skip


def bench_per_instance_bootstrap() -> None:
    """FineArtBench per-instance rankings: 78 small groups, each bootstrapped 1,000 times."""
    from pathlib import Path

    from rrmap.rank import fit_bradley_terry, read_fineartbench

    path = (
        Path(__file__).resolve().parents[1] / "data" / "fineartbench" / "instance_annotation.json"
    )
    comparisons = read_fineartbench(path).comparisons
    t, fit = _timed(lambda: fit_bradley_terry(comparisons, by="instance", bootstrap=1000, rng=0))
    print(f"  FineArtBench per instance, {len(fit.fits)} groups x 1,000 resamples: {t:7.2f} s "
          f"({int(fit.fits['n_bootstrap_no_mle'].sum()):,} resamples without MLE, penalised)")  # fmt: skip


def _plain_elo(left, right, s_left, k_cand, k=32.0, initial=1500.0, scale=400.0):
    r = [initial] * k_cand
    for a, b, s in zip(left.tolist(), right.tolist(), s_left.tolist(), strict=True):
        e = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / scale))
        r[a] += k * (s - e)
        r[b] -= k * (s - e)
    return r


def bench_elo(df, left, right, win, k, seed):
    from rrmap._util.streams import Streams
    from rrmap.rank import fit_elo

    b = 100
    t_ours, fit = _timed(lambda: fit_elo(df, n_shuffles=b, rng=seed))
    gen = Streams(seed).generator("orders", "elo", "", "")  # the stream of fit_elo's orders
    orders = gen.permuted(np.broadcast_to(np.arange(len(df)), (b, len(df))), axis=1)
    s = win.astype(float)
    t_plain, plain = _timed(lambda: [_plain_elo(left[o], right[o], s[o], k) for o in orders])
    ours = fit.ratings.pivot(index="shuffle", columns="candidate", values="rating").to_numpy()
    print(f"Elo, {len(df):,} comparisons, {k} candidates, {b} shuffled orders")
    print(f"  rrmap fit_elo (orders vectorised):          {t_ours:8.3f} s")
    print(f"  plain Python loop over the same orders:     {t_plain:8.3f} s  "
          f"ratio {t_plain / t_ours:6.1f}x")  # fmt: skip
    print(f"  max |rating - plain loop|: {np.max(np.abs(ours - np.array(plain))):.2e}")
    print(f"  mean spread over orders: {fit.table['spread'].mean():.1f} rating points")


def bench_fas(seed):
    from rrmap.rank import filter_nontransitive, minimum_feedback_arc_set, sample_per_instance

    rng = np.random.default_rng(seed)
    cands = [f"m{i}" for i in range(10)]
    design = sample_per_instance([f"i{j}" for j in range(250)], cands, 20, rng=rng)
    strength = rng.normal(size=10)
    idx = {c: i for i, c in enumerate(cands)}
    d = strength[design["left"].map(idx).to_numpy()] - strength[design["right"].map(idx).to_numpy()]
    noisy = rng.random(len(design)) < 1 / (1 + np.exp(-d))
    df = design.assign(winner=np.where(noisy, "left", "right"))
    arcs = [
        [(a, b) if w == "left" else (b, a) for a, b, w in zip(g.left, g.right, g.winner,
                                                              strict=True)]
        for _, g in df.groupby("instance")
    ]  # fmt: skip
    t_exact, exact = _timed(lambda: [minimum_feedback_arc_set(a, method="exact") for a in arcs])
    t_eades, eades = _timed(lambda: [minimum_feedback_arc_set(a, method="eades") for a in arcs])
    t_filter, res = _timed(lambda: filter_nontransitive(df, eta=0.15))
    optimal = np.mean([x.size == y.size for x, y in zip(exact, eades, strict=True)])
    excess = np.sum([y.size - x.size for x, y in zip(exact, eades, strict=True)])
    print("Minimum feedback arc set, 250 instances x 10 candidates x 20 comparisons")
    print(f"  exact (subset DP), all instances:           {t_exact:8.3f} s")
    print(f"  Eades-Lin-Smyth heuristic:                  {t_eades:8.3f} s  "
          f"ratio exact/eades {t_exact / t_eades:6.1f}x")  # fmt: skip
    print(f"  heuristic optimal on {optimal:.0%} of instances; {excess:.0f} extra arcs in total")
    print(f"  filter_nontransitive (aggregate + exact FAS + report): {t_filter:8.3f} s; "
          f"{int(res.instances['dropped'].sum())} of 250 instances dropped at eta=0.15")  # fmt: skip


def bench_split_half(seed: int) -> None:
    """200 split halves of FineArtBench's global comparisons: many fits of ~1,000 rows."""
    from pathlib import Path

    import choix

    from rrmap.rank import fit_bradley_terry, read_fineartbench, split_half_alignment

    path = Path(__file__).resolve().parents[1] / "data" / "fineartbench" / "global_annotation.json"
    comparisons = read_fineartbench(path).comparisons
    t_ours, halves = _timed(
        lambda: split_half_alignment(
            comparisons, lambda d: fit_bradley_terry(d).table, n_splits=200, rng=seed
        )
    )
    rng = np.random.default_rng(seed)
    names = {c: i for i, c in enumerate(pd.unique(comparisons[["left", "right"]].values.ravel()))}
    decided = comparisons[comparisons["winner"] != "tie"]
    pairs = [
        (names[a], names[b]) if w == "left" else (names[b], names[a])
        for a, b, w in zip(decided["left"], decided["right"], decided["winner"], strict=True)
    ]
    masks = [rng.random(len(pairs)) < 0.5 for _ in range(200)]
    t_choix, _ = _timed(
        lambda: [
            choix.ilsr_pairwise(len(names), [p for p, m in zip(pairs, side, strict=True) if m],
                                alpha=0.01)
            for mask in masks
            for side in (mask, ~mask)
        ]
    )  # fmt: skip
    print(f"Split-half alignment, FineArtBench global ({len(comparisons):,} comparisons)")
    print(f"  rrmap split_half_alignment, 200 splits (400 fits + rho): {t_ours:7.2f} s "
          f"(mean rho {halves['rho'].mean():.4f})")  # fmt: skip
    print(f"  choix ilsr_pairwise on 400 halves (scores only):        {t_choix:7.2f} s  "
          f"ratio {t_choix / t_ours:5.2f}x")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    k = 50
    df, left, right, win = _comparisons(100_000, k, rng)
    bench_bradley_terry(df, left, right, win, k)
    bench_bootstrap(df, left, right, win, k, args.seed)
    bench_per_instance_bootstrap()
    bench_elo(df, left, right, win, k, args.seed)
    bench_split_half(args.seed)
    bench_fas(args.seed)


if __name__ == "__main__":
    main()
