"""`benchlab compare STORE`: the analysis the experiment's design calls for, by default.

A store knows its design (docs/run.md): the alternatives are the groups, the
factor combinations the benchmarks of a suite, builds and executions the levels,
and — when the runner interleaved the alternatives — the rounds are blocks.
Given a single store and none of --by, --benchmark, --levels, --paired or
--pair-by, compare therefore analyses

- by alternative against the experiment's baseline, one comparison per factor
  combination (a suite with its geometric mean and Holm's adjustment);
- when the order was interleaved: the top-level unit means paired by the block
  they share (execution means by round, or build means by build index when the
  builds are real), Fieller with the covariance (stats/blocks.py); the
  diagnostics then see those means in round order, as the analysis does;
- otherwise (sequential order): the hierarchy of builds and executions.

It says which in one note line (and the JSON `design` key). Any of the flags
above and compare does exactly what they say, as for any table.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

import numpy as np

from benchlab.errors import UsageError

FLAGS = ("by", "benchmark", "levels", "paired", "pair_by")
OVERRIDE = "--by, --benchmark, --levels or --paired choose another analysis"


@dataclass(frozen=True)
class StoreInfo:
    """What the store says of its design, beyond the measurements."""

    baseline: str | None
    order: str | None
    factors: tuple[str, ...]
    builds: int
    real_builds: bool  # a build step, or a command using {build}: builds vary on their own


def is_store(path: str) -> bool:
    from benchlab.sqlite_file import is_sqlite

    return is_sqlite(path)


def applies(args: argparse.Namespace) -> bool:
    """A single store and no flag that says how to analyse it."""
    files = list(args.files)
    if len(files) != 1 or files[0] == "-" or args.input_format not in (None, "store"):
        return False
    if any(getattr(args, flag, None) for flag in FLAGS):
        return False
    return is_store(files[0])


def store_info(path: str) -> StoreInfo:
    """The baseline, run order, factors and kind of builds recorded in the store."""
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        meta = store.meta
        factors = tuple(store.factor_names())
        built = store.conn.execute("SELECT COUNT(*) FROM trials WHERE kind = 'build'"
                                   ).fetchone()[0]
        builds = store.conn.execute("SELECT COUNT(DISTINCT build) FROM trials").fetchone()[0]
    finally:
        store.close()
    uses_build = "{build}" in meta.get("experiment_text", "")
    return StoreInfo(meta.get("baseline") or None, meta.get("order") or None, factors,
                     int(builds), bool(built) or uses_build)


def analyse(args: argparse.Namespace, spec, command: str = "compare"):
    """The default analysis of one store (see the module docstring), as an Analysis."""
    from benchlab.cli import common
    from benchlab.data.readers.store import combination_column
    from benchlab.data.samples import pick_baseline, rename, unify_units

    path = args.files[0]
    info = store_info(path)
    inputs = common.load(args, by="alternative")
    samples = rename(inputs.samples, args.name)
    if len(samples) < 2:
        raise UsageError(f"{command} needs at least two samples: this store has one "
                         f"alternative ({samples[0].name}); compare its factor levels with "
                         f"--by {info.factors[0] if info.factors else 'case'}")
    chosen = args.baseline
    if chosen is None and info.baseline in {s.name for s in samples}:
        chosen = info.baseline
    samples, unit, unit_note = unify_units(samples, args.unit, args.higher_is_better)
    baseline = pick_baseline(samples, chosen)
    if spec.bootstrap is not None:
        from benchlab import limits

        limits.check_resampled(spec.bootstrap, sum(len(s.values) for s in samples),
                               "--bootstrap")
    benchmark = combination_column(info.factors) if info.factors else None
    levels = list(samples[0].dataset.levels)
    blocked = _blocked(info, samples, benchmark)
    if blocked is not None and spec.resample is None:
        found = _blocked_analysis(spec, samples, unit, baseline, info, benchmark, blocked)
    else:
        found = _levels_analysis(spec, samples, unit, baseline, info, benchmark,
                                 levels, blocked is None and info.order == "interleaved-random")
    from benchlab.cli.analysis import with_note

    return replace(found, result=with_note(found.result, unit_note),
                   metric=samples[0].dataset.metric)


def _what(benchmark: str | None, info: StoreInfo) -> str:
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

    if info.order != "interleaved-random":
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


def _blocked_analysis(spec, samples, unit, baseline: int, info: StoreInfo,
                      benchmark: str | None, paired: dict):
    """The top-level unit means paired by block, Fieller with the covariance."""
    from benchlab.cli.analysis import Analysis
    from benchlab.stats.blocks import Design, designed

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
                 f"{', '.join(map(str, dropped[:10]))}{' ...' if len(dropped) > 10 else ''} "
                 "left out: some alternative has no finished execution there")
    design = Design(note, "alternative", benchmark, (), column, paired_unit, pairs, dropped)
    names = [s.name for s in samples]
    spec = replace(spec, paired=True, df_method=None, levels=())
    per_bench = {bench: [(n, p.means[p.names.index(n)]) for n in names]
                 for bench, p in paired.items()}
    if benchmark is None:
        from benchlab.stats.compare import compare_samples

        result = compare_samples(per_bench[None], spec, baseline=baseline, unit=unit,
                                 noun=f"{column}s")
        return Analysis(designed(result, design), per_bench)
    from benchlab.stats.suite import compare_suite

    data = {bench: [(n, p.means[i], []) for i, n in enumerate(p.names)]
            for bench, p in paired.items()}
    result = compare_suite(data, [], spec, baseline=names[baseline], unit=unit)
    return Analysis(designed(result, design), per_bench, benchmark)


def _levels_analysis(spec, samples, unit, baseline: int, info: StoreInfo,
                     benchmark: str | None, levels: list[str], incomplete: bool):
    """The hierarchical analysis (sequential runs, or rounds that cannot be paired)."""
    from benchlab.cli import common
    from benchlab.cli.analysis import Analysis, with_levels
    from benchlab.stats.blocks import Design, designed

    spec = with_levels(spec, levels)
    if spec.resample is not None and spec.bootstrap is None:
        raise UsageError("--resample says how --bootstrap resamples: add --bootstrap")
    if spec.resample:
        why = "--resample: the hierarchy's bootstrap"
    elif incomplete:
        why = "fewer than two rounds hold every alternative: no blocks to pair"
    else:
        why = "the runs were not interleaved in rounds: no blocks to pair"
    shown = f"levels {','.join(levels)}" if levels else "no levels"
    note = f"{_what(benchmark, info)}; {shown} ({why}); {OVERRIDE}"
    design = Design(note, "alternative", benchmark, tuple(levels))
    if benchmark is None:
        from benchlab.stats.compare import compare_hierarchical, compare_samples

        named = [(s.name, s.values) for s in samples]
        with common.naming_files(samples):
            if levels:
                data = [(s.name, s.values, common.level_arrays(s, levels)) for s in samples]
                result = compare_hierarchical(data, levels, spec, baseline=baseline, unit=unit,
                                              ordered=[s.dataset.ordered for s in samples])
            else:
                result = compare_samples(named, spec, baseline=baseline, unit=unit)
        return Analysis(designed(result, design), {None: named})
    from benchlab.stats.suite import compare_suite

    data: dict = {}
    per_bench: dict = {}
    for s in samples:
        arrays = common.level_arrays(s, levels) if levels else []
        for bench, part in s.dataset.split(benchmark):
            mask = s.dataset.columns[benchmark] == bench
            data.setdefault(bench, []).append((s.name, part.values, [a[mask] for a in arrays]))
            per_bench.setdefault(bench, []).append((s.name, part.values))
    with common.naming_files(samples):
        result = compare_suite(data, levels, spec, baseline=samples[baseline].name, unit=unit,
                               ordered={s.name: s.dataset.ordered for s in samples})
    return Analysis(designed(result, design), per_bench, benchmark)
