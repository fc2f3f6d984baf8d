"""`benchlab bisect`'s search: the commit between a good and a bad one where a benchmark changed.

1. The ends: good and bad, each built in its own worktree (runner/git_builds.py), are
   executed in rounds, each round running each once in a random order, and at each look
   (executions per arm doubling up to a most, stats/bisect.looks) Fieller's CI of
   bad/good is judged against the threshold: a change starts the search, equivalence
   ends it with no culprit, and still undecided at the most it ends with no culprit,
   said as inconclusive.
2. Each step: the commit in the middle of the candidates left (as git bisect: a
   commit that fails to build, or whose command fails, is skipped and the nearest other
   one to the middle taken) is executed interleaved with the current good and bad ends,
   look by look, until the CI of its position (stats/bisect.position) puts it on one
   side; still unknown at the most, the search stops and reports the range it could not
   split, never a guess.
3. The culprit is the first bad commit; the CI of its ratio to its parent (the last
   good commit) comes from the step that measured both.

Every decision is made at the level stats/bisect.Budget gives it, so that the search
names a wrong commit with probability at most 1 − confidence. Every build and
execution is recorded in the store at once (runner/bisect_store.py) and every decision
is a function of the recorded executions, so a resumed bisect replays the search and
runs only what is missing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchlab.errors import InputError
from benchlab.notation import plural
from benchlab.result import Result
from benchlab.runner import git_builds
from benchlab.runner.bisect_store import BisectStore, Execution
from benchlab.runner.execute import run_process
from benchlab.runner.quick import command_words
from benchlab.stats import bisect as decide
from benchlab.stats.fieller import RatioInterval


@dataclass(frozen=True)
class Settings:
    """Everything that decides a bisect's executions and decisions (kept in its store; a
    --resume must give the same)."""

    repo: str
    good: str  # full SHAs
    bad: str
    build: str
    command: str
    shell: bool = False
    threshold: float = 0.02
    metric: str = "wall"
    confidence: float = 0.95
    first: int = 5  # executions per arm at the first look
    most: int = 100  # ... at the last, at most
    warmup: int = 0
    prepare: str | None = None
    seed: int = 0
    timeout: float | None = None
    counter: str | None = None  # instructions counted under Valgrind (runner/counter.py)

    def document(self) -> dict[str, object]:
        return dict(self.__dict__)

    def argv(self, text: str) -> list[str]:
        """A command's argv: its words, or /bin/sh -c with `shell`."""
        return ["/bin/sh", "-c", text] if self.shell else command_words(text, "the command")


@dataclass(frozen=True)
class Step:
    """One decision: the ends (`mid` None) or a commit between `good` and `bad`, each look's
    check (stats/bisect.EndsCheck or SideCheck), its outcome and what it cost."""

    number: int
    good: str
    mid: str | None
    bad: str
    level: float
    checks: tuple = ()
    outcome: str = "unknown"  # ends: differ/same/unknown; a commit: good/bad/unknown/failed
    executions: int = 0
    candidates: int = 0  # commits still in question when the step began
    error: str | None = None  # a commit whose command failed: why

    @property
    def last(self):
        return self.checks[-1] if self.checks else None


@dataclass(frozen=True)
class BuildSummary:
    """A build as the result reports it."""

    sha: str
    ok: bool
    seconds: float
    cached: bool
    error: str | None
    stderr_tail: str


@dataclass(frozen=True)
class BisectResult(Result):
    """What a bisect found (rendered by report/bisect.py). `status`: found (the culprit),
    no-change (the ends do not differ beyond the threshold), inconclusive (the ends could not
    be told apart either way), ambiguous (a commit could not be placed: `candidates` is the
    range left), skipped (only commits that could not be built or run are left between a
    good and a bad one: `candidates`)."""

    settings: Settings
    status: str
    commits: int  # candidates at the start (after good, bad included)
    budget: decide.Budget
    steps: tuple[Step, ...]
    builds: tuple[BuildSummary, ...]
    subjects: dict[str, str]
    culprit: str | None = None
    parent: str | None = None
    across: RatioInterval | None = None  # culprit / parent at the family confidence
    across_verdict: str | None = None
    candidates: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    store: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def executions(self) -> int:
        return sum(s.executions for s in self.steps)


Progress = Callable[[str], None]


@dataclass(frozen=True)
class Timing:
    """What one execution measured (error None: it succeeded)."""

    wall: float
    user: float
    sys: float
    maxrss: int
    error: str | None = None
    stderr_tail: str = ""
    instructions: float | None = None  # counted (metric instructions)


Timer = Callable[[str, str], Timing]  # (commit, its worktree) → one execution's timing


class Search:
    """One bisect run against its store: builds, executions and the decisions on them."""

    def __init__(self, settings: Settings, store: BisectStore, cache: str,
                 progress: Progress | None = None, *, builder=None,
                 timer: Timer | None = None, remote=None) -> None:
        """`builder` (git_builds.Builder's build and tree) and `timer` replace the real
        builds and executions (validation/bisect_accuracy.py simulates executions);
        `remote` (runner/bisect_cluster.Remote) runs each look's executions on a worker."""
        self.s, self.store = settings, store
        self.say = progress or (lambda text: None)
        self.builder = builder or git_builds.Builder(settings.repo, cache, settings.build,
                                                     settings.timeout)
        self.argv = settings.argv(settings.command)
        self.prepare = settings.argv(settings.prepare) if settings.prepare else None
        self.timer = timer or self._time
        self.recorded_builds = store.builds()
        self.builds: dict[str, BuildSummary] = {}
        self.counters = None  # the PMU's instruction counter, opened at the first execution
        self.remote = remote

    # -- builds ----------------------------------------------------------------------
    def build(self, sha: str) -> BuildSummary:
        """The commit built once (the store's record of a failure is kept: never retried)."""
        if sha in self.builds:
            return self.builds[sha]
        known = self.recorded_builds.get(sha)
        if known is not None and not known["ok"]:
            summary = BuildSummary(sha, False, known["seconds"], True, known["error"],
                                   known["stderr_tail"])
        else:
            if self.builder.cached(sha) is None:
                self.say(f"building {sha[:12]}")
            built = self.builder.build(sha)
            if known is None or built.ok != known["ok"] or not built.cached:
                self.store.record_build(built)
            summary = BuildSummary(sha, built.ok, built.seconds, built.cached, built.error,
                                   built.stderr_tail)
        self.builds[sha] = summary
        return summary

    # -- executions ------------------------------------------------------------------
    def _time(self, sha: str, tree: str) -> Timing:
        """One execution of the command in the commit's worktree (its prepare command first)."""
        if self.s.metric == "instructions" and self.s.counter is None and self.counters is None:
            from benchlab.runner.perf_event import Counters

            self.counters = Counters(("instructions",))
        return time_once(self.s, self.argv, self.prepare, sha, tree, self.counters)

    def _execute(self, step: int, rnd: int, slot: int, arm: str, sha: str,
                 warmup: bool) -> Execution:
        """One execution, recorded in the store before anything else happens."""
        from benchlab.sqlite_file import timestamp

        started = timestamp()
        t = self.timer(sha, self.builder.tree(sha))
        return self._record(step, rnd, slot, arm, sha, warmup, started, t)

    def _record(self, step: int, rnd: int, slot: int, arm: str, sha: str, warmup: bool,
                started: str, t: Timing) -> Execution:
        """An execution's timing into the store (one transaction)."""
        error = t.error
        if error is None and self.s.metric == "instructions" and t.instructions is None:
            error = "no instructions counted"
        e = Execution(step, rnd, slot, sha, arm, warmup, t.wall, t.user, t.sys, t.maxrss,
                      error, t.instructions)
        self.store.record_execution(e, started, t.stderr_tail)
        return e

    def _remote_look(self, step: int, arms: dict[str, str], upto: int,
                     done: dict[tuple[int, int], Execution]) -> None:
        """With `remote` (bisect --cluster): the look's missing executions, in their
        interleaved order, sent as one batch to the worker and recorded when it returns."""
        missing = []
        for rnd in range(self.s.warmup + upto):
            order = np.random.default_rng([self.s.seed, step, rnd]).permutation(sorted(arms))
            missing += [(rnd, slot, str(arm), arms[str(arm)]) for slot, arm in enumerate(order)
                        if (rnd, slot) not in done]
        if not missing:
            return
        timings = self.remote.run(self.s, [sha for _, _, _, sha in missing])
        for (rnd, slot, arm, sha), (started, t) in zip(missing, timings, strict=True):
            done[(rnd, slot)] = self._record(step, rnd, slot, arm, sha, rnd < self.s.warmup,
                                             started, t)

    def _rounds(self, step: int, arms: dict[str, str], upto: int,
                done: dict[tuple[int, int], Execution]) -> str | None:
        """Run (or read) rounds 0 .. warmup + upto − 1 of a step; the first failure's text."""
        if self.remote is not None:
            self._remote_look(step, arms, upto, done)
        for rnd in range(self.s.warmup + upto):
            order = np.random.default_rng([self.s.seed, step, rnd]).permutation(sorted(arms))
            for slot, arm in enumerate(order):
                sha = arms[str(arm)]
                e = done.get((rnd, slot))
                if e is None:
                    e = self._execute(step, rnd, slot, str(arm), sha, rnd < self.s.warmup)
                    done[(rnd, slot)] = e
                elif e.sha != sha or e.arm != arm:
                    raise InputError(f"the store's step {step} ran {e.arm} {e.sha[:12]} where "
                                     f"this bisect runs {arm} {sha[:12]}: the settings or the "
                                     "repository's history changed; start a new store",
                                     self.store.path)
                if e.error is not None:
                    return f"{arm} {sha[:12]}: {e.error}"
        return None

    def measure(self, step: int, arms: dict[str, str], check) -> tuple[tuple, int, str | None]:
        """Look after look until `check(samples, level)` decides or the most is reached:
        (the checks, the executions run, the failure that stopped the step)."""
        done = {(e.round, e.slot): e for e in self.store.executions(step)}
        level = self.budget.level(step)
        checks = []
        for n in self.budget.looks_of(step):
            failure = self._rounds(step, arms, n, done)
            if failure is not None:
                return tuple(checks), len(done), failure
            samples = {arm: np.array([e.value(self.s.metric) for e in done.values()
                                      if e.arm == arm and not e.warmup]) for arm in arms}
            c = check(samples, level)
            checks.append(c)
            if getattr(c, "outcome", None) in ("differ", "same") or \
                    getattr(c, "side", None) in ("good", "bad"):
                break
        return tuple(checks), len(done), None

    # -- the search ------------------------------------------------------------------
    def run(self) -> BisectResult:
        """The search from its store to its result (the PMU counter closed after it)."""
        try:
            return self._search()
        finally:
            if self.counters is not None:
                self.counters.close()

    def _search(self) -> BisectResult:
        s = self.s
        commits = git_builds.commits_between(s.repo, s.good, s.bad)
        if self.store.meta("commits") is None:  # the history order, for compare STORE
            import json

            self.store.set_meta("commits", json.dumps(commits))
        self.budget = decide.budget(len(commits), s.confidence, s.first, s.most)
        subjects = {sha: git_builds.subject(s.repo, sha) for sha in (s.good, s.bad)}
        for what, sha in (("good", s.good), ("bad", s.bad)):
            b = self.build(sha)
            if not b.ok:
                raise InputError(f"the {what} commit {sha[:12]} does not build: {b.error}"
                                 + (f": {_last_line(b.stderr_tail)}" if b.stderr_tail else ""),
                                 s.repo)
        steps: list[Step] = []

        notes: list[str] = []

        def result(status: str, **more) -> BisectResult:
            return BisectResult(s, status, len(commits), self.budget, tuple(steps),
                                tuple(self.builds.values()), subjects,
                                store=self.store.path, notes=tuple(notes), **more)

        # 1. the ends
        arms = {"good": s.good, "bad": s.bad}
        self.say(f"step 1: good {s.good[:12]} against bad {s.bad[:12]} "
                 f"({plural(len(commits), 'commit')} after good)")
        checks, ran, failure = self.measure(
            1, arms, lambda x, level: decide.check_ends(x["good"], x["bad"], level,
                                                        s.threshold))
        if failure is not None:
            raise InputError(f"the command failed on the {failure}", s.repo)
        ends = Step(1, s.good, None, s.bad, self.budget.level(1), checks, checks[-1].outcome,
                    ran, len(commits))
        steps.append(ends)
        self.say(_said(ends))
        if ends.outcome != "differ":
            return result("no-change" if ends.outcome == "same" else "inconclusive")
        slower = checks[-1].ratio.estimate > 1.0
        notes += self._size_steps(1)
        lo, hi = -1, len(commits) - 1  # indices of the good and bad ends (-1: good itself)
        skipped: set[int] = set()
        number = 1

        def sha_at(i: int) -> str:
            return s.good if i < 0 else commits[i]

        while hi - lo > 1:
            left = [i for i in range(lo + 1, hi) if i not in skipped]
            if not left:
                range_ = tuple(commits[lo + 1:hi + 1])
                subjects.update({c: git_builds.subject(s.repo, c) for c in range_})
                return result("skipped", candidates=range_,
                              skipped=tuple(commits[i] for i in sorted(skipped)),
                              parent=sha_at(lo))
            middle = (lo + hi) / 2
            i = min(left, key=lambda k: (abs(k - middle), k))
            mid = commits[i]
            if not self.build(mid).ok:
                skipped.add(i)
                self.say(f"skipping {mid[:12]}: its build failed")
                continue
            number += 1
            arms = {"good": sha_at(lo), "mid": mid, "bad": sha_at(hi)}
            self.say(f"step {number}: {mid[:12]} ({hi - lo} commits in question)")
            checks, ran, failure = self.measure(
                number, arms, lambda x, level: decide.check_side(
                    x["good"], x["mid"], x["bad"], level, s.threshold, slower))
            subjects[mid] = git_builds.subject(s.repo, mid)
            if failure is not None:
                if not failure.startswith("mid "):
                    raise InputError(f"the command failed on the {failure}", s.repo)
                step = Step(number, arms["good"], mid, arms["bad"], self.budget.level(number),
                            checks, "failed", ran, hi - lo, failure)
                steps.append(step)
                skipped.add(i)
                self.say(f"skipping {mid[:12]}: its command failed")
                continue
            step = Step(number, arms["good"], mid, arms["bad"], self.budget.level(number),
                        checks, checks[-1].side, ran, hi - lo)
            steps.append(step)
            self.say(_said(step))
            if step.outcome == "bad":
                hi = i
            elif step.outcome == "good":
                lo = i
            else:
                range_ = tuple(commits[lo + 1:hi + 1])
                subjects.update({c: git_builds.subject(s.repo, c) for c in range_})
                return result("ambiguous", candidates=range_, parent=sha_at(lo),
                              skipped=tuple(commits[k] for k in sorted(skipped)))
        culprit, parent = commits[hi], sha_at(lo)
        subjects[culprit] = git_builds.subject(s.repo, culprit)
        across = self._across(steps, parent, culprit)
        from benchlab.stats.verdict import classify

        verdict = classify(across.low, across.high, s.threshold) if across else None
        return result("found", culprit=culprit, parent=parent, across=across,
                      across_verdict=verdict,
                      skipped=tuple(commits[k] for k in sorted(skipped)))

    def _size_steps(self, ends_step: int) -> list[str]:
        """Size the looks of every later step from the ends' executions (power-aware:
        stats/bisect.executions_needed), capped by the most; the notes that say so."""
        from dataclasses import replace

        s = self.s
        done = [e for e in self.store.executions(ends_step) if not e.warmup]
        good = np.array([e.value(s.metric) for e in done if e.arm == "good"])
        bad = np.array([e.value(s.metric) for e in done if e.arm == "bad"])
        ends = decide.ratio(bad, good, self.budget.level(ends_step))
        need = decide.executions_needed(good, bad, ends, self.budget.level(2))
        # at least two looks: a first look that misses by a little gets a second chance
        most = s.most if need is None else min(max(need, 2 * s.first), s.most)
        self.budget = replace(self.budget, step_looks=decide.looks(s.first, most))
        if need is not None and need > s.most:
            return [f"a step needs about {need} executions of each commit to decide with "
                    f"{100 * decide.STEP_POWER:g}% chance (from the ends' spread and the "
                    f"smallest change their CI allows); --max-runs {s.most} caps it, so a "
                    "step may end unknown (ambiguous)"]
        return []

    def _across(self, steps: list[Step], parent: str, culprit: str) -> RatioInterval | None:
        """culprit/parent at the family confidence, from the last step that ran both."""
        for step in reversed(steps):
            arms = {"good": step.good, "bad": step.bad}
            if step.mid is not None:
                arms["mid"] = step.mid
            names = {sha: arm for arm, sha in arms.items()}
            if parent in names and culprit in names:
                values: dict[str, list[float]] = {parent: [], culprit: []}
                for e in self.store.executions(step.number):
                    if not e.warmup and e.error is None and e.sha in values:
                        values[e.sha].append(e.value(self.s.metric))
                return decide.ratio(np.array(values[culprit]), np.array(values[parent]),
                                    self.s.confidence)
        return None


def time_once(s: Settings, argv: list[str], prepare: list[str] | None, sha: str, tree: str,
              counters=None) -> Timing:
    """One execution of `argv` in the commit's worktree (`prepare` first, untimed), here or
    on a worker (runner/bisect_worker.py); `counters` the PMU's when it counts instructions."""
    import os

    env = {**os.environ, "BENCHLAB_COMMIT": sha}
    if prepare is not None:
        before = run_process(prepare, cwd=tree, env=env, timeout=s.timeout)
        if not before.ok:
            return Timing(0.0, 0.0, 0.0, 0, f"prepare command: {before.error}",
                          before.stderr_tail)
    if s.metric == "instructions" and s.counter is not None:
        from benchlab.runner.counter import run_counted

        out = run_counted(s.counter, argv, cwd=tree, env=env, timeout=s.timeout, cpus=None)
    elif s.metric == "instructions":  # the PMU, in the execution itself
        out = run_process(argv, cwd=tree, env=env, timeout=s.timeout, counters=counters)
    else:
        out = run_process(argv, cwd=tree, env=env, timeout=s.timeout)
    return Timing(out.wall, out.user, out.sys, out.maxrss, out.error, out.stderr_tail,
                  out.counts.get("instructions") if out.ok else None)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _said(step: Step) -> str:
    """One progress line for a decided step."""
    c = step.last
    if step.mid is None:
        r = c.ratio
        return (f"  bad/good {r.estimate:.4f} {_interval(r.low, r.high)} at "
                f"{100 * step.level:.4g}% after {c.runs} runs each: {step.outcome}")
    p = c.position
    return (f"  position {p.estimate:.4f} {_interval(p.low, p.high)} at "
            f"{100 * step.level:.4g}% after {c.runs} runs each: {step.outcome}")


def _interval(low: float | None, high: float | None) -> str:
    """A step's interval for the progress line: "unbounded" where the interval has no bound
    (None, or not finite), as the table printed at the end says it."""
    if not _finite(low) and not _finite(high):
        return "(unbounded)"
    return f"[{_bound(low)}, {_bound(high)}]"


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _bound(x: float | None) -> str:
    return f"{x:.4f}" if _finite(x) else "unbounded"
