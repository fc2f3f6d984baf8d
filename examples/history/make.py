"""Write the example history of docs/history.md: past.csv (30 commits, `sort` 5% slower
from commit c020), head.csv (a head commit whose `parse` is 4% slower) and parent.csv
(one commit at the level before head.csv, the parent of the one-parent PR check).
Seeded; parent.csv has a stream of its own, so the other two stay as they were."""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(14)
    lines = ["commit,date,benchmark,run,time"]
    for c in range(30):
        for bench, mean in (("sort", 1.0 if c < 20 else 1.05), ("parse", 0.25)):
            commit = 1.0 + rng.normal(0, 0.006)
            for run in range(3):
                for x in mean * commit * (1.0 + rng.normal(0, 0.008, 2)):
                    lines.append(f"c{c:03d},2024-05-{1 + c // 2:02d}T{8 + 2 * (c % 2):02d}"
                                 f":00:00Z,{bench},{run},{x:.6f}")
    (HERE / "past.csv").write_text("\n".join(lines) + "\n")
    lines = ["benchmark,run,time"]
    for bench, mean in (("sort", 1.05), ("parse", 0.26)):
        for run in range(3):
            lines += [f"{bench},{run},{x:.6f}" for x in mean * (1 + rng.normal(0, 0.008, 2))]
    (HERE / "head.csv").write_text("\n".join(lines) + "\n")
    rng = np.random.default_rng(15)
    lines = ["benchmark,run,time"]
    for bench, mean in (("sort", 1.05), ("parse", 0.25)):
        for run in range(3):
            lines += [f"{bench},{run},{x:.6f}" for x in mean * (1 + rng.normal(0, 0.008, 2))]
    (HERE / "parent.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
