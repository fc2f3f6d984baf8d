"""Apache Otava itself on the series of validation/history_otava.py (otava_series.py), for
the table of docs/history.md: Otava's change points with its defaults (window 50, p 0.001,
`otava.analysis.compute_change_points`), counted by the same rule (a change found when
one is reported within ±2 commits of it, a spike likewise; every other report a false
alarm). apache-otava 0.8 pins numpy 2.2.0, so it runs in an environment of its own:

    python3 -m venv /tmp/otava && /tmp/otava/bin/pip install apache-otava otava-test-data
    /tmp/otava/bin/python validation/history_otava_reference.py [--seed 28]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from otava_series import COMMITS, NEAR, generate  # noqa: E402


def main() -> None:
    from otava.analysis import compute_change_points

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=28)
    args = p.parse_args()
    start = time.perf_counter()
    table: dict[str, list[int]] = {}
    false = unchanged = 0
    for kind, values, cuts, spikes in generate(args.seed):
        found, _ = compute_change_points(values.tolist(), window_len=50, max_pvalue=0.001)
        where = [int(c.index) for c in found]
        truth = [*cuts, *spikes]
        row = table.setdefault(kind, [0, 0, 0])
        for c in truth:
            row[0] += any(abs(w - c) <= NEAR for w in where)
            row[1] += 1
        wrong = [w for w in where if not any(abs(w - c) <= NEAR for c in truth)]
        row[2] += len(wrong)
        false += len(wrong)
        unchanged += COMMITS - sum(min(c + NEAR, COMMITS - 1) - max(c - NEAR, 0) + 1
                                   for c in truth)
    print(f"Apache Otava (compute_change_points, window 50, p 0.001) on the otava-test-data "
          f"series of history_otava.py, seed {args.seed}\n")
    print(f"{'series':<28} {'found':>9} {'false':>6}")
    for kind, (hit, total, wrong) in table.items():
        print(f"{kind:<28} {hit:>4}/{total:<4} {wrong:>6}")
    print(f"\nfalse alarms: {false} in {unchanged} unchanged commits "
          f"({1e4 * false / unchanged:.2f} per 10,000)\n\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
