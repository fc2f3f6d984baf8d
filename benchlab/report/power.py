"""Text, JSON and tidy rows of a power simulation (`benchlab plan --power`, stats/power.py).

Level and group names are data: the text comes out inert (`escape.terminal_lines`).
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.escape import terminal_lines
from benchlab.notation import fmt_level, fmt_share
from benchlab.report.numbers import fmt_pct
from benchlab.result import RenderContext, renders
from benchlab.stats.power import EffectPower, PowerAnalysis, PowerReport
from benchlab.version import __version__

_FROM = {"reps": "as given", "budget": "the optimum for the budget",
         "target": "the optimum for the target"}


def _pct(x: float | None, digits: int = 1) -> str:
    return fmt_pct(x, digits, missing="—")  # a rate with no draws: a dash in the table


def _effect(x: float) -> str:
    text = f"{100 * x:+.2f}".rstrip("0").rstrip(".")
    return f"{text}%" if x != 0 else "0%"


def design_text(p: PowerAnalysis) -> str:
    """"16 build × 23 run × 3 measurement": the top-level count, then per parent."""
    return " × ".join(f"{r} {name}" for name, r in zip(p.levels, p.repetitions, strict=True))


def effect_lines(effects: tuple[EffectPower, ...]) -> list[str]:
    lines = [f"  {'effect':>8}{'power':>9}{'false alarm':>13}{'equivalent':>12}"
             f"{'inconclusive':>14}{'CI coverage':>13}"]
    for e in effects:
        lines.append(f"  {_effect(e.effect):>8}{_pct(e.power):>9}{_pct(e.false_alarm):>13}"
                     f"{_pct(e.equivalent):>12}{_pct(e.inconclusive):>14}"
                     f"{_pct(e.coverage):>13}")
    return lines


def analysis_text(p: PowerAnalysis) -> list[str]:
    from benchlab.report.numbers import fmt_duration

    goal = _FROM.get(p.design_from, p.design_from)
    cost = "" if p.total_cost is None else f", {fmt_duration(p.total_cost)} per system"
    sds = ", ".join(f"{name} {_pct(sd, 2)}" for name, sd in zip(p.levels, p.relative_sd,
                                                                  strict=True))
    level = f"{fmt_level(p.confidence)}"
    lines = [f"{p.name}: power of {design_text(p)} per system ({goal}{cost})",
             f"  model: relative SD {sds}; {p.simulations} experiments per effect, "
             f"seed {p.seed}",
             f"  analysis as compare: Fieller's {level} CI of the ratio on the "
             f"{p.repetitions[0]} {p.levels[0]} means, threshold {fmt_share(p.threshold)}",
             *effect_lines(p.effects),
             "  power: a change found in the true direction; false alarm: a change claimed "
             "in the wrong direction (any change at 0%)",
             f"  Monte Carlo error at most ±{100 * p.mc_error:.1f} points (one standard "
             f"error); the plan's CI half-width of one mean: ±{_pct(p.predicted_halfwidth, 2)}"]
    unbounded = max(e.unbounded for e in p.effects)
    if unbounded > 0:
        lines.append(f"  - in up to {_pct(unbounded)} of the experiments the baseline mean was "
                     "too uncertain for a bounded CI (counted as inconclusive, covering)")
    lines += [f"  - {n}" for n in p.notes]
    return lines


@renders("text", PowerReport)
def report_text(result: PowerReport, context: RenderContext) -> str:
    lines: list[str] = []
    for p in result.groups:
        lines += [*analysis_text(p), ""]
    if result.notes:
        lines += [*(f"note: {n}" for n in result.notes), ""]
    return terminal_lines(lines[:-1] if lines and lines[-1] == "" else lines)


@renders("text", PowerAnalysis)
def analysis_only_text(result: PowerAnalysis, context: RenderContext) -> str:
    return terminal_lines(analysis_text(result))


def effect_document(e: EffectPower) -> dict[str, Any]:
    return {"effect": e.effect, "power": e.power, "false_alarm": e.false_alarm,
            "coverage": e.coverage,
            "verdicts": {"change": e.change, "equivalent": e.equivalent,
                         "inconclusive": e.inconclusive},
            "unbounded": e.unbounded}


def analysis_document(p: PowerAnalysis) -> dict[str, Any]:
    """One group's power: its design, the simulation and one entry per effect."""
    curve = None
    if p.curve is not None:
        curve = [{"top_units": units, "total_cost": cost,
                  "power": [row[k] for row in p.curve.power]}
                 for k, (units, cost) in enumerate(zip(p.curve.top_units, p.curve.total_cost,
                                                       strict=True))]
    return {
        "name": p.name, **({} if p.benchmark is None else {"benchmark": p.benchmark}),
        "design": {"levels": list(p.levels),
                   "repetitions": dict(zip(p.levels, p.repetitions, strict=True)),
                   "from": p.design_from,
                   "costs": dict(zip(p.levels, p.costs, strict=True)) if p.costs else None,
                   "cost_per_top_unit": p.cost_per_top_unit, "total_cost": p.total_cost,
                   "predicted_halfwidth": p.predicted_halfwidth},
        "relative_sd": dict(zip(p.levels, p.relative_sd, strict=True)),
        "simulations": p.simulations, "seed": p.seed, "threshold": p.threshold,
        "confidence": p.confidence, "effects": [effect_document(e) for e in p.effects],
        "curve": curve, "notes": list(p.notes)}


@renders("json", PowerReport)
def report_json(result: PowerReport, context: RenderContext) -> dict[str, Any]:
    seeds = {p.seed for p in result.groups}
    return {"benchlab_version": __version__, "command": "plan",
            "seed": seeds.pop() if len(seeds) == 1 else None, "unit": result.unit.name,
            "notes": list(result.notes), "level_columns": list(result.level_columns),
            "power": [analysis_document(p) for p in result.groups]}


@renders("json", PowerAnalysis)
def analysis_json(result: PowerAnalysis, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "plan", "seed": result.seed,
            **analysis_document(result)}


def analysis_rows(p: PowerAnalysis) -> list[dict[str, Any]]:
    """Per effect: power, false alarms, each verdict's probability, coverage."""
    bench = {} if p.benchmark is None else {"benchmark": p.benchmark}
    design = " x ".join(str(r) for r in p.repetitions)
    rows = []
    for e in p.effects:
        for statistic, value in (("power", e.power), ("false_alarm", e.false_alarm),
                                 ("change", e.change), ("equivalent", e.equivalent),
                                 ("inconclusive", e.inconclusive), ("coverage", e.coverage)):
            rows.append({"table": "power", **bench, "group": p.name, "effect": e.effect,
                         "statistic": statistic, "estimate": value,
                         "mc_error": None if value is None else
                         math.sqrt(value * (1 - value) / p.simulations),
                         "design": design, "simulations": p.simulations, "seed": p.seed,
                         "threshold": p.threshold, "confidence": p.confidence})
    return rows


@renders("rows", PowerReport)
def report_rows(result: PowerReport, context: RenderContext) -> list[dict[str, Any]]:
    return [row for p in result.groups for row in analysis_rows(p)]


@renders("rows", PowerAnalysis)
def analysis_only_rows(result: PowerAnalysis, context: RenderContext) -> list[dict[str, Any]]:
    return analysis_rows(result)
