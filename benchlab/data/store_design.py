"""A store's default analysis: the experiment's design turned into an AnalysisSpec.

A store knows its design (docs/run.md): the alternatives are the groups, the
factor combinations the benchmarks of a suite, builds and executions the levels,
and — when the runner interleaved the alternatives — the rounds are blocks.
Given a single store and no flag that names another analysis, `compare` and
`report` therefore analyse (through `default_analysis`, the one place this is
decided)

- by alternative against the experiment's baseline, one comparison per factor
  combination (a suite with its geometric mean and Holm's adjustment);
- when the order was interleaved: the top-level unit means paired by the block
  they share (execution means by round, or build means by build index when the
  builds are real), Fieller with the covariance (stats/blocks.py); the
  diagnostics then see those means in round order, as the analysis does;
- otherwise (sequential order): the hierarchy of builds and executions.

A store of quick mode's one command scanned (`benchlab run -P n 1 3 -- 'CMD {n}'`)
has one alternative per value and no factors: with three values or more it is
analysed as a suite (reference_suite), one row per value after the first, each
compared with the first (the reference, whose executions every row reuses), Holm
across the rows, paired by round as above when the runs interleaved.

It says which in one note line (the `design` of the result, and its JSON key).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchlab.stats.spec import AnalysisSpec

BY = "alternative"  # a store's samples: its alternatives
REFERENCE_CANDIDATE = "value"  # a scanned store's suite: the column of the row's value
OVERRIDE = "--by, --benchmark, --levels or --paired choose another analysis"


@dataclass(frozen=True)
class StoreInfo:
    """What the store says of its design, beyond the measurements."""

    baseline: str | None
    order: str | None
    factors: tuple[str, ...]
    builds: int
    real_builds: bool  # a build step, or a command using {build}: builds vary on their own
    scanned: bool = False  # quick mode's one command scanned: one alternative per value
    reference: str | None = None  # set by reference_suite: the value every row is against


def is_store(path: str) -> bool:
    """A store of `benchlab run` (its design decides the analysis); a bisect's store is
    data by commit (data/bisect_store.py), analysed as any data file is."""
    from benchlab.output_file import is_sqlite
    from benchlab.runner.bisect_store import is_bisect_store

    return is_sqlite(path) and not is_bisect_store(path)


def store_info(path: str) -> StoreInfo:
    """The baseline, run order, factors and kind of builds recorded in the store."""
    from benchlab.runner.quick import SCANNED_NAME, SOURCE
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        meta = store.meta
        factors = tuple(store.factor_names())
        built, builds = store.build_counts()
    finally:
        store.close()
    uses_build = "{build}" in meta.get("experiment_text", "")
    if "scanned" in meta:
        scanned = meta["scanned"] == "true" and not factors
    else:  # a store made before the key: quick mode gave such an experiment its own name
        scanned = (meta.get("experiment_path") == SOURCE and meta.get("name") == SCANNED_NAME
                   and not factors)
    return StoreInfo(meta.get("baseline") or None, meta.get("order") or None, factors,
                     int(builds), bool(built) or uses_build, scanned)


def benchmark_column(info: StoreInfo) -> str | None:
    """The column naming a suite's benchmarks: the factor combination (None: no factors)."""
    from benchlab.data.readers.store import combination_column

    if info.reference is not None:
        return combination_column(())
    return combination_column(info.factors) if info.factors else None


@dataclass(frozen=True)
class StorePlan:
    """What the design says to analyse: the spec to run (paired by block, or the levels of
    the hierarchy), the design note, the benchmark column (None: one comparison) and the
    blocks paired per benchmark (None: the hierarchy is analysed)."""

    spec: AnalysisSpec
    design: Any  # stats.blocks.Design
    benchmark: str | None
    paired: dict | None


@dataclass(frozen=True)
class StoreAnalysis:
    """The result (with its design), the samples compared per benchmark as (name, values)
    — for a blocked store the block means, as the analysis used them — and the benchmark
    column (None: not a suite)."""

    result: Any
    samples: dict[str | None, list[tuple[str, Any]]]
    benchmark: str | None


def recorded_levels(samples) -> tuple[str, ...]:
    """The hierarchy the samples record (a store's build, execution; a format's declared
    levels), highest first; () when they disagree. Decided here once: the levels
    default_analysis analyses when it pairs nothing, and those `summary` and `history add`
    describe and keep (through cli/common.resolved_levels) unless --levels says otherwise."""
    declared = {tuple(s.dataset.levels) for s in samples}
    return declared.pop() if len(declared) == 1 else ()


def default_analysis(info: StoreInfo, samples, spec: AnalysisSpec) -> StorePlan:
    """The store's design (blocking by round, pairing, levels) turned into the spec of its
    analysis: `spec` (the user's confidence, threshold, bootstrap, ...) with the pairing
    and levels the design calls for. samples: the store's samples by alternative."""
    from benchlab.stats.blocks import Design

    benchmark = benchmark_column(info)
    levels = list(recorded_levels(samples))
    paired = _blocked(info, samples, benchmark) if spec.resample is None else None
    if paired is not None:
        column, paired_unit = _block_kind(info, samples)
        pairs = min(p.blocks.size for p in paired.values())
        dropped = tuple(sorted({b for p in paired.values() for b in p.dropped}))
        what = (f"{paired_unit} means paired by interleaving round" if column == "round"
                else "build means paired by build (each build's rounds interleave the "
                     "alternatives)")
        note = (f"{_what(benchmark, info)}; {what} ({pairs} {column}s, Fieller with the "
                f"covariance); {OVERRIDE}")
        if dropped:
            note += (f"; {column}{'s' if len(dropped) > 1 else ''} "
                     f"{', '.join(map(str, dropped[:10]))}"
                     f"{' ...' if len(dropped) > 10 else ''} "
                     "left out: some alternative has no finished execution there")
        design = Design(note, BY, benchmark, (), column, paired_unit, pairs, dropped)
        return StorePlan(replace(spec, paired=True, df_method=None, levels=()), design,
                         benchmark, paired)
    if spec.resample:
        why = "--resample: the hierarchy's bootstrap"
    elif info.order in ("interleaved-random", "blocked"):
        why = "fewer than two rounds hold every alternative: no blocks to pair"
    else:
        why = "the runs were not interleaved in rounds: no blocks to pair"
    shown = f"levels {','.join(levels)}" if levels else "no levels"
    note = f"{_what(benchmark, info)}; {shown} ({why}); {OVERRIDE}"
    return StorePlan(replace(spec, levels=tuple(levels)), Design(note, BY, benchmark,
                                                                  tuple(levels)),
                     benchmark, None)


def analyse(samples, unit, baseline: int, info: StoreInfo,
            spec: AnalysisSpec) -> StoreAnalysis:
    """The store's default analysis (default_analysis) run on its samples by alternative,
    samples[baseline] the baseline."""
    from benchlab.stats.blocks import designed

    if info.scanned and info.reference is None and len(samples) > 2:
        samples, info = reference_suite(samples, baseline, info)
        baseline = 0
    plan = default_analysis(info, samples, spec)
    if plan.paired is not None:
        result, per_bench = _blocked_analysis(plan, samples, unit, baseline)
    else:
        result, per_bench = _levels_analysis(plan, samples, unit, baseline)
    return StoreAnalysis(designed(result, plan.design), per_bench, plan.benchmark)


def reference_suite(samples, baseline: int, info: StoreInfo):
    """A scanned store's samples by value as a suite's two systems (the reference — the
    baseline value — and REFERENCE_CANDIDATE) with one benchmark per other value, named in
    the `combination` column; the reference's executions are in every benchmark. Returns
    (samples, info naming the reference)."""
    from benchlab.data.dataset import Dataset
    from benchlab.data.samples import Sample

    ref = samples[baseline]
    others = [s for k, s in enumerate(samples) if k != baseline]
    from benchlab.data.readers.store import combination_column

    column = combination_column(())
    candidate = REFERENCE_CANDIDATE if ref.name != REFERENCE_CANDIDATE else f"{ref.name} 2"

    def joined(name: str, parts) -> Sample:
        first = parts[0][1].dataset
        columns = {key: np.concatenate([np.asarray(d.dataset.columns[key]) for _, d in parts])
                   for key in first.columns}
        columns[column] = np.concatenate([np.full(len(d.dataset), label, dtype=object)
                                          for label, d in parts])
        lines = None if first.lines is None else np.concatenate(
            [d.dataset.lines for _, d in parts])
        data = Dataset(columns, first.value, first.factors, first.levels, first.metric,
                       first.unit, first.source, lines, first.default_by, first.ordered,
                       first.synthetic)
        return Sample(name, data.values, data)

    rows = [(s.name, ref) for s in others]
    suite = [joined(ref.name, rows), joined(candidate, [(s.name, s) for s in others])]
    return suite, replace(info, reference=ref.name)


def _what(benchmark: str | None, info: StoreInfo) -> str:
    if info.reference is not None:
        return (f"one command scanned: each value compared with the first, {info.reference} "
                "(its executions reused in every row), Holm across the values")
    per = ""
    if benchmark is not None:
        per = f", one comparison per combination of {', '.join(info.factors)}"
    return f"store analysed by alternative{per}"


def _block_kind(info: StoreInfo, samples) -> tuple[str, str]:
    """(block column, unit paired): builds when they are real and several, else rounds."""
    if info.real_builds and info.builds >= 2 and "build" in samples[0].dataset.levels:
        return "build", "build"
    return "round", "execution"


def _blocked(info: StoreInfo, samples, benchmark: str | None):
    """{benchmark: Paired} when the runs were interleaved and every benchmark has two
    common blocks or more; None otherwise (the hierarchy is analysed instead)."""
    from benchlab.stats.blocks import block_means, pair_blocks

    if info.order not in ("interleaved-random", "blocked"):  # blocked: rounds hold every cell
        return None
    column, _ = _block_kind(info, samples)
    per_bench: dict = {}
    for s in samples:
        parts = s.dataset.split(benchmark) if benchmark else [(None, s.dataset)]
        for bench, d in parts:
            units = np.asarray(d.columns["trial"], dtype=np.int64)
            blocks = np.asarray(d.columns[column], dtype=np.int64)
            ids, means = block_means(d.values, units, blocks)
            per_bench.setdefault(bench, []).append((s.name, ids, means))
    out = {bench: pair_blocks(found) for bench, found in per_bench.items()}
    if any(len(p.names) < 2 or p.blocks.size < 2 for p in out.values()):
        return None
    return out


def _blocked_analysis(plan: StorePlan, samples, unit, baseline: int):
    """The top-level unit means paired by block, Fieller with the covariance."""
    names = [s.name for s in samples]
    per_bench = {bench: [(n, p.means[p.names.index(n)]) for n in names]
                 for bench, p in plan.paired.items()}
    if plan.benchmark is None:
        from benchlab.stats.compare import compare_samples

        result = compare_samples(per_bench[None], plan.spec, baseline=baseline, unit=unit,
                                 noun=f"{plan.design.blocks}s")
        return result, per_bench
    from benchlab.stats.suite import compare_suite

    data = {bench: [(n, p.means[i], []) for i, n in enumerate(p.names)]
            for bench, p in plan.paired.items()}
    return compare_suite(data, [], plan.spec, baseline=names[baseline], unit=unit), per_bench


def _levels_analysis(plan: StorePlan, samples, unit, baseline: int):
    """The hierarchical analysis (sequential runs, or rounds that cannot be paired)."""
    levels = list(plan.spec.levels or ())
    benchmark = plan.benchmark
    if benchmark is None:
        from benchlab.stats.compare import compare_hierarchical, compare_samples

        named = [(s.name, s.values) for s in samples]
        if levels:
            data = [(s.name, s.values, [s.dataset.columns[n] for n in levels])
                    for s in samples]
            result = compare_hierarchical(data, levels, plan.spec, baseline=baseline,
                                          unit=unit,
                                          ordered=[s.dataset.ordered for s in samples])
        else:
            result = compare_samples(named, plan.spec, baseline=baseline, unit=unit)
        return result, {None: named}
    from benchlab.stats.suite import compare_suite

    data: dict = {}
    per_bench: dict = {}
    for s in samples:
        arrays = [s.dataset.columns[n] for n in levels]
        for bench, part in s.dataset.split(benchmark):
            mask = s.dataset.columns[benchmark] == bench
            data.setdefault(bench, []).append((s.name, part.values, [a[mask] for a in arrays]))
            per_bench.setdefault(bench, []).append((s.name, part.values))
    result = compare_suite(data, levels, plan.spec, baseline=samples[baseline].name,
                           unit=unit, ordered={s.name: s.dataset.ordered for s in samples})
    return result, per_bench
