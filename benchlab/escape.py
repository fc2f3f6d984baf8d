"""Names from data made inert in reports: visible escapes on a terminal, literal text in Markdown.

A name, label, unit, command or message that a report shows may come from a
data file or an experiment file, and such a file can hold anything: an ESC
sequence that recolours, retitles or clears the terminal (ANSI CSI, OSC), a
newline that forges a report line, a `|` that adds a Markdown table column, a
`<script>` or `<img onerror>` that a Markdown renderer passes through as HTML.

- `terminal` shows every control character as a visible escape (``\\x1b``,
  ``\\n``, ``\\u202e``): C0, DEL, C1, the Unicode bidirectional overrides and
  the line and paragraph separators. The text reports pass every line through
  it (`terminal_lines`), so nothing from data reaches the terminal as a control.
- `plot_text` does the same for a matplotlib title, and keeps ``$`` literal.
- `markdown` does the same, then escapes what Markdown (GitHub-flavoured:
  tables, strikethrough, extended autolinks, math) would interpret, so the
  name renders as the literal text in one table cell.

- `token` quotes a data-borne token for an error message, cut to a readable length
  with an ellipsis and its total length (a 10^6-digit number is not echoed whole);
  `bounded_line` keeps any whole message to a readable length the same way.

- `spreadsheet_cell` keeps a CSV/TSV text cell from being read as a formula by a
  spreadsheet (OWASP's CSV injection advice): a text that begins with ``=``,
  ``+``, ``-``, ``@``, a tab or a carriage return and is not a number gets a
  leading ``'``, which spreadsheets show as text; numbers (``-1``, ``+0.5``,
  ``-inf``) stay numbers.

Ordinary names (letters, digits, spaces, ``-``, ``.``, ``/``, ``=``, non-ASCII
letters) come out unchanged by `terminal`: FreeBSD ministat's byte-exact output
keeps its bytes. JSON keeps names exactly as recorded (its encoder quotes); CSV
and TSV keep them too, but for the formula guard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# C0 controls, DEL, C1 controls; the bidi marks, embeddings, overrides and isolates
# (U+061C, U+200E/F, U+202A..E, U+2066..9: "Trojan Source" reordering); the line and
# paragraph separators U+2028/9 (a line break to some terminals and editors).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal(text: str) -> str:
    """`text` with each control character replaced by a visible escape (one line, inert).

    Why visible rather than dropped: two names that differ only by a control
    character stay two different names on screen.
    """
    if _CONTROL.search(text) is None:  # the usual case: nothing to copy
        return text
    return _CONTROL.sub(_visible, text)


def plot_text(text: str) -> str:
    """`text` for a matplotlib title or label: controls escaped, every ``$`` literal.

    matplotlib reads the text between two ``$`` as mathtext: a name holding
    ``$\\frac{x$`` would fail to draw (a ValueError) instead of showing itself.
    """
    return terminal(text).replace("$", r"\$")


def terminal_lines(lines: Iterable[str]) -> str:
    """The lines joined by newlines, each made inert by `terminal`.

    A newline inside one element came from data (a name, a message quoting one)
    and is shown as ``\\n`` rather than starting a line of its own.
    """
    return "\n".join(terminal(line) for line in lines)


# Backslash first (so the escapes added below are not escaped again); then the ASCII
# punctuation GFM gives a meaning anywhere in a line: code spans, emphasis, links and
# images, table cells, strikethrough, math ($ on GitHub).
_MD_PUNCT = re.compile(r"([\\`*\[\]|~$])")
# "_" emphasises only from the edge of a word: a run of it between two letters or digits
# (snake_case) can neither open nor close emphasis (GFM spec 6.2) and is left as it is.
_MD_UNDERSCORE = re.compile(r"_+")
_MD_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
# Extended autolinks (GFM spec 6.9): "www." and "scheme://" start a link by themselves.
_MD_AUTOLINK = re.compile(r"(?i)(www)\.|(://)")
# What starts a block where a string starts a line (a list item's text, a note):
# a heading, a list item, a thematic break.
_MD_BLOCK = re.compile(r"^(#{1,6}|[-+]|\d{1,9}[.)])(?=[ \t-]|$)")


def _autolink(match: re.Match[str]) -> str:
    return f"{match.group(1)}\\." if match.group(1) else "\\://"


def _underscores(match: re.Match[str]) -> str:
    """A run of "_" as it is inside a word, escaped where it touches anything else."""
    text, start, end = match.string, match.start(), match.end()
    inside = (start > 0 and text[start - 1].isalnum()
              and end < len(text) and text[end].isalnum())
    return match.group() if inside else "\\_" * (end - start)


def _block(match: re.Match[str]) -> str:
    """A block marker made text: "\\# h", "\\- x", "1\\. x" (before a digit, "\\" is literal)."""
    mark = match.group()
    return f"{mark[:-1]}\\{mark[-1]}" if mark[0].isdigit() else f"\\{mark}"


def markdown(text: str) -> str:
    """`text` as literal GitHub-flavoured Markdown: one line, no markup, no raw HTML.

    Controls become visible escapes first (as on the terminal: a newline is
    ``\\n``, so "x<newline>y" and "x y" stay distinct); then ``\\ ` * [ ] | ~ $``
    and ``_`` at the edge of a word (not inside snake_case) are backslash-escaped
    and ``& < >`` become entities, so a name stays in its table cell and renders
    as the characters it holds. A leading space is an entity so that it cannot
    indent a block into code; a leading list or heading marker is escaped.
    E-mail addresses are still auto-linked by GitHub (cmark-gfm links them
    whatever is escaped), harmlessly, as mailto: links.
    """
    text = _MD_PUNCT.sub(r"\\\1", terminal(text))
    text = _MD_UNDERSCORE.sub(_underscores, text)
    for char, entity in _MD_ENTITIES:
        text = text.replace(char, entity)
    text = _MD_AUTOLINK.sub(_autolink, text)
    text = _MD_BLOCK.sub(_block, text)
    if text.startswith(" "):
        text = "&#32;" + text[1:]
    return text


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: object) -> object:
    """A text cell a spreadsheet would evaluate (``=HYPERLINK(…)``, ``+cmd|…``, ``@SUM(…)``)
    with a leading ``'`` so it shows as text; numbers and other values unchanged."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value  # a number written as text ("-1", "+0.5"): a spreadsheet reads a number


TOKEN_CHARS = 60  # a token in an error message: enough to recognise it
LINE_CHARS = 1000  # a whole error message: what a terminal line can usefully show


def shorten(text: str, limit: int = TOKEN_CHARS) -> str:
    """`text` cut to its first `limit` characters plus an ellipsis and its total length
    ("111…" (1,000,000 characters)), so a giant token cannot make a giant message."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def token(text: object, limit: int = TOKEN_CHARS) -> str:
    """`text` quoted as `repr` quotes it, cut as `shorten` cuts: `'1111…' (1,000,000
    characters)`; the one way a reader shows a bad token, a name or a label in an error
    (a value that is not a string is shown by its repr, cut the same way)."""
    if not isinstance(text, str):
        return shorten(repr(text), limit)
    if len(text) <= limit:
        return repr(text)
    quoted = repr(text[:limit])
    return f"{quoted[:-1]}…{quoted[-1]} ({len(text):,} characters)"


def bounded_line(text: str, limit: int = LINE_CHARS) -> str:
    """`text` kept to about `limit` characters: its start and its end (where a message says
    what is wrong) with the middle replaced by a visible count of what was cut."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 6 // 10], text[-(limit * 3 // 10):]
    return f"{head}… ({len(text) - len(head) - len(tail):,} characters cut) …{tail}"
