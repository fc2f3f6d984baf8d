"""The terminal report of `benchlab compare`: samples table, plot, comparisons, warnings."""

from __future__ import annotations

import math

import numpy as np

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import fmt_level, fmt_p
from benchlab.report.compare.bootstrap_cells import interval_cells, interval_kinds
from benchlab.report.compare.plot import distribution_plot
from benchlab.report.numbers import (
    decimals,
    fixed,
    fmt_interval,
    fmt_quantity,
    fmt_row,
    fmt_uncertain,
    shorten,
    terminal_width,
)
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.difference import MeanDifference
from benchlab.units import Unit


def fmt_num(x: float | None, digits: int = 5) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}g}"


def samples_table(result: CompareResult, width: int | None = None) -> list[str]:
    """One row per sample, each in one unit (the one its mean suits), to the last digit
    its standard error justifies; names cut to fit `width` columns (COLUMNS)."""
    unit = result.unit
    head = ("n", "mean", "median", "stddev", "min", "max", "CV")
    cells = []
    for s in result.samples:
        cv = "n/a" if not math.isfinite(s.cv) else f"{100 * s.cv:.1f}%"
        sem = s.sem if s.n > 1 else None
        cells.append((str(s.n), *fmt_row((s.mean, s.median, s.stddev, s.min, s.max), unit,
                                         sem, s.mean), cv))
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(head)]
    room = (width or terminal_width()) - 2 - sum(w + 2 for w in widths)
    names = [shorten(terminal(s.name), max(room, 12)) for s in result.samples]
    name_w = max(len("sample"), *(len(n) for n in names))
    lines = ["  " + "sample".ljust(name_w) + "".join(f"  {h:>{w}}" for h, w in
                                                     zip(head, widths, strict=True))]
    for name, r in zip(names, cells, strict=True):
        lines.append("  " + name.ljust(name_w) + "".join(
            f"  {c:>{w}}" for c, w in zip(r, widths, strict=True)))
    return lines


LABEL = 26


def _difference_line(d: MeanDifference, unit: Unit, label: str) -> str:
    est, low, high = fmt_interval(d.estimate, d.low, d.high, unit)
    return (f"  {label:<{LABEL}}{est}  {fmt_level(d.confidence)} CI {low} .. {high}  "
            f"{fmt_p(d.pvalue)}  ({d.method})")


def _ratio_cells(r) -> tuple[str, str]:
    """A ratio and its CI to the digits the CI's width justifies (at least 2 decimals)."""
    if r.low is None or r.high is None:
        return fmt_uncertain(r.estimate), "unbounded"
    places = max(decimals(r.estimate, (r.high - r.low) / 2), 2)
    return fixed(r.estimate, places), f"{fixed(r.low, places)} .. {fixed(r.high, places)}"


def comparison_lines(c: Comparison, unit: Unit, confidence: float) -> list[str]:
    level = f"{100 * confidence:g}% CI"
    room = max((terminal_width() - len(" vs  (paired)")) // 2, 12)
    lines = [f"{shorten(terminal(c.candidate), room)} vs {shorten(terminal(c.baseline), room)}"
             + (" (paired)" if c.paired else "")]
    if c.ratio is not None:
        r = c.ratio
        df = f", df = {r.df:.3g}" if r.df is not None else ""
        est, ci = _ratio_cells(r)
        lines.append(f"  {'ratio of means':<{LABEL}}{est}  {level} {ci}  ({r.method}{df})")
        if r.note:
            lines.append(f"  {'':<{LABEL}}{r.note}")
    else:
        lines.append(f"  {'ratio of means':<{LABEL}}n/a: {c.ratio_note}")
    lines.append(_difference_line(c.difference, unit, "difference"))
    for b in c.bootstrap:
        kinds = interval_kinds([b])
        shown = ", ".join(f"{cell} ({kind})"
                          for kind, cell in zip(kinds, interval_cells(b, kinds), strict=True))
        lines.append(f"  {'ratio of ' + b.statistic + 's':<{LABEL}}{b.estimate:.4f}  bootstrap "
                     f"{level} {shown}; B = {b.replicates}, seed = {b.seed}")
        if b.note:
            lines.append(f"  {'':<{LABEL}}{b.note}")
    for t in c.tests:
        if isinstance(t, MeanDifference):
            lines.append(_difference_line(t, unit, t.method.split(" (")[0]))
            continue
        extra = ""
        if t.estimate is not None and t.name.startswith(("Mann", "Wilcoxon")):
            extra = f", estimate {fmt_quantity(t.estimate, unit)}"
        elif t.estimate is not None:
            extra = f", estimate {fmt_num(t.estimate)}"
            if t.low is not None:
                extra += f" ({level} {fmt_num(t.low)} .. {fmt_num(t.high)})"
        label = terminal(t.name)  # names a sample (Shapiro-Wilk (NAME)): escaped, then measured
        if len(label) >= LABEL:  # a long name on a line of its own, the numbers below it
            lines.append(f"  {label}")
            label = ""
        lines.append(f"  {label:<{LABEL}}statistic {fmt_num(t.statistic)}, "
                     f"{fmt_p(t.pvalue)}{extra}  ({t.method})")
    lines.append(f"  => {c.verdict.text}")
    return lines


def render_text(result: CompareResult, samples: list[tuple[str, np.ndarray]],
                plot: bool = True, width: int = 60) -> str:
    """The whole terminal report; every line inert (`escape.terminal`: no control from data)."""
    out = samples_table(result)
    if plot:
        lo = min(d.min for d in result.samples)
        hi = max(d.max for d in result.samples)
        low, high = fmt_row((lo, hi), result.unit, None, max(abs(lo), abs(hi)))
        label = f"{low} .. {high}   (├ ┤ min/max, ═ quartiles, M median, A mean)"
        values = [x for _, x in samples]
        out.append("")
        out.extend(distribution_plot(list(zip(result.samples, values, strict=True)), width,
                                     label))
    if result.hierarchies:
        from benchlab.report.hierarchy import summary_text

        for h in result.hierarchies:
            out.append("")
            out.extend(summary_text(h, result.unit))
    for c in result.comparisons:
        out.append("")
        out.extend(comparison_lines(c, result.unit, result.confidence))
    if result.diagnostics:
        out.append("")
        out.append("warnings:")
        out.extend(f"  - {d.message}" for d in result.diagnostics)
    return terminal_lines(out) + "\n"
