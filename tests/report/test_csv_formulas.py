"""CSV and TSV cells from names never run as spreadsheet formulas (issue 20, item 5):
`--format csv` of any analysis, `export` of a store (CSV and TSV) and `design`'s plan."""

from __future__ import annotations

import csv
import io

EVIL = ["=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "@SUM(A1:A2)"]


def cells(text: str, delimiter: str = ",") -> list[str]:
    return [c for row in csv.reader(io.StringIO(text), delimiter=delimiter) for c in row]


def test_compare_csv_guards_group_names(tmp_path, run_cli):
    path = tmp_path / "evil.csv"
    rows = ["name,value"] + [f'"{n.replace(chr(34), 2 * chr(34))}",{v}' for n in EVIL
                             for v in (1.0, 1.1, 0.9, 1.05)]
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("compare", path, "--by", "name", "--value", "value",
                             "--format", "csv", expect=0)
    found = cells(out)
    for name in EVIL:
        assert name not in found, name
        assert "'" + name in found, name
    numbers = [c for c in found if c.startswith("-")]  # negative estimates stay numbers
    assert all(float(c) < 0 for c in numbers)


def test_export_csv_and_tsv_guard_alternative_names(tmp_path, run_cli):
    exp = tmp_path / "evil.toml"
    exp.write_text('seed = 1\nexecutions = 2\n[alternatives."=1+1"]\ncommand = ["true"]\n'
                   '[alternatives."@SUM(A1)"]\ncommand = ["true"]\n')
    db = tmp_path / "evil.db"
    run_cli("run", exp, "-o", db, "--quiet", expect=0)
    for suffix, delimiter in (("csv", ","), ("tsv", "\t")):
        out = tmp_path / f"evil.{suffix}"
        run_cli("export", db, "-o", out, expect=0)
        found = cells(out.read_text(), delimiter)
        assert "=1+1" not in found and "'=1+1" in found
        assert "@SUM(A1)" not in found and "'@SUM(A1)" in found


def test_design_keeps_signed_levels_numbers_and_reads_back(tmp_path, run_cli):
    code, out, err = run_cli("design", "--factor", "a=-1,+1", "--factor", "b=low,=x",
                             "--format", "csv", expect=0)
    lines = out.splitlines()
    assert lines[:2] == ["# factor a=-1,+1", "# factor b=low,'=x"]
    found = cells("\n".join(lines[2:]))
    assert "-1" in found and "+1" in found and "'=x" in found and "=x" not in found
    code, out, err = run_cli("design", "--factor", "a=-1,+1", "--factor", "b=low,=x",
                             "--replicates", "3", "--seed", "1", "--format", "csv", expect=0)
    head, *body = out.splitlines()[2:]
    guarded = "'=x"
    rows = [f"{line},{10 + i % 5 + (3 if guarded in line else 0)}" for i, line in enumerate(body)]
    plan = tmp_path / "plan.csv"
    plan.write_text("\n".join([*out.splitlines()[:2], head + ",y", *rows]) + "\n")
    code, out, err = run_cli("anova", plan, "--response", "y", "--factors", "a,b",
                             "--format", "json", expect=0)  # reads back: the same levels
    assert "'=x" in out
