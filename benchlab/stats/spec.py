"""The analysis specification: every choice of a comparison, made and checked once.

A comparison used to receive its confidence, threshold, df rule, statistic,
resampling, bootstrap size, seed, adjustment, levels and pairing as a dozen
sibling parameters, handed down compare_suite → compare_hierarchical →
compare_samples → compare_pair → _ratio and checked (or defaulted) at several
of those steps. golang/perf's benchmath keeps such settings in one struct "so
we can extend it without adding function arguments"; here it is AnalysisSpec:
frozen, validated when made (from Python keywords, or by the command line from
its options), kept in the result and written into its JSON (`analysis`).

`statistic` is a small strategy (MEAN, MEDIAN) rather than a string to branch on:
it says what the headline ratio is of and whether the headline needs a bootstrap.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from benchlab.errors import ParameterError
from benchlab.stats.warmup_defaults import PENALTY_FACTOR, STEADY_FRACTION, THRESHOLD

DEFAULT_REPLICATES = 10_000  # bootstrap size B when none is given (STATS.md, "Bootstrap")
DF_METHODS = ("welch", "conservative", "pooled")  # Fieller's df rules (STATS.md §3)
ADJUSTMENTS = ("holm", "none")  # a suite's family-wise rule (stats/suite.py)
NO_STEADY = ("keep", "drop")  # an execution without a steady state under a warm-up cut


class SpecError(ParameterError, ValueError):
    """A bad value of an analysis parameter: a ParameterError (the command line names its
    option) that is also the ValueError Python callers have always caught."""


@dataclass(frozen=True)
class Statistic:
    """What the headline ratio is of, and everything that depends on it, so that no
    caller branches on its name: `name` (mean, median; also numpy's reducer and the name
    results keep in their JSON), `phrase` (as a verdict says it), `resamples` (its CI is
    a bootstrap percentile interval, the ratio of medians, rather than Fieller's),
    `values` / `ratios` / `change` (the words a report uses: "medians", "median ratios",
    "median change"), `drawing` (arrays of B one system's suite draw holds:
    stats/suite_memory) and `studentized` (the hierarchical bootstrap has a studentized
    interval for it: stats/hierarchical_bootstrap)."""

    name: str
    phrase: str
    resamples: bool
    values: str
    ratios: str
    change: str
    drawing: int
    studentized: bool

    def __str__(self) -> str:
        return self.name

    def of(self, x: Any) -> float:
        """The statistic of the values x (numpy's mean or median)."""
        import numpy as np

        return float(getattr(np, self.name)(x))

    def bootstraps(self, bootstrap: int | None) -> tuple[str, ...]:
        """The statistics a comparison bootstraps: both with `bootstrap`, else what the
        headline needs (nothing for the mean)."""
        if bootstrap:
            return ("mean", "median")
        return (self.name,) if self.resamples else ()


MEAN = Statistic("mean", "ratio of means", False, "means", "ratios", "change", 2, True)
MEDIAN = Statistic("median", "ratio of medians", True, "medians", "median ratios",
                   "median change", 5, False)
STATISTICS = {s.name: s for s in (MEAN, MEDIAN)}


def statistic(value: str | Statistic) -> Statistic:
    """The strategy named `value` ("mean" or "median"); a SpecError for any other."""
    if isinstance(value, Statistic):
        return value
    found = STATISTICS.get(value) if isinstance(value, str) else None
    if found is None:
        raise SpecError(f"{{param}} must be one of {tuple(STATISTICS)}", "statistic")
    return found


def statistic_of(result: Any) -> Statistic:
    """The strategy of a result, interval or decision from the statistic name it keeps
    (results keep the name, as their JSON does); one without a `statistic` is of means."""
    return statistic(getattr(result, "statistic", MEAN.name))


def resample_spec(value: str | None, levels: tuple[str, ...] | None = None) -> str | None:
    """"flat", or R/N per level (upper-cased); None stays None (the default, R everywhere).

    Checked once the levels are known (one letter per level and one for the
    measurements); without levels nothing is resampled hierarchically, so it waits."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise SpecError("{param} must be a string of R and N, or 'flat'", "resample")
    if value.lower() == "flat":
        return "flat"
    spec = value.upper()
    if levels and (len(spec) != len(levels) + 1 or set(spec) - {"R", "N"}):
        raise SpecError(f"{{param}} wants R or N for each of the {len(levels) + 1} levels "
                        f"({', '.join([*levels, 'measurement'])}), or flat; got {value!r}",
                        "resample")
    return spec


@dataclass(frozen=True)
class WarmupCut:
    """`--warmup auto`: cut each execution (the lowest level's unit) at the start of its
    steady state, as stats/warmup.classify_execution finds it with these settings
    (docs/warmup.md). no_steady_state: an execution without a steady state is kept whole
    ("keep") or left out ("drop"); either way it is reported. The settings are those of
    `benchlab warmup`: penalty_factor (PELT's K·log n), steady_fraction (the last part the
    steady state must cover), threshold and confidence (segments' equivalence)."""

    no_steady_state: str = "keep"
    penalty_factor: float = PENALTY_FACTOR
    steady_fraction: float = STEADY_FRACTION
    threshold: float = THRESHOLD
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.no_steady_state not in NO_STEADY:
            raise SpecError(f"{{param}} must be one of {NO_STEADY}", "no_steady_state")
        if not 0.0 < self.steady_fraction < 1.0:
            raise SpecError("{param} must be between 0 and 1", "steady_fraction")
        if not self.penalty_factor > 0.0 or not math.isfinite(self.penalty_factor):
            raise SpecError("{param} must be a positive number", "penalty_factor")
        if not 0.0 <= self.threshold < 1.0:
            raise SpecError("{param} must be between 0 and 1", "threshold")
        if not 0.0 < self.confidence < 1.0:
            raise SpecError("{param} must be between 0 and 1", "confidence")

    @property
    def drop(self) -> bool:
        """Whether executions without a steady state are left out."""
        return self.no_steady_state == "drop"

    def to_dict(self) -> dict[str, Any]:
        """The cut as JSON values (`analysis.warmup`, and each command's `warmup_cut`)."""
        return {"mode": "auto", **asdict(self)}


@dataclass(frozen=True)
class AnalysisSpec:
    """Every choice of a comparison, validated when made (a SpecError names the parameter).

    confidence: the CI level (0 < c < 1). threshold: the smallest change of interest
    (a fraction ≥ 0). df_method: Fieller's df rule (None: welch; paired data always use
    n − 1). statistic: MEAN or MEDIAN (a name is accepted). bootstrap: B of the bootstrap
    CIs beside the headline (None: none). replicates: B of a suite's geometric mean
    (None: `bootstrap` or DEFAULT_REPLICATES). resample: R/N per level or "flat" (None:
    R at every level). seed: of every draw (None: drawn and reported). adjust: a
    suite's rule, "holm" or "none". levels: the hierarchy's level names, highest first
    (None: what the data records). paired / pair_by: samples paired by position or by
    that column. tests: the classical tests too. diagnostics: the data checks.
    metric: the metric of the inputs analysed (None: the input's default — a store's first,
    go test's sec/op); the statistics never read it, the result keeps it to say what it is of.
    """

    confidence: float = 0.95
    threshold: float = 0.0
    df_method: str | None = None
    statistic: Statistic = field(default=MEAN)
    bootstrap: int | None = None
    replicates: int | None = None
    resample: str | None = None
    seed: int | None = None
    adjust: str = "holm"
    levels: tuple[str, ...] | None = None
    paired: bool = False
    pair_by: str | None = None
    tests: bool = False
    diagnostics: bool = True
    metric: str | None = None
    warmup: WarmupCut | None = None

    def __post_init__(self) -> None:
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 < c < 1.0:
            raise SpecError("{param} must be between 0 and 1", "confidence")
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0 \
                or not math.isfinite(t):
            raise SpecError("{param} must be a finite number >= 0", "threshold")
        if self.df_method is not None and self.df_method not in DF_METHODS:
            raise SpecError(f"{{param}} must be one of {DF_METHODS}", "df")
        object.__setattr__(self, "statistic", statistic(self.statistic))
        for name in ("bootstrap", "replicates"):
            b = getattr(self, name)
            if b is not None and (isinstance(b, bool) or not isinstance(b, int) or b < 1):
                raise SpecError("{param} must be a whole number of replicates, 1 or more",
                                name)
        if self.seed is not None and (isinstance(self.seed, bool)
                                      or not isinstance(self.seed, int) or self.seed < 0):
            raise SpecError("{param} must be a whole number, 0 or more", "seed")
        if self.adjust not in ADJUSTMENTS:
            raise SpecError(f"{{param}} must be one of {ADJUSTMENTS}", "adjust")
        if self.levels is not None:
            object.__setattr__(self, "levels", tuple(self.levels))
            if len(set(self.levels)) != len(self.levels):
                raise SpecError(f"{{param}} names a level twice: {self.levels}", "levels")
        object.__setattr__(self, "resample", resample_spec(self.resample, self.levels))
        if self.pair_by is not None:
            object.__setattr__(self, "paired", True)
        if self.metric is not None and (not isinstance(self.metric, str)
                                        or not self.metric.strip()):
            raise SpecError("{param} must be a metric's name", "metric")
        if self.warmup is not None and not isinstance(self.warmup, WarmupCut):
            raise SpecError("{param} must be a WarmupCut or None", "warmup")

    @classmethod
    def of(cls, spec: AnalysisSpec | None = None, **options: Any) -> AnalysisSpec:
        """`spec` (default: the defaults) with `options` (AnalysisSpec's fields) changed;
        a TypeError for a keyword that is not one."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unexpected analysis option {unknown[0]!r} (the analysis "
                            f"takes {', '.join(sorted(known))})")
        base = spec if spec is not None else cls()
        return replace(base, **options) if options else base

    @property
    def df_rule(self) -> str:
        """The df rule Fieller uses: "paired" (n − 1) for paired data, else the chosen one."""
        return "paired" if self.paired else (self.df_method or "welch")

    @property
    def headline_replicates(self) -> int:
        """B of a comparison's bootstraps (the CIs, and the median's headline)."""
        return self.bootstrap or DEFAULT_REPLICATES

    @property
    def geomean_replicates(self) -> int:
        """B of a suite's geometric-mean bootstrap."""
        return self.replicates or self.bootstrap or DEFAULT_REPLICATES

    @property
    def resamples(self) -> bool:
        """Whether the analysis draws random numbers for each comparison."""
        return bool(self.bootstrap) or self.statistic.resamples

    def resampling(self, levels: int) -> str:
        """The resampling the hierarchical bootstrap does over `levels` levels (plus the
        measurements): the one given, or R at every level — the default, decided here."""
        return self.resample or "R" * (levels + 1)

    def with_seed(self) -> AnalysisSpec:
        """This spec with a seed: the one given, or one drawn now so that even an unseeded
        run can be reproduced from the seed it reports."""
        if self.seed is not None:
            return self
        import numpy as np

        return replace(self, seed=int(np.random.SeedSequence().entropy % 2**32))

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON values (the `analysis` key of a comparison's document)."""
        out = asdict(self)
        out["statistic"] = self.statistic.name
        out["df_method"] = self.df_rule
        out["levels"] = None if self.levels is None else list(self.levels)
        out["warmup"] = None if self.warmup is None else self.warmup.to_dict()
        return out
