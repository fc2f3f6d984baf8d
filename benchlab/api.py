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

from benchlab.stats.compare import CompareResult, compare_samples
from benchlab.units import make_unit


@dataclass(frozen=True)
class ComparisonReport(CompareResult):
    """The result of `compare`: confidence, samples, comparisons (ratio, difference, verdict)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON document `benchlab compare --json` prints for the same data."""
        from benchlab.report.document import comparison_document

        return comparison_document(self)


def _name(values: Any, default: str) -> str:
    name = getattr(values, "name", None)
    return str(name) if isinstance(name, str) and name else default


def compare(baseline: Sequence[float] | np.ndarray, candidate: Sequence[float] | np.ndarray,
            *, confidence: float = 0.95, threshold: float = 0.0, paired: bool = False,
            df: str = "welch", bootstrap: int | None = None, seed: int | None = None,
            tests: bool = False, unit: str | None = None,
            higher_is_better: bool | None = None, names: tuple[str, str] | None = None,
            diagnostics: bool = True) -> ComparisonReport:
    """Compare `candidate` with `baseline` (arrays, lists or pandas Series).

    threshold is a fraction (0.02 for 2%); df chooses Fieller's degrees of
    freedom ("welch", "conservative", "pooled"); bootstrap is the number of
    replicates (None: no bootstrap). Raises benchlab.errors.InputError for data
    that cannot be compared (too few values, NaN, unequal lengths when paired).
    """
    if names is None:
        names = (_name(baseline, "baseline"), _name(candidate, "candidate"))
        if names[0] == names[1]:
            names = ("baseline", "candidate")
    result = compare_samples(
        [(names[0], np.asarray(baseline, dtype=float)),
         (names[1], np.asarray(candidate, dtype=float))],
        confidence=confidence, threshold=threshold, df_method=df, paired=paired,
        unit=make_unit(unit, higher_is_better), bootstrap=bootstrap, seed=seed, tests=tests,
        diagnostics=diagnostics)
    return ComparisonReport(**{f.name: getattr(result, f.name) for f in fields(result)})
