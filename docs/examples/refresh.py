"""Re-run every example in docs/*.md and write its real output back into the page.

    python3 docs/examples/refresh.py            # rewrite the pages in place
    python3 docs/examples/refresh.py --check    # exit 1 if any page is out of date
    python3 docs/examples/refresh.py --emit DIR [--jobs N] PAGE.md ...
        # write DIR/PAGE.md.json ({"documented", "now"}) as each page is done, N pages
        # at a time (the test suite runs this in the background: tests/conftest.py)

Two kinds of example are refreshed:

- a ```console block: each line starting with "$ " is a shell command, run
  from the repository root with `benchlab` meaning `python3 -m benchlab` of
  this checkout (standard error merged into standard output, COLUMNS=80);
  the lines after it, up to the next "$ " line, are replaced by its output;
- a ```python block followed by a ```text block (only blank lines and a line
  ending in ":" between them): the Python code is run from the repository root
  and the text block is replaced by what it prints.

Nothing else in a page is touched.

The pages' scratch files are under /tmp/ as a reader would write them; each
refresh of a page runs its examples with /tmp/ standing for a new folder of
its own (and the folder's name shown as /tmp again), so two refreshes at once
(two checkouts' test runs) never share a file.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\s*$")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "80"
    env["PYTHONIOENCODING"] = "utf-8"
    return env


SCRATCH = "/tmp"  # where the pages' examples write their files, as the reader sees it


def _in(scratch: str | None, text: str) -> str:
    """An example's text with /tmp/ made the refresh's own folder."""
    return text if scratch is None else text.replace(SCRATCH + "/", scratch + "/")


def _out(scratch: str | None, text: str) -> str:
    """What an example printed, its own folder shown as /tmp again."""
    return text if scratch is None else text.replace(scratch, SCRATCH)


def run_shell(command: str, scratch: str | None = None) -> str:
    script = ("benchlab() { python3 -m benchlab \"$@\"; }\nexec 2>&1\n" + _in(scratch, command)
              + "\n")
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, text=True, check=False)
    return _out(scratch, done.stdout)


def run_python(code: str, scratch: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-c", _in(scratch, code)], cwd=ROOT, env=_env(),
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    return _out(scratch, done.stdout)


def _blocks(lines: list[str]) -> list[tuple[str, int, int]]:
    """(info string, index of the opening fence, index of the closing fence) of every block."""
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            out.append((m.group(1), i, j))
            i = j + 1
        else:
            i += 1
    return out


def _console(body: list[str], scratch: str | None = None) -> list[str]:
    out: list[str] = []
    for line in body:
        if line.startswith("$ "):
            out.append(line)
            text = run_shell(line[2:], scratch)
            out.extend(text.splitlines())
    return out


def refresh(text: str) -> str:
    """The page `text` with every example's output as it is now (its /tmp/ files in a
    folder of this refresh's own, removed after). The folder's name is hex digits after
    the prefix: tempfile's names may hold "_", which Markdown output escapes ("\\_"), and
    the escaped path would not be put back as /tmp/ in the page."""
    import secrets
    import shutil
    import tempfile

    while True:
        scratch = os.path.join(tempfile.gettempdir(), f"benchlab-docs-{secrets.token_hex(6)}")
        try:
            os.mkdir(scratch, 0o700)
            break
        except FileExistsError:
            continue
    try:
        return _refresh(text, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _refresh(text: str, scratch: str) -> str:
    lines = text.split("\n")
    blocks = _blocks(lines)
    replacements: list[tuple[int, int, list[str]]] = []
    for k, (info, start, end) in enumerate(blocks):
        if info == "console":
            replacements.append((start + 1, end, _console(lines[start + 1:end], scratch)))
        elif info == "python" and k + 1 < len(blocks) and blocks[k + 1][0] == "text":
            between = [x.strip() for x in lines[end + 1:blocks[k + 1][1]]]
            if all(x == "" or x.endswith(":") for x in between):
                output = run_python("\n".join(lines[start + 1:end]), scratch)
                _, s2, e2 = blocks[k + 1]
                replacements.append((s2 + 1, e2, output.splitlines()))
    for start, end, new in reversed(replacements):
        lines[start:end] = new
    return "\n".join(lines)


def emit(pages: list[str], folder: Path, jobs: int) -> None:
    """Refresh `pages`, `jobs` at a time, writing each one's documented and current text to
    FOLDER/PAGE.json as soon as it is done (written whole, then renamed into place)."""
    import json
    from concurrent.futures import ThreadPoolExecutor

    def one(page: str) -> None:
        text = (DOCS / page).read_text(encoding="utf-8")
        doc = {"documented": text, "now": refresh(text)}
        part = folder / f"{page}.json.part"
        part.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(part, folder / f"{page}.json")

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for done in [pool.submit(one, page) for page in pages]:
            done.result()


def main(argv: list[str]) -> int:
    if argv[:1] == ["--emit"]:
        jobs = int(argv[3]) if argv[2:3] == ["--jobs"] else 1
        pages = argv[4:] if argv[2:3] == ["--jobs"] else argv[2:]
        emit(pages, Path(argv[1]), jobs)
        return 0
    check = "--check" in argv
    stale = []
    for page in sorted(DOCS.glob("*.md")):
        old = page.read_text(encoding="utf-8")
        new = refresh(old)
        if new != old:
            stale.append(page.name)
            if not check:
                page.write_text(new, encoding="utf-8")
    if stale:
        print(("out of date: " if check else "refreshed: ") + ", ".join(stale))
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
