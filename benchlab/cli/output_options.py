"""The output options every analysis command shares, and the one way results leave a command.

`--format text|markdown|json|csv|html` (`--json` = `--format json`) chooses what
goes to standard output or to `-o FILE`; `--export-json F`, `--export-markdown
F`, `--export-csv F` and `--export-html F` write more formats while the main one
still prints (as hyperfine does); `--plot F` draws the result's figure. Every
file is written through benchlab.output_file: a temporary file renamed into
place, never over a store or one of the command's inputs unless `--overwrite`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from benchlab.errors import UsageError
from benchlab.result import RenderContext, has_renderer, render

FORMATS = ("text", "markdown", "json", "csv", "html", "bmf")
EXPORTS = (("json", "--export-json"), ("markdown", "--export-markdown"),
           ("csv", "--export-csv"), ("html", "--export-html"))


def add(p: argparse.ArgumentParser, *, plot: bool = True,
        output: bool = True) -> argparse._ArgumentGroup:
    """The output group: --format, --json, -o (unless `output` is False: `run`'s -o is its
    store), --export-*, --plot, --overwrite."""
    g = p.add_argument_group("output")
    g.add_argument("--format", choices=FORMATS, default="text",
                   help="what to print: text (default), markdown, json, csv (tidy rows, one "
                        "per estimate), html (a self-contained section) or bmf (Bencher Metric "
                        "Format: compare and summary)")
    g.add_argument("--json", action="store_const", const="json", dest="format",
                   help="same as --format json")
    if output:
        g.add_argument("-o", "--output", metavar="FILE",
                       help="write the output to FILE instead of standard output")
    for fmt, flag in EXPORTS:
        g.add_argument(flag, metavar="FILE", dest=f"export_{fmt}",
                       help=f"also write the {fmt} output to FILE")
    if plot:
        g.add_argument("--plot", metavar="FILE", dest="figure",
                       help="draw the result's figure to FILE (.png, .svg or .pdf)")
    add_overwrite(g, "write even over a benchlab store or one of the inputs")
    return g


def add_overwrite(group, text: str) -> None:
    """`--overwrite` (dest `force`), and `--force`, its older name, accepted but not
    offered: completion of `--for` then gives `--format` alone."""
    import argparse

    group.add_argument("--overwrite", dest="force", action="store_true", help=text)
    group.add_argument("--force", dest="force", action="store_true", help=argparse.SUPPRESS)


def targets(args: argparse.Namespace) -> list[str]:
    """Every file the command will write (checked before the work starts)."""
    files = [getattr(args, "output", None), getattr(args, "figure", None)]
    files += [getattr(args, f"export_{fmt}", None) for fmt, _ in EXPORTS]
    return [f for f in files if f]


def check(args: argparse.Namespace, inputs: list[str]) -> None:
    """Refuse unwritable targets, a store or an input as target, a bad figure extension,
    and one file named twice, before any work is done."""
    from benchlab.output_file import check_target

    files = targets(args)
    if len(set(files)) != len(files):
        raise UsageError("one file is named by two output options")
    for path in files:
        check_target(path, inputs, force=args.force)
    if getattr(args, "figure", None):
        from benchlab.report.figures import check_path, need_matplotlib

        check_path(args.figure)
        need_matplotlib()  # say so before the work, not after the text has printed


def context(args: argparse.Namespace, command: str, inputs: list[str],
            notes: tuple[str, ...] = (), **options: Any) -> RenderContext:
    """What renderers need beyond the result: provenance (inputs hashed) and options."""
    from benchlab.conninfo import masked
    from benchlab.report.envelope import file_sha256

    argv = tuple(masked(a) for a in (getattr(args, "argv", None) or sys.argv[1:]))
    hashed = tuple((path, file_sha256(path)) for path in inputs)
    return RenderContext(command=command, argv=argv, inputs=hashed, notes=notes,
                         options=options)


def rendered(result: Any, fmt: str, ctx: RenderContext) -> str:
    """`result` in `fmt` as the text that is printed or written."""
    if not has_renderer(fmt, result) and not (fmt == "csv" and has_renderer("rows", result)):
        raise UsageError(f"--format {fmt} is not available for {ctx.command or 'this'} "
                         "results yet")
    if fmt == "json":
        from benchlab.report.envelope import envelope

        return json.dumps(envelope(render(result, "json", ctx), ctx), indent=2,
                          allow_nan=False) + "\n"
    if fmt == "bmf":  # bare: Bencher's json adapter reads the document as it is
        return json.dumps(render(result, "bmf", ctx), indent=2, allow_nan=False) + "\n"
    text = render(result, fmt, ctx)
    return text if text.endswith("\n") or not text else text + "\n"


def emit(args: argparse.Namespace, result: Any, ctx: RenderContext,
         inputs: list[str] = (), *, stdout: bool = False) -> None:
    """Print or write the main format (printed with `stdout`, even with -o: design's plan
    file is -o), then the exports and the figure."""
    from benchlab.output_file import write_text

    text = rendered(result, args.format, ctx)
    exports = [(fmt, getattr(args, f"export_{fmt}", None)) for fmt, _ in EXPORTS]
    pending = [(path, rendered(result, fmt, ctx)) for fmt, path in exports if path]
    if getattr(args, "output", None) and not stdout:
        write_text(args.output, text, inputs, force=args.force)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    for path, body in pending:
        write_text(path, body, inputs, force=args.force)
    if getattr(args, "figure", None):
        from benchlab.report.figures import has_figure, write_figure

        if not has_figure(result):
            raise UsageError(f"--plot: no figure for {ctx.command or 'this'} results yet")
        write_figure(result, args.figure, ctx, inputs=tuple(inputs), force=args.force)
