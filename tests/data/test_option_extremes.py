"""Option extremes are usage errors naming the option (issue 15), and library warnings
become benchlab's one-line notes instead of source lines on stderr."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from benchlab.cli.main import main
from benchlab.warnings_capture import note_for, noting

ROOT = Path(__file__).resolve().parents[2]
A = str(ROOT / "examples" / "kamp" / "current.txt")
B = str(ROOT / "examples" / "kamp" / "buf_work.txt")
LATENCY = str(ROOT / "examples" / "factorial" / "latency.csv")


def _err(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["compare", A, B, "--bootstrap", "200", "--seed=-1"],
    ["design", "--factor", "a=1,2", "--seed=-1"],
    ["qreg", LATENCY, "--response", "latency", "--factors", "sched,machine", "--seed=-1"],
])
def test_a_negative_seed_is_a_usage_error_naming_the_option(argv, capsys):
    code, err = _err(argv, capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--seed" in err and "0 or more" in err and "latency.csv" not in err


def test_a_seed_that_is_no_number_is_named(capsys):
    code, err = _err(["compare", A, B, "--seed", "x"], capsys)
    assert code == 2 and "--seed" in err and "not a whole number" in err


@pytest.mark.parametrize("value", ["-1", "0", "99"])
def test_a_bootstrap_below_100_is_refused_as_b(value, capsys):
    code, err = _err(["compare", A, B, "--bootstrap", value], capsys)
    assert code == 2 and "unrecognized" not in err
    assert f"--bootstrap needs at least 100 replicates, not {int(value)}" in err


def test_a_bare_bootstrap_before_the_files_still_means_the_default(capsys):
    from benchlab.cli.compare import prepare_argv

    assert prepare_argv(["compare", "--bootstrap", A]) == ["compare", "--bootstrap=10000", A]
    assert prepare_argv(["compare", "--bootstrap", "-5", A]) == ["compare", "--bootstrap", "-5",
                                                                 A]


@pytest.mark.parametrize("command", ["compare", "summary"])
def test_a_column_the_file_lacks_says_how_many_it_has(command, capsys):
    argv = [command, A, B] if command == "compare" else [command, A]
    code, err = _err([*argv, "-C", "999"], capsys)
    assert code == 2 and "-C 999: the file has only 1 column" in err
    assert "no numbers found" not in err


def test_a_column_that_exists_but_holds_no_numbers_keeps_the_readers_message(tmp_path, capsys):
    path = tmp_path / "two.txt"
    path.write_text("a 1\nb 2\nc 3\n")
    code, err = _err(["summary", str(path), "-C", "1"], capsys)
    assert code == 2 and "the file has only" not in err


def test_library_warnings_become_one_line_notes(capsys):
    import numpy as np

    def run(_args) -> int:
        np.square(np.array([1e300]))  # RuntimeWarning: overflow encountered in square
        warnings.warn("old API", DeprecationWarning, stacklevel=1)
        return 0

    assert noting(run)(None) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("benchlab: note: a computation overflowed")
    assert ".py:" not in err and "DeprecationWarning" not in err


def test_warnings_are_dropped_when_the_command_fails(capsys):
    import numpy as np

    from benchlab.errors import InputError

    def run(_args) -> int:
        np.square(np.array([1e300]))
        raise InputError("bad", "f.txt")

    with pytest.raises(InputError):
        noting(run)(None)
    assert capsys.readouterr().err == ""


def test_meaningless_warnings_are_silenced_and_unknown_ones_named():
    assert note_for("Precision loss occurred in moment calculation due to catastrophic "
                    "cancellation.", RuntimeWarning, "/x/scipy/stats/_stats_py.py") is None
    note = note_for("Maximum number of iterations reached\nmore", UserWarning,
                    "/x/site-packages/statsmodels/regression/quantile_regression.py")
    assert note == "statsmodels UserWarning: Maximum number of iterations reached"


def test_degenerate_anova_prints_a_note_not_source_lines(tmp_path, capsys):
    path = tmp_path / "flat.csv"
    path.write_text("a,b,y\n" + "1,1,5\n1,2,5\n2,1,5\n2,2,5\n" * 2)
    code, err = _err(["anova", str(path), "--response", "y", "--factors", "a,b"], capsys)
    assert "Warning" not in err and "linear_model.py" not in err
    assert all(line.startswith("benchlab:") for line in err.splitlines())
    assert code in (0, 2)
