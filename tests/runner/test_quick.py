"""Quick mode's options as an experiment (runner/quick.py): the text it writes is an
experiment file the file's own parser reads, and what it refuses it refuses in one line."""

from __future__ import annotations

import pytest

from benchlab.errors import UsageError
from benchlab.runner.config import parse_experiment
from benchlab.runner.plan import command_for, make_plan
from benchlab.runner.quick import (
    SOURCE,
    QuickSpec,
    experiment_text,
    list_values,
    quick_experiment,
    scan_values,
    template,
)


def test_two_commands_are_two_alternatives_first_the_baseline():
    e = quick_experiment(QuickSpec(("sleep 0.01", "sleep 0.012"), runs=20, warmup=2))
    assert [a.name for a in e.alternatives] == ["sleep 0.01", "sleep 0.012"]
    assert e.baseline == "sleep 0.01"
    assert e.alternatives[1].command.argv == ("sleep", "0.012")
    assert not e.alternatives[1].command.shell
    assert (e.executions, e.warmup_executions, e.order) == (20, 2, "interleaved-random")
    assert e.path == SOURCE and e.factors == ()


def test_the_same_options_give_the_same_text_which_the_file_parser_reads_back():
    spec = QuickSpec(("sleep 0.0{n}", "sleep 0.02"), names=("a", "b"), runs=3,
                     prepare="true", setup="true", cleanup="true",
                     scans=(scan_values("n", "1", "2", None),))
    text = experiment_text(spec)
    assert text == experiment_text(spec)  # what --resume compares
    e = parse_experiment(text, SOURCE)
    assert e.prepare.argv == ("true",) and e.setup[0].argv == ("true",)
    assert e.teardown[0].argv == ("true",)
    assert e.factors == (("n", ("1", "2")),)


def test_scans_of_several_commands_are_factors_the_runner_substitutes():
    e = quick_experiment(QuickSpec(("sleep 0.0{n}", "sleep 0.00{n}"),
                                   scans=(scan_values("n", "1", "3", None),), runs=2))
    assert e.factors == (("n", ("1", "2", "3")),)
    shown = {(t.alternative, t.factors, command_for(e, t).show()) for t in make_plan(e, 1)}
    assert ("sleep 0.0{n}", (("n", "3"),), "sleep 0.03") in shown
    assert ("sleep 0.00{n}", (("n", "1"),), "sleep 0.001") in shown


def test_one_command_with_scans_has_one_alternative_per_level_combination():
    spec = QuickSpec(("sleep 0.0{n}{m}",), scans=(scan_values("n", "1", "2", None),
                                                   list_values("m", "5,7")))
    e = quick_experiment(spec)
    assert [a.name for a in e.alternatives] == ["n=1 m=5", "n=1 m=7", "n=2 m=5", "n=2 m=7"]
    assert e.baseline == "n=1 m=5" and e.factors == ()
    assert e.alternatives[3].command.argv == ("sleep", "0.027")
    named = quick_experiment(QuickSpec(("sleep 0.0{n}",), names=("nap {n}",),
                                       scans=(scan_values("n", "1", "2", None),)))
    assert [a.name for a in named.alternatives] == ["nap 1", "nap 2"]


@pytest.mark.parametrize("low, high, step, values", [
    ("1", "3", None, ("1", "2", "3")),
    ("0", "1", "0.25", ("0.00", "0.25", "0.50", "0.75", "1.00")),
    ("0.1", "0.3", "0.1", ("0.1", "0.2", "0.3")),  # decimal: no 0.30000000000000004
    ("1", "10", "4", ("1", "5", "9")),
    ("5", "5", None, ("5",)),
])
def test_parameter_scan_values(low, high, step, values):
    assert scan_values("x", low, high, step).values == values


@pytest.mark.parametrize("args, fragment", [
    (("x", "3", "1", None), "LOW is above HIGH"),
    (("x", "1", "3", "0"), "--step must be above 0"),
    (("x", "1", "three", None), "HIGH must be a number"),
    (("x", "1", "inf", None), "finite"),
    (("9x", "1", "3", None), "letters, digits"),
    (("build", "1", "3", None), "reserved"),
])
def test_bad_parameter_scans(args, fragment):
    with pytest.raises(UsageError, match=fragment):
        scan_values(*args)


def test_a_list_value_twice_is_refused():
    with pytest.raises(UsageError, match="'a' is listed twice"):
        list_values("x", "a,b,a")


def test_braces_other_than_parameters_are_literal():
    assert template("{n}x", {"n"}, "c") == "{n}x"
    assert template("{n:raw}", {"n"}, "c") == "{n:raw}"
    assert template("{{n}}", {"n"}, "c") == "{{n}}"
    assert template("{print $1}", set(), "c") == "{{print $1}}"
    assert template("{}", set(), "c") == "{{}}"
    e = quick_experiment(QuickSpec(("awk '{print $1}' /dev/null", "find / -maxdepth 0 -exec "
                                    "echo {} ;")))
    plan = make_plan(e, 1)
    shown = {command_for(e, t).show() for t in plan}
    assert "awk '{print $1}' /dev/null" in shown
    assert "find / -maxdepth 0 -exec echo '{}' ';'" in shown


def test_shell_mode_quotes_a_value_as_the_runner_does():
    e = quick_experiment(QuickSpec(("echo {v} | cat",), shell=True,
                                   scans=(list_values("v", "a b,c;d"),)))
    assert [a.command.argv[0] for a in e.alternatives] == ["echo 'a b' | cat",
                                                           "echo 'c;d' | cat"]
    assert all(a.command.shell for a in e.alternatives)


@pytest.mark.parametrize("spec, fragment", [
    (QuickSpec(()), "no command to run"),
    (QuickSpec(("sleep {n}", "true")), r"\{n\} is not a parameter"),
    (QuickSpec(("true", "false"), names=("a",)), "1 --name for 2 commands"),
    (QuickSpec(("true", "true")), "given twice"),
    (QuickSpec(("true", "false"), names=("a", "a")), "given twice"),
    (QuickSpec(("   ", "false")), "is empty"),
    (QuickSpec(("echo 'open", "false")), "cannot split"),
    (QuickSpec(("true", "false"), runs=0), "--runs must be at least 1"),
    (QuickSpec(("true", "false"), warmup=-1), "--warmup must be 0 or more"),
    (QuickSpec(("true", "false"), prepare="touch {n}"), r"--prepare: \{n\}"),
    (QuickSpec(("true", "false"), min_time=1.0, order="sequential"), "interleaved"),
    (QuickSpec(("no-such-program-xyz", "true")), "command not found"),
    (QuickSpec(("true", "false"), scans=(list_values("n", "1,2"),)),
     r"no command uses the parameter \{n\}"),
    (QuickSpec(("true {n}", "false"), scans=(list_values("n", "1"), list_values("n", "2"))),
     "defined twice"),
])
def test_bad_options_are_one_line_usage_errors(spec, fragment):
    with pytest.raises(UsageError, match=fragment) as caught:
        quick_experiment(spec)
    assert "\n" not in str(caught.value) and "<command line>" not in str(caught.value)


def test_min_time_stops_on_time_with_many_rounds_planned():
    e = quick_experiment(QuickSpec(("true", "false"), min_time=2.5))
    assert e.stop is not None and e.stop.max_time == 2.5 and e.stop.halfwidth is None
    assert e.executions == 1000
    capped = quick_experiment(QuickSpec(("true", "false"), min_time=2.5, runs=50))
    assert capped.executions == 50


def test_control_characters_and_quotes_survive_the_toml_text():
    e = quick_experiment(QuickSpec(('printf "a\\tb\\"c"', "true"), names=('x"\x1b', "y\\")))
    assert [a.name for a in e.alternatives] == ['x"\x1b', "y\\"]
    assert e.alternatives[0].command.argv == ("printf", 'a\\tb"c')
