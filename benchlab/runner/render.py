"""Text and JSON of the runner's results: the plan (--dry-run), a run's outcome, the environment.

(Kept beside the runner rather than in report/: these render runner objects only.)
Every text line is inert (`escape.terminal`): names, levels, commands, paths
and a failed command's stderr come from the experiment file or the commands run.
"""

from __future__ import annotations

from shlex import quote

from benchlab.escape import terminal, terminal_lines
from benchlab.runner.plan import Trial, command_for
from benchlab.runner.progress import format_seconds


def _shape(e) -> list[str]:
    """Three lines: the alternatives and cells, the levels, what is measured."""
    cells = len(e.alternatives)
    for _, levels in e.factors:
        cells *= len(levels)
    warm_x = f"({e.warmup_executions} warm-up + {e.executions})" if e.warmup_executions \
        else f"{e.executions}"
    warm_i = f"({e.warmup_iterations} warm-up + {e.iterations})" if e.warmup_iterations \
        else f"{e.iterations}"
    what = {"time": "the process timed whole (wall, user, sys, maxrss)",
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


def drawn(planned, seed_given: bool) -> bool:
    """Whether the plan's seed was drawn at random (neither --seed nor the file gave one)."""
    return not seed_given and not planned.resumed and planned.experiment.seed is None


def dry_run_text(planned, store: str, seed_given: bool = True) -> str:
    """The plan; a drawn seed is named with the option that makes a real run use this order."""
    e = planned.experiment
    order = f"order: {e.order}, seed {planned.seed}"
    if drawn(planned, seed_given):
        order += (f" (drawn; this order again: benchlab run {quote(e.path)} -o {quote(store)} "
                  f"--seed {planned.seed})")
    lines = [f"experiment {e.path}: {e.name}", *_shape(e), order,
             f"store: {store} ({'resuming' if planned.resumed else 'not written by --dry-run'})"]
    warm = sum(t.warmup for t in planned.trials)
    builds = sum(t.kind == "build" for t in planned.trials)
    lines.append(f"plan: {len(planned.trials)} trial{'s' if len(planned.trials) != 1 else ''}"
                 + (f" left of {planned.total}" if planned.resumed else "")
                 + f" ({builds} build steps, {len(planned.trials) - builds} executions of which "
                   f"{warm} warm-up)")
    if e.stop is not None:
        parts = []
        if e.stop.halfwidth is not None:
            parts.append(f"every ratio CI within ±{100 * e.stop.halfwidth:g}%")
        if e.stop.max_time is not None:
            parts.append(f"{format_seconds(e.stop.max_time)} of trials")
        lines.append(f"stops early after the first complete round with {' or '.join(parts)}")
    lines.append("")
    header = f"{'trial':>5} {'round':>5}  {'what':<30} {'build':>5} {'exec':>4}  command"
    lines.append(header)
    for t in planned.trials:
        what = terminal(t.label()) + (f" on {terminal(t.machine)}" if t.machine is not None
                                      and ("machine", t.machine) not in t.factors else "") \
            + (" (warm-up)" if t.warmup else "")
        kind = "build" if t.kind == "build" else str(t.execution)
        lines.append(f"{t.seq:>5} {t.round:>5}  {what:<30} {t.build:>5} {kind:>4}  "
                     f"{command_for(e, t).show()}")
    lines += ["", _estimate_line(planned)]
    return terminal_lines(lines) + "\n"


def _trial_doc(e, t: Trial) -> dict:
    return {"trial": t.seq, "round": t.round, "kind": t.kind, "alternative": t.alternative,
            "factors": dict(t.factors), "build": t.build,
            "execution": t.execution if t.kind == "execution" else None, "warmup": t.warmup,
            "command": command_for(e, t).show(),
            **({"machine": t.machine} if t.machine is not None else {})}


def dry_run_document(planned, store: str, seed_given: bool = True) -> dict:
    from benchlab.version import __version__

    e = planned.experiment
    return {"benchlab_version": __version__, "command": "run", "dry_run": True,
            "experiment": e.path, "store": store, "resumed": planned.resumed,
            "order": e.order, "seed": planned.seed,
            "seed_drawn": drawn(planned, seed_given), "baseline": e.baseline,
            "alternatives": [a.name for a in e.alternatives],
            "factors": {n: list(levels) for n, levels in e.factors},
            "builds": e.builds, "executions": e.executions, "iterations": e.iterations,
            "warmup": {"executions": e.warmup_executions, "iterations": e.warmup_iterations},
            "measure": e.measure.kind,
            "metrics": [{"name": m, "unit": u} for m, u in
                        zip(e.measure.metrics, e.measure.units, strict=True)],
            "trials_total": planned.total, "estimated_seconds": planned.estimate,
            "max_seconds": planned.timeout_bound,
            "trials": [_trial_doc(e, t) for t in planned.trials]}


def run_text(result, analysis: list[str] | None = None, resume: str | None = None) -> str:
    """The run's outcome; its last line names the command that analyses the store (the one
    `benchlab run` then prints the output of), or, after --fail-fast, the one to go on."""
    c = result.counts
    ok, failed, left = c.get("ok", 0), c.get("failed", 0), c.get("planned", 0)
    status = {"finished": "finished: every planned trial has run",
              "stopped": f"stopped early: {result.stop_reason}",
              "failed": f"stopped by --fail-fast: {result.stop_reason}",
              "already-finished": "nothing to do: this store's experiment has finished",
              "already-stopped": f"nothing to do: this store's experiment stopped early "
                                 f"({result.stop_reason})"}[result.status]
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
    lines += [f"warning: {w}" for w in getattr(result, "differing_machines", ())]
    if result.status == "failed":
        again = resume or f"benchlab run EXPERIMENT -o {quote(result.store)} --resume"
        lines.append(f"continue with: {again}")
    elif analysis:
        shown = " ".join(quote(a) for a in analysis)
        lines.append(f"analyze with: {shown}   (reproduces the analysis below)")
    else:
        lines.append(f"analyze with: benchlab compare {quote(result.store)}")
    return terminal_lines(lines) + "\n"


def run_document(result, analysis: list[str] | None = None) -> dict:
    from benchlab.version import __version__

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


def _seconds(value) -> str:
    """A recorded duration in seconds; a damaged record's value as it is, never a crash."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g} s"
    return "unknown" if value is None else str(value)


def environment_text(env: dict, warnings: list) -> str:
    def show(value) -> str:
        if value is None:
            return "unknown"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, list):
            return ", ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in value)
        if isinstance(value, dict):
            return ", ".join(f"{k} ({v} CPUs)" for k, v in value.items())
        return str(value)

    rows = [("CPU", env.get("cpu_model")), ("cores online", env.get("cpus_online")),
            ("cores usable", env.get("cpus_usable")), ("SMT", env.get("smt_active")),
            ("governor", env.get("governors")), ("turbo boost", env.get("turbo")),
            ("kernel", f"{env.get('os')} {env.get('kernel')} {env.get('machine')}"),
            ("load average", env.get("load_average")), ("ASLR", env.get("aslr")),
            ("environment", f"{env.get('environment_bytes')} bytes"),
            ("python", env.get("python")), ("numpy", env.get("numpy")),
            ("benchlab", env.get("benchlab")),
            ("timer", f"{env.get('timer')}, resolution {_seconds(env.get('timer_resolution_s'))}")]
    if env.get("spawn"):  # stores made before it was recorded do not have it
        rows.append(("spawn", env["spawn"]))
    lines = [f"{name + ':':<14} {show(value)}" for name, value in rows]
    if warnings:
        lines += ["", "warnings:"]
        for w in warnings:
            lines += [f"  - {w.message}", f"    fix: {w.fix}"]
    else:
        lines += ["", "no noise warnings"]
    return terminal_lines(lines) + "\n"
