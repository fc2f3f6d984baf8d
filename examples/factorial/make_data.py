"""Simulate the example factorial data (run from the repository root).

    python3 examples/factorial/make_data.py

results.csv — the plan of `benchlab design --factor sched=BFS,CFS --factor
machine=core2,p4 --factor vmstat=off,on --factor load=compile,encode
--replicates 5 --seed 7` with two responses added, drawn with
numpy.random.default_rng(2013) in run order (x = -1 for the first level, +1
for the second):

- time (s), end-to-end time, after de Oliveira et al.'s Table 3:
  200 + 78.6 machine + 12.0 load + 3.1 sched + 3.0 vmstat + 19.7 machine:load
  + 3.1 machine:sched + 3.0 machine:vmstat + 2.0 load:sched + 1.7 load:vmstat
  + normal noise (sd 2.8), rounded to 0.01 s;
- latency (us), one latency sample per run: 900 + 150 machine + an exponential
  tail whose mean is 400 us, times 4 on the p4 and times 2 under CFS, rounded
  to 1 us — skewed, with a spread that grows with the mean.

latency.csv — the same plan, with 200 latency samples (us) per run, as a
latency benchmark writes them (one row per request; `run` is the cluster):
900 + 150 machine + a run offset normal(0, 15) + an exponential tail whose
mean is 300 us, times 4 on the p4, times 2 under CFS and times 1.5 with
vmstat on; load does not matter; rounded to 1 us; drawn with
numpy.random.default_rng(2015) in run order. The factors move the tail, not
the median alone: the case for `benchlab qreg`.

jitter.csv — Nogueira et al.-style execution times of four treatments (35 runs
each, seconds, rounded to 0.001): T1 normal(600, 0.8); T2 normal(600.3, 0.8);
T3 = 605 + gamma(shape 2, scale 1.5); T4 = 605.5 + gamma(2, 1.5); drawn with
numpy.random.default_rng(2014), treatment by treatment.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchlab.design.factorial import full_factorial, parse_factor
from benchlab.report.design import plan_csv

HERE = Path(__file__).resolve().parent


def results() -> str:
    design = full_factorial([parse_factor(t) for t in (
        "sched=BFS,CFS", "machine=core2,p4", "vmstat=off,on", "load=compile,encode")],
        replicates=5, seed=7)
    rng = np.random.default_rng(2013)
    lines = plan_csv(design).splitlines()
    header = lines.index("run,id,sched,machine,vmstat,load,replicate")
    out = lines[:header] + [lines[header] + ",time,latency"]
    for run, line in zip(design.runs, lines[header + 1:], strict=True):
        s, m, v, ld = (2 * f.levels.index(x) - 1 for f, x in zip(design.factors, run.levels,
                                                                 strict=True))
        time = (200 + 78.6 * m + 12.0 * ld + 3.1 * s + 3.0 * v + 19.7 * m * ld + 3.1 * m * s
                + 3.0 * m * v + 2.0 * ld * s + 1.7 * ld * v + rng.normal(0, 2.8))
        tail = 400 * (4.0 if m > 0 else 1.0) * (2.0 if s > 0 else 1.0)
        latency = 900 + 150 * m + rng.exponential(tail)
        out.append(f"{line},{time:.2f},{latency:.0f}")
    return "\n".join(out) + "\n"


def latency(samples_per_run: int = 200) -> str:
    design = full_factorial([parse_factor(t) for t in (
        "sched=BFS,CFS", "machine=core2,p4", "vmstat=off,on", "load=compile,encode")],
        replicates=5, seed=7)
    rng = np.random.default_rng(2015)
    lines = plan_csv(design).splitlines()
    header = lines.index("run,id,sched,machine,vmstat,load,replicate")
    out = lines[:header] + [lines[header] + ",latency"]
    for run, line in zip(design.runs, lines[header + 1:], strict=True):
        s, m, v, _ = (2 * f.levels.index(x) - 1 for f, x in zip(design.factors, run.levels,
                                                                strict=True))
        tail = 300 * (4.0 if m > 0 else 1.0) * (2.0 if s > 0 else 1.0) * (1.5 if v > 0 else 1.0)
        values = 900 + 150 * m + rng.normal(0, 15) + rng.exponential(tail, samples_per_run)
        out.extend(f"{line},{x:.0f}" for x in values)
    return "\n".join(out) + "\n"


def jitter() -> str:
    rng = np.random.default_rng(2014)
    groups = {"T1": rng.normal(600, 0.8, 35), "T2": rng.normal(600.3, 0.8, 35),
              "T3": 605 + rng.gamma(2, 1.5, 35), "T4": 605.5 + rng.gamma(2, 1.5, 35)}
    rows = ["treatment,time"] + [f"{g},{x:.3f}" for g, xs in groups.items() for x in xs]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    (HERE / "results.csv").write_text(results())
    (HERE / "latency.csv").write_text(latency())
    (HERE / "jitter.csv").write_text(jitter())
