"""Turn command-line inputs into named samples: files, groups of a table, pairs by key.

Each input file becomes one sample, or one per group with `by`; with `pair_by`
the samples are aligned on a key column so value i of each sample shares a key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import numpy as np

from benchlab.data import readers
from benchlab.data.dataset import Dataset
from benchlab.data.source import display_name
from benchlab.errors import InputError, UsageError
from benchlab.units import TIME_SECONDS, Unit, make_unit


@dataclass(frozen=True)
class Sample:
    """One sample: its name, values in measurement order, and where they came from."""

    name: str
    values: np.ndarray
    dataset: Dataset


def _short_names(paths: list[str]) -> list[str]:
    """File names without directory and extension when that keeps them distinct."""
    paths = [display_name(p) for p in paths]  # names that print and store (no surrogates)
    short = [os.path.splitext(os.path.basename(p))[0] or p for p in paths]
    return short if len(set(short)) == len(short) else paths


@dataclass(frozen=True)
class Inputs:
    """The samples read from the inputs, and the benchmark column when they form a suite.

    Several files in a format with named benchmarks (go test, JMH, ...) are one
    system per file, compared benchmark by benchmark, as benchstat does.
    """

    samples: list[Sample]
    benchmark: str | None = None


def load_inputs(paths: list[str], *, format: str | None = None, column: int = 1,
                delimiters: str = " \t", value: str | None = None, by: str | None = None,
                unit: str | None = None, higher_is_better: bool | None = None,
                metric: str | None = None, mode: str | None = None,
                min_values: int = 2) -> Inputs:
    """Read every input into samples, refusing non-finite values and too-short samples."""
    if not paths:
        paths = ["-"]
    if paths.count("-") > 1:
        raise UsageError("standard input (-) can be read only once")
    names = [n if p != "-" else "stdin" for p, n in zip(paths, _short_names(paths), strict=True)]
    datasets = []
    for path, name in zip(paths, names, strict=True):
        dataset = readers.read(path, format, column=column, delimiters=delimiters, value=value,
                               by=by, unit=unit, higher_is_better=higher_is_better,
                               name=name, metric=metric, mode=mode)
        dataset.check_finite()
        dataset = _directed(dataset)
        if value is not None and value not in dataset.columns:
            raise UsageError(f"--value {value} needs a CSV/TSV table with a header; this is a "
                             "plain file of numbers (use -C for its columns)", dataset.source)
        if by is not None and by not in dataset.columns:
            have = [c for c in dataset.file_columns if c != dataset.value]
            what = f"columns: {', '.join(have)}" if have else "a plain file of numbers has none"
            raise UsageError(f"no column {by!r} for --by ({what})", dataset.source)
        datasets.append(dataset)
    benchmark = None
    samples: list[Sample] = []
    if by is None and len(datasets) > 1:
        groups = [d.default_by for d in datasets if d.default_by is not None]
        if groups and any(len(d.group_names(d.default_by)) > 1 for d in datasets
                          if d.default_by is not None):
            if len(set(groups)) > 1 or len(groups) != len(datasets):
                raise UsageError("the files name their benchmarks differently; compare them "
                                 "one format at a time")
            benchmark = groups[0]
        samples = [Sample(n, d.values, d) for n, d in zip(names, datasets, strict=True)]
    else:
        for name, dataset in zip(names, datasets, strict=True):
            group_by = by if by is not None else dataset.default_by
            if group_by is None:
                samples.append(Sample(name, dataset.values, dataset))
            else:
                samples.extend(Sample(g, part.values, part)
                               for g, part in dataset.split(group_by))
    seen: set[str] = set()
    for s in samples:
        if s.name in seen:
            raise UsageError(f"two samples are named {s.name!r}; rename one")
        seen.add(s.name)
        if benchmark is None and len(s.values) < min_values:
            raise InputError(f"sample {s.name!r} has {len(s.values)} value"
                             f"{'s' if len(s.values) != 1 else ''}; at least {min_values} "
                             "are needed", s.dataset.source)
    return Inputs(samples, benchmark)


def _directed(dataset: Dataset) -> Dataset:
    """The dataset with "higher is better" from its metric's name when its unit does not
    say (a CSV's `throughput` rows, a store's `ops_per_sec`): units.make_unit's rule on
    the name, so rates and throughputs are better higher, times and counts lower."""
    unit = dataset.unit
    if unit.higher_is_better is not None or not dataset.metric:
        return dataset
    implied = make_unit(dataset.metric).higher_is_better
    if implied is None:
        return dataset
    return replace(dataset, unit=Unit(unit.name, implied))


def load_samples(paths: list[str], **opts) -> list[Sample]:
    """The samples of `paths` (see load_inputs)."""
    return load_inputs(paths, **opts).samples


def _per_time(name: str) -> tuple[str, float] | None:
    """A rate "X/T" with T a time unit → (X, seconds in T); None for anything else."""
    top, sep, bottom = name.rpartition("/")
    if not sep or bottom not in TIME_SECONDS:
        return None
    return top, TIME_SECONDS[bottom]


def conversion(source: str, target: str) -> float | None:
    """The factor turning values in unit `source` into unit `target`; None if no such factor.

    Times convert by their length in seconds (units.TIME_SECONDS); rates "X/T" of the
    same X by the length of T (ops/ms → ops/s is × 1000). Anything else only to itself.
    """
    if source == target:
        return 1.0
    if source in TIME_SECONDS and target in TIME_SECONDS:
        return TIME_SECONDS[source] / TIME_SECONDS[target]
    a, b = _per_time(source), _per_time(target)
    if a is not None and b is not None and a[0] == b[0]:
        return b[1] / a[1]
    return None


def unify_units(samples: list[Sample], unit: str | None, higher_is_better: bool | None
                ) -> tuple[list[Sample], Unit, str | None]:
    """Samples in one unit, the unit, and a note saying what was converted (None if nothing).

    A declared --unit names the unit of values that record none (plain numbers, a
    CSV column), and converts values whose file records another unit of the same
    kind (ns → s), saying so; a recorded unit of another kind is refused, never
    relabelled (go test's ns/op read with --unit s once printed "2146.33 s").
    Without --unit, files in different time units (or rates per different times)
    are converted to the first sample's unit; units of different kinds (a time and
    a rate, bytes and seconds) are refused.
    """
    if unit is not None:
        return _to_declared_unit(samples, unit, higher_is_better)
    if higher_is_better is not None:
        return samples, make_unit(None, higher_is_better), None
    target = samples[0].dataset.unit
    names = {s.dataset.unit.name for s in samples}
    if len(names) == 1:
        return samples, target, None
    if target.name is None or None in names:
        shown = sorted(n or "no unit" for n in names)
        raise InputError(f"the samples have different units: {', '.join(shown)}; a value "
                         "without a unit cannot be converted (say the unit with --unit if "
                         "they are all in one)")
    factors = {n: conversion(n, target.name) for n in names}
    wrong = sorted(n for n, f in factors.items() if f is None)
    if wrong:
        raise InputError(f"the samples have units of different kinds: {target.name} and "
                         f"{', '.join(wrong)} cannot be converted into each other")
    out, converted = [], []
    for s in samples:
        f = factors[s.dataset.unit.name]
        if f == 1.0:
            out.append(s)
            continue
        converted.append(f"{s.name} from {s.dataset.unit.name}")
        d = s.dataset
        dataset = replace(d, columns={**d.columns, d.value: d.values * f},
                          unit=make_unit(target.name, target.higher_is_better))
        out.append(Sample(s.name, s.values * f, dataset))
    note = f"values converted to {target.name} ({', '.join(converted)})"
    return out, target, note


def _converted(s: Sample, factor: float, unit: Unit) -> Sample:
    d = s.dataset
    dataset = replace(d, columns={**d.columns, d.value: d.values * factor}, unit=unit)
    return Sample(s.name, s.values * factor, dataset)


def _to_declared_unit(samples: list[Sample], unit: str, higher_is_better: bool | None
                      ) -> tuple[list[Sample], Unit, str | None]:
    """Every sample in the declared unit: recorded units converted (or refused), the
    others labelled."""
    target = make_unit(unit, higher_is_better)
    out, converted = [], []
    for s in samples:
        recorded = s.dataset.unit.name
        if recorded is None or recorded == unit:
            out.append(s if recorded is None else _converted(s, 1.0, target))
            continue
        factor = conversion(recorded, unit)
        if factor is None:
            raise InputError(f"the file records its values in {recorded}; --unit {unit} "
                             "cannot relabel them (not convertible): leave --unit out, or "
                             f"give a unit {recorded} converts to", s.dataset.source or None)
        out.append(_converted(s, factor, target))
        converted.append(f"{s.name} from {recorded}")
    note = f"values converted to {unit} ({', '.join(converted)})" if converted else None
    return out, target, note


def rename(samples: list[Sample], names: list[str] | None) -> list[Sample]:
    """Samples renamed by "OLD=label" pairs (`--name`): OLD is a sample's name or its file.

    The label is the sample's name in every output from then on (JSON and CSV
    too). An OLD that names no sample, a pair without "=", an empty label or two
    samples given one name are usage errors.
    """
    if not names:
        return samples
    wanted: dict[str, str] = {}
    for pair in names:
        pair = display_name(pair)  # bytes that are not UTF-8 shown as escapes, as in file names
        old, sep, label = pair.partition("=")
        if not sep or not old or not label.strip():
            raise UsageError(f"--name wants OLD=LABEL, got {pair!r}")
        if not any(s.name == old or s.dataset.source == old for s in samples):
            raise UsageError(f"--name {pair!r}: no sample named {old!r} "
                             f"(samples: {', '.join(s.name for s in samples)})")
        wanted[old] = label
    out = [replace(s, name=wanted.get(s.name, wanted.get(s.dataset.source, s.name)))
           for s in samples]
    seen: set[str] = set()
    for s in out:
        if s.name in seen:
            raise UsageError(f"--name gives two samples the name {s.name!r}")
        seen.add(s.name)
    return out


def pick_baseline(samples: list[Sample], baseline: str | None) -> int:
    """Index of the baseline sample: the named one, else the first."""
    if baseline is None:
        return 0
    for i, s in enumerate(samples):
        if s.name == baseline or s.dataset.source == baseline:
            return i
    raise UsageError(f"no sample named {baseline!r} for --baseline "
                     f"(samples: {', '.join(s.name for s in samples)})")


def align_pairs(samples: list[Sample], key: str, baseline: int) -> list[Sample]:
    """Reorder every sample by the key column so the i-th values share a key."""
    keyed = []
    for s in samples:
        if key not in s.dataset.columns:
            raise UsageError(f"no column {key!r} for --pair-by", s.dataset.source)
        keys = [str(k) for k in s.dataset.columns[key]]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise InputError(f"key {dup!r} of --pair-by {key} appears twice in sample "
                             f"{s.name!r}", s.dataset.source)
        keyed.append(dict(zip(keys, s.values, strict=True)))
    order = [str(k) for k in samples[baseline].dataset.columns[key]]
    for s, d in zip(samples, keyed, strict=True):
        if set(d) != set(order):
            missing = sorted(set(order) ^ set(d))
            raise InputError(f"--pair-by {key}: sample {s.name!r} and the baseline do not have "
                             f"the same keys (unmatched: {', '.join(missing[:5])})",
                             s.dataset.source)
    return [Sample(s.name, np.array([d[k] for k in order]), s.dataset)
            for s, d in zip(samples, keyed, strict=True)]
