"""The random-effects hierarchy of Kalibera & Jones (STATS.md §5–6).

Measurements nest in executions (runs), runs in builds, and so on. Each
level adds variance; only the top-level unit means carry the uncertainty of
the grand mean. This module estimates the variance components (the unbiased
moment estimators S_i², T_i²), the CI of one system's mean, and the optimal
repetition counts for the next experiment.

Written by hand: no maintained Python library offers the Kalibera–Jones
estimators and planning; lme4-style REML (statsmodels MixedLM) answers a
different question, and the tests cross-check against R's lme4 on balanced
data, where the two agree.

Levels are numbered as in the paper: 1 is the measurement, n the top level.
Arrays are ordered highest level first to match the data's level columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from benchlab.errors import InputError, ParameterError
from benchlab.result import Result
from benchlab.stats.distributions import critical_t


class LevelError(ParameterError):
    """A level whose variance cannot be estimated; `sample` names the data it is about, so the
    caller can say which file that is. Its `{param}` is the levels parameter (the command
    line's --levels)."""

    def __init__(self, template: str, sample: str) -> None:
        super().__init__(template, "levels")
        self.sample = sample


@dataclass(frozen=True)
class LevelComponent:
    """One level's variance component.

    repetitions: r_i, children per unit at this level (for the top level, the
    number of top-level units); averaged when unbalanced.
    s2: S_i², the mean within-unit variance of this level's child means.
    t2: T_i², the unbiased estimate of the variance this level adds (may be < 0).
    relative_sd: sqrt(max(T_i², 0)) / grand mean.
    share: this level's share of the variance of the grand mean.
    droppable: T_i² ≤ 0 for a level between the top and the measurement — it adds
    no detectable variation and could be merged into the level above (never the
    top level, whose means give the CI, nor the measurement).
    """

    name: str
    repetitions: float
    s2: float
    t2: float
    relative_sd: float
    share: float
    droppable: bool


@dataclass(frozen=True)
class HierarchySummary(Result):
    """Grand mean with its CI and the per-level variance components (highest level first)."""

    name: str
    n: int
    grand_mean: float
    low: float
    high: float
    confidence: float
    df: float
    top_units: int
    top_means: np.ndarray
    components: tuple[LevelComponent, ...]
    balanced: bool
    warnings: tuple[str, ...]

    @property
    def top_variance(self) -> float:
        """S_n², the variance of the top-level unit means."""
        return self.components[0].s2


def _label_codes(labels: np.ndarray) -> np.ndarray:
    """Integer ids of string labels: identity is the exact text ("1.1", "1.10" and "01" are
    three units); only the order of the ids is numeric when every label is a number (build 2
    before build 10), with the text breaking ties between equal numbers.

    Factorized through a dict (first appearance), then only the distinct labels are sorted:
    np.unique sorts every label's text, 3x slower at 10^5 labels."""
    seen: dict[str, int] = {}
    first = np.fromiter((seen.setdefault(label, len(seen)) for label in labels.tolist()),
                        dtype=np.int64, count=labels.size)
    keys = np.array(list(seen), dtype=labels.dtype if labels.size else str)
    by_text = np.argsort(keys, kind="stable")
    text_rank = np.empty(keys.size, dtype=np.int64)
    text_rank[by_text] = np.arange(keys.size)
    distinct, local = keys[by_text], text_rank[first]
    try:
        numbers = distinct.astype(float)
    except ValueError:
        return local.reshape(-1).astype(np.int64)
    rank = np.empty(distinct.size, dtype=np.int64)
    rank[np.lexsort((distinct, numbers))] = np.arange(distinct.size)
    return rank[local.reshape(-1)]


def nested_codes(levels: list[np.ndarray]) -> list[np.ndarray]:
    """Integer unit ids per depth: labels nest in their parent (run 1 of build 1 ≠ of build 2)."""
    codes = []
    prev = np.zeros(len(levels[0]), dtype=np.int64)
    for column in levels:
        local = _label_codes(np.asarray(column).astype(str))
        # (parent, label) pairs as one integer, in the pairs' lexicographic order
        key = prev * (int(local.max(initial=0)) + 1) + local.astype(np.int64)
        _, code = np.unique(key, return_inverse=True)
        prev = code.reshape(-1).astype(np.int64)
        codes.append(prev)
    return codes


def _typical_count(counts: np.ndarray) -> float:
    """Children per unit: exact when balanced, else the harmonic mean (for S²/r terms)."""
    if np.all(counts == counts[0]):
        return float(counts[0])
    return 1.0 / float(np.mean(1.0 / counts))


def _group_mean(values: np.ndarray, code: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    counts = np.bincount(code, minlength=size).astype(float)
    return np.bincount(code, weights=values, minlength=size) / counts, counts


def _within_variance(child_means: np.ndarray, parent: np.ndarray,
                     n_parents: int) -> tuple[float, np.ndarray]:
    """Mean over parents (with ≥ 2 children) of the sample variance of their children's means."""
    parent_mean, counts = _group_mean(child_means, parent, n_parents)
    dev2 = (child_means - parent_mean[parent]) ** 2
    ss = np.bincount(parent, weights=dev2, minlength=n_parents)
    ok = counts >= 2
    if not ok.any():
        return math.nan, counts
    return float(np.mean(ss[ok] / (counts[ok] - 1))), counts


def unit_means(values: np.ndarray, levels: list[np.ndarray]) -> list[np.ndarray]:
    """Means of the units at every depth (highest first), each the mean of its children's means.

    Returns one array per level column, plus the means' parent ids are not
    needed by callers; the top-level means come first.
    """
    codes = nested_codes(levels)
    means, _ = _group_mean(values, codes[-1], int(codes[-1].max()) + 1)
    out = [means]
    for depth in range(len(codes) - 2, -1, -1):
        child = codes[depth + 1]
        n_child = int(child.max()) + 1
        parent_of_child = np.zeros(n_child, dtype=np.int64)
        parent_of_child[child] = codes[depth]
        means, _ = _group_mean(out[0], parent_of_child, int(codes[depth].max()) + 1)
        out.insert(0, means)
    return out


def summarize(values: np.ndarray, levels: list[np.ndarray], level_names: list[str], *,
              name: str = "sample", measurement_name: str = "measurement",
              confidence: float = 0.95) -> HierarchySummary:
    """Variance components and the CI of the grand mean (STATS.md §5).

    values: the measurements; levels: one label array per level column,
    highest first (e.g. [build, run]); level_names: their names.
    """
    from benchlab.stats.scaling import power_of_two_scale

    x = np.asarray(values, dtype=float)
    if not levels:
        raise ValueError("summarize needs at least one level column")
    # Computed on x times an exact power of two (no overflow of squares near 1e200, no
    # underflow near 1e-200); means and variances are scaled back at the end.
    scale = power_of_two_scale(x)
    x = x * scale
    codes = nested_codes(levels)
    k = len(codes)
    # Depth k is the measurements; depth d < k are the units of level column d.
    sizes = [int(c.max()) + 1 for c in codes]
    means = [None] * k
    s2 = [0.0] * (k + 1)  # indexed by depth of the parent: s2[d] = within units of depth d-1
    reps = [0.0] * (k + 1)
    warnings: list[str] = []
    balanced = True

    # Lowest: measurements within the units of the lowest level column.
    m, counts = _group_mean(x, codes[-1], sizes[-1])
    means[-1] = m
    s_lowest, _ = _within_variance(x, codes[-1], sizes[-1])
    s2[k] = s_lowest
    reps[k] = _typical_count(counts)
    balanced &= bool(np.all(counts == counts[0]))
    for depth in range(k - 1, 0, -1):
        child = codes[depth]
        parent_of_child = np.zeros(sizes[depth], dtype=np.int64)
        parent_of_child[child] = codes[depth - 1]
        s2[depth], pc = _within_variance(means[depth], parent_of_child, sizes[depth - 1])
        means[depth - 1], _ = _group_mean(means[depth], parent_of_child, sizes[depth - 1])
        reps[depth] = _typical_count(pc)
        balanced &= bool(np.all(pc == pc[0]))
    top = means[0]
    r_top = top.size
    s2[0] = float(np.var(top, ddof=1)) if r_top > 1 else math.nan
    reps[0] = float(r_top)

    names = [*level_names, measurement_name]
    if math.isnan(s2[0]):
        raise LevelError(f"{name}: level {names[0]!r} (the top level) has a single unit, so "
                         "its variance cannot be estimated; at least 2 are needed (or drop "
                         "the level from {param})", name)
    for depth in range(1, k + 1):
        if math.isnan(s2[depth]):
            raise LevelError(f"{name}: level {names[depth]!r} has a single unit everywhere, so "
                             "its variance cannot be estimated; repeat it (at least 2 per "
                             f"{names[depth - 1]}) or drop the level from {{param}}", name)

    # T² bottom-up: T_1² = S_1², T_i² = S_i² − S_{i−1}² / r_{i−1} (STATS.md §5).
    t2 = [0.0] * (k + 1)
    t2[k] = s2[k]
    for depth in range(k - 1, -1, -1):
        t2[depth] = s2[depth] - s2[depth + 1] / reps[depth + 1]
    grand = float(np.mean(top))
    # Var(Ȳ) = Σ_i T_i² / (r_n ⋯ r_i): product of repetitions from the top down to the level.
    terms = []
    product = 1.0
    for depth in range(k + 1):
        product *= reps[depth]
        terms.append(max(t2[depth], 0.0) / product)
    total = sum(terms)
    components = tuple(
        LevelComponent(
            name=names[d], repetitions=reps[d], s2=s2[d], t2=t2[d],
            relative_sd=math.sqrt(max(t2[d], 0.0)) / abs(grand) if grand != 0 else math.nan,
            share=terms[d] / total if total > 0 else math.nan,
            droppable=0 < d < k and t2[d] <= 0)
        for d in range(k + 1))
    df = float(r_top - 1)
    half = critical_t(confidence, df) * math.sqrt(s2[0] / r_top)
    if r_top < 5 and half > 0:  # no spread (identical counts): the zero-width CI is exact
        warnings.append(f"{name}: only {r_top} {names[0]} units: the CI rests on {r_top} "
                        "top-level means and is wide; repeat the top level more")
    if not balanced:
        warnings.append(f"{name}: unbalanced data (unequal repetitions): the variance "
                        "estimators are approximate")
    # Variances in data units (divided by the scale twice: its square may underflow) can
    # overflow or underflow for data near 1e±200; the relative SDs and shares cannot.
    components = tuple(replace(c, s2=float(c.s2) / scale / scale, t2=float(c.t2) / scale / scale)
                       for c in components) if scale != 1.0 else components
    for c in components:
        if c.droppable:
            warnings.append(f"{name}: level {c.name!r} adds no detectable variation "
                            f"(T² = {c.t2:.4g} ≤ 0); it could be merged into the level above")
    if t2[0] <= 0:  # the top level cannot be merged away: its means are what the CI rests on
        warnings.append(f"{name}: the top level {names[0]!r} adds no detectable variation of "
                        f"its own (T² = {components[0].t2:.4g} ≤ 0): its units differ no more "
                        "than the levels below explain")
    return HierarchySummary(name, int(x.size), grand / scale, (grand - half) / scale,
                            (grand + half) / scale, confidence, df, r_top, top / scale,
                            components, balanced, tuple(warnings))


@dataclass(frozen=True)
class PlanOption:
    """One way to spend the budget: repetitions per level (highest first) and what it buys."""

    repetitions: tuple[int, ...]
    cost_per_top_unit: float
    total_cost: float
    relative_halfwidth: float | None


@dataclass(frozen=True)
class Plan(Result):
    """Optimal repetitions (STATS.md §6) beside the single-level default, as in K&J Table 8.5.

    levels: names highest first; unrounded: the optimal r before rounding up
    (None for the top level and dropped levels); dropped: levels with T² ≤ 0,
    run once per parent unit; costs: seconds per unit of each level, excluding
    the levels below.
    """

    levels: tuple[str, ...]
    costs: tuple[float, ...]
    t2: tuple[float, ...]
    unrounded: tuple[float | None, ...]
    dropped: tuple[str, ...]
    optimal: PlanOption
    single_level: PlanOption
    budget: float | None
    target: float | None
    confidence: float
    notes: tuple[str, ...]
    relative_t2: tuple[float, ...] = ()  # T_i² / mean² as planned with; () when the mean is 0


def _seconds(x: float | None) -> str:
    """A duration for messages: 90 → "1.5 min"."""
    if x is None:
        return "n/a"
    for name, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if x >= size:
            return f"{x / size:.3g} {name}"
    return f"{x * 1000:.3g} ms"


def _variance_of_mean(t2: list[float], reps: list[int]) -> float:
    """Var(Ȳ) = Σ_i T_i² / (r_n ⋯ r_i), depths highest first (STATS.md §6)."""
    total, product = 0.0, 1.0
    for t, r in zip(t2, reps, strict=True):
        product *= r
        total += max(t, 0.0) / product
    return total


def _cost_per_top_unit(costs: list[float], reps: list[int]) -> float:
    cost = costs[-1]
    for d in range(len(costs) - 2, -1, -1):
        cost = costs[d] + reps[d + 1] * cost
    return cost


def _relative_halfwidth(t2: list[float], reps: list[int], mean: float,
                        confidence: float) -> float | None:
    if reps[0] < 2 or mean == 0:
        return None
    return critical_t(confidence, reps[0] - 1) * math.sqrt(_variance_of_mean(t2, reps)) / abs(mean)


def _top_units(t2: list[float], reps: list[int], costs: list[float], mean: float,
               confidence: float, budget: float | None, target: float | None) -> int:
    """r_n from the budget, or the smallest r_n ≥ 2 whose CI half-width meets the target."""
    if budget is not None:
        units = budget // _cost_per_top_unit(costs, reps)
        if not units <= 1e12:  # inf included: a cost that rounds to nothing beside the budget
            raise InputError(f"the budget buys {units:.3g} top-level units, more than "
                             "10^12: check the costs and the budget (their units?)")
        return int(units)
    lo, hi = 2, 2
    while _relative_halfwidth(t2, [hi, *reps[1:]], mean, confidence) > target:  # type: ignore
        lo, hi = hi, hi * 2
        if hi > 10**9:
            return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if _relative_halfwidth(t2, [mid, *reps[1:]], mean, confidence) <= target:  # type: ignore
            hi = mid
        else:
            lo = mid + 1
    return hi


def plan_experiment(summary: HierarchySummary, costs: list[float], *,
                    budget: float | None = None, target: float | None = None,
                    confidence: float = 0.95) -> Plan:
    """Optimal repetitions per level for a time budget or a target relative CI half-width.

    costs: seconds per unit of each level, highest first, the last one the cost
    of one measurement (STATS.md §6: c_i excludes the levels below).
    """
    if (budget is None) == (target is None):
        raise ValueError("give exactly one of budget and target")
    if target is not None and not target > 0:
        raise ValueError("the target half-width must be above 0")
    comps = summary.components
    names = [c.name for c in comps]
    t2 = [c.t2 for c in comps]
    mean = summary.grand_mean
    relative: tuple[float, ...] = ()
    if mean != 0 and all(math.isfinite(c.relative_sd) for c in comps):
        # T²/mean² (exact from the relative SDs): the plan depends only on it, and data near
        # 1e±200 have T² that a float cannot hold
        t2 = [c.relative_sd ** 2 if c.relative_sd > 0 else min(c.t2, 0.0) for c in comps]
        mean = 1.0
        relative = tuple(t2)
    k = len(comps) - 1
    if len(costs) != len(comps):
        raise ValueError(f"need {len(comps)} costs, one per level")
    # No spread at any level: judged on the relative scale where there is one, since S²
    # of data near 1e-161 underflows to 0 while their relative SDs are exact
    if all(c.relative_sd == 0 for c in comps) if relative else all(c.s2 == 0 for c in comps):
        return _exact_plan(summary, costs, budget, target, confidence, relative)
    notes: list[str] = []
    dropped = [names[d] for d in range(1, k) if t2[d] <= 0]
    active = [d for d in range(k + 1) if d in (0, k) or t2[d] > 0]
    reps = [0] * (k + 1)
    unrounded: list[float | None] = [None] * (k + 1)
    for d in range(1, k + 1):
        reps[d] = 1  # dropped levels: one unit per parent
    for j in range(len(active) - 1, 0, -1):
        d, parent = active[j], active[j - 1]
        # The parent's cost includes the dropped levels between, each run once.
        parent_cost = sum(costs[parent:d])
        if t2[parent] <= 0:
            reps[d] = max(1, round(comps[d].repetitions))
            notes.append(f"level {names[parent]!r} shows no variation of its own, so the "
                         f"repetitions of {names[d]!r} cannot be optimized; kept at {reps[d]}")
            continue
        r = math.sqrt(parent_cost / costs[d] * t2[d] / t2[parent])
        unrounded[d] = r
        reps[d] = max(1, math.ceil(r))
    for name in dropped:
        notes.append(f"level {name!r} adds no detectable variation (T² ≤ 0): one per parent")
    reps[0] = _top_units(t2, reps, costs, mean, confidence, budget, target)
    single = [0] + [1] * k
    single[0] = _top_units(t2, single, costs, mean, confidence, budget, target)
    if reps[0] < 1:
        per_top = _cost_per_top_unit(costs, reps)
        raise InputError(f"a budget of {_seconds(budget)} buys no complete {names[0]}: one "
                         f"costs {_seconds(per_top)} in the optimal plan (repetitions "
                         f"{' x '.join(map(str, reps[1:]))} below it); raise the budget to at "
                         f"least {_seconds(2 * per_top)} for 2 {names[0]} units")
    if reps[0] < 2:
        notes.append(f"the budget pays for only 1 {names[0]} unit of the optimal plan: no CI "
                     f"without 2")
    elif reps[0] < 5:
        notes.append(f"only {reps[0]} {names[0]} units: below 5, the CI rests on few means and "
                     "is unreliable")
    for d in range(1, k + 1):
        if names[d] not in dropped and 1 < reps[d] < 5:
            notes.append(f"only {reps[d]} {names[d]} units per {names[d - 1]}: below 5, the "
                         "estimate of their variance is unreliable")

    def option(r: list[int]) -> PlanOption:
        per_top = _cost_per_top_unit(costs, r)
        return PlanOption(tuple(r), per_top, per_top * r[0],
                          _relative_halfwidth(t2, r, mean, confidence))

    return Plan(tuple(names), tuple(costs), tuple(c.t2 for c in comps), tuple(unrounded),
                tuple(dropped),
                option(reps), option(single), budget, target, confidence, tuple(notes),
                relative)


def _exact_plan(summary: HierarchySummary, costs: list[float], budget: float | None,
                target: float | None, confidence: float, relative: tuple[float, ...]) -> Plan:
    """The plan for data without any spread (identical counts at every level): one unit of
    each level measures the mean exactly, so that is the plan for any target or budget —
    the exact answer, not sizes computed from variances of zero."""
    names = tuple(c.name for c in summary.components)
    reps = (1,) * len(names)
    per_top = _cost_per_top_unit(costs, list(reps))
    if budget is not None and per_top > budget:
        raise InputError(f"a budget of {_seconds(budget)} buys no complete {names[0]}: one "
                         f"costs {_seconds(per_top)} (one of each level below)")
    one = PlanOption(reps, per_top, per_top, 0.0)
    note = ("the data have no spread at any level (every value the same): one measurement "
            "gives the mean exactly; a second one confirms that the values repeat")
    return Plan(names, tuple(costs), tuple(c.t2 for c in summary.components),
                (None,) * len(names), names[1:-1], one, one, budget, target, confidence,
                (note,), relative)


def halfwidth_by_budget(plan: Plan, budgets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The relative CI half-width each budget buys with the plan's optimal repetitions below
    the top level and with the single-level plan (one of each below the top).

    The repetitions below the top level do not depend on the budget (STATS.md §6:
    only on costs and T² ratios), so a budget buys floor(budget / cost per top
    unit) top-level units; fewer than 2 give no CI (NaN). Both curves are NaN
    when the plan has no relative variances (a zero mean).
    """
    budgets = np.asarray(budgets, dtype=float)
    curves = []
    for option in (plan.optimal, plan.single_level):
        below = list(option.repetitions[1:])
        per_top = _cost_per_top_unit(list(plan.costs), [0, *below])
        widths = np.full(budgets.shape, np.nan)
        for i, b in enumerate(budgets.flat):
            units = math.floor(b / per_top) if per_top > 0 else 0
            if plan.relative_t2 and units >= 2:
                widths.flat[i] = _relative_halfwidth(list(plan.relative_t2), [units, *below],
                                                     1.0, plan.confidence)
        curves.append(widths)
    return curves[0], curves[1]


def optimal_repetitions(t2_low_to_high: list[float],
                        costs_low_to_high: list[float]) -> list[float]:
    """r_i = sqrt((c_{i+1}/c_i)·(T_i²/T_{i+1}²)) for i = 1..n−1 (STATS.md §6), unrounded."""
    out = []
    for i in range(len(t2_low_to_high) - 1):
        ratio_c = costs_low_to_high[i + 1] / costs_low_to_high[i]
        out.append(math.sqrt(ratio_c * t2_low_to_high[i] / t2_low_to_high[i + 1]))
    return out
