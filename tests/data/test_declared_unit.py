"""--unit converts a unit the file records, or refuses; it never relabels (issue 12)."""

from __future__ import annotations

import json

import pytest

from benchlab.cli.main import main

GOTEST = "tests/fixtures/formats/gotest.txt"


def _summary(capsys, *extra):
    code = main(["summary", GOTEST, "--json", *extra])
    captured = capsys.readouterr()
    return code, captured


def test_recorded_ns_read_as_seconds_is_converted(capsys):
    code, plain = _summary(capsys)
    assert code == 0
    code, seconds = _summary(capsys, "--unit", "s")
    assert code == 0
    before, after = json.loads(plain.out), json.loads(seconds.out)
    assert before["unit"] == "ns" and after["unit"] == "s"
    for a, b in zip(before["groups"], after["groups"], strict=True):
        assert b["mean"] == pytest.approx(a["mean"] * 1e-9, rel=1e-12)
    assert any("values converted to s" in n for n in after["notes"])


def test_a_unit_of_another_kind_is_refused(capsys):
    code, captured = _summary(capsys, "--unit", "MB/s")
    assert code == 2 and captured.out == ""
    assert "records its values in ns; --unit MB/s cannot relabel them" in captured.err
    assert captured.err.count("\n") == 1


def test_plain_numbers_take_the_declared_unit(tmp_path, capsys):
    path = tmp_path / "x.txt"
    path.write_text("1\n2\n3\n")
    assert main(["summary", str(path), "--unit", "ms", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["unit"] == "ms" and doc["groups"][0]["mean"] == 2.0 and doc["notes"] == []
