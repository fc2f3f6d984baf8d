"""The fuzz corpus of issue 15: malformed inputs x every reading command, TOML mutations,
option extremes; and (issue 19) valid inputs at large and extreme sizes and magnitudes.
Deterministic: the same cases, in the same order, on every machine.

A case is an id, the files it needs (name → bytes, written to a fresh directory)
and the argv of one `benchlab` invocation, in which "{dir}" stands for that
directory. `harness.run_case` runs it in-process and checks the contract: exit
code 0 or 2 (1 only with --fail-on), stderr one `benchlab:` line on exit 2, no
traceback, no exception escaping main().
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests" / "fixtures" / "formats"
EXPERIMENTS = ROOT / "examples" / "experiments"
STORE = EXPERIMENTS / "loop.db"
SEED = 15


@dataclass(frozen=True)
class Case:
    """One invocation: `argv` with "{dir}" for the directory holding `files`."""

    id: str
    argv: tuple[str, ...]
    files: dict[str, bytes] = field(default_factory=dict, hash=False, compare=False)
    exits: tuple[int, ...] = (0, 2)
    ministat: bool = False  # ministat mode: its error lines are ministat's, word for word
    # Files that are not bytes (issue 20): name -> "fifo", "socket", "dir" or "link:TARGET"
    # (a symbolic link, e.g. to /dev/zero), made by the harness beside `files`.
    specials: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    stdin: bytes = b""  # what standard input holds ("-" reads it)


# -- malformed files ----------------------------------------------------------------
PLAIN = b"1.5\n1.7\n1.6\n1.8\n1.55\n1.65\n"
TABLE = (b"system,run,value\n" + b"".join(f"{s},{r},{v}\n".encode() for s, r, v in (
    ("a", 1, 1.5), ("a", 1, 1.6), ("a", 2, 1.7), ("a", 2, 1.8),
    ("b", 1, 2.5), ("b", 1, 2.6), ("b", 2, 2.7), ("b", 2, 2.9))))


def _fixture(name: str) -> bytes:
    return (FORMATS / name).read_bytes()


def _json(doc: object) -> bytes:
    return json.dumps(doc).encode()


def _mutate_json(name: str, mutate: Callable[[dict | list], object]) -> bytes:
    doc = json.loads(_fixture(name))
    result = mutate(doc)
    return _json(doc if result is None else result)


def _set(path: list, value: object) -> Callable[[object], None]:
    def apply(doc: object) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]  # type: ignore[index]
        target[path[-1]] = value  # type: ignore[index]
    return apply


def _pop(path: list) -> Callable[[object], None]:
    def apply(doc: object) -> None:
        target = doc
        for key in path[:-1]:
            target = target[key]  # type: ignore[index]
        target.pop(path[-1])  # type: ignore[union-attr]
    return apply


def _base_files() -> dict[str, bytes]:
    """Valid inputs of every format (the corpus also checks that they stay readable)."""
    files = {"plain.txt": PLAIN, "table.csv": TABLE}
    for name in ("hyperfine.json", "pyperf.json", "gbench.json", "jmh.json", "gotest.txt"):
        files[name] = _fixture(name)
    return files


def _crafted() -> dict[str, bytes]:
    """Hand-made malformed files: every kind the issue lists, and their neighbours."""
    big = "\n".join(["1.0"] * 3)
    out: dict[str, bytes] = {
        "empty.txt": b"", "blank.txt": b"\n \n\t\n", "bom.txt": b"\xef\xbb\xbf" + PLAIN,
        "bom_only.txt": b"\xef\xbb\xbf", "crlf.txt": PLAIN.replace(b"\n", b"\r\n"),
        "cr.txt": PLAIN.replace(b"\n", b"\r"), "nul.txt": b"1.5\n\x00\x01\x02\n1.6\n",
        "latin1.txt": b"1.5\n1.6 \xe9t\xe9\n", "one.txt": b"1.5\n",
        "equal.txt": b"5\n5\n5\n5\n", "two.txt": b"1\n2\n",
        "huge.txt": b"1e308\n1.7e308\n1.79e308\n1.5e308\n",
        "overflow.txt": b"1.5\n1e309\n1.6\n", "neg_overflow.txt": b"1.5\n-1e400\n1.6\n",
        "tiny.txt": b"1e-300\n2e-300\n1.5e-300\n", "subnormal.txt": b"5e-324\n1e-320\n3e-322\n",
        "underflow.txt": b"1e-400\n2e-400\n1.5\n", "nan.txt": b"1.5\nnan\n1.6\n",
        "NaN_word.txt": b"1.5\nNaN\n1.6\n", "inf.txt": b"1.5\ninf\n1.6\n",
        "neg_inf.txt": b"1.5\n-Infinity\n1.6\n", "zeros.txt": b"0\n0\n0\n0\n",
        "negative.txt": b"-1\n-2\n-3\n-1.5\n", "mixed_sign.txt": b"-1\n1\n-2\n2\n",
        "long_token.txt": b"1" * 5000 + b"\n1.5\n1.6\n", "long_line.txt": b"1.5 " * 20000 + b"\n",
        "many_columns.txt": b"\n".join(b" ".join(b"%d" % (i + j) for j in range(300))
                                       for i in range(5)) + b"\n",
        "words.txt": b"hello\nworld\n", "comment_only.txt": b"# nothing\n# here\n",
        "hex.txt": b"0x10\n0x20\n", "underscore.txt": b"1_000\n2_000\n",
        "spaces.txt": b"   1.5   \n\t1.6\t\n", "plus.txt": b"+1.5\n+1.6\n+1.7\n",
        "binary.bin": bytes(random.Random(SEED).randrange(256) for _ in range(2048)),
        "sqlite_header_only.db": b"SQLite format 3\x00",
        "not_utf8_csv.csv": b"a,value\nx,1\n\xff\xfe,2\n",
        "csv_header_only.csv": b"system,value\n",
        "csv_ragged.csv": b"system,value\na,1\nb,2,3\na\n",
        "csv_text_value.csv": b"system,value\na,1\na,abc\nb,2\nb,3\n",
        "csv_empty_value.csv": b"system,value\na,1\na,\nb,2\nb,3\n",
        "csv_dup_header.csv": b"value,value\n1,2\n3,4\n",
        "csv_quoted_newline.csv": b'system,value\n"a\nb",1\na,2\nb,3\nb,4\n',
        "csv_unclosed_quote.csv": b'system,value\n"a,1\na,2\n',
        "csv_bom.csv": b"\xef\xbb\xbf" + TABLE, "csv_semicolon.csv": TABLE.replace(b",", b";"),
        "csv_nan.csv": b"system,value\na,1\na,nan\nb,2\nb,3\n",
        "csv_inf.csv": b"system,value\na,1\na,1e999\nb,2\nb,3\n",
        "csv_1e400.csv": b"system,value\na,1e-400\na,1\nb,2\nb,3\n",
        "csv_one_row.csv": b"system,value\na,1\n", "csv_one_column.csv": b"value\n1\n2\n3\n",
        "tsv_mixed.tsv": b"system\tvalue\na,1\t2\n",
        "json_empty_object.json": b"{}", "json_empty_array.json": b"[]",
        "json_null.json": b"null", "json_number.json": b"42", "json_string.json": b'"x"',
        "json_true.json": b"true", "json_unknown.json": b'{"a": 1, "b": [1, 2]}',
        "json_array_of_numbers.json": b"[1, 2, 3]",
        "json_deep_array.json": b"[" * 50000 + b"]" * 50000,
        "json_deep_object.json": b'{"a":' * 20000 + b"1" + b"}" * 20000,
        "json_deep_results.json": b'{"results": [' + b"[" * 30000 + b"]" * 30000 + b"]}",
        "json_trailing_comma.json": b'{"results": [{"command": "x", "times": [1,2,],}]}',
        "json_bom.json": b"\xef\xbb\xbf" + _fixture("hyperfine.json"),
        "json_nan_literal.json": b'{"results": [{"command": "x", "times": [NaN, 1]}]}',
        "json_inf_literal.json": b'{"results": [{"command": "x", "times": [Infinity, 1]}]}',
        "json_big_int.json": b'{"results": [{"command": "x", "times": [' + b"9" * 400
                              + b", 1]}]}",
        "pytest_benchmark.json": _json({
            "machine_info": {"node": "x"}, "commit_info": {"id": "abc"},
            "benchmarks": [{"group": None, "name": "test_a", "fullname": "t.py::test_a",
                            "stats": {"min": 1.0, "max": 2.0, "mean": 1.5, "rounds": 2}}],
            "datetime": "2024-01-01T00:00:00", "version": "4.0.0"}),
        "hyperfine_empty_times.json": _mutate_json("hyperfine.json",
                                                   _set(["results", 0, "times"], [])),
        "hyperfine_times_text.json": _mutate_json("hyperfine.json",
                                                  _set(["results", 0, "times"], ["a", "b"])),
        "hyperfine_times_object.json": _mutate_json("hyperfine.json",
                                                    _set(["results", 0, "times"], {"a": 1})),
        "hyperfine_command_number.json": _mutate_json("hyperfine.json",
                                                      _set(["results", 0, "command"], 5)),
        "hyperfine_results_object.json": _mutate_json("hyperfine.json", _set(["results"], {})),
        "hyperfine_results_empty.json": _mutate_json("hyperfine.json", _set(["results"], [])),
        "hyperfine_no_times.json": _mutate_json("hyperfine.json", _pop(["results", 0, "times"])),
        "hyperfine_huge.json": _mutate_json("hyperfine.json",
                                            _set(["results", 0, "times"], [1e308, 1.7e308])),
        "hyperfine_negative.json": _mutate_json("hyperfine.json",
                                                _set(["results", 0, "times"], [-1, -2, -3])),
        "hyperfine_params_list.json": _mutate_json("hyperfine.json",
                                                   _set(["results", 0, "parameters"], [1])),
        "pyperf_empty_runs.json": _mutate_json("pyperf.json", _set(["benchmarks", 0, "runs"], [])),
        "pyperf_runs_text.json": _mutate_json("pyperf.json", _set(["benchmarks", 0, "runs"], "x")),
        "pyperf_values_text.json": _mutate_json(
            "pyperf.json", _set(["benchmarks", 0, "runs", 1, "values"], ["x"])),
        "pyperf_version.json": _mutate_json("pyperf.json", _set(["version"], "9.9")),
        "pyperf_no_version.json": _mutate_json("pyperf.json", _pop(["version"])),
        "pyperf_benchmarks_object.json": _mutate_json("pyperf.json", _set(["benchmarks"], {})),
        "pyperf_unit.json": _mutate_json("pyperf.json", _set(["metadata", "unit"], "parsec")),
        "pyperf_metadata_list.json": _mutate_json("pyperf.json", _set(["metadata"], [])),
        "gbench_no_context.json": _mutate_json("gbench.json", _pop(["context"])),
        "gbench_context_list.json": _mutate_json("gbench.json", _set(["context"], [])),
        "gbench_schema.json": _mutate_json("gbench.json",
                                           _set(["context", "json_schema_version"], 99)),
        "gbench_benchmarks_empty.json": _mutate_json("gbench.json", _set(["benchmarks"], [])),
        "gbench_benchmarks_object.json": _mutate_json("gbench.json", _set(["benchmarks"], {})),
        "gbench_time_text.json": _mutate_json("gbench.json",
                                              _set(["benchmarks", 0, "real_time"], "fast")),
        "gbench_time_unit.json": _mutate_json("gbench.json",
                                              _set(["benchmarks", 0, "time_unit"], "fortnight")),
        "gbench_threads_text.json": _mutate_json("gbench.json",
                                                 _set(["benchmarks", 0, "threads"], "x")),
        "jmh_not_list.json": _mutate_json("jmh.json", lambda d: {"results": d}),
        "jmh_empty_raw.json": _mutate_json("jmh.json",
                                           _set([0, "primaryMetric", "rawData"], [])),
        "jmh_raw_text.json": _mutate_json("jmh.json",
                                          _set([0, "primaryMetric", "rawData"], [["x"]])),
        "jmh_raw_flat.json": _mutate_json("jmh.json",
                                          _set([0, "primaryMetric", "rawData"], [1, 2])),
        "jmh_unit.json": _mutate_json("jmh.json",
                                      _set([0, "primaryMetric", "scoreUnit"], "furlongs")),
        "jmh_no_primary.json": _mutate_json("jmh.json", _pop([0, "primaryMetric"])),
        "jmh_mode_number.json": _mutate_json("jmh.json", _set([0, "mode"], 3)),
        "gotest_bad_count.txt": b"goos: linux\nBenchmarkA-8   abc   12 ns/op\n",
        "gotest_no_unit.txt": b"goos: linux\nBenchmarkA-8   10   12\n",
        "gotest_nan.txt": b"goos: linux\nBenchmarkA-8   10   NaN ns/op\nBenchmarkA-8 10 1 ns/op\n",
        "gotest_inf.txt": b"BenchmarkA-8   10   1e999 ns/op\nBenchmarkA-8   10   2 ns/op\n",
        "gotest_name_only.txt": b"goos: linux\nBenchmarkA",
        "gotest_huge_iter.txt": b"BenchmarkA-8   " + b"9" * 400 + b"   1 ns/op\n"
                                b"BenchmarkA-8   10   2 ns/op\n",
        "gotest_mixed_units.txt": b"BenchmarkA-8 10 1 ns/op\nBenchmarkA-8 10 2 MB/s\n",
        "stdin_like_dash.txt": big.encode(),
        **_ci_formats(),
    }
    return out


def _ci_formats() -> dict[str, bytes]:
    """pytest-benchmark, Criterion.rs and asv files (issue 14): valid, cut, and malformed."""
    sort = ["results", "benchmarks.Sorting.time_sort"]
    criterion = "criterion/fib 20/new/sample.json"
    return {
        "pytest_benchmark_data.json": _fixture("pytest_benchmark.json"),
        "pytest_benchmark_cut50.json": _fixture("pytest_benchmark.json")[:2000],
        "pytest_benchmark_empty_data.json": _mutate_json(
            "pytest_benchmark.json", _set(["benchmarks", 0, "stats", "data"], [])),
        "pytest_benchmark_data_text.json": _mutate_json(
            "pytest_benchmark.json", _set(["benchmarks", 0, "stats", "data"], ["x", 1])),
        "pytest_benchmark_no_stats.json": _mutate_json(
            "pytest_benchmark.json", _pop(["benchmarks", 1, "stats"])),
        "pytest_benchmark_stats_list.json": _mutate_json(
            "pytest_benchmark.json", _set(["benchmarks", 0, "stats"], [1.0])),
        "criterion_sample.json": _fixture(criterion),
        "criterion_cut50.json": _fixture(criterion)[:300],
        "criterion_iters_zero.json": _mutate_json(criterion, _set(["iters", 3], 0)),
        "criterion_empty.json": _json({"sampling_mode": "Linear", "iters": [], "times": []}),
        "criterion_mismatch.json": _mutate_json(criterion, _set(["times"], [1.0, 2.0])),
        "criterion_times_text.json": _mutate_json(criterion, _set(["times", 0], "12ns")),
        "criterion_no_times.json": _mutate_json(criterion, _pop(["times"])),
        "criterion_iters_object.json": _mutate_json(criterion, _set(["iters"], {"a": 1})),
        "asv_samples.json": _fixture("asv.json"),
        "asv_cut50.json": _fixture("asv.json")[:1500],
        "asv_no_samples.json": _fixture("asv_nosamples.json"),
        "asv_version1.json": _mutate_json("asv.json", _set(["version"], 1)),
        "asv_results_list.json": _mutate_json("asv.json", _set(["results"], [])),
        "asv_samples_text.json": _mutate_json("asv.json", _set([*sort, 11, 0], "x")),
        "asv_samples_empty.json": _mutate_json("asv.json", _set([*sort, 11, 0], [])),
        "asv_params_mismatch.json": _mutate_json("asv.json", _set([*sort, 1], [["'numpy'"]])),
        "asv_params_text.json": _mutate_json("asv.json", _set([*sort, 1], "p")),
    }


def _truncations(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every valid file cut at several points (mid-token, mid-line, mid-document)."""
    out: dict[str, bytes] = {}
    for name, data in files.items():
        stem, _, ext = name.rpartition(".")
        for fraction in (0.05, 0.2, 0.37, 0.5, 0.63, 0.8, 0.97):
            cut = max(1, int(len(data) * fraction))
            out[f"{stem}_cut{int(fraction * 100)}.{ext}"] = data[:cut]
        out[f"{stem}_cut_last1.{ext}"] = data[:-1]
        out[f"{stem}_cut_last2.{ext}"] = data[:-2]
    return out


def _byte_flips(files: dict[str, bytes], per_file: int) -> dict[str, bytes]:
    """Each valid file with bytes replaced by random ones (deterministic)."""
    rng = random.Random(SEED)
    out: dict[str, bytes] = {}
    for name, data in files.items():
        stem, _, ext = name.rpartition(".")
        for k in range(per_file):
            raw = bytearray(data)
            for _ in range(1 + k % 4):
                raw[rng.randrange(len(raw))] = rng.choice(b'{}[]",:0123456789.e-+ \nxa\x00\xff')
            out[f"{stem}_flip{k}.{ext}"] = bytes(raw)
    return out


def _token_swaps(files: dict[str, bytes]) -> dict[str, bytes]:
    """Numbers in valid files replaced by extreme or non-numeric tokens."""
    import re

    tokens = [b"1e308", b"1.7976931348623157e308", b"1e-320", b"0", b"-1", b"NaN",
              b"Infinity", b'"x"', b"null", b"1e999", b"-0"]
    out: dict[str, bytes] = {}
    number = re.compile(rb"(?<![\w.])\d+\.\d+(?![\w.])")
    for name, data in files.items():
        stem, _, ext = name.rpartition(".")
        for k, token in enumerate(tokens):
            out[f"{stem}_tok{k}.{ext}"] = number.sub(token, data, count=3)
    return out


# -- stores -------------------------------------------------------------------------
STORE_EDITS = {
    "value_text": "UPDATE measurements SET value = 'abc' WHERE rowid IN "
                  "(SELECT rowid FROM measurements WHERE warmup = 0 LIMIT 3)",
    "value_blob": "UPDATE measurements SET value = x'00ff' WHERE warmup = 0",
    "value_huge": "UPDATE measurements SET value = 1.7e308 WHERE warmup = 0",
    "value_inf": "UPDATE measurements SET value = 9e999 WHERE rowid = "
                 "(SELECT rowid FROM measurements WHERE warmup = 0 LIMIT 1)",
    "value_zero": "UPDATE measurements SET value = 0",
    "meta_factors": "UPDATE benchlab_meta SET value = '{bad' WHERE key = 'factors'",
    "meta_factors_type": "UPDATE benchlab_meta SET value = '[1, 2]' WHERE key = 'factors'",
    "meta_metrics": "UPDATE benchlab_meta SET value = 'x' WHERE key = 'metrics'",
    "meta_metrics_empty": "UPDATE benchlab_meta SET value = '[]' WHERE key = 'metrics'",
    "meta_alternatives": "UPDATE benchlab_meta SET value = '5' WHERE key = 'alternatives'",
    "meta_levels": "UPDATE benchlab_meta SET value = '[' WHERE key = 'factor_levels'",
    "meta_schema": "UPDATE benchlab_meta SET value = 'two' WHERE key = 'schema_version'",
    "meta_schema_new": "UPDATE benchlab_meta SET value = '99' WHERE key = 'schema_version'",
    "meta_format": "DELETE FROM benchlab_meta WHERE key = 'format'",
    "meta_int_value": "UPDATE benchlab_meta SET value = 5 WHERE key = 'name'",
    "trial_factors": "UPDATE trials SET factors = 'nope'",
    "trial_factors_type": "UPDATE trials SET factors = '{\"n\": [1]}'",
    "trial_build_text": "UPDATE trials SET build = 'x'",
    "trial_alternative_null": "UPDATE trials SET alternative = 5",
    "environment": "UPDATE sessions SET environment = '[1,'",
    "environment_type": "UPDATE sessions SET environment = '[]'",
    "no_measurements": "DELETE FROM measurements",
    "no_trials_ok": "UPDATE trials SET status = 'failed'",
    "drop_table": "DROP TABLE sessions",
    "iteration_text": "UPDATE measurements SET iteration = 'x' WHERE rowid = "
                      "(SELECT rowid FROM measurements WHERE warmup = 0 LIMIT 1)",
}


def _stores() -> dict[str, bytes]:
    out: dict[str, bytes] = {"store.db": STORE.read_bytes()}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sql in STORE_EDITS.items():
            path = Path(tmp) / f"{name}.db"
            path.write_bytes(STORE.read_bytes())
            conn = sqlite3.connect(path)
            conn.execute(sql)
            conn.commit()
            conn.close()
            out[f"store_{name}.db"] = path.read_bytes()
    data = STORE.read_bytes()
    rng = random.Random(SEED)
    for fraction in (0.001, 0.01, 0.3, 0.5, 0.9):
        out[f"store_cut{fraction}.db"] = data[: max(17, int(len(data) * fraction))]
    for keep in (100, 1024, 4096, 16384):
        out[f"store_garbage{keep}.db"] = data[:keep] + rng.randbytes(len(data) - keep)
    out["store_bad_page_size.db"] = data[:16] + b"\x00\x03" + data[18:]
    out["store_appended.db"] = data + b"junk" * 64
    return out


def malformed_files() -> dict[str, bytes]:
    """Every input file of the corpus, by name (the extension tells its kind)."""
    base = _base_files()
    files = {**base, **_crafted(), **_truncations(base), **_byte_flips(base, 6),
             **_token_swaps(base), **_stores(), **_odd_files()}
    return files


# -- issue 20: tokens that once gave exit 3, odd encodings, giant tokens ---------------
GIANT = 1_000_000  # digits of a giant token (it was echoed whole into a 1 MB error line)
_CRITERION = "criterion/fib 20/new/sample.json"
_SORT = ["results", "benchmarks.Sorting.time_sort"]
# Where each JSON format keeps a measurement and a name (a sentinel is put there, then
# replaced in the text by what json.dumps cannot write).
JSON_NUMBER_AT = {
    "hyperfine.json": ["results", 0, "times", 0],
    "pyperf.json": ["benchmarks", 0, "runs", 1, "values", 0],
    "gbench.json": ["benchmarks", 0, "real_time"],
    "jmh.json": [0, "primaryMetric", "rawData", 0, 0],
    "pytest_benchmark.json": ["benchmarks", 0, "stats", "data", 0],
    _CRITERION: ["times", 0],
    "asv.json": [*_SORT, 11, 0, 0],
}
JSON_NAME_AT = {
    "hyperfine.json": ["results", 0, "command"],
    "pyperf.json": ["benchmarks", 0, "metadata", "name"],
    "gbench.json": ["benchmarks", 0, "name"],
    "jmh.json": [0, "benchmark"],
    "pytest_benchmark.json": ["benchmarks", 0, "name"],
}
_SENTINEL = 271828.182845
_NAME = "sentinel-name-of-issue-20"


def _json_with(name: str, path: list, text: str, sentinel: object = _SENTINEL) -> bytes:
    """The fixture with the JSON text `text` where `path` is (a 5,000-digit integer, a lone
    surrogate escape: what json.dumps cannot write)."""
    doc = json.loads(_fixture(name))
    _set(path, sentinel)(doc)
    return json.dumps(doc).replace(json.dumps(sentinel), text, 1).encode()


def _stem(name: str) -> str:
    return name.split("/")[0].removesuffix(".json")


def _odd_files() -> dict[str, bytes]:
    """Issue 20's reproductions as files: hex floats that overflow, JSON integers past
    Python's 4,300 digits and lone surrogates in JSON names (every JSON format), CSV fields
    over the csv module's 131,072 characters, giant tokens in every reader, odd encodings
    (UTF-16 with a BOM, Latin-1, NUL bytes, CRLF, mixed newlines)."""
    giant = b"7" * GIANT
    wide = b"w" * 140_000
    utf16 = "\ufeff" + PLAIN.decode()
    out: dict[str, bytes] = {
        "odd_hex_overflow.txt": b"1.5\n1.6\n0x1.8p99999\n1.7\n",
        "odd_hex_neg_overflow.txt": b"1.5\n-0x1.8p99999\n1.7\n",
        "odd_hex_underflow.txt": b"1.5\n0x1p-99999\n1.7\n",
        "odd_hex_giant.txt": b"1.5\n1.6\n0x" + b"f" * GIANT + b"\n",
        "odd_hex_overflow.csv": TABLE.replace(b"2.7", b"0x1.8p99999"),
        "odd_csv_wide_header.csv": TABLE.replace(b"run", wide, 1),
        "odd_csv_wide_field.csv": TABLE.replace(b"a,1,1.5", b'"' + wide + b'",1,1.5'),
        "odd_csv_wide_bare_field.csv": TABLE.replace(b"a,1,1.5", wide + b",1,1.5"),
        "odd_giant_number.txt": b"1.5\n1.6\n" + giant + b"\n",
        "odd_giant_token.txt": b"1.5\n1.6\n" + giant + b"x\n",
        "odd_giant_decimal.txt": b"1.5\n1.6\n0." + giant + b"e\n",
        "odd_giant_value.csv": TABLE.replace(b"2.7", giant + b"x"),
        "odd_giant_name.csv": TABLE.replace(b"b,1,2.5", giant + b",1,2.5"),
        "odd_giant_gotest.txt": b"goos: linux\nBenchmarkA-8 10 " + giant + b"x ns/op\n"
                                b"BenchmarkA-8 10 2 ns/op\n",
        "odd_giant_iterations.txt": b"BenchmarkA-8 " + giant + b" 1 ns/op\n"
                                    b"BenchmarkA-8 10 2 ns/op\n",
        "odd_giant_json_name.json": _json_with("hyperfine.json", JSON_NAME_AT["hyperfine.json"],
                                               '"' + "c" * GIANT + '"', _NAME),
        "odd_utf16le_bom.txt": utf16.encode("utf-16-le"),
        "odd_utf16be_bom.txt": utf16.encode("utf-16-be"),
        "odd_utf16_bom.csv": ("\ufeff" + TABLE.decode()).encode("utf-16-le"),
        "odd_utf16_bom.json": ("\ufeff" + _fixture("hyperfine.json").decode())
        .encode("utf-16-le"),
        "odd_utf16_odd_length.txt": utf16.encode("utf-16-le")[:-1],
        "odd_latin1.csv": TABLE.replace(b"system", b"syst\xe8me"),
        "odd_latin1_name.csv": TABLE.replace(b"a,1,1.5", b"\xe9,1,1.5"),
        "odd_nul_middle.csv": TABLE.replace(b"b,1,2.5", b"b,1,2\x00.5"),
        "odd_nul_late.txt": PLAIN * 20000 + b"\x00\n",  # past the first 64 KiB
        "odd_crlf.csv": TABLE.replace(b"\n", b"\r\n"),
        "odd_mixed_newlines.txt": b"1.5\r\n1.6\n1.7\r1.8\n\r1.65\n",
        "odd_mixed_newlines.csv": b"system,value\r\na,1\na,2\rb,3\r\nb,4\n",
        "odd_only_cr.csv": TABLE.replace(b"\n", b"\r"),
        "odd_surrogate_utf8.txt": b"1.5\n\xed\xa0\x80\n1.6\n",  # a surrogate in "UTF-8"
    }
    for name, path in JSON_NUMBER_AT.items():
        out[f"odd_bigint_{_stem(name)}.json"] = _json_with(name, path, "9" * 5000)
        out[f"odd_bigint_neg_{_stem(name)}.json"] = _json_with(name, path, "-" + "9" * 4301)
        out[f"odd_bigint_giant_{_stem(name)}.json"] = _json_with(name, path, "9" * GIANT)
        out[f"odd_big_exponent_{_stem(name)}.json"] = _json_with(name, path, "1e99999")
    for name, path in JSON_NAME_AT.items():
        for tag, escape in (("high", "\\ud800"), ("low", "\\udfff"),
                            ("swapped", "\\udc00\\ud800"), ("pair", "\\ud83d\\ude00")):
            out[f"odd_surrogate_{tag}_{_stem(name)}.json"] = _json_with(
                name, path, f'"x{escape}"', _NAME)
    out["odd_surrogate_key.json"] = _json_with(
        "hyperfine.json", ["results", 0, "parameters"], '{"\\ud800": "1"}', _NAME)
    return out


# -- commands -----------------------------------------------------------------------
def _commands(name: str) -> list[tuple[str, tuple[str, ...]]]:
    """The reading commands, each given the file (and a valid second sample if needed)."""
    f = "{dir}/" + name
    other = "{dir}/plain.txt"
    return [
        ("compare", ("compare", f, other)),
        ("compare2", ("compare", f, "{dir}/copy_" + name, "--tests")),  # the same format twice
        ("summary", ("summary", f)),
        ("plan", ("plan", f, "--levels", "run", "--budget", "1h")),
        ("test", ("test", f, other)),
        ("anova", ("anova", f, "--response", "value", "--factors", "system")),
        ("qreg", ("qreg", f, "--response", "value", "--factors", "system", "--taus", "0.5")),
        ("export", ("export", f, "-o", "{dir}/out.csv")),
        ("ministat", ("compare", "--ministat", f, other)),
    ]


def file_cases() -> Iterator[Case]:
    files = malformed_files()
    support = {"plain.txt": PLAIN}
    for name, data in files.items():
        for command, argv in _commands(name):
            yield Case(f"file/{name}/{command}", argv,
                       {**support, name: data, "copy_" + name: data},
                       ministat=command == "ministat")


# -- special files and standard input (issue 20) ----------------------------------
SPECIALS = {"fifo": "fifo", "socket": "socket", "directory": "dir",
            "zero_link.txt": "link:/dev/zero", "urandom_link.txt": "link:/dev/urandom",
            "null_link.txt": "link:/dev/null", "dangling_link.txt": "link:/nonexistent/x",
            "loop_link.txt": "link:loop_link.txt"}
DEVICES = ("/dev/zero", "/dev/urandom", "/dev/null", "/dev/full")
STDINS = {"plain": PLAIN, "table": TABLE, "empty": b"", "zeros": bytes(4 << 20),
          "nul_late": PLAIN * 20000 + b"\x00", "utf16": ("\ufeff" + PLAIN.decode())
          .encode("utf-16-le"), "latin1": b"1.5\n1.6 \xe9\n", "crlf": PLAIN.replace(b"\n", b"\r\n"),
          "giant": b"1.5\n" + b"7" * GIANT + b"x\n", "sqlite": b"SQLite format 3\x00" + bytes(100),
          "hyperfine": _fixture("hyperfine.json"),
          "surrogate": _json_with("hyperfine.json", JSON_NAME_AT["hyperfine.json"],
                                  '"x\\ud800"', _NAME)}


def special_cases() -> Iterator[Case]:
    """Devices, named pipes, sockets, directories and links (refused by type before reading,
    in bounded time) and standard input of every kind, in every reading command."""
    targets = [*("{dir}/" + name for name in SPECIALS), *DEVICES]
    for target in targets:
        for command, argv in _commands("x"):
            argv = tuple(target if a == "{dir}/x" else "{dir}/plain.txt" if a == "{dir}/copy_x"
                         else a for a in argv)
            yield Case(f"special/{target.rsplit('/', 1)[-1]}/{command}", argv,
                       {"plain.txt": PLAIN}, specials=SPECIALS, ministat=command == "ministat")
    for tag, data in STDINS.items():
        for command, argv in _commands("x"):
            argv = tuple("-" if a == "{dir}/x" else "{dir}/plain.txt" if a == "{dir}/copy_x"
                         else a for a in argv)
            yield Case(f"special/stdin_{tag}/{command}", argv, {"plain.txt": PLAIN},
                       stdin=data, ministat=command == "ministat")
    history = ("history", "add", "--db", "{dir}/h.db", "--commit", "abc", "--date",
               "2024-01-01T00:00:00Z")
    for target in (*targets, "-"):
        yield Case(f"special/{target.rsplit('/', 1)[-1]}/history_add", (*history, target),
                   {"plain.txt": PLAIN}, specials=SPECIALS, stdin=STDINS["zeros"])


# Names given on the command line whose bytes are not UTF-8 (Python holds b"\xff" as the
# lone surrogate "\udcff"): shown as escapes, written back as given, or refused.
NON_UTF8 = "x\udcff"
ARGV_NAME_ARGVS: list[tuple[str, ...]] = [
    ("compare", "{dir}/plain.txt", "{dir}/other.txt", "--name", "plain=" + NON_UTF8),
    ("compare", "{dir}/plain.txt", "{dir}/other.txt", "--name", "plain=" + NON_UTF8,
     "--format", "markdown", "-o", "{dir}/out.md"),
    ("compare", "{dir}/plain.txt", "{dir}/other.txt", "--name", "plain=" + NON_UTF8,
     "--format", "csv", "-o", "{dir}/out.csv"),
    ("compare", "{dir}/plain.txt", "{dir}/other.txt", "--unit", NON_UTF8),
    ("compare", "{dir}/plain.txt", "{dir}/other.txt", "--baseline", NON_UTF8),
    ("summary", "{dir}/plain.txt", "--by", NON_UTF8),
    ("design", "--factor", "a=" + NON_UTF8 + ",2", "-o", "{dir}/d.csv"),
    ("design", "--factor", "a=" + NON_UTF8 + ",2", "--format", "html", "-o", "{dir}/d.html"),
    *[("history", "add", "{dir}/plain.txt", "--db", "{dir}/h.db", "--date",
       "2024-01-01T00:00:00Z", "--commit", "abc", option, NON_UTF8)
      for option in ("--commit", "--branch", "--machine", "--unit")],
    ("history", "show", "--db", "{dir}/h.db", "--benchmark", NON_UTF8),
    ("summary", "{dir}/" + NON_UTF8 + ".txt"),  # a file name that is not UTF-8
    ("history", "add", "{dir}/" + NON_UTF8 + ".txt", "--db", "{dir}/h.db", "--date",
     "2024-01-01T00:00:00Z", "--commit", "abc"),
]


def argv_name_cases() -> Iterator[Case]:
    files = {"plain.txt": PLAIN, "other.txt": b"2.5\n2.7\n2.6\n2.8\n2.55\n2.65\n",
             NON_UTF8 + ".txt": PLAIN}
    for k, argv in enumerate(ARGV_NAME_ARGVS):  # ids without the surrogate: pytest prints them
        yield Case(f"special/argv_not_utf8/{k}_{argv[0]}", argv, files)


def history_cases() -> Iterator[Case]:
    """history add of every odd file (the names it stores must print and store)."""
    files = _odd_files()
    for name, data in files.items():
        argv = ("history", "add", "{dir}/" + name, "--db", "{dir}/h.db", "--commit", "abc",
                "--date", "2024-01-01T00:00:00Z")
        if name.endswith(".csv"):
            argv += ("--by", "system", "--value", "value")
        yield Case(f"history/{name}", argv, {name: data})


# -- TOML mutations -----------------------------------------------------------------
_TOML_VALUES = ["1", "-1", "0", "99999999999999999", "1e400", "nan", "inf", '""', '"x"',
                "[]", "[1, 2]", '["a", 1]', "{}", "{ X = 1 }", "true", '"\\u0000"',
                '"1; touch /tmp/benchlab-fuzz-pwned"', "'/nonexistent/dir'", '"-5s"',
                '"1e400h"', '"20 parsecs"']


def _toml_mutations(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    lines = text.split("\n")
    yield "empty", ""
    yield "bom", "\ufeff" + text
    yield "nul", text.replace("\n", "\n\x00", 1)
    for fraction in (0.1, 0.3, 0.5, 0.7, 0.9):
        yield f"cut{int(fraction * 100)}", text[: int(len(text) * fraction)]
    assignments = [i for i, line in enumerate(lines) if "=" in line and
                   not line.lstrip().startswith("#")]
    for i in assignments:
        key = lines[i].split("=", 1)[0].strip()
        yield f"drop_{i}", "\n".join(lines[:i] + lines[i + 1:])
        for k, value in enumerate(rng.sample(_TOML_VALUES, 4)):
            yield f"set_{i}_{k}", "\n".join(lines[:i] + [f"{key} = {value}"] + lines[i + 1:])
    yield "dup_table", text + "\n" + "\n".join(line for line in lines if line.startswith("["))


_ENV_BUILD = """\
name = "env"
executions = 1
iterations = 1
{top}
[factors]
n = [1, 2]
[alternatives.a]
{build}
command = ["python3", "work.py", "{{n}}", "1"]
{env}
[measure]
regex = 'time_ms: (?P<time_ms>[0-9.eE+-]+)'
"""
# An env value with a factor placeholder beside a build step (issue 20: KeyError 'n' at
# run time, --dry-run passed), its neighbours, and odd text in an experiment file.
ODD_TOMLS = {
    "env_factor_build": _ENV_BUILD.format(top="", build='build = ["true"]',
                                          env='env = { N = "{n}" }'),
    "env_top_factor_build": _ENV_BUILD.format(top='env = { N = "{n}" }',
                                              build='build = ["true"]', env=""),
    "env_factor_no_build": _ENV_BUILD.format(top="", build="", env='env = { N = "{n}" }'),
    "env_build_number": _ENV_BUILD.format(top="", build='build = ["true"]',
                                          env='env = { N = "{build}-{alternative}" }'),
    "env_iterations_build": _ENV_BUILD.format(top="", build='build = ["true"]',
                                              env='env = { N = "{iterations}" }'),
    "env_unknown": _ENV_BUILD.format(top="", build='build = ["true"]',
                                     env='env = { N = "{nope}" }'),
    "env_giant_value": _ENV_BUILD.format(top="", build="", env='env = { N = "'
                                         + "v" * GIANT + '" }'),
    "giant_key": _ENV_BUILD.format(top="k" * GIANT + " = 1", build="", env=""),
    "giant_placeholder": _ENV_BUILD.format(top="", build="", env='env = { N = "{'
                                           + "p" * GIANT + '}" }'),
}


def _odd_toml_cases() -> Iterator[Case]:
    work = (EXPERIMENTS / "work.py").read_bytes()
    for tag, text in ODD_TOMLS.items():
        for mode in (("--dry-run",), ()):  # the plan and the run must agree
            argv = ("run", *mode, "--quiet", "{dir}/e.toml", "-o", "{dir}/x.db")
            yield Case(f"toml/odd_{tag}/{'dry_run' if mode else 'run'}", argv,
                       {"e.toml": text.encode(), "work.py": work},
                       exits=(0, 2) if mode else (0, 1, 2))
    for encoding in ("utf-16", "latin-1"):
        text = ODD_TOMLS["env_build_number"].replace('name = "env"', 'name = "\xe9nv"')
        yield Case(f"toml/odd_{encoding}", ("run", "--dry-run", "{dir}/e.toml"),
                   {"e.toml": text.encode(encoding), "work.py": work})


def toml_cases() -> Iterator[Case]:
    yield from _odd_toml_cases()
    rng = random.Random(SEED)
    for path in sorted(EXPERIMENTS.glob("*.toml")):
        text = path.read_text()
        for tag, mutated in _toml_mutations(text, rng):
            name = f"{path.stem}_{tag}.toml"
            argv = ("run", "--dry-run", "--quiet", "{dir}/" + name, "-o", "{dir}/x.db")
            yield Case(f"toml/{name}", argv, {name: mutated.encode("utf-8", "surrogatepass"),
                                              "work.py": (EXPERIMENTS / "work.py").read_bytes()})


# -- option extremes ----------------------------------------------------------------
_A, _B = "{dir}/plain.txt", "{dir}/other.txt"
_TABLE = "{dir}/table.csv"
OPTION_ARGVS: list[tuple[str, ...]] = [
    *[("compare", _A, _B, "--bootstrap", b) for b in ("-1", "0", "99", "1e4", "x", "100",
                                                      "1000000000000", "99999999999999999999")],
    *[("compare", _A, _B, "--bootstrap", "200", f"--seed={s}") for s in
      ("-1", "0", "x", "1.5", "99999999999999999999999", "-99999999999999999999")],
    *[("compare", _A, _B, "-C", c) for c in ("0", "-1", "2", "999", "x", "99999999999999999999")],
    *[("compare", _A, _B, "-c", c) for c in ("0", "1", "50", "100", "99.999", "-5", "x", "nan",
                                             "inf", "95%", "0.95", "1e400")],
    *[("compare", _A, _B, "--threshold", t) for t in ("-1", "200%", "x", "nan", "1e400", "0")],
    *[("compare", _A, _B, "-d", d) for d in ("", ",", "\t", "\x00", "1")],
    *[("compare", "--ministat", _A, _B, "-w", w) for w in ("-5", "0", "1", "2", "100000", "x")],
    *[("compare", "--ministat", _A, _B, "-C", c) for c in ("0", "-1", "999")],
    *[("compare", "--ministat", _A, _B, "-c", c) for c in ("0", "80", "99.5", "100", "x")],
    *[("compare", _TABLE, "--by", b) for b in ("system", "nope", "", "value")],
    *[("compare", _TABLE, "--by", "system", "--levels", lv) for lv in
      ("run", "nope", "run,run", "none", "", "value")],
    *[("compare", _TABLE, "--by", "system", "--levels", "run", "--bootstrap", "200",
       "--resample", r) for r in ("RR", "RN", "x", "RRR", "flat", "")],
    ("compare", _A, _B, "--paired"), ("compare", _A, _A, "--paired"),
    ("compare", _A, _A, "--paired", "--fail-on", "change"),
    ("compare", _A, _B, "--baseline", "nope"), ("compare", _A, "--input-format", "jmh"),
    ("compare", _A, _B, "--input-format", "nope"), ("compare", _A, _B, "--mode", "avgt"),
    ("compare", _A, _B, "--metric", "B/op"), ("compare", _A, _B, "--unit", "parsec"),
    ("compare", _A, _B, "--df", "nope"), ("compare", _A, _B, "--pair-by", "nope"),
    ("compare", _A), ("compare",), ("compare", _A, "-", "-"),
    *[("summary", _A, "-c", c) for c in ("0", "100", "x", "-1")],
    *[("test", _A, _B, "-c", c) for c in ("0", "100", "x")],
    ("test", _A, _B, "--protocol", "kruskal", "--posthoc", "dunn"), ("test", _A),
    *[("plan", _TABLE, "--by", "system", "--levels", "run", "--budget", b) for b in
      ("1e400h", "0", "-1h", "x", "1h", "0.000001s", "99999999d")],
    *[("plan", _TABLE, "--by", "system", "--levels", "run", "--target", t) for t in
      ("0", "-1%", "200%", "x", "1%", "1e-300")],
    *[("plan", _TABLE, "--by", "system", "--levels", "run", "--budget", "1h", "--cost", c)
      for c in ("run=1e400s", "run=-1s", "run=x", "nope=1s", "run", "=1s", "run=0s")],
    *[("design", "--factor", f) for f in ("a=1,2", "a=", "=1,2", "a=1", "a=1,1", "a", "",
                                          "a=1,2,3,4,5,6,7,8,9,10")],
    *[("design", "--factor", "a=1,2", "-r", r) for r in ("0", "-1", "x", "1000000000000")],
    *[("design", "--factor", "a=1,2", "--seed", s) for s in ("-1", "x", "0", "1e3")],
    *[("anova", _TABLE, "--response", "value", "--factors", f) for f in
      ("system", "system,run", "nope", "value", "", "system,system")],
    *[("anova", _TABLE, "--response", "value", "--factors", "system,run", "--interactions", i)
      for i in ("0", "-1", "99", "x")],
    *[("anova", _TABLE, "--response", r, "--factors", "run") for r in ("system", "nope", "")],
    *[("qreg", _TABLE, "--response", "value", "--factors", "system", "--taus", t) for t in
      ("0", "1", "-0.5", "x", "0.1:0.9:0", "0.1:0.9:-0.1", "0.9:0.1:0.1", "0.5,0.5", "nan",
       "0.001:0.999:0.000001", "")],
    *[("qreg", _TABLE, "--response", "value", "--factors", "system", "--se", "boot", "-R", r)
      for r in ("0", "-1", "1", "x", "1000000000")],
    *[("qreg", _TABLE, "--response", "value", "--factors", "system", "--seed", s)
      for s in ("-1", "x")],
    *[("export", "{dir}/store.db", "-o", o) for o in ("{dir}/store.db", "{dir}/nodir/x.csv",
                                                      "{dir}", "{dir}/x.txt", "-")],
    *[("export", "{dir}/store.db", "--metric", m) for m in ("nope", "all", "")],
    ("run", "{dir}/missing.toml", "--dry-run"),
]


def option_cases() -> Iterator[Case]:
    files = {"plain.txt": PLAIN, "other.txt": b"2.5\n2.7\n2.6\n2.8\n2.55\n2.65\n",
             "table.csv": TABLE, "store.db": STORE.read_bytes()}
    for k, argv in enumerate(OPTION_ARGVS):
        exits = (0, 1, 2) if "--fail-on" in argv else (0, 2)
        yield Case(f"option/{k}/{' '.join(argv[:1] + argv[2:])}", argv, files, exits,
                   ministat="--ministat" in argv)


# -- valid but large, and extreme but valid (issue 19) -------------------------------
# Sizes at which exact methods once overflowed (520 values a sample, 1,024 pairs) and
# the sizes real tools write; values at the edges of the range benchlab computes with.
LARGE_SIZES = (519, 520, 1023, 1024, 5000, 100_000)


def _numbers(values) -> bytes:
    """One number a line, every digit a double holds."""
    return ("\n".join(f"{v:.17g}" for v in values) + "\n").encode()


def large_files() -> dict[str, bytes]:
    """Valid inputs at real and extreme sizes and magnitudes (seeded, deterministic)."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    out: dict[str, bytes] = {}
    for n in LARGE_SIZES:
        out[f"n{n}_a.txt"] = _numbers(rng.normal(100.0, 5.0, n))
        out[f"n{n}_b.txt"] = _numbers(rng.normal(101.0, 5.0, n))
    base = rng.normal(100.0, 5.0, 1100)  # 1,100 pairs: one shared condition per pair
    out["pairs_a.txt"] = _numbers(base + rng.normal(0.0, 1.0, base.size))
    out["pairs_b.txt"] = _numbers(1.01 * base + rng.normal(0.0, 1.0, base.size))
    out["tiny_a.txt"] = _numbers(rng.lognormal(0.0, 0.1, 600) * 1e-300)
    out["tiny_b.txt"] = _numbers(rng.lognormal(0.05, 0.1, 600) * 1e-300)
    out["huge_a.txt"] = _numbers(rng.uniform(1.0, 5.0, 600) * 1e299)  # up to 5e299
    out["huge_b.txt"] = _numbers(rng.uniform(1.2, 5.2, 600) * 1e299)
    out["equal_a.txt"] = _numbers(np.full(600, 3.25))
    out["equal_b.txt"] = _numbers(np.full(600, 3.25))
    outlier = rng.normal(100.0, 5.0, 1000)
    outlier[500] = 1e12  # one measurement ten billion times the rest
    out["outlier_b.txt"] = _numbers(outlier)
    rows = ["benchmark,system,value"] + [
        f"bench{b:02d},{system},{v:.17g}" for b in range(50) for system, shift in
        (("old", 1.0), ("new", 1.0 + 0.002 * b)) for v in rng.lognormal(0.0, 0.05, 20) * shift]
    out["suite50.csv"] = ("\n".join(rows) + "\n").encode()
    return out


def _large_argvs() -> list[tuple[str, tuple[str, ...]]]:
    """(id, argv) of every reading command the large files are meant for."""
    d = "{dir}/"
    argvs: list[tuple[str, tuple[str, ...]]] = []
    for n in LARGE_SIZES:
        a, b = d + f"n{n}_a.txt", d + f"n{n}_b.txt"
        argvs += [(f"n{n}/compare", ("compare", a, b, "--no-plot")),
                  (f"n{n}/median", ("compare", a, b, "--statistic", "median", "--seed", "1",
                                    "--no-plot")),
                  (f"n{n}/summary", ("summary", a))]
        if n <= 5000:  # the full test battery (Shapiro-Wilk, KS, ...) on up to 5,000 values
            argvs += [(f"n{n}/tests", ("compare", a, b, "--tests", "--no-plot")),
                      (f"n{n}/test", ("test", a, b)),
                      (f"n{n}/paired", ("compare", a, b, "--paired", "--no-plot"))]
    pa, pb = d + "pairs_a.txt", d + "pairs_b.txt"
    argvs += [("pairs1100/paired", ("compare", pa, pb, "--paired", "--no-plot")),
              ("pairs1100/paired_tests", ("compare", pa, pb, "--paired", "--tests",
                                          "--no-plot")),
              ("pairs1100/paired_bootstrap", ("compare", pa, pb, "--paired", "--bootstrap",
                                              "1000", "--seed", "1", "--no-plot"))]
    for kind in ("tiny", "huge", "equal"):
        a, b = d + f"{kind}_a.txt", d + f"{kind}_b.txt"
        argvs += [(f"{kind}/compare", ("compare", a, b, "--no-plot")),
                  (f"{kind}/tests", ("compare", a, b, "--tests", "--no-plot")),
                  (f"{kind}/median", ("compare", a, b, "--statistic", "median", "--seed", "1",
                                      "--no-plot")),
                  (f"{kind}/summary", ("summary", a)),
                  (f"{kind}/test", ("test", a, b))]
    a, b = d + "n1024_a.txt", d + "outlier_b.txt"
    argvs += [("outlier/compare", ("compare", a, b, "--no-plot")),
              ("outlier/tests", ("compare", a, b, "--tests", "--no-plot")),
              ("outlier/median", ("compare", a, b, "--statistic", "median", "--seed", "1",
                                  "--no-plot")),
              ("outlier/summary", ("summary", b))]
    suite = (d + "suite50.csv", "--by", "system", "--benchmark", "benchmark", "--baseline",
             "old")
    argvs += [("suite50/compare", ("compare", *suite, "--no-plot")),
              ("suite50/median", ("compare", *suite, "--statistic", "median", "--seed", "1",
                                  "--no-plot")),
              ("suite50/fail_on", ("compare", *suite, "--fail-on", "change", "--no-plot")),
              ("suite50/summary", ("summary", *suite[:5])),
              ("suite50/test", ("test", *suite))]
    return argvs


def large_cases() -> Iterator[Case]:
    """Valid inputs, large or extreme: the analysis must finish (exit 0, or 1 when a gate
    trips), with no traceback. Each case gets only the files it names."""
    files = large_files()
    for ident, argv in _large_argvs():
        needed = {name: data for name, data in files.items()
                  if any(arg == "{dir}/" + name for arg in argv)}
        yield Case(f"large/{ident}", argv, needed, exits=(0, 1))


def all_cases() -> list[Case]:
    """The full corpus, in a fixed order."""
    return [*file_cases(), *toml_cases(), *option_cases(), *special_cases(), *argv_name_cases(),
            *history_cases(), *large_cases()]
