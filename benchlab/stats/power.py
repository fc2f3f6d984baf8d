"""Power of an experiment design by simulation (Kalibera & Jones §8.4; STATS.md §3–6).

How likely is an experiment of r_n top-level units × r_{n−1} × ⋯ × r_1
measurements per system to detect a change of 3%? Kalibera & Jones answer such
questions by simulating their hierarchical normal model (§8.4: "measurements
within an execution are independent identically distributed with means that
also come from a normal distribution", the same variances for both systems).
This module does the same for the variance components of a pilot
(`hierarchy.summarize`, T² per level, negative T² taken as 0) or for relative
SDs given directly, and analyses every simulated experiment exactly as
`benchlab compare --levels` does: Fieller's interval with Welch df on the
top-level unit means (STATS.md §5), classified against the threshold
(STATS.md §4, `verdict.classify`).

The simulation is exact without drawing every measurement. In a balanced
design, a top-level unit's mean is the grand mean plus its own effect plus the
means of the effects below it; the mean of m independent N(0, T²) effects is
N(0, T²/m), so every top-level mean is independently

    N(μ, σ²),  σ² = Σ_i T_i² / (r_{n−1} ⋯ r_i)   (STATS.md §6 times r_n),

and the analysis sees nothing but these means. One normal draw per top-level
unit therefore gives experiments with the same distribution as drawing all
r_n·r_{n−1}⋯r_1 measurements (tests/stats/test_power.py checks this against
full simulated data analysed by `compare_hierarchical`), and 1,000 experiments
of 10 × 10 × 100 take milliseconds (benchmarks/power.py).

Everything is relative to the baseline mean (1): the ratio CI does not change
when both systems are scaled, and data near 1e±200 cannot overflow.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.errors import InputError, ParameterError
from benchlab.result import Result
from benchlab.stats.distributions import critical_t
from benchlab.stats.fieller_batch import fieller_batch
from benchlab.units import Unit

CHANGE, EQUIVALENT, INCONCLUSIVE = 0, 1, 2
CHUNK_VALUES = 4_000_000  # top-level means drawn per system at once (32 MB)


@dataclass(frozen=True)
class EffectPower:
    """What the design gives for one true effect (the candidate's mean is (1 + effect) ×
    the baseline's), as fractions of the simulated experiments.

    power: a change detected in the true direction (None at effect 0, where every
    change is a false alarm); false_alarm: a change claimed in the wrong direction,
    or any change at effect 0; verdicts: change, equivalent, inconclusive (sum 1);
    coverage: the ratio CI holds the true ratio 1 + effect (an unbounded set
    counts as holding it); unbounded: the CI was unbounded (baseline too uncertain).
    """

    effect: float
    power: float | None
    false_alarm: float
    change: float
    equivalent: float
    inconclusive: float
    coverage: float
    unbounded: float


@dataclass(frozen=True)
class PowerCurve:
    """Power against the number of top-level units, the levels below as in the design.

    top_units: the counts simulated; total_cost: what each costs (None without costs);
    power[j][k]: for effect j, at top_units[k], the power (the false-alarm rate for
    effect 0).
    """

    top_units: tuple[int, ...]
    total_cost: tuple[float | None, ...]
    power: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class PowerAnalysis(Result):
    """The power of one design for one system's variance components.

    levels: highest first, ending with the measurement; repetitions: the design
    (top-level units first, then units per parent); relative_sd: sqrt(max(T², 0)) /
    mean per level, as simulated; design_from: "reps", "budget" or "target";
    costs: seconds per unit of each level (() when not given);
    predicted_halfwidth: t·sqrt(Var(Ȳ)) relative to the mean (STATS.md §6);
    effects: one entry per effect, in the order given.
    """

    name: str
    benchmark: str | None
    levels: tuple[str, ...]
    repetitions: tuple[int, ...]
    relative_sd: tuple[float, ...]
    design_from: str
    costs: tuple[float, ...]
    threshold: float
    confidence: float
    simulations: int
    seed: int
    predicted_halfwidth: float
    effects: tuple[EffectPower, ...]
    curve: PowerCurve | None
    notes: tuple[str, ...] = ()

    @property
    def cost_per_top_unit(self) -> float | None:
        return cost_per_top_unit(self.costs, self.repetitions) if self.costs else None

    @property
    def total_cost(self) -> float | None:
        per_top = self.cost_per_top_unit
        return None if per_top is None else per_top * self.repetitions[0]

    @property
    def mc_error(self) -> float:
        """The largest Monte Carlo standard error of a fraction: sqrt(0.25 / simulations)."""
        return math.sqrt(0.25 / self.simulations)


@dataclass(frozen=True)
class PowerReport(Result):
    """Everything `benchlab plan --power` found: one analysis per group (or benchmark)."""

    unit: Unit
    level_columns: tuple[str, ...]
    groups: tuple[PowerAnalysis, ...]
    notes: tuple[str, ...] = ()


def cost_per_top_unit(costs: Sequence[float], reps: Sequence[int]) -> float:
    """c_n + r_{n−1}(c_{n−1} + r_{n−2}(⋯ + r_1 c_1)) (STATS.md §6), highest first."""
    cost = costs[-1]
    for d in range(len(costs) - 2, -1, -1):
        cost = costs[d] + reps[d + 1] * cost
    return float(cost)


def top_mean_variance(relative_t2: Sequence[float], repetitions: Sequence[int]) -> float:
    """σ² of one top-level unit's mean: Σ_i max(T_i², 0) / (r_{n−1} ⋯ r_i), highest first
    (the top level's own T² divided by nothing)."""
    total, product = 0.0, 1.0
    for depth, t2 in enumerate(relative_t2):
        if depth > 0:
            product *= repetitions[depth]
        total += max(float(t2), 0.0) / product
    return total


def check_design(relative_t2: Sequence[float], repetitions: Sequence[int],
                 effects: Sequence[float], simulations: int) -> None:
    """ParameterErrors naming the parameter: a design that measures nothing or gives no CI,
    an effect at or below −100%, too few simulations."""
    if len(relative_t2) != len(repetitions) or not repetitions:
        raise ParameterError("{param} needs one count per level (the top level first)",
                             "repetitions")
    if any(int(r) != r or r < 1 for r in repetitions):
        raise ParameterError("{param} must be whole numbers of at least 1: a level with 0 "
                             "repetitions measures nothing", "repetitions")
    if repetitions[0] < 2:
        raise ParameterError("{param} needs at least 2 top-level units: one gives no CI",
                             "repetitions")
    if not all(math.isfinite(t) for t in relative_t2):
        raise ParameterError("{param} must be finite", "components")
    if not effects:
        raise ParameterError("{param}: give at least one effect (0 gives the false-alarm "
                             "rate)", "effects")
    for e in effects:
        if not (math.isfinite(e) and e > -1.0):
            raise ParameterError(f"{{param}} must be above -100% (a mean cannot fall by all of "
                                 f"itself or more): {100 * e:g}%", "effects")
    if int(simulations) != simulations or simulations < 10:
        raise ParameterError("{param} must be a whole number of at least 10", "simulations")


def classify_batch(low: np.ndarray, high: np.ndarray, bounded: np.ndarray,
                   threshold: float) -> np.ndarray:
    """`verdict.classify` on arrays (STATS.md §4): CHANGE, EQUIVALENT or INCONCLUSIVE."""
    with np.errstate(invalid="ignore"):
        change = bounded & ((high < 1.0 - threshold) | (low > 1.0 + threshold))
        equivalent = bounded & (low == 1.0) & (high == 1.0)
        if threshold > 0:
            equivalent |= bounded & (1.0 - threshold < low) & (high < 1.0 + threshold)
    out = np.full(low.shape, INCONCLUSIVE, dtype=np.int8)
    out[change] = CHANGE
    out[equivalent & ~change] = EQUIVALENT
    return out


def _moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the mean and the variance of the mean (s²/n, ddof 1)."""
    mean = x.mean(axis=1)
    return mean, x.var(axis=1, ddof=1) / x.shape[1]


def analyse(base: np.ndarray, cand: np.ndarray, effect: float, threshold: float,
            confidence: float) -> dict[str, np.ndarray]:
    """Analyse experiments (rows of top-level means, baseline and candidate) as
    `compare` does: per row the verdict code, the direction (+1, −1 or 0), whether the
    CI holds 1 + effect, and whether it is unbounded.

    A baseline mean ≤ 0 gives no ratio: as in `compare` the Welch difference of means
    decides (a change only at threshold 0), and the missing ratio CI counts as missing
    the true ratio.
    """
    b, v_b = _moments(base)
    a, v_a = _moments(cand)
    n_a, n_b = cand.shape[1], base.shape[1]
    positive = b > 0
    verdict = np.full(b.shape, INCONCLUSIVE, dtype=np.int8)
    direction = np.zeros(b.shape, dtype=np.int8)
    covered = np.zeros(b.shape, dtype=bool)
    unbounded = np.zeros(b.shape, dtype=bool)
    if positive.any():
        ci = fieller_batch(a[positive], b[positive], v_a[positive], v_b[positive], n_a, n_b,
                           confidence)
        codes = classify_batch(ci.low, ci.high, ci.bounded, threshold)
        verdict[positive] = codes
        direction[positive] = np.where(codes == CHANGE, np.sign(ci.estimate - 1.0), 0)
        truth = 1.0 + effect
        with np.errstate(invalid="ignore"):
            covered[positive] = ~ci.bounded | ((ci.low <= truth) & (truth <= ci.high))
        unbounded[positive] = ~ci.bounded
    if not positive.all() and threshold == 0:
        _difference_verdicts(a, b, v_a, v_b, n_a, n_b, confidence, ~positive, verdict,
                             direction)
    return {"verdict": verdict, "direction": direction, "covered": covered,
            "unbounded": unbounded}


def _difference_verdicts(a, b, v_a, v_b, n_a, n_b, confidence, rows, verdict, direction):
    """Welch's CI of a − b where the baseline mean is not positive (compare's fallback)."""
    from scipy.special import stdtrit

    se2 = v_a[rows] + v_b[rows]
    den = v_a[rows] ** 2 / (n_a - 1) + v_b[rows] ** 2 / (n_b - 1)
    df = np.where(den > 0, se2 ** 2 / np.where(den > 0, den, 1.0), float(n_a + n_b - 2))
    half = stdtrit(df, 0.5 + confidence / 2.0) * np.sqrt(se2)
    diff = a[rows] - b[rows]
    change = (diff - half > 0) | (diff + half < 0)
    verdict[rows] = np.where(change, CHANGE, INCONCLUSIVE)
    direction[rows] = np.where(change, np.sign(diff), 0)


def _draw(rng: np.random.Generator, simulations: int, units: int, sd: float,
          mean: float) -> np.ndarray:
    return mean + sd * rng.standard_normal((simulations, units))


def _summarize(effect: float, found: dict[str, np.ndarray]) -> EffectPower:
    n = found["verdict"].size
    change = found["verdict"] == CHANGE
    if effect == 0:
        power, wrong = None, change
    else:
        right = change & (found["direction"] == (1 if effect > 0 else -1))
        power, wrong = float(right.sum()) / n, change & ~right
    return EffectPower(
        effect, power, float(wrong.sum()) / n, float(change.sum()) / n,
        float((found["verdict"] == EQUIVALENT).sum()) / n,
        float((found["verdict"] == INCONCLUSIVE).sum()) / n,
        float(found["covered"].sum()) / n, float(found["unbounded"].sum()) / n)


def simulate(relative_t2: Sequence[float], repetitions: Sequence[int],
             effects: Sequence[float], *, threshold: float = 0.0, confidence: float = 0.95,
             simulations: int = 1000, seed: int | None = None
             ) -> tuple[tuple[EffectPower, ...], int]:
    """Per effect, the verdicts of `simulations` experiments of the design; and the seed.

    relative_t2: T_i²/mean² per level, highest first (negative taken as 0);
    repetitions: r_n top-level units, then the units per parent of each level below.
    The same draws serve every effect (common random numbers: the powers of two
    effects differ by the effect, not by the noise), in chunks of at most
    CHUNK_VALUES means per system.
    """
    check_design(relative_t2, repetitions, effects, simulations)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    sd = math.sqrt(top_mean_variance(relative_t2, repetitions))
    units = int(repetitions[0])
    rng = np.random.default_rng(seed)
    chunk = max(1, CHUNK_VALUES // units)
    parts: list[list[dict[str, np.ndarray]]] = [[] for _ in effects]
    for start in range(0, simulations, chunk):
        rows = min(chunk, simulations - start)
        base = _draw(rng, rows, units, sd, 1.0)
        noise = _draw(rng, rows, units, sd, 0.0)
        for j, effect in enumerate(effects):
            parts[j].append(analyse(base, noise + (1.0 + effect), effect, threshold,
                                    confidence))
    merged = [{k: np.concatenate([p[k] for p in found]) for k in found[0]} for found in parts]
    return tuple(_summarize(e, m) for e, m in zip(effects, merged, strict=True)), seed


def curve_units(top: int, points: int = 12) -> tuple[int, ...]:
    """Top-level counts for the power curve: from 2 to 4 × the design's, about evenly
    spaced on a log scale, the design's own count included."""
    high = max(4 * top, 8)
    grid = np.unique(np.round(np.geomspace(2, high, points)).astype(int))
    return tuple(sorted({*grid.tolist(), top}))


def power_curve(relative_t2: Sequence[float], repetitions: Sequence[int],
                effects: Sequence[float], costs: Sequence[float], *, threshold: float,
                confidence: float, simulations: int, seed: int,
                at_design: Sequence[EffectPower] = ()) -> PowerCurve:
    """Power (false-alarm rate at effect 0) for each count of `curve_units`, the levels
    below the top as in the design.

    Common random numbers: every count analyses the first columns of the same draws
    (a stream of its own, spawned from `seed`), so the curve rises smoothly rather than
    with the noise of independent draws. At the design's own count the curve shows
    `at_design` (the table's result) when given, so the figure's marker lies on it.
    """
    check_design(relative_t2, repetitions, effects, simulations)
    counts = curve_units(int(repetitions[0]))
    sd = math.sqrt(top_mean_variance(relative_t2, repetitions))
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    widest = counts[-1]
    chunk = max(1, CHUNK_VALUES // widest)
    hits = np.zeros((len(effects), len(counts)))
    for start in range(0, simulations, chunk):
        rows = min(chunk, simulations - start)
        base = _draw(rng, rows, widest, sd, 1.0)
        noise = _draw(rng, rows, widest, sd, 0.0)
        for k, units in enumerate(counts):
            for j, effect in enumerate(effects):
                found = analyse(base[:, :units], noise[:, :units] + (1.0 + effect), effect,
                                threshold, confidence)
                change = found["verdict"] == CHANGE
                if effect != 0:
                    change &= found["direction"] == (1 if effect > 0 else -1)
                hits[j, k] += change.sum()
    table = hits / simulations
    for j, e in enumerate(at_design):
        table[j, counts.index(int(repetitions[0]))] = (e.false_alarm if e.power is None
                                                       else e.power)
    per_top = cost_per_top_unit(costs, repetitions) if costs else None
    total = tuple(None if per_top is None else per_top * u for u in counts)
    return PowerCurve(counts, total, tuple(tuple(float(v) for v in row) for row in table))


def power_analysis(relative_t2: Sequence[float], repetitions: Sequence[int],
                   effects: Sequence[float], *, levels: Sequence[str], name: str = "design",
                   benchmark: str | None = None, design_from: str = "reps",
                   costs: Sequence[float] = (), threshold: float = 0.0,
                   confidence: float = 0.95, simulations: int = 1000, seed: int | None = None,
                   curve: bool = True, notes: Sequence[str] = ()) -> PowerAnalysis:
    """The power of a design: `simulate` at the design, and the curve against the number of
    top-level units (and so the budget, with costs) unless `curve` is False."""
    if len(levels) != len(repetitions):
        raise ParameterError("{param} needs one name per level", "levels")
    if threshold < 0 or not math.isfinite(threshold):
        raise ParameterError("{param} must be a finite number >= 0", "threshold")
    if not 0.0 < confidence < 1.0:
        raise ParameterError("{param} must be between 0 and 1", "confidence")
    found, seed = simulate(relative_t2, repetitions, effects, threshold=threshold,
                           confidence=confidence, simulations=simulations, seed=seed)
    drawn = power_curve(relative_t2, repetitions, effects, costs, threshold=threshold,
                        confidence=confidence, simulations=simulations, seed=seed,
                        at_design=found) if curve else None
    reps = tuple(int(r) for r in repetitions)
    half = critical_t(confidence, reps[0] - 1) * math.sqrt(
        top_mean_variance(relative_t2, reps) / reps[0])
    return PowerAnalysis(name, benchmark, tuple(levels), reps,
                         tuple(math.sqrt(max(float(t), 0.0)) for t in relative_t2),
                         design_from, tuple(float(c) for c in costs), threshold, confidence,
                         int(simulations), seed, half, found, drawn, tuple(notes))


def relative_components(summary) -> tuple[float, ...]:
    """T_i²/mean² of a pilot (`hierarchy.HierarchySummary`), highest first, negative kept
    (the simulation takes them as 0); refuses a pilot whose mean is not positive."""
    if not summary.grand_mean > 0:
        raise InputError(f"{summary.name}: the pilot's mean is {summary.grand_mean:.6g}; a "
                         "ratio of means (and its power) needs a positive mean")
    return tuple(c.relative_sd ** 2 if c.relative_sd > 0 else min(c.t2, 0.0)
                 for c in summary.components)
