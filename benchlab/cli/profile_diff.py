"""`benchlab profile-diff OLD NEW`: which function's instruction count changed, from two
cachegrind or callgrind out files (docs/profile-diff.md)."""

from __future__ import annotations

import argparse

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab profile-diff callgrind.out.old callgrind.out.new
  benchlab profile-diff old.cg new.cg --event Dr --top 5
  benchlab profile-diff callgrind.out.old callgrind.out.new --rank inclusive --json
"""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (all) or more")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "profile-diff", help="rank functions by their change between two callgrind/cachegrind "
                             "profiles",
        description="Read two cachegrind or callgrind out files and rank the functions\n"
                    "(file:function) by how much their count of an event (default Ir, the\n"
                    "instructions executed) changed, absolute and relative; exclusive (own)\n"
                    "counts, and inclusive ones (own plus calls out) for callgrind files.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", metavar="OLD", help="the profile before (cachegrind.out.*, "
                                              "callgrind.out.*)")
    p.add_argument("new", metavar="NEW", help="the profile after")
    p.add_argument("--event", default="Ir",
                   help="the event to rank by (default Ir; the file's events: line lists "
                        "the others)")
    p.add_argument("--rank", choices=["exclusive", "inclusive"], default="exclusive",
                   help="rank by the change of the exclusive (default) or inclusive count "
                        "(callgrind only)")
    p.add_argument("--top", type=_positive, default=10, metavar="N",
                   help="show the N functions that changed most (default 10; 0: all)")
    output_options.add(p, plot=False)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.data.profile_diff import diff
    from benchlab.data.profiles import read_profile

    inputs = [args.old, args.new]
    output_options.check(args, inputs)
    old, new = read_profile(args.old), read_profile(args.new)
    result = diff(old, new, event=args.event, ranking=args.rank, top=args.top or None)
    output_options.emit(args, result, output_options.context(args, "profile-diff", inputs),
                        inputs)
    return 0
