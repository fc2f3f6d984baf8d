"""Bounded plans (issue 15): the number of trials is computed from the file before any list is
built, and a plan beyond BENCHLAB_MAX_TRIALS (or executions printing more than
BENCHLAB_MAX_ITERATIONS values) is a one-line error with the size, the limit and how to raise
it — also with --dry-run, which used to grow memory without a word."""

from __future__ import annotations

import tracemalloc

import pytest

from benchlab.errors import InputError, UsageError
from benchlab.runner.config import parse_experiment
from benchlab.runner.plan import MAX_TRIALS, make_plan, plan_size


def experiment(tmp_path, text: str):
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return parse_experiment(text, str(path))


HUGE = "executions = 99999999999999999\n[alternatives.a]\ncommand = [\"true\"]\n"


@pytest.mark.parametrize("order", ["interleaved-random", "sequential"])
@pytest.mark.parametrize("builds, executions, warmup, levels, with_build", [
    (1, 1, 0, (), False), (3, 2, 1, (2, 3), True), (2, 5, 2, (4,), False), (1, 3, 0, (1, 1), True),
])
def test_plan_size_is_the_length_of_the_plan(tmp_path, order, builds, executions, warmup,
                                             levels, with_build):
    factors = "".join(f"f{i} = {list(range(n))}\n" for i, n in enumerate(levels))
    args = "".join(f', "{{f{i}}}"' for i in range(len(levels)))
    build = 'build = ["true"]\n' if with_build else ""
    e = experiment(tmp_path, f'builds = {builds}\nexecutions = {executions}\norder = "{order}"\n'
                   f"[warmup]\nexecutions = {warmup}\n[factors]\n{factors}"
                   f'[alternatives.a]\ncommand = ["echo"{args}]\n{build}'
                   f'[alternatives.b]\ncommand = ["echo"{args}]\n')
    assert plan_size(e)[0] == len(make_plan(e, seed=1))


def test_refused_before_anything_is_listed(tmp_path):
    e = experiment(tmp_path, HUGE)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            make_plan(e, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000  # nothing the size of the plan was allocated
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'exp.toml'}:1: the plan has 99999999999999999 "
                              "trials (1 alternative x 1 factor combination x 1 build x "
                              "99999999999999999 executions)")
    assert f"more than the limit of {MAX_TRIALS}" in message
    assert "lower executions or set BENCHLAB_MAX_TRIALS to raise the limit" in message


def test_the_error_names_the_key_that_makes_the_plan_large(tmp_path):
    levels = ", ".join(str(i) for i in range(2000))
    e = experiment(tmp_path, "executions = 2\n[factors]\nx = [" + levels + "]\ny = [" + levels
                   + ']\n[alternatives.a]\ncommand = ["echo", "{x}", "{y}"]\n')
    with pytest.raises(InputError, match=r"exp\.toml:2: the plan has 8000000 trials .*4000000 "
                                         "factor combinations.*lower factors"):
        make_plan(e, seed=1)
    e = experiment(tmp_path, "builds = 5000000\n" + HUGE.replace("99999999999999999", "1"))
    with pytest.raises(InputError, match=r"exp\.toml:1: the plan has 5000000 trials.*lower builds"):
        make_plan(e, seed=1)


def test_the_limit_is_raised_or_lowered_by_the_environment(tmp_path, monkeypatch):
    e = experiment(tmp_path, 'executions = 30\n[alternatives.a]\ncommand = ["true"]\n')
    monkeypatch.setenv("BENCHLAB_MAX_TRIALS", "29")
    with pytest.raises(InputError, match="30 trials .* limit of 29"):
        make_plan(e, seed=1)
    monkeypatch.setenv("BENCHLAB_MAX_TRIALS", "30")
    assert len(make_plan(e, seed=1)) == 30
    for bad in ("0", "-1", "many", "1e6"):
        monkeypatch.setenv("BENCHLAB_MAX_TRIALS", bad)
        with pytest.raises(UsageError, match="BENCHLAB_MAX_TRIALS must be a positive integer"):
            make_plan(e, seed=1)


def test_iterations_per_execution_are_bounded(tmp_path, monkeypatch):
    text = ("iterations = 900000\n[warmup]\niterations = 200000\n[measure]\n"
            "regex = 'v=(?P<v>[0-9]+)'\n[alternatives.a]\ncommand = [\"true\"]\n")
    e = experiment(tmp_path, text)
    with pytest.raises(InputError, match=r"exp\.toml:1: each execution must print 1100000 "
                                         "iterations, more than the limit of 1000000; lower "
                                         "iterations or set BENCHLAB_MAX_ITERATIONS"):
        make_plan(e, seed=1)
    monkeypatch.setenv("BENCHLAB_MAX_ITERATIONS", "1100000")
    assert len(make_plan(e, seed=1)) == 10


@pytest.mark.parametrize("extra", [[], ["--dry-run"], ["--dry-run", "--json"]])
def test_through_the_cli(tmp_path, capsys, extra):
    from benchlab.cli.main import main

    path = tmp_path / "exp.toml"
    path.write_text(HUGE)
    db = tmp_path / "r.db"
    assert main(["run", str(path), "-o", str(db), *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"benchlab: {path}:1: the plan has 99999999999999999 trials")
    assert "BENCHLAB_MAX_TRIALS" in captured.err
    assert not db.exists()


def test_a_bad_limit_through_the_cli(tmp_path, capsys, monkeypatch):
    from benchlab.cli.main import main

    path = tmp_path / "exp.toml"
    path.write_text('[alternatives.a]\ncommand = ["true"]\n')
    monkeypatch.setenv("BENCHLAB_MAX_TRIALS", "lots")
    assert main(["run", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err == "benchlab: BENCHLAB_MAX_TRIALS must be a positive integer, not 'lots'\n"
