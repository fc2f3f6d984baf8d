"""[steady_state]: the experiment-file table, the watch that ends an execution once its
steady state holds the iterations asked for, and the warm-up flags the store gets."""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np

from benchlab.runner.config import SteadyState
from benchlab.runner.execute import Outcome, OutputParser, run_process
from benchlab.runner.plan import Trial
from benchlab.runner.steady import SteadyWatch, check_every, reached, unsteady_warning
from benchlab.runner.trial import measurements

TABLE = """
iterations = {max}
[warmup]
iterations = {warm}
[steady_state]
iterations = 50
[measure]
regex = 't=(?P<t>[0-9.]+)'
unit = "ms"
[alternatives.a]
command = ["true"]
"""


def test_table_and_its_errors(experiment_of, experiment_error):
    e = experiment_of(TABLE.format(max=1000, warm=0))
    assert e.steady == SteadyState(50, "t") and check_every(e.steady) == 5
    assert "is the most an execution runs" in experiment_error(TABLE.format(max=40, warm=0))
    timed = "[steady_state]\niterations = 50\n[alternatives.a]\ncommand = [\"true\"]\n"
    assert "needs iterations within an execution" in experiment_error(timed)
    bad = TABLE.format(max=1000, warm=0).replace("iterations = 50", "iterations = 50\n"
                                                 "metric = \"x\"")
    assert "steady_state.metric 'x' is not measured" in experiment_error(bad)
    few = TABLE.format(max=1000, warm=0).replace("iterations = 50", "iterations = 3")
    assert "steady_state.iterations must be at least 10" in experiment_error(few)
    assert "exp.toml:" in experiment_error(few)


def test_reached_needs_the_steady_iterations():
    rng = np.random.default_rng(4)
    y = 2.0 * (1 + 0.01 * rng.standard_normal(400))
    y[:80] *= 1.5
    steady = SteadyState(100, "t")
    assert reached(y[:150], steady) is None  # 70 steady iterations: not yet
    assert reached(y[:200], steady) == 80
    drift = y.copy()
    drift[-20:] *= 1.3  # a late step: no steady state covering the end
    assert reached(drift, steady) is None


def test_watch_checks_every_tenth_and_the_parser_stops(experiment_of):
    e = experiment_of(TABLE.format(max=1000, warm=3))
    watch = SteadyWatch(e)
    rng = np.random.default_rng(5)
    values = 2.0 * (1 + 0.01 * rng.standard_normal(300))
    values[:40] *= 1.5
    parser = OutputParser("regex", ("t",), r"t=(?P<t>[0-9.]+)", 3 + 1000, watch)
    parser.feed(b"t=9\nt=9\nt=9\n")  # the fixed warm-up iterations: not classified
    for v in values:
        parser.feed(f"t={v:.6f}\n".encode())
        if parser.stopped:
            break
    assert parser.stopped and 3 + 90 <= len(parser.rows) <= 3 + 40 + 50 + 5
    parser.close()
    assert parser.error is None  # fewer values than the maximum: not a failure


def test_the_runner_ends_an_execution_at_its_steady_state(experiment_of):
    e = experiment_of(TABLE.format(max=5000, warm=0))
    script = ("import random, sys, time\nr = random.Random(1)\n"
              "for i in range(5000):\n"
              "    v = 2.0 * (1.5 if i < 30 else 1.0) * (1 + 0.01 * r.gauss(0, 1))\n"
              "    print(f't={v:.6f}', flush=True)\n    time.sleep(0.0005)\n")
    parser = OutputParser("regex", ("t",), r"t=(?P<t>[0-9.]+)", 5000, SteadyWatch(e))
    out = run_process([sys.executable, "-c", script], parser=parser, timeout=60)
    assert out.ok and out.error is None, out.error
    assert 80 <= len(out.rows) < 5000  # ended well before the maximum
    trial = Trial(1, 1, "execution", "a", (), 1, 1, False)
    rows = measurements(e, trial, out)
    warm = [r for r in rows if r[4]]
    assert 25 <= len(warm) <= 35  # flagged up to the steady state's start
    assert all(r[0] <= len(warm) for r in warm)


def test_flags_and_warning_of_a_finished_execution(experiment_of):
    e = experiment_of(TABLE.format(max=200, warm=2))
    rng = np.random.default_rng(6)
    values = 2.0 * (1 + 0.01 * rng.standard_normal(200))
    values[:60] *= 1.4
    rows = [{"t": 9.0}, {"t": 9.0}] + [{"t": float(v)} for v in values]
    outcome = Outcome(1.0, 0.5, 0.1, 0, 0, None, False, None, "", rows)
    trial = Trial(4, 1, "execution", "a", (), 1, 2, False)
    flags = [r[4] for r in measurements(e, trial, outcome)]
    assert flags == [True] * (2 + 60) + [False] * 140
    assert unsteady_warning(e, trial, rows) is None
    drift = rows[:-20] + [{"t": 3.0}] * 20
    text = unsteady_warning(e, trial, drift)
    assert text.startswith("trial 4 (a, build 1, execution 2) reached no steady state of 50 "
                           "iterations in its 200")
    assert not any(r[4] for r in measurements(e, trial, Outcome(
        1.0, 0.5, 0.1, 0, 0, None, False, None, "", drift))[2 * 1:])


def test_dry_run_says_the_iterations_are_a_maximum(run_cli, tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(textwrap.dedent(TABLE.format(max=1000, warm=0)))
    _, out, _ = run_cli("run", path, "--dry-run", "--seed", "1", expect=0)
    assert "1 build x 10 executions x (until a steady state of 50, at most 1000) iterations" \
        in out
    _, doc, _ = run_cli("run", path, "--dry-run", "--seed", "1", "--json", expect=0)
    assert json.loads(doc)["steady_state"] == {"iterations": 50, "metric": "t"}
