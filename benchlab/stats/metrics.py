"""One analysis per metric of a multi-metric input (go test: sec/op, B/op, allocs/op, ...).

benchstat prints a table for every unit a `go test -benchmem` file carries;
`compare` does the same by running its analysis once per metric. This result
holds those analyses, the default metric's first (the one read without
`--metric`), and knows nothing of output.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchlab.result import Result


@dataclass(frozen=True)
class PerMetric(Result):
    """(metric, result) pairs, the default metric first (or the order asked for); notes
    about metrics left out; `side_by_side`: the metrics were asked for together
    (`--metric a,b`), so the outputs put them in one table first."""

    results: tuple[tuple[str, Result], ...]
    notes: tuple[str, ...] = ()
    side_by_side: bool = False

    @property
    def default(self) -> Result:
        """The analysis of the default metric (what a single-metric run would give)."""
        return self.results[0][1]
