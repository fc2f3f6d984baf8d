"""Readers: ministat's rules for plain files, CSV/TSV long format, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchlab.data import readers
from benchlab.data.readers.numbers import InvalidToken, parse_number
from benchlab.data.samples import align_pairs, load_samples
from benchlab.data.source import open_source
from benchlab.errors import InputError, UsageError


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(content)
    else:
        path.write_text(content)
    return str(path)


def test_numbers_rules(tmp_path):
    path = write(tmp_path, "a.txt", "# header comment\n1 2\n\n 3\t4 # x\n5\n#6\n7 #8\n")
    ds = readers.read(path)
    assert ds.values.tolist() == [1.0, 3.0, 5.0, 7.0]
    assert ds.lines.tolist() == [2, 4, 5, 7]
    col2 = readers.read(path, column=2)
    assert col2.values.tolist() == [2.0, 4.0]  # "#8" before column 2 ends line 7


def test_numbers_custom_delimiters(tmp_path):
    path = write(tmp_path, "a.txt", "x,,1.5\ny,2.5,3.5\n")
    assert readers.read(path, format="numbers", column=2, delimiters=",").values.tolist() == [
        1.5, 2.5]


def test_crlf_and_bom_read_correctly(tmp_path):
    path = write(tmp_path, "a.txt", b"\xef\xbb\xbf1.5\r\n2.5\r\n3.5\r\n", mode="wb")
    assert readers.read(path).values.tolist() == [1.5, 2.5, 3.5]


@pytest.mark.parametrize("token,value", [("1e3", 1000.0), ("-.5", -0.5), ("+2.", 2.0),
                                         ("0x10", 16.0), ("0x1p-1", 0.5)])
def test_strtod_syntax(token, value):
    assert parse_number(token) == value


@pytest.mark.parametrize("token", ["1_000", "1.2.3", "abc", "1e", "0x", "--1", "1,5"])
def test_not_numbers(token):
    assert parse_number(token) is None


def test_invalid_token_names_file_and_line(tmp_path):
    path = write(tmp_path, "a.txt", "1\n2\nfast\n")
    with pytest.raises(InvalidToken) as info:
        readers.read(path)
    assert str(info.value) == f"{path}:3: 'fast' is not a number"


@pytest.mark.parametrize("content,message", [
    (b"", "no numbers found"),
    (b"# only a comment\n\n", "no numbers found"),
    (b"\x00\x01\x02binary", "binary content"),
    (b"1\n\xff\xfe2\n", "not UTF-8"),
])
def test_bad_files(tmp_path, content, message):
    path = write(tmp_path, "bad.txt", content, mode="wb")
    with pytest.raises(InputError, match=message):
        readers.read(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_source(str(tmp_path / "nope.txt"))
    with pytest.raises(InputError, match="is a directory"):
        open_source(str(tmp_path))


def test_nan_and_infinity_refused_with_line(tmp_path):
    path = write(tmp_path, "a.txt", "1\n2\nnan\n")
    with pytest.raises(InputError, match=r"a\.txt:3: value nan is not a finite number"):
        load_samples([path, path])
    path = write(tmp_path, "b.txt", "1\ninf\n2\n")
    with pytest.raises(InputError, match=r"b\.txt:2:"):
        load_samples([path])


def test_csv_long_format(tmp_path):
    path = write(tmp_path, "runs.csv", "# comment\nsystem,run,time,unit\nA,1,1.5,s\nB,1,1.2,s\n"
                 "A,2,1.6,s\nB,2,1.1,s\n")
    samples = load_samples([path], by="system", value="time")
    assert [s.name for s in samples] == ["A", "B"]
    assert samples[0].values.tolist() == [1.5, 1.6]
    assert samples[0].dataset.unit.name == "s"
    assert samples[1].dataset.lines.tolist() == [4, 6]


def test_tsv_sniffed_and_value_column_guessed(tmp_path):
    path = write(tmp_path, "runs.tsv", "group\tms\nx\t1\nx\t2\ny\t3\ny\t4\n")
    samples = load_samples([path], by="group")
    assert [s.values.tolist() for s in samples] == [[1.0, 2.0], [3.0, 4.0]]


def test_csv_errors(tmp_path):
    path = write(tmp_path, "runs.csv", "g,v\na,1\na,x\n")
    with pytest.raises(InputError, match=r"runs\.csv:3: 'x' in column 'v' is not a number"):
        load_samples([path], by="g")
    path = write(tmp_path, "short.csv", "g,v\na,1\nb\n")
    with pytest.raises(InputError, match=r"short\.csv:3: 1 fields where the header has 2"):
        load_samples([path], by="g")
    path = write(tmp_path, "ok.csv", "g,v,w\na,1,2\n")
    with pytest.raises(UsageError, match="--value"):
        load_samples([path], by="g")
    with pytest.raises(UsageError, match="no column 'nope'"):
        load_samples([path], by="nope", value="v")


def test_by_on_a_plain_file_is_refused(tmp_path):
    path = write(tmp_path, "plain.txt", "1\n2\n3\n")
    with pytest.raises(UsageError, match="no column 'system' for --by"):
        load_samples([path], by="system")


def test_too_few_values(tmp_path):
    path = write(tmp_path, "one.txt", "5\n")
    with pytest.raises(InputError, match="has 1 value; at least 2"):
        load_samples([path, path])


def test_pairing_by_key(tmp_path):
    path = write(tmp_path, "p.csv", "k,boot,v\nA,1,10\nA,2,11\nA,3,12\nB,3,9\nB,1,8\nB,2,7\n")
    samples = align_pairs(load_samples([path], by="k", value="v"), "boot", 0)
    assert samples[1].values.tolist() == [8.0, 7.0, 9.0]
    bad = write(tmp_path, "q.csv", "k,boot,v\nA,1,10\nA,2,11\nB,1,8\nB,3,7\n")
    with pytest.raises(InputError, match="not have the same keys"):
        align_pairs(load_samples([bad], by="k", value="v"), "boot", 0)
    dup = write(tmp_path, "d.csv", "k,boot,v\nA,1,10\nA,1,11\nB,1,8\nB,2,7\n")
    with pytest.raises(InputError, match="appears twice"):
        align_pairs(load_samples([dup], by="k", value="v"), "boot", 0)


def test_sample_names_are_short_unless_ambiguous(tmp_path):
    (tmp_path / "x").mkdir()
    a = write(tmp_path, "old.txt", "1\n2\n")
    b = write(tmp_path / "x", "old.txt", "1\n2\n")
    c = write(tmp_path, "new.txt", "1\n2\n")
    assert [s.name for s in load_samples([a, c])] == ["old", "new"]
    assert [s.name for s in load_samples([a, b])] == [a, b]
    assert np.array_equal(load_samples([a, c])[0].values, [1.0, 2.0])


def test_table_metric_column_filters_rows(tmp_path):
    path = write(tmp_path, "m.csv", "system,metric,unit,value\n"
                 "a,time,s,1.5\na,rss,MB,300\nb,time,s,1.4\nb,rss,MB,310\n")
    [d] = [s.dataset for s in load_samples([path], metric="time")]
    assert d.values.tolist() == [1.5, 1.4] and d.unit.name == "s" and d.metric == "time"
    assert d.lines.tolist() == [2, 4]
    with pytest.raises(UsageError, match=r"several metrics \(time, rss\); choose one with "
                                         "--metric"):
        load_samples([path])
    with pytest.raises(UsageError, match=r"no rows of metric 'cpu' \(metrics: time, rss\)"):
        load_samples([path], metric="cpu")
    plain = write(tmp_path, "p.csv", "system,value\na,1\nb,2\n")
    with pytest.raises(UsageError, match="--metric time needs a 'metric' column"):
        load_samples([plain], metric="time")


@pytest.mark.parametrize("content,fmt,words", [
    ("1\n2\n3\n", None, "plain file of numbers"),
    ('{"benchmarks": [{"metadata": {"name": "x", "unit": "second"}, "runs": [{"values": '
     '[1.0, 2.0]}]}], "version": "1.0"}', "pyperf",
     r"no metric 'B/op' in the pyperf file \(metrics: time\)"),
])
def test_metric_is_refused_where_it_means_nothing(tmp_path, content, fmt, words):
    from benchlab.errors import BenchlabError

    path = write(tmp_path, "f.txt", content)
    with pytest.raises(BenchlabError, match=words) as info:
        load_samples([path], format=fmt, metric="B/op")
    assert str(info.value).startswith(path)


def test_conversion_factors():
    from benchlab.data.samples import conversion

    assert conversion("ms", "s") == pytest.approx(1e-3)
    assert conversion("s", "ns") == pytest.approx(1e9)
    assert conversion("ops/ms", "ops/s") == pytest.approx(1e3)
    assert conversion("ops/s", "ops/us") == pytest.approx(1e-6)
    assert conversion("B", "B") == 1.0
    for a, b in (("s", "ops/s"), ("B", "s"), ("ops/s", "B/s"), ("ms", None or "MB")):
        assert conversion(a, b) is None


def test_time_units_across_files_are_converted(tmp_path):
    from benchlab.data.samples import unify_units

    a = write(tmp_path, "a.csv", "unit,value\ns,1.5\ns,1.6\n")
    b = write(tmp_path, "b.csv", "unit,value\nms,1400\nms,1450\n")
    samples, unit, note = unify_units(load_samples([a, b]), None, None)
    assert unit.name == "s" and note == "values converted to s (b from ms)"
    assert samples[1].values.tolist() == pytest.approx([1.4, 1.45])
    assert samples[1].dataset.values.tolist() == pytest.approx([1.4, 1.45])
    assert samples[1].dataset.unit.name == "s"
    # --unit converts what a file records (never relabels it): a in s becomes ms
    same, declared, note = unify_units(load_samples([a, b]), "ms", None)
    assert declared.name == "ms" and same[1].values.tolist() == [1400, 1450]
    assert same[0].values.tolist() == pytest.approx([1500, 1600])
    assert note == "values converted to ms (a from s)"
    rate = write(tmp_path, "r.csv", "unit,value\nops/s,10\nops/s,11\n")
    with pytest.raises(InputError, match="units of different kinds: s and ops/s"):
        unify_units(load_samples([a, rate]), None, None)
    bare = write(tmp_path, "n.txt", "1\n2\n")
    with pytest.raises(InputError, match="without a unit cannot be converted"):
        unify_units(load_samples([a, bare]), None, None)


@given(st.lists(st.text(alphabet="0123456789.eE+- ", min_size=0, max_size=8), min_size=1,
                max_size=6))
def test_fast_numeric_column_agrees_with_strtod_rules(tokens):
    """The table reader's vectorized path gives parse_number's values, or defers to it."""
    from benchlab.data.readers.numbers import parse_number
    from benchlab.data.readers.table import plain_decimals

    fast = plain_decimals(tokens)
    slow = [parse_number(t.strip()) for t in tokens]
    if fast is None:  # deferring is only allowed when some token is not a plain number
        assert any(v is None for v in slow)
    else:
        assert all(v is not None for v in slow)
        np.testing.assert_array_equal(fast, np.array(slow, dtype=float))


def test_fast_path_falls_back_for_special_values(tmp_path):
    from benchlab.data.readers.table import plain_decimals

    assert plain_decimals(["1", "inf"]) is None and plain_decimals(["0x1p3"]) is None
    data = tmp_path / "t.csv"
    data.write_text("g,value\na,1.5\na,0x1p3\nb,nan(1)\n")
    ds = readers.read(str(data))
    assert ds.columns["value"][:2].tolist() == [1.5, 8.0] and np.isnan(ds.columns["value"][2])
