"""`benchlab profile-diff OLD NEW | STORE`: which function's instruction count changed, from two
cachegrind or callgrind out files or a store made with counter = "callgrind"
(docs/profile-diff.md)."""

from __future__ import annotations

import argparse
import os

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab profile-diff callgrind.out.old callgrind.out.new
  benchlab profile-diff old.cg new.cg --event Dr --top 5
  benchlab profile-diff callgrind.out.old callgrind.out.new --rank inclusive --json
  benchlab profile-diff counts.db                       # a store: baseline vs the other
  benchlab profile-diff counts.db --old base --new fast --rank inclusive
  benchlab profile-diff sizes.db --new 'fast n=20000'  # a store with factors: one cell
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
        description="Read two cachegrind or callgrind out files (or a store made with\n"
                    "counter = \"callgrind\": the median profile of two alternatives) and\n"
                    "rank the functions (file:function) by how much their count of an event\n"
                    "(default Ir, the instructions executed) changed, absolute and relative;\n"
                    "exclusive (own) counts, and inclusive ones (own plus calls out) for\n"
                    "callgrind profiles.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="OLD NEW | STORE",
                   help="the profile before and the one after (cachegrind.out.*, "
                        "callgrind.out.*), or one store made with counter = \"callgrind\"")
    p.add_argument("--old", dest="old_alternative", metavar="ALTERNATIVE",
                   help="with a store: the alternative before (default: the baseline), or "
                        "with factors a cell: 'ALTERNATIVE FACTOR=LEVEL ...' (as the "
                        "store's case column names it)")
    p.add_argument("--new", dest="new_alternative", metavar="ALTERNATIVE",
                   help="with a store: the alternative after (default: the one other "
                        "alternative with profiles), or a cell as for --old; two "
                        "alternatives of a store with factors are compared per factor "
                        "combination")
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
    from benchlab.errors import UsageError

    inputs = list(args.inputs)
    store = len(inputs) == 1
    if len(inputs) > 2:
        raise UsageError(f"profile-diff takes two out files or one store, not {len(inputs)} "
                         "inputs")
    if not store and (args.old_alternative or args.new_alternative):
        raise UsageError("--old and --new choose a store's alternatives; with two out files "
                         "the first is old, the second new")
    output_options.check(args, inputs)
    if store:
        from benchlab.data.store_design import is_store
        from benchlab.data.store_profiles import read_pairs
        from benchlab.errors import InputError

        if not os.path.lexists(inputs[0]):
            raise InputError("no such file", inputs[0])
        if not is_store(inputs[0]):
            raise InputError("one input must be a store made with counter = \"callgrind\" "
                             "(two out files are OLD NEW)", inputs[0])
        pairs, per_cell = read_pairs(inputs[0], args.old_alternative, args.new_alternative)
        if per_cell:  # a store with factors: one diff per factor combination
            from benchlab.data.profile_diff import ProfileDiffs

            result = ProfileDiffs(inputs[0], tuple(k for k, _ in pairs[0].old.factors), tuple(
                diff(p.old, p.new, event=args.event, ranking=args.rank, top=args.top or None)
                for p in pairs))
            output_options.emit(args, result,
                                output_options.context(args, "profile-diff", inputs), inputs)
            return 0
        old, new = pairs[0].old, pairs[0].new
    else:
        from benchlab.data.profiles import read_profile

        old, new = read_profile(inputs[0]), read_profile(inputs[1])
    result = diff(old, new, event=args.event, ranking=args.rank, top=args.top or None)
    output_options.emit(args, result, output_options.context(args, "profile-diff", inputs),
                        inputs)
    return 0
