"""Names from data through the real CLI: text without controls, Markdown cells intact, JSON exact.

Issue 15, item 6 ("output is inert"). Every command that prints a name, label,
benchmark, unit, level or command from a data or experiment file is run with
hostile names: HTML, `|`, backticks, a newline, an OSC title sequence, an ANSI
colour. Text output (stdout and stderr) must hold no control character but the
line feeds of its own lines; a Markdown table row must have as many cells as its
header; JSON must give the names back exactly.
"""

from __future__ import annotations

import csv
import json
import re
import textwrap

import pytest

NAMES = ["<script>alert(1)</script>", "a|b", "x\ny", "\x1b]0;pwned\x07", "\x1b[31mred",
         "`tick`"]
BENCHES = ["<img src=x onerror=alert(1)>", "b|e\nnch\x1b[2J"]
# Any C0 control but the line feed, DEL, C1, the bidi overrides and the line separators.
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def assert_inert(*texts: str) -> None:
    for text in texts:
        found = CONTROL.search(text)
        assert found is None, f"control {found.group()!r} in {text!r}"


def assert_no_forged_lines(text: str) -> None:
    """A name's newline is shown as \\n: no line of the report starts with a name's second half."""
    assert not any(line.startswith(("y ", "y\t", "nch")) or line in ("y", "nch")
                   for line in text.splitlines())


def cells(row: str) -> list[str]:
    """A GFM table row split on its unescaped pipes (a backslash escapes the next character)."""
    out, cell, i = [], "", 0
    row = row.strip()
    assert row.startswith("|") and row.endswith("|"), row
    while i < len(row):
        if row[i] == "\\" and i + 1 < len(row):
            cell += row[i:i + 2]
            i += 2
            continue
        if row[i] == "|":
            out.append(cell)
            cell = ""
        else:
            cell += row[i]
        i += 1
    return out[1:]  # the text before the leading pipe is empty


def assert_markdown_tables(text: str) -> int:
    """Every table: each row has its header's cell count; raw HTML from data never appears.

    Returns the number of body rows checked, so a test can insist there were some.
    """
    assert_inert(text)
    lines = text.split("\n")
    checked = 0
    for i, line in enumerate(lines):
        if re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line):  # a delimiter row: the header is above
            width = len(cells(lines[i - 1]))
            assert len(cells(line)) == width
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                assert len(cells(lines[j])) == width, lines[j]
                checked += 1
                j += 1
    for raw in ("<script", "<img", "`tick`", "a|b"):
        assert raw not in text
    from markdown_it import MarkdownIt

    page = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)
    assert "<script" not in page and "<img" not in page and "<code>" not in page
    return checked


@pytest.fixture
def hyperfine(tmp_path):
    """One sample per hostile name (hyperfine names a sample by its command)."""
    results = [{"command": n, "times": [1 + 0.1 * i + 0.013 * (k % 5) for k in range(10)]}
               for i, n in enumerate(NAMES)]
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"results": results}))
    return str(path)


@pytest.fixture
def suite(tmp_path):
    """Hostile sample names (--by) and benchmark names (--benchmark) in hyperfine parameters."""
    results = [{"command": f"run {i} {j}", "parameters": {"sys": n, "bench": b},
                "times": [1 + 0.1 * i + 0.01 * j + 0.013 * (k % 5) for k in range(10)]}
               for j, b in enumerate(BENCHES) for i, n in enumerate(NAMES)]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps({"results": results}))
    return str(path)


# A long CSV: the CSV reader cannot yet take a quoted newline (issue 15, item 4), so its
# names are the hostile ones without one; the newline goes through the JSON formats above.
CSV_NAMES = [n for n in NAMES if "\n" not in n]
FACTOR_A, FACTOR_B, LEVEL = "\x1b[1mA|<b>", "`B`\x1b]2;t\x07", "\x1b[31mrun"


@pytest.fixture
def long_csv(tmp_path):
    path = tmp_path / "long.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["bench", "sys", LEVEL, FACTOR_A, FACTOR_B, "unit", "time"])
        for j, bench in enumerate(["<img src=x onerror=alert(1)>", "b|e\x1b[2J"]):
            for i, name in enumerate(CSV_NAMES):
                for run in range(3):
                    for rep in range(3):
                        a = ("<i>lo", "\x1b[32mhi")[(run + rep) % 2]
                        b = ("x|y", "`z`")[rep % 2]
                        value = 1 + 0.1 * i + 0.01 * j + 0.02 * run + 0.007 * rep
                        w.writerow([bench, name, run, a, b, "ms", value])
    return str(path)


def test_compare_text(run_cli, hyperfine):
    code, out, err = run_cli("compare", hyperfine, "--tests", "--bootstrap", "200", "--seed", "1")
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)
    assert "x\\ny" in out and "\\x1b]0;pwned\\x07" in out and "<script>alert(1)</script>" in out


def test_compare_markdown(run_cli, hyperfine):
    code, out, err = run_cli("compare", hyperfine, "--format", "markdown", "--bootstrap", "200",
                             "--seed", "1")
    assert code == 0, err
    # samples (6), comparisons (5), bootstrap (5 x means and medians)
    assert assert_markdown_tables(out) == 6 + 5 + 10
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "a\\|b" in out


def test_compare_json_round_trips_the_names(run_cli, hyperfine):
    code, out, _ = run_cli("compare", hyperfine, "--json", expect=0)
    doc = json.loads(out)
    assert [s["name"] for s in doc["samples"]] == NAMES
    assert [c["candidate"] for c in doc["comparisons"]] == NAMES[1:]
    assert all(c["baseline"] == NAMES[0] for c in doc["comparisons"])


def test_suite_in_every_format(run_cli, suite):
    args = ("compare", suite, "--by", "param_sys", "--benchmark", "param_bench",
            "--bootstrap", "200", "--seed", "1")
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)
    code, md, _ = run_cli(*args, "--format", "markdown")
    assert code == 0
    # 2 benchmarks x 5 candidates, a geometric-mean row per candidate, bootstrap rows
    assert assert_markdown_tables(md) == 2 * 5 + 5 + 2 * 5 * 2
    code, js, _ = run_cli(*args, "--json", expect=0)
    doc = json.loads(js)
    assert [b["benchmark"] for b in doc["benchmarks"]] == BENCHES
    assert [s["name"] for s in doc["benchmarks"][1]["samples"]] == NAMES


def test_long_csv_with_by_and_benchmark(run_cli, long_csv):
    args = ("compare", long_csv, "--value", "time", "--by", "sys", "--benchmark", "bench")
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert_inert(out, err)
    code, md, _ = run_cli(*args, "--format", "markdown", expect=0)
    assert assert_markdown_tables(md) == 2 * 4 + 4  # and a geometric-mean row per candidate
    code, js, _ = run_cli(*args, "--json", expect=0)
    assert [s["name"] for s in json.loads(js)["benchmarks"][0]["samples"]] == CSV_NAMES


def test_hierarchical_compare_markdown(run_cli, long_csv):
    code, md, err = run_cli("compare", long_csv, "--value", "time", "--by", "sys",
                            "--levels", LEVEL, "--format", "markdown")
    assert code == 0, err
    assert assert_markdown_tables(md) > 0
    assert "\\\\x1b\\[31mrun" in md  # the level column's name, escaped


def test_ministat_mode(run_cli, tmp_path):
    files = []
    for i, name in enumerate(["\x1b]0;pwned\x07", "x\ny", "\x1b[31mred"]):
        path = tmp_path / name
        path.write_text("".join(f"{1 + 0.1 * i + 0.01 * k}\n" for k in range(6)))
        files.append(path)
    code, out, err = run_cli("compare", "--ministat", *files)
    assert code == 0, err
    assert_inert(out.replace("\t", ""), err)  # ministat's own tabs indent "Difference at"
    assert_no_forged_lines(out)
    legend = out.splitlines()[:3]
    assert legend[0].endswith("\\x1b]0;pwned\\x07") and legend[1].endswith("x\\ny")
    bad = tmp_path / "\x1b[2Jbad"
    bad.write_text("1\nnot-a-number\n")
    code, out, err = run_cli("compare", "--ministat", bad, files[0])
    assert code == 2 and "\\x1b[2Jbad" in err
    assert_inert(out, err)


def test_summary(run_cli, hyperfine, long_csv):
    code, out, err = run_cli("summary", hyperfine)
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)
    code, out, err = run_cli("summary", long_csv, "--value", "time", "--by", "sys",
                             "--levels", LEVEL, "--benchmark", "bench")
    assert code == 0, err
    assert_inert(out, err)
    code, js, _ = run_cli("summary", hyperfine, "--json", expect=0)
    assert [g["name"] for g in json.loads(js)["groups"]] == NAMES


def test_plan(run_cli, long_csv):
    args = ("plan", long_csv, "--value", "time", "--by", "sys", "--levels", LEVEL,
            "--cost", f"{LEVEL}=1s", "--target", "1%")
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert_inert(out, err)
    assert "\\x1b[31mrun" in out
    code, js, _ = run_cli(*args, "--json", expect=0)
    assert json.loads(js)["level_columns"] == [LEVEL]


@pytest.mark.parametrize("extra", [("--protocol", "speedup-mean"), ("--protocol", "kruskal"),
                                   ("--protocol", "kruskal", "--posthoc", "dunn")])
def test_test(run_cli, hyperfine, extra):
    code, out, err = run_cli("test", hyperfine, *extra)
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)
    code, js, _ = run_cli("test", hyperfine, *extra, "--json", expect=0)
    doc = json.loads(js)
    names = ([g["name"] for g in doc["groups"]] if "kruskal" in extra else
             [doc["comparisons"][0]["baseline"]] + [c["candidate"] for c in doc["comparisons"]])
    assert names == NAMES


def test_test_suite(run_cli, suite):
    code, out, err = run_cli("test", suite, "--by", "param_sys", "--benchmark", "param_bench",
                             "--protocol", "speedup-median")
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)


@pytest.mark.parametrize("command", ["anova", "qreg"])
def test_factorial_commands(run_cli, long_csv, command):
    args = (command, long_csv, "--response", "time", "--factors", f"{FACTOR_A},{FACTOR_B}")
    if command == "qreg":
        args += ("--taus", "0.5")
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert_inert(out, err)
    assert "\\x1b[1mA|<b>" in out
    code, js, _ = run_cli(*args, "--json", expect=0)
    doc = json.loads(js)
    if command == "anova":
        assert [f["name"] for f in doc["factors"]] == [FACTOR_A, FACTOR_B]
        assert doc["factors"][0]["levels"] == sorted(["<i>lo", "\x1b[32mhi"])
    else:
        assert list(doc["levels"]) == [FACTOR_A, FACTOR_B]


def test_design(run_cli):
    # factor names are column names (letters, digits, _ . -); levels can be anything
    factors = ["--factor", "f=a|b,\x1b]0;x\x07", "--factor", "g=\x1b[31mlo,hi"]
    code, out, err = run_cli("design", *factors, "--sign-table", "--seed", "1")
    assert code == 0, err
    assert_inert(out, err)
    assert "\\x1b]0;x\\x07" in out and "\\x1b[31mlo" in out
    code, js, _ = run_cli("design", *factors, "--json", "--seed", "1", expect=0)
    assert json.loads(js)["factors"][0]["levels"] == ["a|b", "\x1b]0;x\x07"]


EXPERIMENT = r'''
    seed = 3
    executions = 2
    [factors]
    f = ["x\ny", "\u001b[31mred"]
    [measure]
    regex = 'v: (?P<v>[0-9.]+)'
    unit = "\u001b[2Jms"
    [alternatives."<script>alert(1)</script>"]
    command = ["sh", "-c", "echo v: 1"]
    [alternatives."a|b\u001b[31m"]
    command = ["sh", "-c", "printf '\\033]0;pwned\\007boom\\n' >&2; exit 3"]
'''


def test_run_dry_run_progress_closing_lines_and_export(run_cli, tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent(EXPERIMENT))
    code, out, err = run_cli("run", exp, "--dry-run")
    assert code == 0, err
    assert_inert(out, err)
    assert_no_forged_lines(out)
    code, js, _ = run_cli("run", exp, "--dry-run", "--json", expect=0)
    doc = json.loads(js)
    assert doc["alternatives"] == ["<script>alert(1)</script>", "a|b\x1b[31m"]
    assert list(doc["factors"].values()) == [["x\ny", "\x1b[31mred"]]
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db)  # not a terminal: one progress line a trial
    assert code == 1, err  # the failing alternative's trials: exit 1 (docs/exit-codes.md)
    assert_inert(out, err)
    assert_no_forged_lines(out)
    assert "FAILED" in out and "pwned" in out  # the failing command's stderr, escaped
    code, out, err = run_cli("export", db, "-o", tmp_path / "\x1b[2Jmissing" / "x.csv")
    assert code == 2
    assert_inert(out, err)
    code, out, err = run_cli("export", db, "--metric", "\x1b]0;m\x07")
    assert code == 2
    assert_inert(out, err)


def test_errors_are_inert(run_cli, tmp_path):
    bad = tmp_path / "f\x1b[31m.txt"
    bad.write_text("1\n2\n\x1b]0;pwned\x07\n")
    code, out, err = run_cli("compare", bad, bad)
    assert code == 2 and err.count("\n") == 1
    assert_inert(out, err)
    assert "f\\x1b[31m.txt:3:" in err


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_progress_shows_names_as_text(kind):
    """The run's progress: no control from a name or an error; rich markup in a name is text."""
    import io

    from benchlab.runner.plan import Trial
    from benchlab.runner.progress import PlainProgress, RichProgress

    trial = Trial(1, 1, "execution", "[/]\x1b[31mfast[bold]", (("n", "x\ny"),), 1, 1, False)
    stream = io.StringIO()
    progress = (PlainProgress if kind == "plain" else RichProgress)(stream)
    progress.start(2, 0)
    progress.begin(trial)  # rich used to read "[/]" as markup and raise
    progress.end(trial, "exit code 1: \x1b]0;pwned\x07", 0.5)
    progress.note("stopping: \x1b[2J")
    progress.close()
    text = stream.getvalue()
    for raw in ("\x1b[31m", "\x1b]0;", "\x07", "\x1b[2J", "x\ny"):
        assert raw not in text
    assert "[/]\\x1b[31mfast[bold] n=x\\ny" in text and "\\x1b]0;pwned\\x07" in text


@pytest.mark.parametrize("command", ["anova", "qreg"])
def test_plots_draw_dollar_names_literally(run_cli, tmp_path, command):
    """matplotlib would read "$...$" in a name as mathtext and fail to draw (exit 3)."""
    path = tmp_path / "f.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["$\\frac{a$", "b", "$\\frac{t$"])
        for r in range(4):
            for i, a in enumerate(("x$_", "y^{")):
                for j, b in enumerate(("p", "q")):
                    w.writerow([a, b, 1 + 0.1 * r + 0.3 * i + 0.2 * j])
    plot = tmp_path / "plot.png"
    args = (command, path, "--response", "$\\frac{t$", "--factors", "$\\frac{a$,b",
            "--plot", plot) + (("--taus", "0.5") if command == "qreg" else ())
    code, out, err = run_cli(*args)
    assert code == 0, err
    assert plot.stat().st_size > 0


def test_no_ratio_note_is_inert(run_cli, tmp_path):
    base = tmp_path / "n\x1b[31m.txt"
    base.write_text("-1\n1\n-0.5\n0.4\n")
    other = tmp_path / "p.txt"
    other.write_text("1\n2\n3\n")
    code, out, err = run_cli("compare", base, other)
    assert code == 2 and "n\\x1b[31m" in err
    assert_inert(out, err)
