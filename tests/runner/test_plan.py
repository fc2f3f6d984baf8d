"""Plans: counts per level, warm-up marking, seeded interleaved order, sequential order."""

from __future__ import annotations

import collections
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchlab.runner.config import parse_experiment
from benchlab.runner.plan import cells, command_for, make_plan


def experiment(tmp_path, *, builds=2, executions=3, warmup=1, alternatives=("a", "b", "c"),
               factors="", order="interleaved-random", build_step=True):
    extra = ', "{n}"' if factors else ""
    build = 'build = ["echo", "build", "{build}"]\n' if build_step else ""
    alts = "".join(f'[alternatives.{a}]\ncommand = ["echo", "{a}"' + extra + ']\n' + build
                   for a in alternatives)
    text = textwrap.dedent(f"""
        builds = {builds}
        executions = {executions}
        order = "{order}"
        [warmup]
        executions = {warmup}
        """) + (f"[factors]\n{factors}\n" if factors else "") + alts
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return parse_experiment(text, str(path))


def test_counts_per_level(tmp_path):
    e = experiment(tmp_path, factors="n = [1, 2]")
    plan = make_plan(e, seed=5)
    builds = [t for t in plan if t.kind == "build"]
    runs = [t for t in plan if t.kind == "execution"]
    assert len(builds) == 3 * 2  # per alternative and build
    assert len(runs) == 3 * 2 * 2 * (1 + 3)  # cells x builds x (warm-up + executions)
    per_cell = collections.Counter((t.cell, t.build) for t in runs)
    assert set(per_cell.values()) == {4}
    assert all(t.warmup == (t.execution == 1) for t in runs)
    assert [t.seq for t in plan] == list(range(1, len(plan) + 1))


def test_build_steps_come_before_their_executions(tmp_path):
    plan = make_plan(experiment(tmp_path), seed=1)
    first_exec = {}
    for t in plan:
        if t.kind == "execution":
            first_exec.setdefault((t.alternative, t.build), t.seq)
    for t in plan:
        if t.kind == "build":
            assert t.seq < first_exec[(t.alternative, t.build)]


def test_every_round_runs_every_cell_once(tmp_path):
    e = experiment(tmp_path, factors="n = [1, 2]")
    plan = make_plan(e, seed=2)
    rounds = collections.defaultdict(list)
    for t in plan:
        if t.kind == "execution":
            rounds[t.round].append(t.cell)
    for members in rounds.values():
        assert sorted(members) == sorted(cells(e))


def test_same_seed_same_plan_and_different_seed_different_order(tmp_path):
    e = experiment(tmp_path, executions=10)
    assert make_plan(e, 3) == make_plan(e, 3)
    assert [t.alternative for t in make_plan(e, 3)] != [t.alternative for t in make_plan(e, 4)]


def test_no_alternative_runs_twice_in_a_row_more_often_than_chance(tmp_path):
    """Within a round never; across a round boundary with probability 1/k (k cells), so
    the count over R rounds is Binomial(R - 1, 1/k): it must stay inside its 99.9% range."""
    k, rounds = 3, 400
    e = experiment(tmp_path, builds=1, executions=rounds, warmup=0, build_step=False)
    order = [t.alternative for t in make_plan(e, seed=11)]
    repeats = sum(a == b for a, b in zip(order, order[1:], strict=False))
    low, high = stats.binom.ppf([0.0005, 0.9995], rounds - 1, 1 / k)
    assert low <= repeats <= high
    for r in range(rounds):  # within a round: each alternative once
        assert sorted(order[r * k:(r + 1) * k]) == ["a", "b", "c"]


def test_sequential_runs_each_alternative_whole(tmp_path):
    e = experiment(tmp_path, order="sequential")
    plan = make_plan(e, seed=1)
    order = [t.alternative for t in plan]
    changes = sum(a != b for a, b in zip(order, order[1:], strict=False))
    assert changes == 2  # a... then b... then c...
    assert order[0] == "a" and order[-1] == "c"


def test_placeholders_are_substituted_into_argv(tmp_path):
    e = experiment(tmp_path, factors="n = [\"x y\", 2]")
    plan = make_plan(e, seed=1)
    t = next(t for t in plan if t.kind == "execution" and dict(t.factors)["n"] == "x y")
    assert command_for(e, t).argv == ("echo", t.alternative, "x y")  # one argument, no shell
    b = next(t for t in plan if t.kind == "build" and t.build == 2)
    assert command_for(e, b).argv == ("echo", "build", "2")


@settings(max_examples=30, deadline=None)
@given(builds=st.integers(1, 3), executions=st.integers(1, 4), warmup=st.integers(0, 2),
       alternatives=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_plan_shape_property(tmp_path_factory, builds, executions, warmup, alternatives, seed):
    tmp = tmp_path_factory.mktemp("plan")
    names = tuple("abcd"[:alternatives])
    e = experiment(tmp, builds=builds, executions=executions, warmup=warmup,
                   alternatives=names, build_step=False)
    plan = make_plan(e, seed)
    assert len(plan) == alternatives * builds * (warmup + executions)
    seen = collections.Counter((t.alternative, t.build, t.execution) for t in plan)
    assert set(seen.values()) == {1}
    assert sum(t.warmup for t in plan) == alternatives * builds * warmup
