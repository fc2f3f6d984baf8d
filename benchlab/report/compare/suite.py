"""Rendering a suite comparison: one row per benchmark, the geometric mean, Holm decisions.

Each row's change is printed with the interval its verdict used: family-wise
(Holm's step-down, at the level of the row's step, shown in "CI level"), or the
benchmark's own CI with `--no-adjust` (the legend then says the decisions are
not adjusted). A suite on medians (`--statistic median`) shows each system's
median, the ratio of medians with its bootstrap percentile interval, and says
"median" in the change column's head, the legend and the geometric-mean line.

Benchmark and sample names come from data: the text keeps them inert with
`escape.terminal`, the Markdown with `escape.markdown`; JSON keeps them exact.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from benchlab.escape import markdown as md
from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_level, fmt_share
from benchlab.report.compare.document import comparison_document
from benchlab.report.numbers import (
    fmt_change,
    fmt_pvalue,
    fmt_quantity,
    fmt_row,
    fmt_spread,
    shorten,
    terminal_width,
)
from benchlab.stats.compare import CompareResult
from benchlab.stats.descriptive import Descriptives
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import Decision, SuiteResult
from benchlab.units import Unit
from benchlab.version import __version__


def suite_document(result: SuiteResult) -> dict[str, Any]:
    """The suite as JSON-ready data (docs/compare.md, "Suites")."""
    return {
        "benchlab_version": __version__,
        "command": "compare",
        "confidence": result.confidence,
        "statistic": result.statistic,
        "seed": result.seed,
        "resample": result.resample,
        "unit": result.benchmarks[0][1].unit.name,
        "higher_is_better": result.benchmarks[0][1].unit.higher_is_better,
        "benchmarks": [{"benchmark": name, **comparison_document(r)}
                       for name, r in result.benchmarks],
        "geometric_means": [
            {"candidate": g.candidate, "estimate": finite(g.estimate), "low": finite(g.low),
             "high": finite(g.high),
             "benchmarks": g.benchmarks, "replicates": g.replicates, "seed": g.seed,
             "statistic": g.statistic,
             "method": f"geometric mean of per-benchmark ratios of {g.statistic}s; "
                       "percentile bootstrap within each benchmark"}
            for g in result.geometric_means],
        "holm": [{"benchmark": b, "candidate": c, "pvalue": finite(p),
                  "adjusted_pvalue": finite(q),
                  "significant": sig} for b, c, p, q, sig in result.holm],
        "adjust": result.adjust,
        "family_confidence": result.confidence if result.adjust == "holm" else None,
        "decisions": [decision_document(d) for d in result.decisions],
        "skipped": list(result.skipped),
        "notes": list(result.notes),
    }


def decision_document(d: Decision) -> dict[str, Any]:
    """One benchmark's decision as JSON (docs/compare.md, "decisions[]")."""
    return {"benchmark": d.benchmark, "candidate": d.candidate, "test": d.test,
            "pvalue": finite(d.pvalue), "adjusted_pvalue": finite(d.adjusted_pvalue),
            "level": d.level, "scale": d.scale, "estimate": finite(d.estimate),
            "low": finite(d.low), "high": finite(d.high),
            "outcome": d.outcome, "per_benchmark_outcome": d.per_benchmark,
            "statistic": d.statistic}


def _warnings(result: SuiteResult) -> list[str]:
    return [*result.notes, *result.skipped,
            *(f"{bench}: {d.message}" for bench, r in result.benchmarks for d in r.diagnostics)]


def _bootstrap_table(result: SuiteResult) -> tuple[list[str], list[tuple[str, ...]], list[str]]:
    """Each benchmark's own bootstrap intervals (`--bootstrap`): header, rows, notes.

    One row per benchmark, comparison and statistic (ratio of means, of medians):
    the estimate and the intervals computed (percentile; BCa for independent
    samples, studentized for hierarchical means: `bootstrap_cells`). A note
    shared by every interval is given once; any other note names the benchmarks
    it belongs to. No rows: no per-benchmark bootstrap ran.
    """
    from benchlab.report.compare.bootstrap_cells import interval_cells, interval_kinds

    rows, by_note = [], {}
    kinds = interval_kinds(b for _, r in result.benchmarks for c in r.comparisons
                           for b in c.bootstrap)
    for bench, r in result.benchmarks:
        for c in r.comparisons:
            for b in c.bootstrap:
                rows.append((bench, f"{c.candidate} vs {c.baseline}", f"{b.statistic}s",
                             f"{b.estimate:.4f}", *interval_cells(b, kinds)))
                if b.note:
                    by_note.setdefault(b.note, []).append(bench)
    notes = [n if len(benches) == len(rows) else f"{', '.join(dict.fromkeys(benches))}: {n}"
             for n, benches in by_note.items()]
    return ["benchmark", "comparison", "ratio of", "estimate", *kinds], rows, notes


def _bootstrap_caption(result: SuiteResult) -> str:
    first = next(b for _, r in result.benchmarks for c in r.comparisons for b in c.bootstrap)
    return (f"bootstrap {fmt_level(result.confidence)} CI of each benchmark's ratios "
            f"(B = {first.replicates}, seed = {first.seed})")


@dataclass(frozen=True)
class SuiteRow:
    """One line of the suite table, in cells any format lays out (names still raw)."""

    benchmark: str
    candidate: str
    old: str
    new: str
    change: str
    pvalue: str
    word: str
    outcome: str  # change/equivalent/inconclusive, or "regression" (for Markdown's icon)
    geomean: bool = False  # the geometric-mean row (a benchmark may be named "geomean")
    level: str = ""  # the confidence level of the interval in `change` (family-wise rows)


def _verdict_word(outcome: str, above: bool | None, unit: Unit) -> str:
    """"faster"/"slower" (or better/worse, higher/lower) for a change, "~" when the CI sits
    within the threshold, "?" when it cannot tell."""
    if outcome == "change" and above is not None:
        return unit.direction_word(above)
    return "~" if outcome == "equivalent" else "?"


def mean_halfwidth(r: CompareResult, d: Descriptives) -> float | None:
    """The half-width of d's mean CI: the hierarchy's (t on top-level means), else t·s/√n."""
    for h in r.hierarchies:
        if h.name == d.name and math.isfinite(h.high - h.low):
            return (h.high - h.low) / 2
    if d.n < 2 or not math.isfinite(d.sem):
        return None
    from benchlab.stats.distributions import critical_t

    return critical_t(r.confidence, d.n - 1) * d.sem


def _cell(r: CompareResult, d: Descriptives, like: float, median: bool = False) -> str:
    """Center ± spread and n: "1.23 ms ± 2%  n=10" (the spread the mean's CI, relative);
    a median suite: the median and n, to the digit the mean's CI justifies (no ±: the
    median's own uncertainty is in the change's bootstrap interval)."""
    half = mean_halfwidth(r, d)
    if median:
        return f"{fmt_quantity(d.median, r.unit, half, like)}  n={d.n}"
    center = fmt_quantity(d.mean, r.unit, half, like)
    relative = (0.0 if half == 0 else
                half / abs(d.mean) if half is not None and d.mean else None)
    return f"{center} {fmt_spread(relative)}  n={d.n}"


def _change(r: CompareResult, c, d: Decision | None) -> str:
    """The change with the interval the verdict used: the decision's, else the ratio's CI;
    without a ratio, the difference of means with its interval."""
    if d is not None and d.scale == "ratio":
        return fmt_change(d.estimate, d.low, d.high, r.unit)
    if c.ratio is not None:
        return fmt_change(c.ratio.estimate, c.ratio.low, c.ratio.high, r.unit)
    if d is not None and d.low is not None and d.high is not None:
        half = (d.high - d.low) / 2
        return (f"{fmt_quantity(d.estimate, r.unit, half, d.estimate)} "
                f"({fmt_quantity(d.low, r.unit, half, d.estimate)} .. "
                f"{fmt_quantity(d.high, r.unit, half, d.estimate)})")
    return "n/a"


def suite_rows(result: SuiteResult) -> list[SuiteRow]:
    """Every benchmark's comparisons, then one geometric-mean row per candidate."""
    holm = {(b, c): (p, q) for b, c, p, q, _ in result.holm}
    decided = {(d.benchmark, d.candidate): d for d in result.decisions}
    family = _family(result)
    median = statistic_of(result).resamples
    rows = []
    for bench, r in result.benchmarks:
        by_name = {d.name: d for d in r.samples}
        for c in r.comparisons:
            base, cand = by_name[c.baseline], by_name[c.candidate]
            d = decided.get((bench, c.candidate))
            above = None if c.verdict.direction is None else c.verdict.direction == "increase"
            p, q = holm.get((bench, c.candidate), (math.nan, math.nan))
            like = base.median if median else base.mean
            rows.append(SuiteRow(bench, c.candidate, _cell(r, base, like, median),
                                 _cell(r, cand, like, median), _change(r, c, d),
                                 fmt_pvalue(q if family else p),
                                 _verdict_word(c.verdict.outcome, above, r.unit),
                                 "regression" if c.verdict.regression else c.verdict.outcome,
                                 level=fmt_level(d.level if d else result.confidence)))
    return rows + _geomean_rows(result)


def _family(result: SuiteResult) -> bool:
    """True when the verdicts are family-wise decisions (Holm), False with --no-adjust."""
    return result.adjust == "holm"


def _geomean_rows(result: SuiteResult) -> list[SuiteRow]:
    """Per candidate: the geometric means of the baseline's and the candidate's means (or
    medians) over the benchmarks its geometric mean covers, and that ratio with its
    bootstrap CI."""
    from benchlab.stats.verdict import classify

    first = result.benchmarks[0][1]
    unit = first.unit
    median = statistic_of(result).resamples
    rows = []
    for g in result.geometric_means:
        pairs = []
        for _, r in result.benchmarks:
            by_name = {d.name: d for d in r.samples}
            for c in r.comparisons:
                if c.candidate != g.candidate:
                    continue
                if median and c.headline is not None:
                    pairs.append((by_name[c.baseline].median, by_name[c.candidate].median))
                elif not median and c.ratio is not None:
                    pairs.append((by_name[c.baseline].mean, by_name[c.candidate].mean))
        old = new = math.nan
        if pairs and all(a > 0 and b > 0 for a, b in pairs):
            old = math.exp(sum(math.log(a) for a, _ in pairs) / len(pairs))
            new = math.exp(sum(math.log(b) for _, b in pairs) / len(pairs))
        outcome = classify(g.low, g.high, first.threshold)
        above = g.estimate > 1 if g.estimate != 1 else None
        regression = outcome == "change" and above is not None and unit.is_regression(above)
        old_text, new_text = fmt_row((old, new), unit, None, old)
        rows.append(SuiteRow("geomean", g.candidate, old_text, new_text,
                             fmt_change(g.estimate, g.low, g.high, unit), "",
                             _verdict_word(outcome, above, unit),
                             "regression" if regression else outcome, geomean=True,
                             level=fmt_level(g.confidence)))
    return rows


def _unit(result: SuiteResult) -> Unit:
    return result.benchmarks[0][1].unit


def _several_candidates(result: SuiteResult) -> bool:
    return len({c.candidate for _, r in result.benchmarks for c in r.comparisons}) > 1


def _head(result: SuiteResult) -> list[str]:
    """Column heads: the benchmark, the baseline's name, the candidate's (or a column of
    candidate names when there are several), the change with the interval its verdict
    used (and that interval's level when family-wise), the p-value, the verdict."""
    first = result.benchmarks[0][1].comparisons[0]
    if _several_candidates(result):
        middle = [first.baseline, "candidate", "value"]
    else:
        middle = [first.baseline, first.candidate]
    change = statistic_of(result).change
    if _family(result):
        return ["benchmark", *middle, f"{change} (Holm CI)", "CI level", "Holm p", "verdict"]
    level = f"{fmt_level(result.confidence)} CI"
    return ["benchmark", *middle, f"{change} ({level})", "p", "verdict"]


def _cells(result: SuiteResult, row: SuiteRow) -> list[str]:
    middle = ([row.old, row.candidate, row.new] if _several_candidates(result)
              else [row.old, row.new])
    level = [row.level] if _family(result) else []
    return [row.benchmark, *middle, row.change, *level, row.pvalue, row.word]


def _legend(result: SuiteResult) -> str:
    if statistic_of(result).resamples:
        return _median_legend(result)
    level = f"{fmt_level(result.confidence)}"
    m = len(result.benchmarks)
    many = f"{m} benchmark{'s' if m != 1 else ''}"
    test = ("ratio = 1" if result.benchmarks[0][1].threshold == 0
            else "the threshold's edges")
    if _family(result):
        decided = (f"change: ratio of means − 1 with the CI its verdict used ({_method(result)}), "
                   f"beyond ±50% as a factor with its word; verdicts family-wise at {level} "
                   f"over {many} by "
                   f"Holm's step-down (each row's CI at the level of its step, CI level), "
                   f"{_family_claim(result)}; Holm p: the verdict's test ({test}), "
                   f"Holm-adjusted")
    else:
        decided = (f"change: ratio of means − 1 ({_method(result)}), beyond ±50% as a factor "
                   f"with its word; "
                   f"verdicts per benchmark, NOT adjusted for the {many} (--no-adjust): the "
                   f"chance of a false verdict somewhere grows with the number of benchmarks; "
                   f"p: the verdict's test ({test}), unadjusted")
    return (f"± is the half-width of the {level} CI of the mean; {decided}; verdict against the "
            f"{_threshold(result)} threshold: ~ no change, ? inconclusive")


def _median_legend(result: SuiteResult) -> str:
    """The legend of a suite on medians: what the cells, the interval and p are."""
    level = f"{fmt_level(result.confidence)}"
    m = len(result.benchmarks)
    many = f"{m} benchmark{'s' if m != 1 else ''}"
    test = ("ratio = 1" if result.benchmarks[0][1].threshold == 0
            else "the threshold's edges")
    head = next((c.headline for _, r in result.benchmarks for c in r.comparisons
                 if c.headline is not None), None)
    kind = "hierarchical bootstrap" if head is not None and head.hierarchical else "bootstrap"
    boot = (f"{kind} percentile CI, (B + 1) rule, B = {head.replicates}, seed = {head.seed}"
            if head is not None else f"{kind} percentile CI")
    what = "bootstrap test"
    if result.resample is not None:  # with levels: the test on the top-level unit medians
        boot = ("of the top-level units' medians: the ratio of their geometric means, Welch t "
                "on their logs, p from all splits of the units")
        what = "permutation test"
    cells = "each system's cell: its median and n"
    if _family(result):
        decided = (f"median change: ratio of medians − 1 with the CI its verdict used ({boot}), "
                   f"beyond ±50% as a factor with its word; verdicts family-wise at {level} "
                   f"over {many} by "
                   f"Holm's step-down (each row's CI at the level of its step, CI level), "
                   f"{_family_claim(result)}; Holm p: the verdict's {what} ({test}), "
                   f"Holm-adjusted")
    else:
        decided = (f"median change: ratio of medians − 1 ({boot}), beyond ±50% as a factor "
                   f"with its word; "
                   f"verdicts per benchmark, NOT adjusted for the {many} (--no-adjust): the "
                   f"chance of a false verdict somewhere grows with the number of benchmarks; "
                   f"p: the verdict's {what} ({test}), unadjusted")
    return (f"{cells}; {decided}; verdict against the {_threshold(result)} threshold: ~ no "
            "change, ? inconclusive")


def _family_claim(result: SuiteResult) -> str:
    """What Holm's step-down gives, no more: the family-wise rate holds when each
    benchmark's test is accurate at its step's level (validation/suite_noise_models.py)."""
    return (f"which keeps the chance of any false verdict in the suite near "
            f"{100 * (1 - result.confidence):.3g}% when each benchmark's test is accurate at "
            f"its level")


def _threshold(result: SuiteResult) -> str:
    return f"{fmt_share(result.benchmarks[0][1].threshold)}"


def suite_text(result: SuiteResult, legend: bool = True) -> str:
    """The suite as benchstat-like columns, cut to the terminal's width (COLUMNS); the
    legend explaining the columns unless `legend` is False (said once for many tables)."""
    level = f"{fmt_level(result.confidence)} CI"
    head = [terminal(h) for h in _head(result)]
    rows = [[terminal(c) for c in _cells(result, r)] for r in suite_rows(result)]
    lines = _columns(head, rows, names=1 + _several_candidates(result))
    lines.append("")
    head, boot, notes = _bootstrap_table(result)
    if boot:
        boot = [(terminal(r[0]), terminal(r[1]), *r[2:]) for r in boot]  # before the widths
        widths = [max(len(h), *(len(r[i]) for r in boot)) for i, h in enumerate(head)]
        lines.append(_bootstrap_caption(result) + ":")
        for r in (head, *boot):
            lines.append("  ".join(c.rjust(w) if i == 3 else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(r, widths, strict=True))
                                   ).rstrip())
        lines += [f"note: {n}" for n in notes] + [""]
    for g in result.geometric_means:
        plural = "s" if g.benchmarks != 1 else ""
        of = "median ratios " if statistic_of(g).resamples else ""
        lines.append(f"geometric mean {'of the ' + of if of else ''}over {g.benchmarks} "
                     f"benchmark{plural}, "
                     f"{terminal(g.candidate)}: "
                     f"{fmt_change(g.estimate, g.low, g.high, _unit(result))}, "
                     f"bootstrap {level} (B = {g.replicates}, seed = {g.seed}"
                     + (f", resampling {result.resample})" if result.resample else ")"))
    if legend:
        lines += textwrap.wrap(_legend(result), terminal_width() - 1, break_on_hyphens=False)
    warnings = _warnings(result)
    if warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in warnings]
    return terminal_lines(lines) + "\n"


def _columns(head: list[str], rows: list[list[str]], names: int) -> list[str]:
    """Aligned columns: the first `names` columns (and the candidate-name column) left,
    numbers right; the benchmark names cut with an ellipsis so a row fits COLUMNS."""
    n = len(head)
    numeric = [i not in (0, 2 if names == 2 else -1) for i in range(n)]
    numeric[-1] = False  # the verdict word
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(n)]
    room = terminal_width() - sum(w + 2 for w in widths[1:])
    if widths[0] > room:
        widths[0] = max(room, 12, len(head[0]))
        rows = [[shorten(r[0], widths[0]), *r[1:]] for r in rows]
    out = []
    for r in (head, *rows):
        out.append("  ".join(c.rjust(w) if numeric[i] else c.ljust(w)
                             for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    return out


def _method(result: SuiteResult) -> str:
    for _, r in result.benchmarks:
        for c in r.comparisons:
            if c.ratio is not None:
                return c.ratio.method
    return "n/a"


def suite_markdown(result: SuiteResult) -> str:
    """The suite as a pull-request comment: one row per benchmark, the geometric means."""
    from benchlab.report.compare.markdown import ICONS

    head = _head(result)
    right = [False, *([True, False, True] if _several_candidates(result) else [True, True]),
             True, *([True] if _family(result) else []), True, False]
    lines = ["### benchlab compare (suite)", "",
             "| " + " | ".join(map(md, head)) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    for row in suite_rows(result):
        cells = [md(c) for c in _cells(result, row)]
        cells[-1] = f"{ICONS[row.outcome]} {md(row.word)}"
        if row.geomean:
            cells[0] = "*geomean*"
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    head, boot, notes = _bootstrap_table(result)
    if boot:
        caption = _bootstrap_caption(result)
        lines += [f"{caption[0].upper()}{caption[1:]}:", "",
                  "| " + " | ".join(head) + " |",
                  "|" + "|".join("---:" if i == 3 else "---" for i in range(len(head))) + "|"]
        lines += ["| " + " | ".join(map(md, r)) + " |" for r in boot]
        lines += [""] + [f"_note: {md(n)}_" for n in notes] + ([""] if notes else [])
    for g in result.geometric_means:
        plural = "s" if g.benchmarks != 1 else ""
        of = statistic_of(g).ratios
        lines.append(f"- **{md(g.candidate)}**: geometric mean of the {of} over {g.benchmarks} "
                     f"benchmark{plural}: "
                     f"{md(fmt_change(g.estimate, g.low, g.high, _unit(result)))}, "
                     f"bootstrap {fmt_level(result.confidence)} CI")
    warnings = _warnings(result)
    if warnings:
        lines += ["", "<details><summary>warnings</summary>", ""]
        lines += [f"- {md(w)}" for w in warnings]
        lines += ["", "</details>"]
    spec = f", resampling {md(result.resample)}" if result.resample else ""
    b = result.geometric_means[0].replicates if result.geometric_means else 0
    lines += ["", f"<sub>{md(_legend(result))}; geometric mean by bootstrap within each "
                  f"benchmark (B = {b}, seed = {result.seed}{spec}); benchlab</sub>", ""]
    return "\n".join(lines)
