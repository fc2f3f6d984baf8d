"""Per-execution diagnostics for hierarchical data (STATS.md §1, §5).

Warm-up: the first iterations of executions differing systematically from the
rest; dependence: lag-1 autocorrelation of iterations within executions (the
model assumes independent iterations); drift: the execution means trending in
the order they were recorded. Warnings at the 1% level, never data changes.
"""

from __future__ import annotations

import math

import numpy as np

from benchlab.notation import fmt_p
from benchlab.stats.diagnostics import ALPHA, Diagnostic, average_ranks
from benchlab.stats.distributions import normal_cdf, t_two_sided_p
from benchlab.stats.hierarchy import nested_codes


def _executions(values: np.ndarray, levels: list[np.ndarray]) -> list[np.ndarray]:
    """Each lowest-level unit's measurements in recorded order; units in order of appearance."""
    code = nested_codes(levels)[-1]
    _, first = np.unique(code, return_index=True)
    order = np.argsort(first)
    return [values[code == u] for u in order]


def warmup_iterations(runs: list[np.ndarray], max_check: int = 10) -> tuple[int, list[float]]:
    """How many leading iterations differ from the steady state (second half of each run).

    For position j, the deviations x_j − mean(second half) across executions are
    tested against zero with a t-test; the leading positions with p < 1% count.
    """
    usable = [r for r in runs if r.size >= 4]
    if len(usable) < 3:
        return 0, []
    count, pvalues = 0, []
    for j in range(min(max_check, min(r.size for r in usable) // 2)):
        d = np.array([r[j] - r[r.size // 2:].mean() for r in usable])
        sd = d.std(ddof=1)
        if sd == 0:
            p = 1.0 if d.mean() == 0 else 0.0
        else:
            p = t_two_sided_p(d.mean() / (sd / math.sqrt(d.size)), d.size - 1)
        pvalues.append(p)
        if p < ALPHA and count == j:
            count += 1
    return count, pvalues


def _unit_means_in_order(values: np.ndarray, levels: list[np.ndarray]
                         ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The lowest-level units' means in recorded order, with their parents' labels."""
    code = nested_codes(levels)[-1]
    _, first = np.unique(code, return_index=True)
    first = np.sort(first)
    sums = np.bincount(code, weights=values)
    means = sums / np.bincount(code)
    return means[code[first]], [np.asarray(lv)[first] for lv in levels[:-1]]


def diagnose_hierarchy(values: np.ndarray, levels: list[np.ndarray], name: str, *,
                       ordered: bool = True) -> list[Diagnostic]:
    """Warm-up, within-execution autocorrelation and drift warnings for one system.

    ordered=False: the measurements within each lowest-level unit are not in
    the order they were taken (JMH sample mode writes each iteration as a
    histogram, so its per-operation samples come sorted by value). Warm-up and
    autocorrelation need time order, so they would see the sorting, not the
    benchmark: they move one level up, onto the lowest units' means (JMH
    iterations within a fork, which are in time order), or are skipped when
    there is no level above. Drift of the unit means needs only their order.
    """
    x = np.asarray(values, dtype=float)
    if not ordered and len(levels) >= 2:
        x, levels = _unit_means_in_order(x, levels)
        ordered = True
    runs = _executions(x, levels)
    found: list[Diagnostic] = []
    warm, _ = warmup_iterations(runs) if ordered else (0, [])
    if warm:
        found.append(Diagnostic("warmup", f"{name}: the first {warm} iteration"
                                f"{'s' if warm > 1 else ''} of each execution differ from the "
                                f"rest (warm-up): discard {warm} per execution", float(warm)))
    # Lag-1 autocorrelation pooled within executions.
    # Demeaning within short executions biases r toward −1/m: under independence
    # E[Σ d_t d_{t+1}] = −σ²(m−1)/m and E[Σ d_t²] = σ²(m−1), so compare with that.
    num = den = 0.0
    null_num = null_den = 0.0
    pairs = 0
    for r in runs if ordered else []:
        if r.size >= 3:
            d = r - r.mean()
            num += float(np.sum(d[:-1] * d[1:]))
            den += float(np.sum(d * d))
            null_num -= (r.size - 1) / r.size
            null_den += r.size - 1
            pairs += r.size - 1
    if den > 0 and pairs >= 10:
        r1 = num / den
        z = (r1 - null_num / null_den) * math.sqrt(pairs)
        p = 2 * normal_cdf(-abs(z))
        if p < ALPHA:
            found.append(Diagnostic("autocorrelation", f"{name}: iterations within executions "
                                    f"are correlated (lag-1 r = {r1:.2f}, {fmt_p(p)}); the "
                                    "model assumes independent iterations", r1, p))
    means = np.array([r.mean() for r in runs])
    if means.size >= 8 and np.ptp(means) > 0:
        rk = average_ranks(means)
        idx = np.arange(means.size, dtype=float)
        rho = float(np.corrcoef(rk, idx)[0, 1])
        p = 0.0 if abs(rho) >= 1 else t_two_sided_p(
            rho * math.sqrt((means.size - 2) / (1 - rho * rho)), means.size - 2)
        if p < ALPHA:
            found.append(Diagnostic("drift", f"{name}: execution means drift "
                                    f"{'upward' if rho > 0 else 'downward'} in recorded order "
                                    f"(Spearman ρ = {rho:.2f}, {fmt_p(p)})", rho, p))
    return found
