"""Every format of every analysis command, parsed back (JSON, CSV) or checked for its
structure (Markdown tables, HTML), through the real command line (issue 11)."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import pytest

from benchlab.cli.main import main
from benchlab.report.envelope import KEYS

FFT = "examples/fft/two_systems.csv"
COMMANDS = {
    "compare": ["compare", "examples/kamp/current.txt", "examples/kamp/buf_work.txt",
                "--unit", "s"],
    "compare-suite": ["compare", "examples/fft/two_systems.csv", "--by", "system",
                      "--levels", "build,run", "--seed", "1"],
    "summary": ["summary", FFT, "--by", "system", "--levels", "build,run"],
    "plan": ["plan", FFT, "--by", "system", "--levels", "build,run", "--cost", "build=20m",
             "--cost", "run=6s", "--budget", "6h", "--unit", "ms"],
    "test": ["test", "examples/factorial/jitter.csv", "--value", "time", "--by", "treatment"],
    "design": ["design", "--factor", "a=lo,hi", "--factor", "b=x,y", "--seed", "3"],
    "anova": ["anova", "examples/factorial/results.csv", "--response", "time", "--factors",
              "sched,machine,vmstat,load"],
    "qreg": ["qreg", "examples/factorial/latency.csv", "--response", "latency", "--factors",
             "sched,machine", "--taus", "0.5,0.9", "-R", "50", "--seed", "1"],
    "warmup": ["warmup", "docs/examples/warmup.csv", "--by", "benchmark", "--levels", "fork",
               "--value", "time", "--unit", "ms"],
}


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    assert "Traceback" not in out.err
    return out.out


@pytest.mark.parametrize("name", COMMANDS)
def test_json_parses_with_the_envelope(name, capsys):
    doc = json.loads(_run(capsys, [*COMMANDS[name], "--format", "json"]))
    assert list(doc)[:6] == list(KEYS[:6]) and {"notes", "warnings"} <= set(doc)
    assert doc["command"] == COMMANDS[name][0] and doc["argv"][0] == COMMANDS[name][0]


@pytest.mark.parametrize("name", COMMANDS)
def test_csv_parses_into_tidy_rows(name, capsys):
    text = _run(capsys, [*COMMANDS[name], "--format", "csv"])
    # design's plan file records the level order in '# factor' lines before its header
    body = "".join(line for line in io.StringIO(text) if not line.startswith("# factor "))
    rows = list(csv.DictReader(io.StringIO(body)))
    assert rows, text[:200]
    header = list(rows[0])
    if name == "design":  # the plan file anova and qreg read
        assert header[:2] == ["run", "id"] and len(rows) == 4
        return
    assert header[0] == "table" and "estimate" in header
    assert all(len(r) == len(header) for r in rows)


def _tables(markdown: str) -> list[list[list[str]]]:
    """Each GFM table as rows of cells (split on unescaped pipes)."""
    import re

    tables, current = [], []
    for line in markdown.splitlines():
        if line.startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
            current.append(cells)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


@pytest.mark.parametrize("name", COMMANDS)
def test_markdown_tables_are_well_formed(name, capsys):
    text = _run(capsys, [*COMMANDS[name], "--format", "markdown"])
    tables = _tables(text)
    assert tables, text[:300]
    for table in tables:
        widths = {len(row) for row in table}
        assert len(widths) == 1, table[:3]  # every row as wide as its header
        assert all(set(c.strip()) <= set("-:") for c in table[1])  # the delimiter row


class _Checker(HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "col", "source", "wbr", "path",
            "circle", "line", "rect", "polyline", "polygon", "ellipse", "use", "stop"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.scripts_with_src = 0
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("src", "href") and value and value.startswith(("http:", "https:")):
                self.urls.append(value)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()


@pytest.mark.parametrize("name", COMMANDS)
def test_html_is_balanced_and_fetches_nothing(name, capsys):
    text = _run(capsys, [*COMMANDS[name], "--format", "html"])
    checker = _Checker()
    checker.feed(text)
    assert text.lstrip().lower().startswith("<!doctype html>")
    assert not checker.errors and not checker.stack and not checker.urls


@pytest.mark.parametrize("name", ["compare", "summary", "anova"])
def test_exports_while_the_text_prints(name, capsys, tmp_path):
    files = {fmt: tmp_path / f"out.{fmt}" for fmt in ("json", "csv", "markdown", "html")}
    argv = [*COMMANDS[name]]
    for fmt, path in files.items():
        argv += [f"--export-{fmt}", str(path)]
    text = _run(capsys, argv)
    assert text.strip() and not text.lstrip().startswith("{")  # the text still prints
    assert json.loads(files["json"].read_text())["command"] == name
    assert next(csv.reader(io.StringIO(files["csv"].read_text())))[0] == "table"
    assert _tables(files["markdown"].read_text())
    assert files["html"].read_text().lstrip().lower().startswith("<!doctype html>")
