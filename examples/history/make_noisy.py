"""Write examples/history/noisy-head.csv for docs/history.md ("A head noisier than its
baseline"): a head commit of past.csv's history (make.py) whose `parse` runs vary about
four times as much as before (each run shifted by N(0, 2%), as a change that adds
run-to-run noise would) at an unchanged level, and whose `sort` is as before. Seeded."""

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(1414)
    lines = ["benchmark,run,time"]
    for bench, mean, run_sd in (("sort", 1.05, 0.0), ("parse", 0.25, 0.02)):
        for run in range(5):
            shift = 1.0 + rng.normal(0, run_sd) if run_sd else 1.0
            lines += [f"{bench},{run},{x:.6f}"
                      for x in mean * shift * (1 + rng.normal(0, 0.008, 2))]
    (HERE / "noisy-head.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
