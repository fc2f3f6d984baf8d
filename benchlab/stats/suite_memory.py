"""What a suite's bootstraps hold at once, counted before anything is drawn.

A suite of m benchmarks used to keep every benchmark's B replicate log-ratios for the
geometric mean and stack them (2·m·B doubles: 9.3 GB for 300 benchmarks and B = 2·10^6).
compare_suite now adds each benchmark's log-ratios into one running sum per candidate —
the same additions, in the same order, as the mean over the stacked rows, so the result
is unchanged — and keeps of a median suite's per-benchmark replicate ratios only the two
tails its family-wise intervals can read. What is left grows with B, not with m × B; it
is counted here and refused, before any draw, above BENCHLAB_MAX_MEMORY_MB
(benchlab/limits.py).
"""

from __future__ import annotations

from benchlab import limits
from benchlab.stats.bootstrap import tail_keep
from benchlab.stats.spec import DEFAULT_REPLICATES
from benchlab.stats.spec import statistic as statistic_of_name

_DOUBLE = 8


def tail_size(replicates: int, confidence: float) -> int:
    """Order statistics kept at each end of B sorted replicates for intervals at levels
    from `confidence` up (stats/bootstrap.tail_keep)."""
    return tail_keep(replicates, confidence)


def suite_bytes(*, benchmarks: int, systems: int, replicates: int, bootstrap: int | None,
                confidence: float, statistic: str, levels: bool) -> int:
    """The largest number of bytes compare_suite holds at once (an upper bound).

    systems: the most systems any benchmark has (candidates = systems − 1).
    - the geometric mean's running sums: one array of B doubles per candidate;
    - one benchmark's draws: B statistics per system, plus while one system is drawn
      up to 5 arrays of B (the median's order statistics) or 2 (a hierarchical mean
      and its SE²), plus the log-ratio being added and its quotient (2 arrays);
    - at the end the mean log-ratio, its exponential and their sort (3 arrays);
    - one comparison's own bootstrap at a time (`bootstrap` replicates, or 10,000 for
      the median's headline: 4 arrays, stats/bootstrap.bootstrap_ratio; 16 with
      levels, stats/hierarchical_bootstrap);
    - one benchmark's bootstrap intervals (of means and medians with `bootstrap`, the
      median's headline without) with all their sorted replicates, and a copy while a
      median suite takes their p-values; of every benchmark before, the two tails
      (tail_size) its intervals keep for .at() at the suite's confidence and above.
    """
    candidates = max(systems - 1, 1)
    strategy = statistic_of_name(statistic)
    drawing = strategy.drawing
    geomean = (candidates + systems + drawing + 2) * replicates
    final = (candidates + 3) * replicates
    own = bootstrap or (DEFAULT_REPLICATES if strategy.resamples else 0)
    intervals = 2 if bootstrap else 1 if strategy.resamples else 0
    held = ((16 if levels else 4) * own + (candidates * intervals + 1) * own
            + benchmarks * candidates * intervals * 2 * tail_size(own, confidence))
    return _DOUBLE * (max(geomean, final) + held)


def check_suite_memory(*, benchmarks: int, systems: int, replicates: int,
                       bootstrap: int | None, confidence: float, statistic: str,
                       levels: bool) -> None:
    """Refuse (UsageError, exit 2) a suite whose bootstraps would not fit the memory limit."""
    nbytes = suite_bytes(benchmarks=benchmarks, systems=systems, replicates=replicates,
                         bootstrap=bootstrap, confidence=confidence, statistic=statistic,
                         levels=levels)
    own = f", bootstrap={bootstrap:,}" if bootstrap else ""
    limits.check_memory(nbytes, f"the suite's bootstraps ({benchmarks:,} benchmarks, "
                        f"{systems:,} systems, replicates={replicates:,}{own})",
                        "lower {param} ", "bootstrap" if bootstrap else "replicates")
