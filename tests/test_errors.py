"""Library errors name parameters; the command line names its options (issue 11)."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.cli.main import main
from benchlab.design.factorial import full_factorial, parse_factor
from benchlab.errors import ParameterError
from benchlab.stats.compare import compare_samples


def test_api_errors_say_the_parameter():
    with pytest.raises(ParameterError) as caught:
        compare_samples([("a", np.array([1.0, 2.0, 3.0])), ("b", np.array([1.0, 2.0]))],
                        paired=True)
    assert str(caught.value).startswith("paired needs samples of equal length")
    with pytest.raises(ParameterError, match="^replicates must be 1 or more"):
        full_factorial([parse_factor("a=1,2")], replicates=0)
    with pytest.raises(ParameterError, match=r"^give at least one factor \(factors\)"):
        full_factorial([])


def test_cli_says_the_option(capsys, tmp_path):
    assert main(["design", "--factor", "a=1,2", "--replicates", "0"]) == 2
    assert capsys.readouterr().err.startswith("benchlab: --replicates must be 1 or more")
    assert main(["design"]) == 2
    assert "give at least one factor (--factor)" in capsys.readouterr().err
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1\n2\n3\n")
    b.write_text("1\n2\n")
    assert main(["compare", str(a), str(b), "--paired"]) == 2
    assert "--paired needs samples of equal length" in capsys.readouterr().err


def test_braces_in_data_do_not_break_the_message():
    err = ParameterError("the cell {x}=1 is empty (lower {param})", "interactions")
    assert str(err) == "the cell {x}=1 is empty (lower interactions)"
    err.as_option()
    assert str(err) == "the cell {x}=1 is empty (lower --interactions)"
