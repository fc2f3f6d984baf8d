"""Tokens that once ended a command with exit 3 (issue 20, item 4): hex floats that overflow,
JSON integers past Python's 4,300-digit conversion limit, lone UTF-16 surrogates in JSON
strings, CSV fields over the csv module's 131,072 characters, giant tokens (echoed whole,
or read in quadratic time), and file names that are not UTF-8. Each is read or refused
with one InputError naming the file and line; a refused token is shown cut short."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchlab.data import readers
from benchlab.data.readers.numbers import OutOfRange, checked_number, parse_number
from benchlab.data.source import display_name
from benchlab.errors import InputError

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
CRITERION = "criterion/fib 20/new/sample.json"
SORT = ["results", "benchmarks.Sorting.time_sort"]
# A value in each JSON format's measurements, and a string (a name) in each.
NUMBER_AT = {
    "hyperfine.json": ["results", 0, "times", 0],
    "pyperf.json": ["benchmarks", 0, "runs", 1, "values", 0],
    "gbench.json": ["benchmarks", 0, "real_time"],
    "jmh.json": [0, "primaryMetric", "rawData", 0, 0],
    "pytest_benchmark.json": ["benchmarks", 0, "stats", "data", 0],
    CRITERION: ["times", 0],
    "asv.json": [*SORT, 11, 0, 0],
}
NAME_AT = {
    "hyperfine.json": ["results", 0, "command"],
    "pyperf.json": ["benchmarks", 0, "metadata", "name"],
    "gbench.json": ["benchmarks", 0, "name"],
    "jmh.json": [0, "benchmark"],
    "pytest_benchmark.json": ["benchmarks", 0, "name"],
}
SENTINEL = 271828.182845


def _with(fixture: str, path: list, value: object, tmp_path: Path, text: str) -> Path:
    """The fixture with `value` at `path`, then the JSON text of `value` replaced by `text`
    (what json.dumps cannot write: a 5,000-digit integer, a lone surrogate escape)."""
    doc = json.loads((FORMATS / fixture).read_text())
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    out = tmp_path / fixture.replace("/", "_")
    dumped = json.dumps(doc, indent=1)
    assert dumped.count(json.dumps(value)) == 1
    out.write_text(dumped.replace(json.dumps(value), text))
    return out


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and len(text) < 400, text
    return text


def test_hex_floats_that_overflow_read_as_strtod_does_and_are_refused_with_their_line(tmp_path):
    assert parse_number("0x1.8p99999") == math.inf
    assert parse_number("-0x1.8p99999") == -math.inf
    assert parse_number("0x" + "f" * 400) == math.inf
    assert parse_number("0x1p-99999") == 0.0
    with pytest.raises(OutOfRange, match="too large for a double"):
        checked_number("0x1.8p99999", "f", 3)
    with pytest.raises(OutOfRange, match="too small for a double"):
        checked_number("0x1p-99999", "f", 3)
    plain = tmp_path / "hex.txt"
    plain.write_text("1\n2\n0x1.8p99999\n")
    table = tmp_path / "hex.csv"
    table.write_text("name,value\na,1\na,2\nb,-0x1.8p99999\nb,3\n")
    for path, line in ((plain, 3), (table, 4)):
        with pytest.raises(InputError) as caught:
            readers.read(str(path))
        assert _one_line(caught).startswith(f"{path}:{line}: ")
        assert "is too large for a double" in str(caught.value)


@pytest.mark.parametrize("fixture", sorted(NUMBER_AT))
def test_a_json_integer_past_4300_digits_is_refused_in_every_json_reader(fixture, tmp_path):
    path = _with(fixture, NUMBER_AT[fixture], SENTINEL, tmp_path, "9" * 5000)
    with pytest.raises(InputError) as caught:
        readers.read(str(path))
    text = _one_line(caught)
    assert text.startswith(f"{path}:")
    assert "is too large for a double (an integer of 5,000 digits)" in text
    assert "(5,000 characters)" in text  # the token is cut, with its length
    line = int(text.split(":")[1])
    assert "9" * 5000 in path.read_text().splitlines()[line - 1]


def test_a_json_integer_of_400_digits_is_refused_as_not_finite(tmp_path):
    path = _with("hyperfine.json", NUMBER_AT["hyperfine.json"], SENTINEL, tmp_path, "9" * 400)
    with pytest.raises(InputError, match="not a finite number"):
        readers.read(str(path))


@pytest.mark.parametrize("fixture", sorted(NAME_AT))
def test_a_lone_surrogate_in_a_json_name_is_refused(fixture, tmp_path):
    path = _with(fixture, NAME_AT[fixture], "SENTINEL-NAME", tmp_path, '"x\\ud800"')
    with pytest.raises(InputError) as caught:
        readers.read(str(path))
    text = _one_line(caught)
    assert text.startswith(f"{path}:")
    assert "lone UTF-16 surrogate (\\ud800)" in text
    line = int(text.split(":")[1])
    assert "\\ud800" in path.read_text().splitlines()[line - 1]


def test_a_low_surrogate_alone_is_refused_and_a_pair_reads(tmp_path):
    low = _with("hyperfine.json", NAME_AT["hyperfine.json"], "N", tmp_path, '"\\udc00y"')
    with pytest.raises(InputError, match=r"surrogate \(\\udc00\)"):
        readers.read(str(low))
    pair = _with("hyperfine.json", NAME_AT["hyperfine.json"], "N", tmp_path, '"\\ud83d\\ude00"')
    dataset = readers.read(str(pair))
    assert "\U0001f600" in set(dataset.columns[dataset.factors[0]].tolist())


def test_csv_fields_longer_than_the_csv_module_default_are_read(tmp_path):
    name = "n" * 140_000
    header = tmp_path / "header.csv"
    header.write_text(f"{name},value\na,1\na,2\n")
    dataset = readers.read(str(header))
    assert name in dataset.columns
    quoted = tmp_path / "quoted.csv"
    quoted.write_text(f'system,value\n"{name}",1\n"{name}",2\nb,3\nb,4\n')
    dataset = readers.read(str(quoted), by="system")
    assert set(dataset.columns["system"].tolist()) == {name, "b"}


@pytest.mark.parametrize("text", [
    "1\n2\n{token}x\n",  # a plain file: 10^6 digits and a letter
    "name,value\na,1\na,{token}x\n",  # a CSV value column
    "name,value\na,1\n{token},x\n",  # a giant name, then a bad value
])
def test_a_giant_token_is_refused_quickly_and_shown_cut(text, tmp_path):
    path = tmp_path / "giant.csv"
    path.write_text(text.replace("{token}", "1" * 1_000_000))
    with pytest.raises(InputError) as caught:
        readers.read(str(path))
    shown = _one_line(caught)
    assert "is not a number" in shown and shown.startswith(f"{path}:3: ")
    if "(1,000,001 characters)" not in shown:
        assert "'x'" in shown


def test_giant_numbers_are_out_of_range_not_silently_infinite(tmp_path):
    path = tmp_path / "giant.txt"
    path.write_text("1\n2\n" + "1" * 1_000_000 + "\n")
    with pytest.raises(OutOfRange) as caught:
        readers.read(str(path))
    assert "(1,000,000 characters) is too large for a double" in _one_line(caught)


def test_display_name_shows_bytes_that_are_not_utf8_as_escapes(tmp_path):
    assert display_name("plain/é.txt") == "plain/é.txt"
    raw = "bad\udcff.txt"  # how Python holds the file name b"bad\xff.txt"
    assert display_name(raw) == "bad\\xff.txt"
    path = tmp_path / raw
    path.write_text("1\n2\n3\n")
    dataset = readers.read(str(path))
    assert dataset.source == display_name(str(path))
    assert dataset.source.encode("utf-8")  # printable and storable


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_a_byte_order_mark_read_like_utf8(codec, tmp_path):
    text = "system,value\r\na,1.5\r\na,1.6\nb,2.5\rb,2.7\n"
    mark = "" if codec in ("utf-16", "utf-32") else "\ufeff"  # the plain codecs add their own
    wide = tmp_path / "wide.csv"
    wide.write_bytes((mark + text).encode(codec))
    narrow = tmp_path / "narrow.csv"
    narrow.write_text(text, newline="")
    a, b = readers.read(str(wide), by="system"), readers.read(str(narrow), by="system")
    assert a.columns["value"].tolist() == b.columns["value"].tolist() == [1.5, 1.6, 2.5, 2.7]
    assert a.columns["system"].tolist() == b.columns["system"].tolist()


def test_utf16_cut_mid_character_is_refused_with_its_line(tmp_path):
    path = tmp_path / "cut.txt"
    path.write_bytes("1.5\n1.6\n1.7\n".encode("utf-16")[:-1])
    with pytest.raises(InputError) as caught:
        readers.read(str(path))
    assert _one_line(caught) == (f"{path}:3: not UTF-16 text despite its byte-order mark (cut "
                                 "short, or binary content?)")


def test_utf16_on_standard_input_reads(run_cli, monkeypatch):
    import io
    import sys

    data = "1.5\r\n1.6\r\n1.7\r\n".encode("utf-16")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = run_cli("summary", "-", expect=0)
    assert out.startswith("stdin: n = 3, mean 1.60 ")
