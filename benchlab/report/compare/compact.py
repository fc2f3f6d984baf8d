"""A suite in one short line per benchmark (`compare --compact`), as benchstat lays it out.

Each line: the benchmark, each system's centre ± spread (the mean and the
half-width of its CI, relative; a median suite: the median), the change its
verdict rests on (the estimate alone: its interval, level and p-value are in the
full table) and one symbol for the verdict: ✓ an improvement, ✗ a regression
(a change beyond the threshold, in the good or the bad direction), ~ within the
threshold, ? inconclusive. The geometric mean closes the table, and one legend
line says how the verdicts were decided (family-wise by Holm, or not). Notes
(units converted, --filter) are kept; the diagnostics are counted, not listed.
"""

from __future__ import annotations

import textwrap

from benchlab.escape import markdown as md
from benchlab.escape import terminal, terminal_lines
from benchlab.notation import change_parts, fmt_level, fmt_share
from benchlab.report.compare.suite import SuiteRow, mean_halfwidth, suite_rows
from benchlab.report.numbers import fmt_quantity, fmt_spread, shorten, terminal_width
from benchlab.stats.compare import CompareResult
from benchlab.stats.descriptive import Descriptives
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import SuiteResult

SYMBOLS = {"regression": "✗", "change": "✓", "equivalent": "~", "inconclusive": "?"}


def _centre(r: CompareResult, d: Descriptives, like: float, median: bool) -> str:
    """"1.23 ms ± 2%": the mean with its CI's relative half-width (a median: alone)."""
    half = mean_halfwidth(r, d)
    if median:
        return fmt_quantity(d.median, r.unit, half, like)
    relative = (0.0 if half == 0 else
                half / abs(d.mean) if half is not None and d.mean else None)
    return f"{fmt_quantity(d.mean, r.unit, half, like)} {fmt_spread(relative)}"


def _lines(result: SuiteResult) -> list[tuple[tuple[str, ...], bool]]:
    """((benchmark, candidate, old, new, change, symbol), is the geometric mean) per
    comparison, then per geometric mean, in the suite's order (the full table's rows,
    suite_rows, give the verdicts; a benchmark may be named "geomean")."""
    rows: list[SuiteRow] = suite_rows(result)
    decided = {(d.benchmark, d.candidate): d for d in result.decisions}
    median = statistic_of(result).resamples
    out = []
    k = 0
    for bench, r in result.benchmarks:
        by_name = {d.name: d for d in r.samples}
        for c in r.comparisons:
            base, cand = by_name[c.baseline], by_name[c.candidate]
            like = base.median if median else base.mean
            d = decided.get((bench, c.candidate))
            if d is not None and d.scale == "ratio":
                change = change_parts(d.estimate, d.low, d.high, r.unit).estimate
            elif c.ratio is not None:
                change = change_parts(c.ratio.estimate, c.ratio.low, c.ratio.high,
                                      r.unit).estimate
            else:
                change = rows[k].change  # no ratio: the difference, as the full table says
            out.append(((bench, c.candidate, _centre(r, base, like, median),
                         _centre(r, cand, like, median), change, SYMBOLS[rows[k].outcome]),
                        False))
            k += 1
    unit = result.benchmarks[0][1].unit
    for row, g in zip(rows[k:], result.geometric_means, strict=True):
        change = change_parts(g.estimate, g.low, g.high, unit).estimate
        out.append((("geomean", g.candidate, row.old, row.new, change, SYMBOLS[row.outcome]),
                    True))
    return out


def _several(result: SuiteResult) -> bool:
    return len({c.candidate for _, r in result.benchmarks for c in r.comparisons}) > 1


def _head(result: SuiteResult) -> list[str]:
    first = result.benchmarks[0][1].comparisons[0]
    middle = [first.baseline, "candidate", "value"] if _several(result) else \
        [first.baseline, first.candidate]
    return ["benchmark", *middle, statistic_of(result).change, ""]


def _cells(result: SuiteResult, line: tuple[str, ...]) -> list[str]:
    bench, candidate, old, new, change, symbol = line
    middle = [old, candidate, new] if _several(result) else [old, new]
    return [bench, *middle, change, symbol]


def legend(result: SuiteResult) -> str:
    """One line: what the symbols mean and how the verdicts were decided."""
    m = len(result.benchmarks)
    level = fmt_level(result.confidence)
    how = (f"family-wise (Holm) at {level} over {m} benchmark{'s' if m != 1 else ''}"
           if result.adjust == "holm" else
           f"per benchmark at {level}, not adjusted for the {m} benchmarks")
    threshold = fmt_share(result.benchmarks[0][1].threshold)
    cells = ("each cell: the median" if statistic_of(result).resamples
             else f"± the half-width of the {level} CI of the mean")
    return (f"✓ improvement, ✗ regression (a change beyond the {threshold} threshold), "
            f"~ within it, ? inconclusive; decided {how}; {cells}; intervals and p-values: "
            "without --compact")


def _warning_count(result: SuiteResult) -> int:
    return len(result.skipped) + sum(len(r.diagnostics) for _, r in result.benchmarks)


def compact_text(result: SuiteResult, legend_line: bool = True) -> str:
    """The suite as aligned columns, one line per benchmark, cut to COLUMNS."""
    head = [terminal(h) for h in _head(result)]
    rows = [[terminal(c) for c in _cells(result, line)] for line, _ in _lines(result)]
    names = [0, 2] if _several(result) else [0]
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
    room = terminal_width() - sum(w + 2 for w in widths[1:])
    if widths[0] > room:
        widths[0] = max(room, 12, len(head[0]))
        rows = [[shorten(r[0], widths[0]), *r[1:]] for r in rows]
    lines = []
    for r in (head, *rows):
        lines.append("  ".join(c.ljust(w) if i in names or i == len(r) - 1 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))
                               ).rstrip())
    if legend_line:
        lines += textwrap.wrap(legend(result), terminal_width() - 1, break_on_hyphens=False)
    lines += [f"note: {n}" for n in result.notes]
    count = _warning_count(result)
    if count:
        lines.append(f"{count} warning{'s' if count != 1 else ''}: see them without --compact")
    return terminal_lines(lines) + "\n"


def compact_markdown(result: SuiteResult) -> str:
    """The compact table for a pull-request comment, the legend under it."""
    head = _head(result)
    right = [i not in ([0, 2] if _several(result) else [0]) for i in range(len(head))]
    right[-1] = False
    lines = ["### benchlab compare (suite)", "",
             "| " + " | ".join(map(md, head)) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    for line, geomean in _lines(result):
        cells = [md(c) for c in _cells(result, line)]
        if geomean:
            cells[0] = "*geomean*"
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"- note: {md(n)}" for n in result.notes]
    count = _warning_count(result)
    if count:
        lines.append(f"- {count} warning{'s' if count != 1 else ''}: see them without "
                     "--compact")
    lines += ["", f"<sub>{md(legend(result))}; benchlab</sub>", ""]
    return "\n".join(lines)
