"""Turn command-line inputs into named samples: files, groups of a table, pairs by key.

Each input file becomes one sample, or one per group with `by`; with `pair_by`
the samples are aligned on a key column so value i of each sample shares a key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from benchlab.data import readers
from benchlab.data.dataset import Dataset
from benchlab.errors import InputError, UsageError
from benchlab.units import Unit, make_unit


@dataclass(frozen=True)
class Sample:
    """One sample: its name, values in measurement order, and where they came from."""

    name: str
    values: np.ndarray
    dataset: Dataset


def _short_names(paths: list[str]) -> list[str]:
    """File names without directory and extension when that keeps them distinct."""
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
        if value is not None and value not in dataset.columns:
            raise UsageError(f"--value {value} needs a CSV/TSV table with a header; this is a "
                             "plain file of numbers (use -C for its columns)", dataset.source)
        if by is not None and by not in dataset.columns:
            have = [c for c in dataset.columns if c not in (dataset.value, "sample")]
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


def load_samples(paths: list[str], **opts) -> list[Sample]:
    """The samples of `paths` (see load_inputs)."""
    return load_inputs(paths, **opts).samples


def sample_unit(samples: list[Sample], unit: str | None,
                higher_is_better: bool | None) -> Unit:
    """The unit all samples share (a declared one wins; differing file units are refused)."""
    if unit is not None or higher_is_better is not None:
        return make_unit(unit, higher_is_better)
    names = {s.dataset.unit.name or "no unit" for s in samples}
    if len(names) > 1:
        raise InputError(f"the samples have different units: {', '.join(sorted(names))}; "
                         "convert them to one unit first (--unit names the unit, it does "
                         "not convert)")
    return samples[0].dataset.unit


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
