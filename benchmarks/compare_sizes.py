"""`benchlab compare` at the sizes real tools produce (issue 19): each in a few seconds.

What it measures
    Fresh-process wall time (median of --repeats) of `benchlab compare a b` on two
    plain files of 600, 2,000 and 100,000 lognormal values (hyperfine --runs 600, a
    pytest-benchmark run of a fast function, a long iteration log), of `--paired`
    on 1,100 and 100,000 pairs (a CSV), and of `--levels build,run` on 100,000
    values per system (10 builds × 10 runs). Beside each, the reference in the same
    script: a fresh interpreter that reads the same files with numpy and runs
    scipy.stats.ttest_ind (or ttest_rel), so the ratio says what benchlab costs
    beyond reading and one t-test on this machine at this moment.
    In one process: the Hodges–Lehmann pseudomedian and CI bounds of 100,000 paired
    differences (Wilcoxon signed-rank, the paired default) with the bracket gathered
    (now) against bisection to the float resolution (before; _GATHER = 0).

Goal (issue 19)
    Every command exits 0 "in a few seconds" (taken as < 5 s on an idle machine).

Run
    python3 benchmarks/compare_sizes.py [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _peak import benchlab, median_of, python_code, row  # noqa: E402

GOAL_SECONDS = 5.0
FLAT_REFERENCE = ("import sys, numpy as np; from scipy import stats; "
                  "a, b = (np.loadtxt(p) for p in sys.argv[1:3]); "
                  "stats.ttest_ind(b, a, equal_var=False)")
PAIRED_REFERENCE = ("import sys, numpy as np; from scipy import stats; "
                    "t = np.loadtxt(sys.argv[1], delimiter=',', skiprows=1, usecols=(1, 2)); "
                    "n = t.shape[0] // 2; stats.ttest_rel(t[n:, 1], t[:n, 1])")


def write_plain(path: Path, values: np.ndarray) -> str:
    path.write_text("\n".join(f"{v:.6f}" for v in values.tolist()) + "\n")
    return str(path)


def write_table(path: Path, base: np.ndarray, cand: np.ndarray, builds: int = 0,
                runs: int = 0) -> str:
    """Long CSV: system, pair (the index), value[, build, run]."""
    i = np.arange(base.size)
    lines = ["system,pair,value" + (",build,run" if builds else "")]
    for name, values in (("A", base), ("B", cand)):
        extra = ([f",{b},{r}" for b, r in zip(i % builds, (i // builds) % runs, strict=True)]
                 if builds else [""] * values.size)
        lines += [f"{name},{k},{v:.6f}{e}" for k, v, e in zip(i.tolist(), values.tolist(), extra,
                                                            strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def hodges_lehmann_paths(n: int, repeats: int) -> dict:
    """Seconds of the signed-rank test's pseudomedian and CI on n differences, both paths."""
    from benchlab.stats import classic_tests, pairwise

    d = np.random.default_rng(5).normal(0.1, 1.0, n)
    out: dict[str, list[float]] = {"gathered": [], "bisection": []}
    results = {}
    for _ in range(repeats):  # alternating, so drift in the machine's load hits both
        for name, gather in (("gathered", pairwise._GATHER), ("bisection", 0)):
            old = pairwise._GATHER
            pairwise._GATHER = gather
            try:
                start = time.perf_counter()
                r = classic_tests.wilcoxon_signed_rank(d)
                out[name].append(time.perf_counter() - start)
            finally:
                pairwise._GATHER = old
            results[name] = (r.estimate, r.low, r.high)
    same = all(abs(x - y) <= 1e-12 * abs(y) for x, y in
               zip(results["gathered"], results["bisection"], strict=True))
    return {name: statistics.median(v) for name, v in out.items()} | {"same": same}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(19)
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cases = []
        for n in (600, 2000, 100_000):
            a = write_plain(d / f"a{n}.txt", rng.lognormal(0, 0.1, n))
            b = write_plain(d / f"b{n}.txt", rng.lognormal(0.01, 0.1, n))
            cases.append((f"compare a b, {n:,} values each", benchlab("compare", a, b),
                          python_code(FLAT_REFERENCE) + [a, b]))
        for n in (1100, 100_000):
            base = rng.lognormal(0, 0.1, n)
            path = write_table(d / f"p{n}.csv", base, base * rng.lognormal(0.01, 0.02, n))
            cases.append((f"compare --paired, {n:,} pairs",
                          benchlab("compare", path, "--by", "system", "--value", "value",
                                   "--paired", "--pair-by", "pair"),
                          python_code(PAIRED_REFERENCE) + [path]))
        n = 100_000
        path = write_table(d / "levels.csv", rng.lognormal(0, 0.1, n),
                           rng.lognormal(0.01, 0.1, n), builds=10, runs=10)
        cases.append(("compare --levels build,run, 100,000 each",
                      benchlab("compare", path, "--by", "system", "--value", "value",
                               "--levels", "build,run"),
                      python_code(PAIRED_REFERENCE) + [path]))
        for label, argv, reference in cases:
            ours, ref = median_of(argv, args.repeats), median_of(reference, args.repeats)
            found[label] = {"benchlab": ours, "reference": ref,
                            "ratio": ours["seconds"] / ref["seconds"]}
    found["hodges_lehmann_100000"] = hodges_lehmann_paths(100_000, args.repeats)
    if args.json:
        print(json.dumps(found, indent=2))
        return
    print(f"median of {args.repeats}; reference: numpy reads the file + one scipy t-test")
    for label, r in found.items():
        if label.startswith("hodges"):
            continue
        ok = "met" if r["benchlab"]["seconds"] < GOAL_SECONDS else "MISSED"
        print(row(label, r["benchlab"], f"{r['ratio']:.1f}x reference "
                  f"({r['reference']['seconds']:.2f} s); goal < {GOAL_SECONDS:g} s: {ok}"))
    h = found["hodges_lehmann_100000"]
    print(f"  Wilcoxon signed-rank + Hodges-Lehmann, 100,000 pairs (in process): gathered "
          f"{h['gathered']:.2f} s, bisection to float resolution {h['bisection']:.2f} s "
          f"({h['bisection'] / h['gathered']:.1f}x); same bounds: {h['same']}")


if __name__ == "__main__":
    main()
