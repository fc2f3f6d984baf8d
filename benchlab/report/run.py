"""Every format of `benchlab run`'s results (docs/run.md): the plan (`Planned`, from
--dry-run) and a run's outcome (`RunResult`).

Text and JSON are the command's own layouts; CSV has one row per trial of the plan,
or the run's counts, machines and failures; Markdown has its own tables; HTML lays
the JSON document out (report/html_format.py). Every line is inert for its format
(`escape.terminal`, `escape.markdown`): names, levels, commands, paths and a failed
command's stderr come from the experiment file or the commands run.

The context options a command adds: `analysis` (the command that analyses the store,
as a list of words) and `resume` (the command that goes on after --fail-fast).
"""

from __future__ import annotations

from shlex import quote
from typing import Any

from benchlab.escape import markdown as md
from benchlab.escape import terminal, terminal_lines
from benchlab.result import RenderContext, renders
from benchlab.runner.plan import Trial, command_for
from benchlab.runner.progress import format_seconds
from benchlab.runner.session import Planned, RunResult


def _shape(e) -> list[str]:
    """Three lines: the alternatives and cells, the levels, what is measured."""
    cells = len(e.alternatives)
    for _, levels in e.factors:
        cells *= len(levels)
    warm_x = f"({e.warmup_executions} warm-up + {e.executions})" if e.warmup_executions \
        else f"{e.executions}"
    warm_i = f"({e.warmup_iterations} warm-up + {e.iterations})" if e.warmup_iterations \
        else f"{e.iterations}"
    steady = getattr(e, "steady", None)
    if steady is not None:  # [steady_state]: the iterations are a maximum
        warm_i = (f"(until a steady state of {steady.iterations}, at most "
                  f"{warm_i.strip('()')})" if e.warmup_iterations
                  else f"(until a steady state of {steady.iterations}, at most {e.iterations})")
    counted = [m for m in e.measure.metrics if e.counter is not None and m == "instructions"]
    timed = ", ".join(m for m in e.measure.metrics if m not in counted) or "nothing timed"
    if counted:
        timed += f"; instructions counted by {e.counter} in separate executions under Valgrind"
    what = {"time": f"the process timed whole ({timed})",
            "regex": f"values parsed by regex: {', '.join(e.measure.metrics)}",
            "json": f"values parsed from JSON lines: {', '.join(e.measure.metrics)}"}
    return [f"{len(e.alternatives)} alternative{'s' if len(e.alternatives) != 1 else ''} "
            f"({', '.join(a.name for a in e.alternatives)}; baseline {e.baseline}) x "
            f"{cells // len(e.alternatives)} factor combination"
            f"{'s' if cells // len(e.alternatives) != 1 else ''}",
            "levels: " + (f"{len(e.machines.names)} machines x " if e.machines is not None
                          and e.machines.level else "")
            + f"{e.builds} build{'s' if e.builds != 1 else ''} x {warm_x} executions x "
            f"{warm_i} iteration{'s' if e.iterations != 1 else ''}",
            f"measure: {what[e.measure.kind]}"]


def _estimate_line(planned) -> str:
    if planned.estimate is not None:
        text = f"estimated duration: {format_seconds(planned.estimate)} (the median " \
               "duration of each alternative's finished trials, times the trials planned)"
    else:
        text = "estimated duration: unknown until trials have run (--estimate-from a " \
               "pilot's store, or --resume a started one, gives one)"
    if planned.timeout_bound is not None:
        text += f"; at most {format_seconds(planned.timeout_bound)} if every trial " \
                "reached its timeout"
    return text


def drawn(planned: Planned) -> bool:
    """Whether the plan's seed was drawn at random (neither --seed nor the file gave one)."""
    return not planned.seed_given and not planned.resumed and planned.experiment.seed is None


def _store(planned: Planned) -> str:
    return planned.store if planned.store is not None else "(no store named)"


def _header_lines(planned: Planned) -> list[str]:
    """The plan above its trials: experiment, shape, order and seed, store, trial counts,
    the stopping rule."""
    e = planned.experiment
    store = _store(planned)
    order = f"order: {e.order}, seed {planned.seed}"
    quick = e.path.startswith("<")  # quick mode: commands from the command line
    if drawn(planned):
        order += (f" (drawn; this order again: add --seed {planned.seed})" if quick else
                  f" (drawn; this order again: benchlab run {quote(e.path)} -o {quote(store)} "
                  f"--seed {planned.seed})")
    lines = ["experiment: the commands of the command line (quick mode)" if quick
             else f"experiment {e.path}: {e.name}", *_shape(e), order,
             f"store: {store} ({'resuming' if planned.resumed else 'not written by --dry-run'})"]
    warm = sum(t.warmup for t in planned.trials)
    builds = sum(t.kind == "build" for t in planned.trials)
    counted = sum(t.kind == "count" for t in planned.trials)
    lines.append(f"plan: {len(planned.trials)} trial{'s' if len(planned.trials) != 1 else ''}"
                 + (f" left of {planned.total}" if planned.resumed else "")
                 + f" ({builds} build steps, {len(planned.trials) - builds - counted} "
                   f"executions of which {warm} warm-up"
                 + (f", {counted} counted executions under {e.counter}" if counted else "")
                 + ")")
    if planned.switches is not None:
        lines.append(_switch_line(planned.switches))
    if e.stop is not None:
        parts = []
        if e.stop.halfwidth is not None:
            parts.append(f"every ratio CI within ±{100 * e.stop.halfwidth:g}%")
        if e.stop.max_time is not None:
            parts.append(f"{format_seconds(e.stop.max_time)} of trials")
        lines.append(f"stops early after the first complete round with {' or '.join(parts)}")
    return lines


def _switch_line(plan) -> str:
    """The system-state switches the plan makes and what they cost (docs/experiment-file.md,
    "System state as a factor")."""
    per = ", ".join(f"{factor} {c['setup']} setup{'s' if c['setup'] != 1 else ''} + "
                    f"{c['teardown']} teardown{'s' if c['teardown'] != 1 else ''}"
                    for factor, c in plan.counts.items())
    cost = (f"estimated {format_seconds(plan.seconds)} (the median of each switch in the "
            "store's switches)" if plan.seconds is not None else
            "cost unknown until switches have run (--estimate-from a pilot's store gives it)")
    return f"switches of system state: {plan.total} ({per}); {cost}"


def _what(t: Trial) -> str:
    """A trial's alternative and levels, its machine and whether it warms up."""
    return t.label() + (f" on {t.machine}" if t.machine is not None
                        and ("machine", t.machine) not in t.factors else "") \
        + (" (warm-up)" if t.warmup else "")


def _exec(t: Trial) -> str | int:
    """The plan's "exec" column: "build", the execution index, or it with "c" for a counted
    execution (under the counter, untimed)."""
    return "build" if t.kind == "build" else f"{t.execution}c" if t.kind == "count" \
        else t.execution


@renders("text", Planned)
def dry_run_text(planned: Planned, context: RenderContext) -> str:
    """The plan; a drawn seed is named with the option that makes a real run use this order."""
    e = planned.experiment
    lines = [*_header_lines(planned), ""]
    header = f"{'trial':>5} {'round':>5}  {'what':<30} {'build':>5} {'exec':>4}  command"
    lines.append(header)
    head = terminal_lines(lines)
    # One line per trial (50,000 and more): its data-borne parts (what, command) are made
    # inert by `terminal` once per distinct text rather than per line; the numbers are inert.
    whats: dict[tuple, str] = {}
    commands: dict[str, str] = {}
    rows = []
    for t in planned.trials:
        key = (t.alternative, t.factors, t.machine, t.warmup)
        what = whats.get(key)
        if what is None:
            what = whats[key] = f"{terminal(_what(t)):<30}" if t.factors or t.warmup \
                or t.machine is not None else f"{terminal(t.alternative):<30}"
        command = command_for(e, t).show()
        shown = commands.get(command)
        if shown is None:
            shown = commands[command] = terminal(command)
        kind = _exec(t)
        rows.append(f"{t.seq:>5} {t.round:>5}  {what} {t.build:>5} {kind:>4}  {shown}")
    tail = terminal_lines(["", _estimate_line(planned)])
    return "\n".join([head, *rows, tail]) + "\n"


def _trial_doc(e, t: Trial) -> dict:
    return {"trial": t.seq, "round": t.round, "kind": t.kind, "alternative": t.alternative,
            "factors": dict(t.factors), "build": t.build,
            "execution": t.execution if t.kind != "build" else None, "warmup": t.warmup,
            "command": command_for(e, t).show(),
            **({"machine": t.machine} if t.machine is not None else {})}


@renders("json", Planned)
def dry_run_document(planned: Planned, context: RenderContext) -> dict[str, Any]:
    """The plan's document (keys in docs/run.md)."""
    from benchlab.version import __version__

    e = planned.experiment
    return {"benchlab_version": __version__, "command": "run", "dry_run": True,
            "experiment": e.path, "store": planned.store, "resumed": planned.resumed,
            "order": e.order, "seed": planned.seed,
            "seed_drawn": drawn(planned), "baseline": e.baseline,
            "alternatives": [a.name for a in e.alternatives],
            "factors": {n: list(levels) for n, levels in e.factors},
            "builds": e.builds, "executions": e.executions, "iterations": e.iterations,
            "warmup": {"executions": e.warmup_executions, "iterations": e.warmup_iterations},
            "steady_state": None if getattr(e, "steady", None) is None else {
                "iterations": e.steady.iterations, "metric": e.steady.metric},
            "measure": e.measure.kind, "counter": e.counter,
            "metrics": [{"name": m, "unit": u} for m, u in
                        zip(e.measure.metrics, e.measure.units, strict=True)],
            "trials_total": planned.total, "estimated_seconds": planned.estimate,
            "max_seconds": planned.timeout_bound,
            **({"switches": {"counts": planned.switches.counts,
                             "total": planned.switches.total,
                             "estimated_seconds": planned.switches.seconds}}
               if planned.switches is not None else {}),
            "trials": [_trial_doc(e, t) for t in planned.trials]}


def _status(result: RunResult) -> str:
    return {"finished": "finished: every planned trial has run",
            "stopped": f"stopped early: {result.stop_reason}",
            "failed": f"stopped by --fail-fast: {result.stop_reason}",
            "already-finished": "nothing to do: this store's experiment has finished",
            "already-stopped": f"nothing to do: this store's experiment stopped early "
                               f"({result.stop_reason})"}[result.status]


def _next_command(result: RunResult, context: RenderContext) -> tuple[str, str]:
    """("continue with" | "analyze with", the command): after --fail-fast the one that goes
    on (context option `resume`), else the one that analyses the store (`analysis`)."""
    if result.status == "failed":
        return "continue with", (context.option("resume") or
                                 f"benchlab run EXPERIMENT -o {quote(result.store)} --resume")
    analysis = context.option("analysis")
    if analysis:
        return "analyze with", " ".join(quote(a) for a in analysis)
    return "analyze with", f"benchlab compare {quote(result.store)}"


@renders("text", RunResult)
def run_text(result: RunResult, context: RenderContext) -> str:
    """The run's outcome; its last line names the command that analyses the store (the one
    `benchlab run` then prints the output of), or, after --fail-fast, the one to go on."""
    c = result.counts
    ok, failed, left = c.get("ok", 0), c.get("failed", 0), c.get("planned", 0)
    status = _status(result)
    lines = [f"store: {result.store} (seed {result.seed})",
             f"trials: {ok} ok, {failed} failed, {left} not run; {result.measurements} "
             f"measurements", status]
    lines[2:2] = [f"  on {m}: {n.get('ok', 0)} ok, {n.get('failed', 0)} failed, "
                  f"{n.get('planned', 0)} not run" for m, n in result.machines.items()]
    for seq, alternative, error, tail in result.failures:
        last = tail.strip().split("\n")[-1] if tail.strip() else ""
        lines.append(f"  trial {seq} ({alternative}): {error}" + (f": {last}" if last else ""))
    if failed > len(result.failures):
        lines.append(f"  ... and {failed - len(result.failures)} more failed trials")
    lines += [f"warning: {w}" for w in result.differing_machines]
    what, command = _next_command(result, context)
    below = "   (reproduces the analysis below)" if context.option("analysis") \
        and result.status != "failed" else ""
    lines.append(f"{what}: {command}{below}")
    return terminal_lines(lines) + "\n"


@renders("json", RunResult)
def run_document(result: RunResult, context: RenderContext) -> dict[str, Any]:
    """The run's document (keys in docs/run.md)."""
    from benchlab.version import __version__

    analysis = context.option("analysis")
    c = result.counts
    machines = {"machines": {m: {"ok": n.get("ok", 0), "failed": n.get("failed", 0),
                                 "not_run": n.get("planned", 0)}
                             for m, n in result.machines.items()}} if result.machines else {}
    return {"benchlab_version": __version__, "command": "run", "store": result.store,
            "seed": result.seed, "status": result.status, "stop_reason": result.stop_reason,
            "trials": {"ok": c.get("ok", 0), "failed": c.get("failed", 0),
                       "not_run": c.get("planned", 0)},
            **machines, "ran_this_session": result.ran, "measurements": result.measurements,
            "failures": [{"trial": s, "alternative": a, "error": e, "stderr_tail": t}
                         for s, a, e, t in result.failures],
            "warnings": result.warnings,
            "analysis_command": analysis}


# -- tidy rows (CSV) ---------------------------------------------------------------------
TRIAL_COLUMNS = ("table", "trial", "round", "kind", "alternative", "build", "execution",
                 "warmup", "machine", "command")


@renders("rows", Planned)
def plan_rows(planned: Planned, context: RenderContext) -> list[dict[str, Any]]:
    """One row per planned trial; a factor's level in a column of the factor's name (with
    "factor:" before it when the name is one of the fixed columns)."""
    e = planned.experiment
    rows = []
    for t in planned.trials:
        row: dict[str, Any] = {
            "table": "trial", "trial": t.seq, "round": t.round, "kind": t.kind,
            "alternative": t.alternative, "build": t.build,
            "execution": t.execution if t.kind != "build" else None,
            "warmup": t.warmup, "machine": t.machine}
        for name, level in t.factors:
            row[f"factor:{name}" if name in TRIAL_COLUMNS else name] = level
        row["command"] = command_for(e, t).show()
        rows.append(row)
    return rows


@renders("rows", RunResult)
def run_rows(result: RunResult, context: RenderContext) -> list[dict[str, Any]]:
    """The run's counts, then a row per machine, per failed trial and per warning."""
    c = result.counts
    rows: list[dict[str, Any]] = [{
        "table": "run", "store": result.store, "seed": result.seed, "status": result.status,
        "stop_reason": result.stop_reason, "ok": c.get("ok", 0), "failed": c.get("failed", 0),
        "not_run": c.get("planned", 0), "measurements": result.measurements,
        "ran_this_session": result.ran}]
    rows += [{"table": "machine", "machine": m, "ok": n.get("ok", 0),
              "failed": n.get("failed", 0), "not_run": n.get("planned", 0)}
             for m, n in result.machines.items()]
    rows += [{"table": "failure", "trial": s, "alternative": a, "error": e, "stderr_tail": t}
             for s, a, e, t in result.failures]
    rows += [{"table": "warning", "message": w} for w in result.warnings]
    return rows


# -- Markdown ----------------------------------------------------------------------------
def _md_table(headers: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    return (["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
            + ["| " + " | ".join(md(str(v)) for v in row) + " |" for row in rows])


@renders("markdown", Planned)
def plan_markdown(planned: Planned, context: RenderContext) -> str:
    """The plan's lines as a list, its trials as a table, the estimate below."""
    e = planned.experiment
    lines = ["### benchlab run --dry-run", ""]
    lines += [f"- {md(line)}" for line in _header_lines(planned)]
    lines.append("")
    lines += _md_table(("trial", "round", "what", "build", "exec", "command"), [
        (t.seq, t.round, _what(t), t.build, _exec(t), command_for(e, t).show())
        for t in planned.trials])
    lines += ["", md(_estimate_line(planned))]
    return "\n".join(lines) + "\n"


@renders("markdown", RunResult)
def run_markdown(result: RunResult, context: RenderContext) -> str:
    """The run's outcome: counts, machines, failed trials, warnings, the next command."""
    c = result.counts
    lines = ["### benchlab run", "", *_md_table(("store", "seed", "ok", "failed", "not run",
                                                 "measurements", "status"), [
        (result.store, result.seed, c.get("ok", 0), c.get("failed", 0), c.get("planned", 0),
         result.measurements, _status(result))])]
    if result.machines:
        lines += ["", *_md_table(("machine", "ok", "failed", "not run"), [
            (m, n.get("ok", 0), n.get("failed", 0), n.get("planned", 0))
            for m, n in result.machines.items()])]
    if result.failures:
        lines += ["", *_md_table(("trial", "alternative", "error", "last line of stderr"), [
            (s, a, e, t.strip().split("\n")[-1] if t.strip() else "")
            for s, a, e, t in result.failures])]
    warnings = [*result.warnings, *result.differing_machines]
    if warnings:
        lines += ["", "**warnings**", "", *[f"- {md(w)}" for w in dict.fromkeys(warnings)]]
    what, command = _next_command(result, context)
    lines += ["", f"{what}: {md(command)}"]
    return "\n".join(lines) + "\n"
