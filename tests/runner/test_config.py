"""Experiment files: what they mean, and one-line errors with the line of the problem."""

from __future__ import annotations

import pytest

from benchlab.runner.config import find_line, parse_duration, substitute

MINIMAL = """
[alternatives.a]
command = ["true"]
"""


def test_defaults(experiment_of, tmp_path):
    e = experiment_of(MINIMAL)
    assert (e.builds, e.executions, e.iterations) == (1, 10, 1)
    assert e.order == "interleaved-random"
    assert e.measure.kind == "time"
    assert e.measure.metrics == ("wall", "user", "sys", "maxrss")
    assert e.baseline == "a"
    assert e.cwd == str(tmp_path)  # relative to the experiment file


def test_full_file(experiment_of):
    e = experiment_of("""
        seed = 3
        builds = 2
        executions = 4
        iterations = 5
        timeout = "250ms"
        baseline = "b"
        env = { LC_ALL = "C" }
        [warmup]
        executions = 1
        iterations = 2
        [measure]
        regex = 'took (?P<t>[0-9.]+) ms'
        unit = "ms"
        [factors]
        n = [10, 20]
        mode = ["x"]
        [alternatives.a]
        command = ["echo", "{n}", "{mode}", "{iterations}"]
        [alternatives.b]
        command = "echo {n} | cat"
        shell = true
        build = "echo building {build}"
        [stop_when]
        halfwidth = "2%"
        max_time = "1m"
    """)
    assert e.timeout == pytest.approx(0.25)
    assert e.factors == (("n", ("10", "20")), ("mode", ("x",)))
    assert e.measure.metrics == ("t",) and e.measure.unit_of("t") == "ms"
    assert e.alternatives[1].command.shell
    assert e.stop.halfwidth == pytest.approx(0.02) and e.stop.max_time == 60
    assert e.stop.metric == "t"
    assert (e.warmup_executions, e.warmup_iterations) == (1, 2)


@pytest.mark.parametrize("text, line, fragment", [
    ("exections = 3\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "unknown key 'exections'"),
    ("[alternatives.a]\ncommand = [\"true\"]\ncomand = 1\n", 3,
     "unknown key 'alternatives.a.comand'"),
    ("executions = \"3\"\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "must be an integer"),
    ("[alternatives.a]\ncommand = [\"true\"]\n\n[warmup]\nexecutions = -1\n", 5, "at least 0"),
    ("[alternatives.a]\ncommand = \"true\"\n", 2, "set shell = true"),
    ("[alternatives.a]\ncommand = [\"no-such-program-xyz\"]\n", 2, "command not found"),
    ("[measure]\nregex = 'took ([0-9]+)'\n[alternatives.a]\ncommand = [\"true\"]\n", 2,
     "no named group"),
    ("[alternatives.a]\ncommand = [\"echo\", \"{size}\"]\n", 2, "unknown placeholder {size}"),
    ("order = \"random\"\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "order must be one of"),
    ("timeout = \"soon\"\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "positive duration"),
    ("iterations = 3\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "timed whole is one iteration"),
    ("baseline = \"z\"\n[alternatives.a]\ncommand = [\"true\"]\n", 1, "not an alternative"),
    ("[factors]\nvalue = [1, 2]\n[alternatives.a]\ncommand = [\"true\"]\n", 2, "reserved"),
    ("[alternatives.a]\ncommand = [\"true\"]\n[stop_when]\nhalfwidth = \"200%\"\n", 4,
     "percentage"),
    ("order = \"sequential\"\n[alternatives.a]\ncommand = [\"true\"]\n"
     "[stop_when]\nmax_time = \"1m\"\n", 4, "interleaved-random"),
    ("[alternatives.a]\ncommand = [\"true\"\n", 2, "invalid TOML"),
    ("name = \"x\"\n", 1, "no [alternatives] table"),
])
def test_errors_name_the_line(experiment_error, text, line, fragment):
    message = experiment_error(text)
    assert f"exp.toml:{line}: " in message
    assert fragment in message
    assert "\n" not in message


def test_find_line_prefers_the_table(tmp_path):
    text = "[alternatives.a]\ncommand = [\"x\"]\n\n[alternatives.b]\ncommand = [\"y\"]\n"
    assert find_line(text, ("alternatives", "b", "command")) == 5
    assert find_line(text, ("alternatives", "a", "command")) == 2
    assert find_line(text, ("alternatives", "b")) == 4


def test_substitution_is_per_argument_and_braces_escape():
    assert substitute("{n}-{{x}}", {"n": "a b; rm -rf /"}) == "a b; rm -rf /-{x}"


def test_durations():
    assert parse_duration("10s") == 10 and parse_duration("250ms") == 0.25
    assert parse_duration("30m") == 1800 and parse_duration(2) == 2.0
    assert parse_duration("0s") is None and parse_duration("x") is None
    assert parse_duration(True) is None
