"""The results of `benchlab summary` and `benchlab plan`: one entry per group or benchmark.

A group without levels is described by its mean and the t CI of the mean
(measurements independent, STATS.md §1); with levels by its variance
components (STATS.md §5), and `plan` adds the optimal repetitions (§6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.result import Result
from benchlab.stats.descriptive import Descriptives, describe
from benchlab.stats.distributions import critical_t
from benchlab.stats.hierarchy import HierarchySummary, Plan
from benchlab.units import Unit


@dataclass(frozen=True)
class FlatSummary:
    """One group without levels: descriptives and the t CI of the mean (df = n - 1)."""

    descriptives: Descriptives
    low: float
    high: float
    confidence: float

    @property
    def name(self) -> str:
        return self.descriptives.name


def flat_summary(values: np.ndarray, name: str, confidence: float = 0.95) -> FlatSummary:
    """The mean with its t interval; a single value has no interval (nan bounds)."""
    d = describe(values, name)
    half = critical_t(confidence, d.n - 1) * d.sem if d.n > 1 else math.nan
    return FlatSummary(d, d.mean - half, d.mean + half, confidence)


@dataclass(frozen=True)
class SummaryGroup:
    """One group (and benchmark, in a suite): flat or hierarchical."""

    benchmark: str | None
    summary: FlatSummary | HierarchySummary


@dataclass(frozen=True)
class SummaryReport(Result):
    """Everything `benchlab summary` found."""

    confidence: float
    unit: Unit
    level_columns: tuple[str, ...]
    groups: tuple[SummaryGroup, ...]
    notes: tuple[str, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for g in self.groups if isinstance(g.summary, HierarchySummary)
                     for w in g.summary.warnings)


@dataclass(frozen=True)
class PlanGroup:
    """One group's pilot summary and its plan."""

    benchmark: str | None
    summary: HierarchySummary
    plan: Plan


@dataclass(frozen=True)
class PlanReport(Result):
    """Everything `benchlab plan` found."""

    unit: Unit
    level_columns: tuple[str, ...]
    groups: tuple[PlanGroup, ...]
    notes: tuple[str, ...] = ()
