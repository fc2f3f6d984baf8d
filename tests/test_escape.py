"""The escaping helpers: terminal text without controls, Markdown that renders as literal text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from benchlab import escape
from benchlab.escape import markdown, terminal, terminal_lines

HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a|b", "x\ny", "x\r\ny",
           "\x1b]0;pwned\x07", "\x1b[31mred", "`tick`", "``a`b``", "**bold**", "_em_", "~~del~~",
           "[link](http://x.org)", "![img](x.png)", "# heading", "- item", "1. item", "> quote",
           "&amp; &lt;", "$x^2$", "a\\|b", "trailing\\", "    code", "---", "===", "<!-- c -->",
           "http://evil.example www.evil.example", "\u202eevil\u202c", "\x9b31m", "tab\there",
           "[^note]", "<div>x</div>", "|", "\\"]
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def gfm() -> MarkdownIt:
    """CommonMark with GFM tables and strikethrough, raw HTML allowed (so a leak would show)."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def test_terminal_leaves_ordinary_names_alone():
    for name in ("current", "buf_work", "gcc-12 -O2", "size=10", "C:\\dir\\f.txt", "émoji ✅",
                 "a|b", "<x>"):
        assert terminal(name) == name


def test_terminal_shows_every_control_as_a_visible_escape():
    assert terminal("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert terminal("x\ny\r\tz") == "x\\ny\\r\\tz"
    assert terminal("\x7f\x9b\x00") == "\\x7f\\x9b\\x00"
    assert terminal("\u202eevil\u2028") == "\\u202eevil\\u2028"
    assert terminal_lines(["a\x1bb", "c\nd"]) == "a\\x1bb\nc\\nd"


@given(st.text())
def test_terminal_output_has_no_control_and_is_idempotent(text):
    out = terminal(text)
    assert CONTROL.search(out) is None
    assert terminal(out) == out


def test_markdown_leaves_plain_names_readable():
    for name in ("current", "buf_work", "snake_case_name", "gcc-12", "-1.5 ms", "1.02 s",
                 "size=10", "émoji"):
        assert markdown(name) == name


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_renders_as_the_literal_name_in_one_cell(name):
    table = f"| a | b | c |\n|---|---|---|\n| x | {markdown(name)} | y |\n"
    tokens = gfm().parse(table)
    rows = [i for i, t in enumerate(tokens) if t.type == "tr_open"]
    assert len(rows) == 2
    cells = [t for t in tokens if t.type == "td_open"]
    assert len(cells) == 3  # no column added, none lost
    rendered = gfm().render(table)
    assert "<script" not in rendered and "<img" not in rendered and "<div" not in rendered
    for tag in ("<em>", "<strong>", "<code>", "<a ", "<s>", "<del>", "<h1>", "<li>", "<pre>"):
        assert tag not in rendered
    body = tokens[rows[1]:]
    inline = [t for t in body if t.type == "inline"][1]  # the middle cell
    text = "".join(c.content for c in inline.children)
    assert text.strip() == terminal(name).strip()  # the name itself, controls shown escaped


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_in_a_list_item_starts_no_block(name):
    rendered = gfm().render(f"- {markdown(name)}\n")
    assert rendered.count("<li>") == 1 and "<ul>\n<li>" in rendered
    for tag in ("<h1>", "<ol>", "<blockquote>", "<pre>", "<hr", "<script", "<img", "<a "):
        assert tag not in rendered.replace("<ul>\n<li>", "", 1)


@given(st.text(alphabet=st.sampled_from(list("ab |`*_[]<>&\\#-+.!$~():/w@\n\x1b")), max_size=12))
def test_markdown_cell_never_splits_or_leaks(name):
    table = f"| a | b |\n|---|---|\n| {markdown(name)} | y |\n"
    tokens = gfm().parse(table)
    assert sum(t.type == "td_open" for t in tokens) == 2
    assert sum(t.type == "tr_open" for t in tokens) == 2
    rendered = gfm().render(table)
    assert "<em>" not in rendered and "<code>" not in rendered and "<a " not in rendered


def test_github_renderer_when_installed():
    """GitHub's own renderer (cmark-gfm, with its extended autolinks), if cmarkgfm is present."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    for name in HOSTILE:
        page = cmarkgfm.github_flavored_markdown_to_html(
            f"| a | b |\n|---|---|\n| {markdown(name)} | y |\n",
            options=Options.CMARK_OPT_UNSAFE)
        assert page.count("<td>") == 2, name
        assert "<script" not in page and "<img" not in page and "<a " not in page, name
        assert "<em>" not in page and "<code>" not in page and "<del>" not in page, name


@pytest.mark.parametrize(("cell", "shown"), [
    ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"), ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
    ("-2+3", "'-2+3"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-1", "-1"), ("+0.5", "+0.5"), ("-inf", "-inf"), ("1e3", "1e3"), ("old", "old"),
    ("a=b", "a=b"), ("", ""), (1.5, 1.5), (-3, -3), (None, None),
])
def test_spreadsheet_cell_guards_formulas_and_keeps_numbers(cell, shown):
    from benchlab.escape import spreadsheet_cell

    assert spreadsheet_cell(cell) == shown


def test_token_quotes_short_tokens_as_repr_and_cuts_long_ones_with_their_length():
    assert escape.token("1.5x") == "'1.5x'"
    assert escape.token("it's") == '"it\'s"'
    cut = escape.token("9" * 1_000_000)
    assert cut == "'" + "9" * 60 + "\u2026' (1,000,000 characters)"
    assert escape.token("a" * 61, limit=60).endswith("\u2026' (61 characters)")
    assert escape.token("a" * 60) == repr("a" * 60)
    assert escape.shorten("b" * 100, 10) == "b" * 10 + "\u2026 (100 characters)"
    assert escape.shorten("short") == "short"


def test_bounded_line_keeps_the_start_and_the_end_of_a_long_message():
    message = "x.csv:3: " + "n" * 100_000 + " is not a number"
    line = escape.bounded_line(message)
    assert len(line) < 1100
    assert line.startswith("x.csv:3: nnn") and line.endswith("n is not a number")
    assert "characters cut" in line
    assert escape.bounded_line("short message") == "short message"


def test_an_error_message_grown_from_data_is_one_readable_line():
    from benchlab.errors import InputError

    error = InputError("no column 'v' (columns: " + ", ".join(["c" * 5000] * 200) + ")",
                       "big.csv")
    shown = str(error)
    assert shown.startswith("big.csv: no column 'v' (columns: ccc") and shown.endswith("c)")
    assert len(shown) < 1100 and "\n" not in shown
