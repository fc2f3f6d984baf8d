"""`benchlab export`: long format with warm-up flagged, readable back by compare."""

from __future__ import annotations

import csv
import io
import textwrap

import pytest


@pytest.fixture
def store(tmp_path, run_cli):
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent("""
        seed = 2
        builds = 2
        executions = 2
        iterations = 3
        [warmup]
        executions = 1
        iterations = 1
        [measure]
        regex = 'v: (?P<v>[0-9]+) n: (?P<n>[0-9]+)'
        [factors]
        k = ["x", "y"]
        [alternatives.a]
        command = ["sh", "-c", "for i in $(seq $1); do echo v: 10 n: $i; done", "sh",
                   "{iterations}"]
        [alternatives.b]
        command = ["sh", "-c", "for i in $(seq $1); do echo v: 12 n: $i; done", "sh",
                   "{iterations}"]
    """))
    db = tmp_path / "r.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    return db


def rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_long_format_with_warmup(store, run_cli):
    code, out, err = run_cli("export", store)
    assert code == 0, err
    table = rows(out)
    assert list(table[0]) == ["alternative", "k", "case", "build", "execution", "iteration",
                              "warmup", "metric", "unit", "value", "trial"]
    # 2 alternatives x 2 k x 2 builds x 3 executions x 4 iterations x 2 metrics
    assert len(table) == 2 * 2 * 2 * 3 * 4 * 2
    warm = [r for r in table if r["warmup"] == "1"]
    assert {(r["execution"], r["iteration"]) for r in warm if r["execution"] != "1"} == {
        (e, "1") for e in ("2", "3")}
    assert {r["case"] for r in table} == {"a k=x", "a k=y", "b k=x", "b k=y"}


def test_metric_and_no_warmup(store, run_cli, tmp_path):
    out_file = tmp_path / "d.csv"
    code, out, err = run_cli("export", store, "-o", out_file, "--metric", "v", "--no-warmup")
    assert code == 0 and out == ""
    table = rows(out_file.read_text())
    assert len(table) == 2 * 2 * 2 * 2 * 3 and {r["metric"] for r in table} == {"v"}
    assert {r["warmup"] for r in table} == {"0"}


def test_round_trip_through_compare(store, run_cli, tmp_path):
    out_file = tmp_path / "d.csv"
    run_cli("export", store, "-o", out_file, "--metric", "v", "--no-warmup", expect=0)
    code, from_csv, err = run_cli("compare", out_file, "--by", "case", "--levels",
                                  "build,execution", "--json")
    assert code == 0, err
    # the same analysis named on the store (alone it follows its design: tests/cli/
    # test_store_design.py)
    code, from_db, err = run_cli("compare", store, "--by", "case", "--levels",
                                 "build,execution", "--json")
    assert code == 0, err
    import json

    a, b = json.loads(from_csv), json.loads(from_db)
    ratios_a = [c["ratio"] for c in a["comparisons"]]
    ratios_b = [c["ratio"] for c in b["comparisons"]]
    assert ratios_a == ratios_b


def test_tsv_and_parquet(store, run_cli, tmp_path):
    code, _, err = run_cli("export", store, "-o", tmp_path / "d.tsv")
    assert code == 0 and (tmp_path / "d.tsv").read_text().startswith("alternative\tk\t")
    try:
        import pyarrow  # noqa: F401
    except ModuleNotFoundError:
        code, _, err = run_cli("export", store, "-o", tmp_path / "d.parquet")
        assert code == 2 and "needs pyarrow" in err
    else:
        code, _, err = run_cli("export", store, "-o", tmp_path / "d.parquet")
        assert code == 0 and (tmp_path / "d.parquet").stat().st_size > 0


def test_bad_inputs(tmp_path, run_cli, store):
    code, _, err = run_cli("export", store, "--metric", "nope")
    assert code == 2 and "no metric 'nope' in the store (metrics: v, n)" in err
    code, _, err = run_cli("export", store, "-o", tmp_path / "d.xlsx")
    assert code == 2 and "cannot tell the format" in err
    text = tmp_path / "t.csv"
    text.write_text("a,b\n1,2\n")
    code, _, err = run_cli("export", text)
    assert code == 2 and "not a benchlab store" in err


def test_parquet_columns_are_handed_to_pyarrow(store, run_cli, tmp_path, monkeypatch):
    """pyarrow is optional (not installed here): a stand-in checks what it would be given."""
    import sys
    import types

    seen = {}
    fake = types.ModuleType("pyarrow")
    fake.table = lambda columns: columns
    parquet = types.ModuleType("pyarrow.parquet")

    def write_table(table, path):
        seen.update(table=table, path=path)
        with open(path, "wb") as handle:  # written beside the target, renamed over it
            handle.write(b"PAR1")

    parquet.write_table = write_table
    fake.parquet = parquet
    monkeypatch.setitem(sys.modules, "pyarrow", fake)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", parquet)
    code, _, err = run_cli("export", store, "-o", tmp_path / "d.parquet", "--metric", "v")
    assert code == 0, err
    assert (tmp_path / "d.parquet").read_bytes() == b"PAR1"
    assert seen["path"].endswith(".parquet") and seen["path"] != str(tmp_path / "d.parquet")
    table = seen["table"]
    assert list(table)[:3] == ["alternative", "k", "case"]
    assert len(table["value"]) == 2 * 2 * 2 * 3 * 4
    assert all(isinstance(v, float) for v in table["value"])
    assert set(table["warmup"]) == {0, 1}
