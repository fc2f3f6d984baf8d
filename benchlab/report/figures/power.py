"""Figure of `plan --power`: power against budget, one curve per effect (stats/power.py).

The curve varies the number of top-level units with the levels below as in the
design; with costs the x axis is the budget per system (time), without them the
number of top-level units. The design itself is marked, and the conventional
80% power and the nominal false-alarm rate (1 − confidence) are drawn as
references. Nothing is computed here: the points are the result's.
"""

from __future__ import annotations

from benchlab.notation import fmt_share
from benchlab.report.figures import style
from benchlab.result import RenderContext, renders
from benchlab.stats.power import PowerAnalysis, PowerReport


def _effect(x: float) -> str:
    text = f"{100 * x:+.2f}".rstrip("0").rstrip(".")
    return "0% (false alarms)" if x == 0 else f"{text}%"


def _time_unit(seconds: float) -> tuple[str, float]:
    """The unit the largest budget reads best in: ("h", 3600.0) for 20 hours."""
    for name, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds >= 2 * size:
            return name, size
    return "ms", 1e-3


def draw_analysis(ax, p: PowerAnalysis) -> None:
    """One group's curves on `ax`."""
    curve = p.curve
    with_costs = curve is not None and all(c is not None for c in curve.total_cost)
    if curve is None:
        ax.text(0.5, 0.5, "no curve was simulated", ha="center", va="center",
                transform=ax.transAxes)
        return
    xs = list(curve.total_cost) if with_costs else list(curve.top_units)
    design_x = p.total_cost if with_costs else p.repetitions[0]
    unit_name, size = _time_unit(max(xs)) if with_costs else ("", 1.0)
    xs = [x / size for x in xs]
    design_x = design_x / size
    for j, (effect, row) in enumerate(zip(p.effects, curve.power, strict=True)):
        colour_ = style.REFERENCE if effect.effect == 0 else style.colour(j)
        dash = ":" if effect.effect == 0 else "-"
        ax.plot(xs, [100 * v for v in row], color=colour_, linestyle=dash, linewidth=1.5,
                marker=style.marker(j), markersize=4, label=f"effect {_effect(effect.effect)}")
        at_design = effect.false_alarm if effect.power is None else effect.power
        ax.plot([design_x], [100 * at_design], marker=style.marker(j), markersize=8,
                markerfacecolor="white", markeredgecolor=colour_, markeredgewidth=1.5,
                linestyle="none", zorder=4)
    ax.axhline(80, color=style.BAND, linewidth=0.8, linestyle="--", label="80% power")
    ax.axhline(100 * (1 - p.confidence), color=style.BAND, linewidth=0.8, linestyle=":",
               label=f"nominal false-alarm rate ({100 * (1 - p.confidence):g}%)")
    ax.axvline(design_x, color=style.REFERENCE, linewidth=0.8, linestyle=":",
               label="the design (white markers)")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(8, steps=[1, 2, 2.5, 5, 10], integer=not with_costs))
    ax.set_xlim(0, max(xs) * 1.03)
    if with_costs:
        ax.set_xlabel(f"budget per system ({unit_name})")
    else:
        ax.set_xlabel(f"{style.label(p.levels[0], 20)} units per system")
    ax.set_ylim(-2, 102)
    ax.set_ylabel("power (% of experiments)")
    ax.grid(color="#dddddd", linewidth=0.6)
    below = " × ".join(f"{r} {style.label(n, 20)}"
                       for n, r in zip(p.levels[1:], p.repetitions[1:], strict=True))
    ax.set_title(f"{style.label(p.name)}: {below} per {style.label(p.levels[0], 20)}, "
                 f"threshold {fmt_share(p.threshold)}, {p.simulations} experiments a point")


def _figure(groups: tuple[PowerAnalysis, ...]):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(groups), 1, figsize=(8, 1.0 + 3.6 * len(groups)),
                             layout="constrained", squeeze=False)
    for ax, p in zip(axes[:, 0], groups, strict=True):
        draw_analysis(ax, p)
    style.legend_below(fig, list(axes[:, 0]), ncol=3)
    return fig


@renders("figure", PowerReport)
def power_report_figure(result: PowerReport, context: RenderContext):
    """Power against budget for every group, one panel each."""
    return _figure(result.groups)


@renders("figure", PowerAnalysis)
def power_figure(result: PowerAnalysis, context: RenderContext):
    """Power against budget for one design."""
    return _figure((result,))
