"""The public Python API: `benchlab.compare(baseline, candidate, ...)`.

It runs the same analysis as `benchlab compare` and returns a frozen result
whose fields mirror the command's JSON document (`.to_dict()` gives that
document exactly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from benchlab.stats.compare import CompareResult, compare_hierarchical, compare_samples
from benchlab.stats.hierarchy import HierarchySummary, Plan, plan_experiment, summarize
from benchlab.stats.spec import DEFAULT_REPLICATES
from benchlab.units import make_unit


@dataclass(frozen=True)
class ComparisonReport(CompareResult):
    """The result of `compare`: confidence, samples, comparisons (ratio, difference, verdict)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON document `benchlab compare --json` prints for the same data."""
        from benchlab.report.compare.document import comparison_document

        return comparison_document(self)


def _name(values: Any, default: str) -> str:
    name = getattr(values, "name", None)
    return str(name) if isinstance(name, str) and name else default


def _columns(table: Any, levels: Sequence[str], value: str) -> tuple[np.ndarray, list]:
    """The value and level columns of a DataFrame or a mapping of column name → values."""
    try:
        values = np.asarray(table[value], dtype=float)
        arrays = [np.asarray(table[name]).astype(str) for name in levels]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"hierarchical data needs columns {value!r} and "
                         f"{', '.join(map(repr, levels))}: {exc}") from None
    return values, arrays


def summary(table: Any, levels: Sequence[str], *, value: str = "value",
            confidence: float = 0.95, name: str = "sample") -> HierarchySummary:
    """Variance components and the CI of the grand mean of one system's hierarchy.

    table: a pandas DataFrame (or mapping of columns) with the level columns,
    highest first in `levels` (e.g. ["build", "run"]), and the `value` column.
    """
    values, arrays = _columns(table, levels, value)
    return summarize(values, arrays, list(levels), name=name, confidence=confidence)


def plan(table: Any, levels: Sequence[str], costs: dict[str, float], *,
         budget: float | None = None, target: float | None = None, value: str = "value",
         confidence: float = 0.95) -> Plan:
    """Optimal repetitions per level (STATS.md §6) from a pilot experiment.

    costs: seconds per unit of every level and of one "measurement", excluding
    the levels below; give a budget in seconds or a target relative half-width.
    """
    s = summary(table, levels, value=value, confidence=confidence)
    names = [*levels, "measurement"]
    missing = [n for n in names if n not in costs]
    if missing:
        raise ValueError(f"costs needs every level: missing {', '.join(missing)}")
    return plan_experiment(s, [float(costs[n]) for n in names], budget=budget, target=target,
                           confidence=confidence)


def compare(baseline: Sequence[float] | np.ndarray, candidate: Sequence[float] | np.ndarray,
            *, confidence: float = 0.95, threshold: float = 0.0, paired: bool = False,
            df: str = "welch", bootstrap: int | None = None, seed: int | None = None,
            tests: bool = False, unit: str | None = None,
            higher_is_better: bool | None = None, names: tuple[str, str] | None = None,
            diagnostics: bool = True, levels: Sequence[str] | None = None,
            value: str = "value", resample: str | None = None,
            statistic: str = "mean") -> ComparisonReport:
    """Compare `candidate` with `baseline` (arrays, lists or pandas Series).

    threshold is a fraction (0.02 for 2%); df chooses Fieller's degrees of
    freedom ("welch", "conservative", "pooled"); bootstrap is the number of
    replicates (None: no bootstrap). statistic: the verdict's ratio, "mean"
    (Fieller) or "median" (bootstrap percentile CI, B = bootstrap or
    DEFAULT_REPLICATES; `benchlab compare --statistic median`). With `levels`
    (e.g. ["build", "run"]) the two arguments are tables (DataFrames or mappings) with
    those columns and `value`; the ratio CI then rests on the top-level means and the bootstrap
    resamples every level (or as `resample` says). Raises
    benchlab.errors.InputError for data that cannot be compared (too few
    values, NaN, unequal lengths when paired).
    """
    if levels:
        names = names or ("baseline", "candidate")
        b_values, b_levels = _columns(baseline, levels, value)
        c_values, c_levels = _columns(candidate, levels, value)
        result = compare_hierarchical(
            [(names[0], b_values, b_levels), (names[1], c_values, c_levels)], list(levels),
            confidence=confidence, threshold=threshold, df_method=df,
            unit=make_unit(unit, higher_is_better), bootstrap=bootstrap, resample=resample,
            seed=seed, tests=tests, diagnostics=diagnostics, statistic=statistic)
        return ComparisonReport(**{f.name: getattr(result, f.name) for f in fields(result)})
    if names is None:
        names = (_name(baseline, "baseline"), _name(candidate, "candidate"))
        if names[0] == names[1]:
            names = ("baseline", "candidate")
    result = compare_samples(
        [(names[0], np.asarray(baseline, dtype=float)),
         (names[1], np.asarray(candidate, dtype=float))],
        confidence=confidence, threshold=threshold, df_method=df, paired=paired,
        unit=make_unit(unit, higher_is_better), bootstrap=bootstrap, seed=seed, tests=tests,
        diagnostics=diagnostics, statistic=statistic)
    return ComparisonReport(**{f.name: getattr(result, f.name) for f in fields(result)})


def factorial_design(factors: Any, *, replicates: int = 1, order: str = "random",
                     seed: int | None = None):
    """A full factorial design (`benchlab design`): factors as {name: levels} or pairs.

    order: "random" (default), "blocks" or "standard"; a seed is drawn and recorded
    when none is given. (Not `benchlab.design`: that name is the package.) Returns a
    frozen Design (`.runs`, `.rows()`, `.sign_table()`,
    `.to_dict()` = the command's JSON).
    """
    from benchlab.design.factorial import full_factorial

    items = list(factors.items()) if hasattr(factors, "items") else list(factors)
    return full_factorial(items, replicates=replicates, order=order, seed=seed)


def anova(table: Any, response: str, factors: Sequence[str], *,
          level_order: dict[str, Sequence[str]] | None = None, interactions: int | None = None,
          log: bool = False, confidence: float = 0.95, ss_type: int = 2):
    """Factorial analysis (`benchlab anova`) of a DataFrame or mapping of columns.

    Levels sort numerically or alphabetically unless `level_order` gives them (the
    first level is low, -1). Returns a frozen AnovaResult; `.to_dict()` is the JSON.
    """
    from benchlab.stats.anova import anova as run_anova

    y, codes, levels = _factor_columns("anova", table, response, factors, level_order)
    return run_anova(y, codes, list(factors), levels, response_name=response,
                     interactions=interactions, log=log, confidence=confidence,
                     ss_type=ss_type)


def _factor_columns(command: str, table: Any, response: str, factors: Sequence[str],
                    level_order: dict[str, Sequence[str]] | None
                    ) -> tuple[np.ndarray, np.ndarray, list[list[str]]]:
    """The response, the (n, k) level codes and the level names of a factorial table."""
    from benchlab.data.factor_table import ordered_levels

    orders = dict(level_order or {})
    try:
        y = np.asarray(table[response], dtype=float)
        columns = [np.asarray(table[f]).astype(str) for f in factors]
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"{command} needs a numeric column {response!r} and the factor columns "
                         f"{', '.join(map(repr, factors))}: {exc}") from None
    if response in factors:
        raise ValueError(f"{response!r} is the response and cannot also be a factor")
    levels, codes = [], []
    for name, column in zip(factors, columns, strict=True):
        lv, code = ordered_levels(name, column, orders.get(name), "table")
        levels.append(lv)
        codes.append(code)
    return y, np.stack(codes, axis=1), levels


def qreg(table: Any, response: str, factors: Sequence[str], *,
         taus: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99),
         level_order: dict[str, Sequence[str]] | None = None, interactions: int | None = None,
         se: str | None = None, cluster: str | None = None,
         covariates: Sequence[str] = (), replicates: int = 200, seed: int | None = None,
         confidence: float = 0.95):
    """Quantile regression (`benchlab qreg`) of a DataFrame or mapping of columns.

    Factors are coded -1/+1 (deviation coding beyond two levels); `cluster` names the
    run column for the run bootstrap. Returns a frozen QregResult (`coef`, `low`, `high`,
    `se`, `pvalue` per tau × term); `.to_dict()` is the JSON document.
    """
    from benchlab.stats.qreg import quantile_regression

    y, codes, levels = _factor_columns("qreg", table, response, factors, level_order)
    try:
        runs = None if cluster is None else np.asarray(table[cluster]).astype(str)
        extra = (np.column_stack([np.asarray(table[c], dtype=float) for c in covariates])
                 if covariates else None)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"qreg: the cluster column or a numeric covariate column is missing "
                         f"or not numeric: {exc}") from None
    return quantile_regression(y, codes, [len(lv) for lv in levels], list(factors), levels,
                               taus=taus, interactions=interactions, se=se, cluster=runs,
                               cluster_name=cluster, replicates=replicates, seed=seed,
                               confidence=confidence, covariates=extra,
                               covariate_names=list(covariates), response=response)


def speedup_test(baseline: Sequence[float] | np.ndarray, candidate: Sequence[float] | np.ndarray,
                 *, protocol: str = "speedup-mean", confidence: float = 0.95,
                 names: tuple[str, str] = ("baseline", "candidate"),
                 higher_is_better: bool = False):
    """The Speedup-Test mean or median protocol (`benchlab test`), one-sided at 1 - confidence.

    Returns a frozen SpeedupTestResult; its decision is "significant", "not significant"
    or "refused" (a check failed on 30 or fewer observations); `.to_dict()` is the JSON.
    """
    from benchlab.stats.protocols import speedup_test as run

    return run(np.asarray(baseline, dtype=float), np.asarray(candidate, dtype=float),
               protocol=protocol, alpha=round(1.0 - confidence, 12), names=names,
               higher_is_better=higher_is_better)


def speedup_suite(benchmarks: Any, *, protocol: str = "speedup-mean", confidence: float = 0.95,
                  names: tuple[str, str] = ("baseline", "candidate"),
                  higher_is_better: bool = False):
    """The Speedup-Test on every benchmark of a suite, the time-weighted gain, the proportion.

    benchmarks: {name: (baseline values, candidate values)}. Returns a frozen
    SpeedupSuite (`benchmarks`, `gain`, `improved`, `total`, `proportion_low/high`);
    `.to_dict()` is the JSON.
    """
    from benchlab.stats.protocols import speedup_suite as run

    return run([(str(b), np.asarray(x, dtype=float), np.asarray(y, dtype=float))
                for b, (x, y) in benchmarks.items()], protocol=protocol,
               alpha=round(1.0 - confidence, 12), names=names,
               higher_is_better=higher_is_better)


def kruskal_test(samples: Any, *, confidence: float = 0.95, posthoc: str = "mann-whitney"):
    """Kruskal–Wallis with Holm-adjusted pairwise tests (`benchlab test`).

    samples: {name: values} or (name, values) pairs; posthoc "mann-whitney" or
    "dunn". `.to_dict()` is the JSON.
    """
    from benchlab.stats.protocols import kruskal_test as run

    items = list(samples.items()) if hasattr(samples, "items") else list(samples)
    return run([(str(n), np.asarray(v, dtype=float)) for n, v in items],
               alpha=round(1.0 - confidence, 12), posthoc=posthoc)


def run_experiment(experiment: str, store: str, *, seed: int | None = None,
                   resume: bool = False, fail_fast: bool = False, timeout: str | None = None):
    """Run an experiment file into a SQLite store, as `benchlab run` does (quietly);
    `timeout` as `--timeout` ("30s", "none"; default the file's, else 10 minutes).

    Returns a frozen RunResult: `status` (finished, stopped, failed, already-...),
    `counts` of trials by status, `measurements`, `seed`, `failures`, `warnings`.
    """
    from benchlab.runner.session import run_experiment as run

    return run(experiment, store, seed=seed, resume=resume, fail_fast=fail_fast,
               timeout=timeout)


def read_store(store: str, *, metric: str | None = None):
    """The measurements of a store as a Dataset (warm-up and failed trials left out), as
    every command reads it; `metric` chooses another than the experiment's first."""
    from benchlab.data.readers import read

    return read(store, "store", metric=metric)


def read(path: str, *, format: str | None = None, **options: Any):
    """One input file as a Dataset, with the reader every command uses (the format is
    sniffed unless `format` names it: csv, numbers, hyperfine, pyperf, jmh, gotest,
    gbench, store; options as the commands': value, column, delimiters, metric,
    mode). `.to_frame()` gives it as a pandas DataFrame."""
    from benchlab.data.readers import read as read_file

    return read_file(path, format, **options)


def compare_groups(samples: Any, *, baseline: int | str = 0, confidence: float = 0.95,
                   threshold: float = 0.0, paired: bool = False, df: str = "welch",
                   bootstrap: int | None = None, seed: int | None = None, tests: bool = False,
                   unit: str | None = None, higher_is_better: bool | None = None,
                   diagnostics: bool = True, statistic: str = "mean") -> CompareResult:
    """Compare k samples with one baseline (`benchlab compare` of k files or groups);
    statistic as in `compare`.

    samples: a mapping name -> values, a sequence of (name, values), or a DataFrame
    in long form with columns `group` and `value`. baseline: its index or name.
    """
    items = _named_samples(samples)
    names = [n for n, _ in items]
    index = names.index(baseline) if isinstance(baseline, str) else int(baseline)
    return compare_samples(items, baseline=index, confidence=confidence, threshold=threshold,
                           df_method=df, paired=paired, unit=make_unit(unit, higher_is_better),
                           bootstrap=bootstrap, seed=seed, tests=tests,
                           diagnostics=diagnostics, statistic=statistic)


def _named_samples(samples: Any) -> list[tuple[str, np.ndarray]]:
    if hasattr(samples, "groupby") and {"group", "value"} <= set(samples.columns):
        return [(str(n), np.asarray(g["value"], dtype=float))
                for n, g in samples.groupby("group", sort=False)]
    items = list(samples.items()) if hasattr(samples, "items") else list(samples)
    return [(str(n), np.asarray(v, dtype=float)) for n, v in items]


def compare_suite(table: Any, *, by: str, benchmark: str, value: str = "value",
                  levels: Sequence[str] = (), baseline: str | None = None,
                  confidence: float = 0.95, threshold: float = 0.0, bootstrap: int | None = None,
                  replicates: int = DEFAULT_REPLICATES, seed: int | None = None,
                  unit: str | None = None, higher_is_better: bool | None = None,
                  statistic: str = "mean", adjust: str = "holm"):
    """A suite (`benchlab compare --benchmark`): per benchmark every system against the
    baseline, Holm-adjusted decisions and the geometric mean of the ratios with its CI.
    statistic="median": ratios of medians with bootstrap CIs (`--statistic median`);
    adjust="none": each benchmark decided alone (`--no-adjust`).

    table: a DataFrame (or mapping of columns) in long form with the `by`, `benchmark`,
    `value` and level columns. Returns a SuiteResult.
    """
    from benchlab.stats.suite import compare_suite as suite

    try:
        systems = np.asarray(table[by]).astype(str)
        benches = np.asarray(table[benchmark]).astype(str)
        values = np.asarray(table[value], dtype=float)
        level_arrays = [np.asarray(table[name]).astype(str) for name in levels]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"a suite needs columns {by!r}, {benchmark!r}, {value!r} and the "
                         f"levels: {exc}") from None
    order = list(dict.fromkeys(systems.tolist()))  # plain str: names shown in messages
    data: dict[str, list] = {}
    for bench in dict.fromkeys(benches.tolist()):
        for system in order:
            mask = (benches == bench) & (systems == system)
            if mask.any():
                data.setdefault(bench, []).append(
                    (system, values[mask], [lv[mask] for lv in level_arrays]))
    return suite(data, list(levels), baseline=baseline or order[0], confidence=confidence,
                 threshold=threshold, unit=make_unit(unit, higher_is_better),
                 replicates=replicates, seed=seed, bootstrap=bootstrap, statistic=statistic,
                 adjust=adjust)
