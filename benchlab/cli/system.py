"""`benchlab system show|tune|reset`: the settings that add noise to measurements, set for
benchmarking and put back exactly (docs/system.md)."""

from __future__ import annotations

import argparse

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab system show
  benchlab system show --cpus 1            # also: which IRQs may run on CPU 1
  benchlab system tune --cpus 1 --dry-run  # the writes, nothing written
  sudo benchlab system tune --cpus 1       # governor, turbo, perf sample rate, IRQs off CPU 1
  sudo benchlab system reset               # every value tune changed, put back
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "system", help="show, tune and reset the system settings that add noise",
        description="Show the settings that matter for noise (governor, turbo, SMT, ASLR, IRQ\n"
                    "affinity, isolated and nohz_full CPUs, perf_event_paranoid and sample\n"
                    "rate), tune them for benchmarking, and reset exactly what tune changed\n"
                    "(its previous values are kept in a state file). What this machine lacks\n"
                    "or refuses is reported with its reason.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=("show", "tune", "reset"), help="what to do")
    p.add_argument("--cpus", metavar="LIST",
                   help="the benchmark's CPUs, e.g. 1 or 2-3: tune moves the IRQs to the "
                        "other CPUs; show counts the IRQs that may run there")
    p.add_argument("--aslr", choices=("off",), help="tune: also switch ASLR off for the "
                   "whole machine (randomize_va_space = 0); a choice, see docs/env.md")
    p.add_argument("--dry-run", action="store_true",
                   help="tune, reset: print the writes; change nothing")
    p.add_argument("--state-file", metavar="FILE",
                   help="where tune keeps the previous values and reset reads them (default: "
                        "$XDG_STATE_HOME/benchlab/system-tune.json, else "
                        "~/.local/state/benchlab/system-tune.json)")
    output_options.add(p, plot=False)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.errors import UsageError
    from benchlab.runner import system_settings, system_tune

    cpus = None
    if args.cpus is not None:
        try:
            cpus = system_settings.parse_cpus(args.cpus)
        except ValueError as exc:
            raise UsageError(f"--cpus: {exc}") from None
    if args.action == "show" and (args.dry_run or args.aslr or args.state_file):
        raise UsageError("--dry-run, --aslr and --state-file go with tune or reset")
    if args.action == "reset" and (args.cpus or args.aslr):
        raise UsageError("reset puts back what tune saved; --cpus and --aslr go with tune")
    state_file = args.state_file or system_tune.default_state_file()
    output_options.check(args, [])
    if args.action == "show":
        result = system_tune.show(cpus=cpus)
    elif args.action == "tune":
        result = system_tune.tune(state_file, cpus=cpus, aslr_off=args.aslr == "off",
                                  dry_run=args.dry_run)
    else:
        result = system_tune.reset(state_file, dry_run=args.dry_run)
    output_options.emit(args, result, output_options.context(args, "system", []), [])
    if args.action == "reset" and result.unsupported:
        return 2  # some value could not be put back: the state file keeps it
    return 0
