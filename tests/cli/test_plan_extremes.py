"""plan with absurd durations: one-line usage errors, never an overflow traceback (issue 15)."""

from __future__ import annotations

import pytest

from benchlab.cli.main import main

PILOT = "examples/fft/two_systems.csv"
BASE = ["plan", PILOT, "--by", "system", "--levels", "build,run", "--unit", "ms"]


@pytest.mark.parametrize("extra, message", [
    (["--cost", "build=20m", "--cost", "run=6s", "--budget", "1e400h"], "duration too large"),
    (["--cost", "build=1e400s", "--cost", "run=6s", "--budget", "6h"], "duration too large"),
    (["--cost", "build=1e-300s", "--cost", "run=1e-300s", "--cost", "measurement=1e-300s",
      "--budget", "1e14s"], "more than 10^12"),
])
def test_absurd_durations_are_one_line_errors(extra, message, capsys):
    try:
        code = main([*BASE, *extra])
    except SystemExit as stop:  # argparse's own usage error
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
