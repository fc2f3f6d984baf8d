"""Fixtures shared by the runner's tests: an experiment file parsed from its text."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from benchlab.errors import InputError
from benchlab.runner.config import Experiment, parse_experiment


@pytest.fixture
def experiment_of(tmp_path) -> Callable[[str], Experiment]:
    """Parse an experiment file's text (dedented), written as tmp_path/exp.toml so relative
    paths and error locations are those of a real file."""

    def parse(text: str) -> Experiment:
        path = tmp_path / "exp.toml"
        path.write_text(textwrap.dedent(text))
        return parse_experiment(path.read_text(), str(path))

    return parse


@pytest.fixture
def experiment_error(experiment_of) -> Callable[[str], str]:
    """The one-line error that parsing an experiment file's text raises (InputError)."""

    def error(text: str) -> str:
        with pytest.raises(InputError) as info:
            experiment_of(text)
        return str(info.value)

    return error
