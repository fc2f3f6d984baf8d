"""Print the analysis note and the headline table of a `benchlab report` page as text.

    python3 docs/examples/report_table.py report.html

What a reader sees at the top of the page, for docs/report.md to show beside
`benchlab compare` (standard library only: html.parser).
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser


class Headline(HTMLParser):
    """The page's `p.design` note and the rows of its `table.headline`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.note = ""
        self.rows: list[list[str]] = []
        self._in: str | None = None  # "note", "table" or None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "p" and "design" in classes:
            self._in = "note"
        elif tag == "table" and "headline" in classes:
            self._in = "table"
        elif self._in == "table" and tag == "tr":
            self.rows.append([])
        elif self._in == "table" and tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._in == "note":
            self._in = None
        elif tag == "table" and self._in == "table":
            self._in = None
        elif tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in == "note":
            self.note += data
        elif self._cell is not None:
            self._cell.append(data)


def main(path: str) -> None:
    page = Headline()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    if page.note:
        print(page.note)
        print()
    for row in page.rows:
        print(" | ".join(row))


if __name__ == "__main__":
    main(sys.argv[1])
