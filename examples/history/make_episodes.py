"""Write episodes.csv, the history of docs/history.md's short changes: 80 commits × 3 runs
of three benchmarks, 1% noise per run (0.6% between commits): `sort` 8% slower for the 6
commits from c040 and then fixed, `parse` with one commit 25% slower (c060), `load` 6%
slower in the last 2 commits. Seeded."""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
COMMITS = 80


def level(bench: str, c: int) -> float:
    if bench == "sort":
        return 1.08 if 40 <= c < 46 else 1.0
    if bench == "parse":
        return 0.25 * (1.25 if c == 60 else 1.0)
    return 0.5 * (1.06 if c >= COMMITS - 2 else 1.0)


def main() -> None:
    rng = np.random.default_rng(28)
    lines = ["commit,benchmark,run,time"]
    for c in range(COMMITS):
        for bench in ("sort", "parse", "load"):
            commit = level(bench, c) * (1.0 + rng.normal(0, 0.006))
            lines += [f"c{c:03d},{bench},{run},{commit * (1 + rng.normal(0, 0.008)):.6f}"
                      for run in range(3)]
    (HERE / "episodes.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
