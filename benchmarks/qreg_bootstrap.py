"""`qreg`'s bootstrap of a saturated model alone: the two-level search against the one-pass
implementation it replaced (kept here as the reference), same data, same process.

What it measures
    `benchlab.stats.qreg_bootstrap.saturated_replicates` on the 2^4 latency design of
    benchmarks/qreg.py (10^6 rows; 16 cells × 50 runs of 1,250 values) at the 10
    default quantiles, 200 replicates, resampling runs within cells (`--cluster run`,
    as in benchmarks/read_csv.py) and, with --rows-too, rows within cells (`--se boot`).
    "old" gathers the run weights onto every row (an (m, n) array), takes their
    cumulative sum and searches it once per replicate; "new" searches the block sums
    first and sums the weights inside one block per target. Both start from the same
    seed, and the script checks that their replicates are bitwise equal.
    Median of --repeats runs each (alternating old and new), with the spread.

Goal (issue 15, benchmarks/README.md's read_csv.py entry)
    The bootstrap was about 2 s of the 4.47 s of `qreg --cluster run` on 10^6 rows,
    against a goal of under 4 s for the whole command: the new search should take a
    small fraction of the old one's time.

Run
    python3 benchmarks/qreg_bootstrap.py [--rows 1000000] [--replicates 200]
                                         [--repeats 3] [--rows-too]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from qreg import latency_design  # noqa: E402

from benchlab.stats import qreg_bootstrap  # noqa: E402
from benchlab.stats.coding import yates_terms  # noqa: E402
from benchlab.stats.qreg import DEFAULT_TAUS  # noqa: E402
from benchlab.stats.qreg_design import build_model, type1_positions  # noqa: E402

_OLD_BLOCK_CELLS = 2_000_000


def old_block(rng: np.random.Generator, m: int, ys: np.ndarray, row_group: np.ndarray,
              group_cell: np.ndarray, n_cells: int, cell_start: np.ndarray,
              cell_end: np.ndarray, taus: np.ndarray, inverse_cells: np.ndarray) -> np.ndarray:
    """The replaced `_saturated_block`: an (m, n) cumulative sum and a search per replicate."""
    n = len(ys)
    counts = qreg_bootstrap._draw_counts(rng, group_cell, n_cells, m)
    largest = int(np.bincount(row_group).max()) if n else 0
    dtype = np.int32 if n * max(largest, 1) < 2**31 else np.int64
    cum = np.cumsum(counts.astype(dtype)[:, row_group], axis=1, dtype=dtype)  # (m, n)
    before = np.where(cell_start > 0, cum[:, np.maximum(cell_start - 1, 0)], 0)
    totals = cum[:, cell_end - 1] - before
    ranks = type1_positions(totals.ravel(), taus).reshape(m, n_cells, len(taus)) + 1
    targets = before[:, :, None] + ranks
    where = np.stack([np.searchsorted(cum[i], targets[i].ravel(), side="left")
                      for i in range(m)]).ravel() % n
    q = ys[where].reshape(m, n_cells, len(taus))
    return np.einsum("pc,mct->mtp", inverse_cells, q)


def old_replicates(model, taus: np.ndarray, replicates: int, rng: np.random.Generator,
                   cluster: np.ndarray | None) -> np.ndarray:
    """The replaced `saturated_replicates` (blocks of 2,000,000 / n replicates)."""
    n_cells = model.cell_matrix.shape[0]
    order = np.lexsort((model.y, model.cell))
    ys, cs = model.y[order], model.cell[order]
    group, group_cell = qreg_bootstrap._groups(model.cell, cluster)
    row_group = group[order]
    cell_end = np.cumsum(np.bincount(cs, minlength=n_cells))
    cell_start = cell_end - np.bincount(cs, minlength=n_cells)
    inverse_cells = np.linalg.inv(model.cell_matrix)
    out = np.empty((replicates, len(taus), model.p))
    block = max(1, _OLD_BLOCK_CELLS // len(ys))
    for first in range(0, replicates, block):
        m = min(block, replicates - first)
        out[first:first + m] = old_block(rng, m, ys, row_group, group_cell, n_cells,
                                         cell_start, cell_end, taus, inverse_cells)
    return out


def compare(model, cluster: np.ndarray | None, replicates: int, repeats: int) -> dict:
    """Median seconds of old and new, alternating, and whether their replicates are equal."""
    taus = np.asarray(DEFAULT_TAUS)
    times: dict[str, list[float]] = {"old": [], "new": []}
    outputs = {}
    for _ in range(repeats):
        for name, fn in (("old", old_replicates),
                         ("new", qreg_bootstrap.saturated_replicates)):
            start = time.perf_counter()
            outputs[name] = fn(model, taus, replicates, np.random.default_rng(1), cluster)
            times[name].append(time.perf_counter() - start)
    return {name: (statistics.median(t), min(t), max(t)) for name, t in times.items()} | {
        "equal": bool(np.array_equal(outputs["old"], outputs["new"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows-too", action="store_true",
                        help="also resample rows within cells (no run column)")
    args = parser.parse_args()
    y, codes, run = latency_design(args.rows)
    model = build_model(y, codes, [2] * 4, yates_terms(4), list("abcd"), [("0", "1")] * 4)
    print(f"saturated 2^4 model, {model.n:,} rows, {len(DEFAULT_TAUS)} quantiles, "
          f"{args.replicates} replicates, median of {args.repeats}")
    cases = [("runs within cells (--cluster run)", run)]
    if args.rows_too:
        cases.append(("rows within cells (--se boot)", None))
    for label, cluster in cases:
        result = compare(model, cluster, args.replicates, args.repeats)
        old, new = result["old"], result["new"]
        print(f"  {label}")
        for name, (median, low, high) in (("old", old), ("new", new)):
            print(f"    {name}  {median:7.3f} s  ({low:.3f}–{high:.3f})")
        print(f"    speed-up {old[0] / new[0]:.1f}×; replicates bitwise equal: "
              f"{'yes' if result['equal'] else 'NO'}")
        if not result["equal"]:
            raise SystemExit("the new replicates differ from the old ones")


if __name__ == "__main__":
    main()
