"""`benchlab plan --power`: the design from --reps or the plan's optimum, the JSON document,
the figure, and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest

from benchlab.cli.main import main

PILOT = "tests/fixtures/hierarchy/balanced_3level.csv"
BASE = ["plan", PILOT, "--levels", "build,run", "--power", "--simulations", "400"]
REPS = ["--reps", "build=10,run=10,measurement=100"]
COSTS = ["--cost", "build=20m", "--cost", "run=4.75s", "--cost", "measurement=0.25s"]


def _run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own usage error
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_text_names_the_design_the_model_and_every_effect(capsys):
    code, out, err = _run([*BASE, *REPS, "--effect", "0", "--effect", "3%", "--effect=-5%",
                           "--seed", "1"], capsys)
    assert code == 0, err
    assert "power of 10 build × 10 run × 100 measurement per system (as given)" in out
    assert "relative SD build 5.31%, run 7.62%, measurement 4.70%" in out
    assert "400 experiments per effect, seed 1" in out
    rows = [line.split() for line in out.splitlines() if line.strip().startswith(("0%", "+", "-"))]
    assert [r[0] for r in rows] == ["0%", "+3%", "-5%"]
    assert rows[0][1] == "—"  # no power at effect 0: its changes are false alarms


def test_json_has_one_entry_per_effect_with_the_documented_keys(capsys):
    code, out, _ = _run([*BASE, *REPS, "--effect", "0,3%", "--seed", "5", "--threshold", "1%",
                         "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["command"] == "plan" and doc["seed"] == 5
    group = doc["power"][0]
    assert group["design"]["repetitions"] == {"build": 10, "run": 10, "measurement": 100}
    assert group["design"]["from"] == "reps"
    assert group["simulations"] == 400 and group["seed"] == 5 and group["threshold"] == 0.01
    zero, three = group["effects"]
    assert zero["effect"] == 0 and zero["power"] is None
    assert three["effect"] == 0.03 and 0 <= three["power"] <= 1
    for e in group["effects"]:
        assert set(e) >= {"effect", "power", "false_alarm", "coverage", "verdicts"}
        assert sum(e["verdicts"].values()) == pytest.approx(1.0)
    assert zero["false_alarm"] == zero["verdicts"]["change"]


def test_the_same_seed_gives_the_same_document(capsys):
    argv = [*BASE, *REPS, "--effect", "2%", "--seed", "9", "--json"]
    (code1, first, _), (code2, again, _) = _run(argv, capsys), _run(argv, capsys)
    assert code1 == code2 == 0
    assert json.loads(first)["power"] == json.loads(again)["power"]


def test_without_reps_the_design_is_the_plans_optimum(capsys):
    code, out, _ = _run([*BASE, *COSTS, "--budget", "6h", "--effect", "5%", "--seed", "1",
                         "--json"], capsys)
    assert code == 0
    design = json.loads(out)["power"][0]["design"]
    assert design["from"] == "budget"
    assert design["repetitions"] == {"build": 16, "run": 23, "measurement": 3}  # docs/plan.md
    assert design["total_cost"] == pytest.approx(16 * 1326.5)
    code, plan_out, _ = _run(["plan", PILOT, "--levels", "build,run", *COSTS, "--budget", "6h",
                              "--json"], capsys)
    assert code == 0
    optimal = json.loads(plan_out)["groups"][0]["optimal"]["repetitions"]
    assert optimal == design["repetitions"]


def test_groups_get_their_own_analysis(capsys):
    code, out, _ = _run(["plan", "examples/fft/two_systems.csv", "--by", "system", "--levels",
                         "build,run", "--power", "--simulations", "200", *REPS, "--effect",
                         "3%", "--seed", "2", "--json"], capsys)
    assert code == 0
    names = [g["name"] for g in json.loads(out)["power"]]
    assert names == ["old", "new"]


def test_plot_draws_power_against_budget(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "power.png"
    code, _, err = _run([*BASE, *COSTS, "--budget", "6h", "--effect", "0,5%", "--seed", "1",
                         "--plot", str(figure)], capsys)
    assert code == 0, err
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_csv_rows(capsys):
    code, out, _ = _run([*BASE, *REPS, "--effect", "3%", "--seed", "1", "--format", "csv"],
                        capsys)
    assert code == 0
    header, *rows = out.strip().splitlines()
    columns = header.split(",")
    assert columns[:4] == ["table", "group", "statistic", "estimate"]  # the shared order
    assert {"effect", "mc_error", "design", "simulations", "seed"} <= set(columns)
    assert len(rows) == 6  # power, false_alarm, change, equivalent, inconclusive, coverage


@pytest.mark.parametrize("extra, message", [
    (["--effect=-100%", *REPS], "--effect must be above -100%"),
    (["--effect=-1.5", *REPS], "--effect must be above -100%"),
    (["--effect", "3x", *REPS], "not an effect: '3x'"),
    (["--reps", "build=10,run=0,measurement=100", "--effect", "3%"],
     "--reps run=0: every level needs at least 1 repetition"),
    (["--reps", "build=1,run=5,measurement=100", "--effect", "3%"],
     "at least 2 build units"),
    (["--reps", "build=10,run=5", "--effect", "3%"], "--reps is missing level 'measurement'"),
    (["--reps", "build=10,exec=5,measurement=3", "--effect", "3%"], "--reps names no level"),
    (["--reps", "build=ten,run=5,measurement=3", "--effect", "3%"], "--reps wants LEVEL=N"),
    ([*REPS], "--power needs at least one --effect"),
    (["--effect", "3%"], "--power needs the design"),
    ([*REPS, "--budget", "6h", "--effect", "3%"], "--reps and --budget/--target both"),
    ([*REPS, "--effect", "3%", "--simulations", "3"], "--simulations must be between"),
])
def test_bad_input_is_a_one_line_error(extra, message, capsys):
    code, out, err = _run([*BASE, *extra], capsys)
    assert code == 2
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err and out == ""


def test_power_options_without_power_are_refused(capsys):
    code, _, err = _run(["plan", PILOT, "--levels", "build,run", *COSTS, "--budget", "6h",
                         "--effect", "3%"], capsys)
    assert code == 2 and "--effect applies only with --power" in err


def test_plan_without_power_still_needs_a_budget_or_target(capsys):
    code, _, err = _run(["plan", PILOT, "--levels", "build,run", *COSTS], capsys)
    assert code == 2
    assert err == ("benchlab: one of the arguments --budget --target is required (see "
                   "benchlab plan --help)\n")


def test_a_pilot_with_one_top_level_unit_is_refused(tmp_path, capsys):
    pilot = tmp_path / "one_build.csv"
    pilot.write_text("build,run,value\n" + "".join(
        f"1,{r},{100 + r + i}\n" for r in range(3) for i in range(4)))
    code, _, err = _run(["plan", str(pilot), "--levels", "build,run", "--power", *REPS,
                         "--effect", "3%"], capsys)
    assert code == 2
    assert "the top level) has a single unit" in err and err.count("\n") == 1
