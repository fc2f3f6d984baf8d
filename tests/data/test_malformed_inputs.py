"""Inputs that used to be accepted silently or refused with a misleading message (issue 15).

Empty hyperfine `times` / pyperf `runs`, a go test file cut mid-line, Google
Benchmark JSON without its context, `{}` / `[]` and other JSON of no known
format, option extremes: each is read right or is
one line naming the file (and line) and the real problem.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.cli.main import main
from benchlab.data import readers
from benchlab.data.source import open_source
from benchlab.errors import InputError

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def _err(argv: list[str], capsys) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    return code, err


def _json(tmp_path: Path, name: str, doc: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_empty_hyperfine_times_is_an_error_not_a_dropped_command(tmp_path, capsys):
    doc = json.loads((FORMATS / "hyperfine.json").read_text())
    doc["results"][0]["times"] = []
    code, err = _err(["summary", _json(tmp_path, "h.json", doc)], capsys)
    assert code == 2 and "results[0]" in err and "empty 'times' list" in err


@pytest.mark.parametrize("runs", ["none", "calibration"])
def test_a_pyperf_benchmark_without_values_is_an_error(tmp_path, capsys, runs):
    doc = json.loads((FORMATS / "pyperf.json").read_text())
    bench = doc["benchmarks"][0]
    bench["runs"] = [] if runs == "none" else [r for r in bench["runs"] if not r.get("values")]
    code, err = _err(["summary", _json(tmp_path, "p.json", doc)], capsys)
    assert code == 2 and "benchmarks[0]" in err and "nothing was measured" in err


def _go_cut(tmp_path: Path, drop: int) -> str:
    text = (FORMATS / "gotest.txt").read_text()
    last = text.rindex("\nBenchmark") + 1
    end = text.index("\n", last)
    path = tmp_path / "cut.txt"
    path.write_text(text[: end - drop])
    return str(path)


@pytest.mark.parametrize("drop", [1, 3, 12, 30, 45])
def test_a_go_file_cut_mid_line_names_the_line(tmp_path, capsys, drop):
    path = _go_cut(tmp_path, drop)
    line = Path(path).read_text().count("\n") + 1
    code, err = _err(["summary", path], capsys)
    assert code == 2, err
    assert err.startswith(f"benchlab: {path}:{line}: ") and "cut short" in err


def test_a_whole_last_go_line_without_a_line_end_is_read(tmp_path, capsys):
    path = _go_cut(tmp_path, 0)
    code, err = _err(["summary", path], capsys)
    assert code == 0 and err == ""


def test_google_benchmark_json_without_context_is_read(tmp_path):
    doc = json.loads((FORMATS / "gbench.json").read_text())
    whole = readers.read(str(FORMATS / "gbench.json"))
    doc.pop("context")
    path = _json(tmp_path, "g.json", doc)
    assert readers.reader_for(open_source(path)).NAME == "gbench"
    cut = readers.read(path)
    assert list(cut.values) == list(whole.values)


@pytest.mark.parametrize("text,expected", [
    ("{}", "an empty JSON object"),
    ("[]\n", "an empty JSON array"),
    ('{"a": 1, "b": [1, 2]}', "no known benchmark format (an object with keys 'a', 'b')"),
    ('[{"x": 1}]', "no known benchmark format (an array)"),
])
def test_json_of_no_known_format_names_the_formats(tmp_path, capsys, text, expected):
    path = tmp_path / "x.json"
    path.write_text(text)
    code, err = _err(["compare", str(path), str(path)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert expected in err and "hyperfine" in err and "JMH" in err
    assert "is not a number" not in err and "header" not in err


def test_invalid_json_object_gets_the_json_error_with_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a":\n  [1, 2,\n  }\n')
    with pytest.raises(InputError, match=r"x.json:3: invalid JSON"):
        readers.read(str(path))


@pytest.mark.parametrize("name,text,expected", [
    ("g.json", "garbage{\n", "g.json:1: not JSON, though its name ends in .json: Expecting "
                             "value (line 1, column 1)"),
    ("n.JSON", "1\n2\n", "n.JSON:2: not JSON, though its name ends in .json: Extra data "
                         "(line 2, column 1)"),
    ("b.json", "[1, 2\nx\n", "b.json:2: not JSON, though its name ends in .json"),
    ("s.json", "3\n", "s.json: JSON of no known benchmark format; benchlab reads"),
])
def test_a_file_named_json_that_no_reader_knows_is_said_to_be_no_json(tmp_path, capsys, name,
                                                                        text, expected):
    """Not read as plain numbers ("'garbage{' is not a number"): its name says JSON."""
    path = tmp_path / name
    path.write_text(text)
    code, err = _err(["compare", str(path), str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and expected in err, err
    assert "is not a number" not in err


def test_plain_numbers_under_another_name_are_still_read(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text("1\n2\n")
    assert readers.reader_for(open_source(str(path))).NAME == "numbers"


def test_a_table_whose_header_starts_with_a_bracket_is_still_a_table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("[group],value\na,1\na,2\nb,3\nb,4\n")
    assert readers.reader_for(open_source(str(path))).NAME == "table"
