"""The columnar readers: same values, lines and errors as the line-by-line rules, bounded
memory, RFC 4180 quoting, and numbers beyond a double's range refused with their line."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.data import readers
from benchlab.data.readers import numbers as numbers_reader
from benchlab.data.readers import table
from benchlab.data.source import Source, _Lines, open_source
from benchlab.errors import InputError

TOKENS = ["1", "2.5", "-3e2", "+.5", "7.", "1e-3", "0", "00", "-0", "1e-400", "1e400", "3.4.5",
          "-", "e5", "1.5E+3", "0e-999", "123456789012345678", "9" * 45]


def source(text: str) -> Source:
    return Source("f", _Lines(text), text=text)


def outcome(function, *args):
    """(values, lines) as lists, or the error message."""
    try:
        found = function(*args)
    except InputError as exc:
        return str(exc)
    if found is None:
        return None
    return [float(v) for v in found[0]], [int(n) for n in found[1]]


lines_strategy = st.lists(
    st.tuples(st.sampled_from(["", " ", "\t"]),
              st.lists(st.sampled_from(TOKENS), max_size=3),
              st.sampled_from([" ", "\t", " \t "]),
              st.sampled_from(["", " "])),
    max_size=8)


@settings(max_examples=300, deadline=None)
@given(lines_strategy, st.sampled_from(["", "\n"]), st.integers(1, 3),
       st.sampled_from([3, 16, 1 << 22]))
def test_columnar_numbers_agree_with_the_line_by_line_rules(lines, end, column, chunk):
    """Values, line numbers and the first error (in line order) are those of `extract`."""
    text = "\n".join(lead + sep.join(tokens) + trail
                     for lead, tokens, sep, trail in lines) + end
    src = source(text)
    old_chunk = numbers_reader._CHUNK
    numbers_reader._CHUNK = chunk
    try:
        fast = outcome(numbers_reader.columnar_extract, src, column, " \t")
    finally:
        numbers_reader._CHUNK = old_chunk
    slow = outcome(lambda *a: numbers_reader.extract(*a, check_range=True), src, column, " \t")
    if fast is not None:  # None: deferred to the line-by-line path, which is then used
        assert fast == slow


@settings(max_examples=300, deadline=None)
@given(st.lists(st.from_regex(r"[+-]?([0-9]{1,17}(\.[0-9]{0,17})?|\.[0-9]{1,17})",
                              fullmatch=True), min_size=1, max_size=50))
def test_decimal_fast_path_is_correctly_rounded(tokens):
    """Clinger's fast path gives float()'s (strtod's) double, bit for bit, signed zero too."""
    width = max(map(len, tokens))
    matrix = np.zeros((len(tokens), width), dtype=np.uint8)
    for i, token in enumerate(tokens):
        matrix[i, :len(token)] = np.frombuffer(token.encode(), dtype=np.uint8)
    got = numbers_reader.decimal_matrix(np.ascontiguousarray(matrix.T))
    expected = np.array([float(t) for t in tokens])
    assert got.tobytes() == expected.tobytes()


def test_decimal_matrix_refuses_a_token_that_is_not_a_number():
    matrix = np.frombuffer(b"1.5\x00\x001.2.3", dtype=np.uint8).reshape(2, 5)
    with pytest.raises(ValueError):
        numbers_reader.decimal_matrix(np.ascontiguousarray(matrix.T))


@pytest.mark.parametrize(("text", "message"), [
    ("1\n2\n1e-400\n", "f:3: '1e-400' is too small for a double (it would read as 0)"),
    ("1\n-1e400\n", "f:2: '-1e400' is too large for a double (it would read as infinity)"),
    ("1\n0x1p-2000\n", "f:2: '0x1p-2000' is too small for a double (it would read as 0)"),
    ("# x\n1\n1e999 # c\n", "f:3: '1e999' is too large for a double (it would read as infinity)"),
])
def test_numbers_beyond_a_double_are_refused_with_their_line(text, message):
    with pytest.raises(InputError) as error:
        numbers_reader.read(source(text))
    assert str(error.value) == message


def test_true_zeros_and_written_infinity_are_not_range_errors():
    data = numbers_reader.read(source("0\n-0.0\n0e-999\n0.000e5\n"))
    assert data.values.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert np.isinf(numbers_reader.read(source("1\ninf\n")).values[1])


def test_ministat_mode_still_reads_like_strtod():
    """extract() without check_range reads 1e-400 as 0, as FreeBSD's ministat does."""
    values, _ = numbers_reader.extract(source("1\n1e-400\n"))
    assert values == [1.0, 0.0]


def test_plain_file_memory_is_bounded(tmp_path, monkeypatch):
    """Reading 300,000 values holds the text, the arrays and one chunk's temporaries (about
    20 bytes per character of the chunk), not a string per line."""
    monkeypatch.setattr(numbers_reader, "_CHUNK", 1 << 18)
    path = tmp_path / "big.txt"
    values = np.random.default_rng(1).lognormal(size=300_000)
    np.savetxt(path, values, fmt="%.6f")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        data = readers.read(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_allclose(data.values, values, rtol=0, atol=5.1e-7)
    assert data.lines[-1] == 300_000
    # text (bytes and str) + values + lines + chunk temporaries; a str per line alone is 18 MB
    assert peak < 3 * size + 16 * values.size + 20 * (1 << 18) + 2 * 2**20


def test_lazy_lines_match_a_full_split():
    for text in ["", "a", "a\n", "a\nb", "a\n\nb\n", "\n", "\n\n", "x\ny\nz\n\n"]:
        full = text.split("\n")
        if full and full[-1] == "":
            full.pop()
        lines = _Lines(text)
        assert list(iter(_Lines(text))) == full
        assert all(lines[:k] == tuple(full[:k]) for k in range(6))
        assert lines == tuple(full) and len(lines) == len(full)


# --- tables --------------------------------------------------------------------------------

def test_a_quoted_field_may_hold_a_line_end(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('# c\nname,value\n"a\nb",1\nc,2\n"d, e",3\n')
    data = readers.read(str(path), by="name")
    assert data.columns["name"].tolist() == ["a\nb", "c", "d, e"]
    assert data.values.tolist() == [1.0, 2.0, 3.0]
    assert data.lines.tolist() == [3, 5, 6]  # the line each record starts on


@pytest.mark.parametrize(("body", "line"), [
    ('"a,1\nc,2\n', 3), ('"a"x,1\n', 3), ('a,1\n"b,2\n', 4),
])
def test_bad_quoting_is_a_line_numbered_error(tmp_path, body, line):
    path = tmp_path / "q.csv"
    path.write_text("# c\nname,value\n" + body)
    with pytest.raises(InputError, match="malformed CSV quoting") as error:
        readers.read(str(path))
    assert error.value.where == f"{path}:{line}"


def test_table_range_errors_and_field_counts_name_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("g,value\na,1\nb,1e-400\n")
    with pytest.raises(InputError, match="too small for a double") as error:
        readers.read(str(path))
    assert error.value.where == f"{path}:3"
    path.write_text("g,value\na,1\nb,2,3\n")
    with pytest.raises(InputError, match="3 fields where the header has 2") as error:
        readers.read(str(path))
    assert error.value.where == f"{path}:3"


table_rows = st.lists(st.tuples(st.sampled_from(["a", "b", " c", "d ", "é", "", "x y"]),
                                st.sampled_from(["1", "2.5", " -3", "1e3 ", "0", "0x10", "nan",
                                                 "inf", "12345678901234567890"]),
                                st.sampled_from(["r1", "r2", ""])), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(table_rows, st.sampled_from([",", ";", "\t"]), st.sampled_from([7, 32, 1 << 22]))
def test_columnar_table_equals_the_csv_path(rows, delimiter, chunk):
    """Plain bodies split on the bytes give what the csv module gives: columns, lines."""
    text = delimiter.join(["g", "value", "run"]) + "\n" + "".join(
        delimiter.join(row) + "\n" for row in rows)

    def read(columnar: bool):
        saved = table._columnar_body, table._CHUNK
        table._CHUNK = chunk
        if not columnar:
            table._columnar_body = lambda *args: None
        try:
            data = table.read(source(text), by="g")
        finally:
            table._columnar_body, table._CHUNK = saved
        return ({k: [str(x) for x in v.tolist()] for k, v in data.columns.items()},
                data.lines.tolist())

    assert read(True) == read(False)


def test_table_comments_and_blank_lines_between_rows_are_skipped(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("# head\ng,value\na,1\n\n# note\n  # indented note\nb,2\n")
    data = readers.read(str(path), by="g")
    assert data.values.tolist() == [1.0, 2.0] and data.lines.tolist() == [3, 7]


def test_latency_table_memory_is_bounded(tmp_path, monkeypatch):
    """A 200,000-row factorial CSV: arrays, not a Python string per field."""
    monkeypatch.setattr(table, "_CHUNK", 1 << 18)
    rng = np.random.default_rng(2)
    n = 200_000
    codes = rng.integers(0, 2, (n, 4)) * 2 - 1
    path = tmp_path / "latency.csv"
    np.savetxt(path, np.column_stack([codes, rng.integers(0, 50, n), rng.lognormal(size=n)]),
               delimiter=",", header="a,b,c,d,run,y", comments="", fmt=["%d"] * 5 + ["%.6f"])
    size = path.stat().st_size
    tracemalloc.start()
    try:
        data = readers.read(str(path), value="y")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(data) == n and data.columns["a"][0] in ("-1", "1")
    assert peak < 4 * size + 60 * n  # a str per field alone would be about 60 MB


def test_open_source_reads_a_pipe_and_a_file_alike(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("1\n2\n")
    assert open_source(str(path)).lines == ("1", "2")
