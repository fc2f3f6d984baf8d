"""`benchlab env`: the machine as the runner records it, and its noise warnings with fixes."""

from __future__ import annotations

import argparse
import sys

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab env
  benchlab env examples/experiments/sleep.toml     # also checks the file's CPU pinning
  benchlab env --json
  benchlab env --store sleep.db                    # what a store recorded, session by session
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "env", help="pre-flight noise check: governor, turbo, load, ASLR, pinning",
        description="Describe this machine (CPU, cores, governor, turbo, kernel, load, ASLR,\n"
                    "environment size, versions) and warn about what adds noise to measurements,\n"
                    "each warning with the command that fixes it. `benchlab run` does the same\n"
                    "check and records it in the store.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", nargs="?",
                   help="an experiment file whose cpus = [...] pinning to check")
    p.add_argument("--store", help="show the environment a store recorded instead")
    p.add_argument("--strict", action="store_true", help="exit 1 when there is a warning")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.runner import environment
    from benchlab.runner.render import environment_text

    if args.store:
        from benchlab.runner.store import Store

        if args.experiment:
            from benchlab.errors import UsageError

            raise UsageError("give an experiment file or --store, not both")
        store = Store.open(args.store)
        try:
            sessions = store.sessions()
        finally:
            store.close()
        if args.json:
            output_options.dump_json(args, "env", {"store": args.store, "sessions": sessions},
                                     [args.store])
            return 0
        from benchlab.escape import terminal  # a stored command line: no controls

        for s in sessions:
            print(terminal(f"session {s['id']}: {s['started']} .. {s['finished'] or '(killed)'}, "
                           f"{s['outcome'] or 'interrupted'}: {' '.join(s['argv'])}"))
            warnings = []
            for w in s["warnings"]:
                message, _, fix = w.partition(" (fix: ")
                warnings.append(environment.Warning_("", message, fix[:-1]))
            text = environment_text(s["environment"], warnings)
            sys.stdout.write("".join(f"  {line}\n" if line else "\n"
                                     for line in text.rstrip().split("\n")))
        return 1 if args.strict and any(s["warnings"] for s in sessions) else 0
    cpus = None
    if args.experiment:
        from benchlab.runner.config import load_experiment

        cpus = load_experiment(args.experiment).cpus
    env = environment.collect()
    warnings = environment.check(env, cpus)
    if args.json:
        document = {"environment": env,
                    "warnings": [{"key": w.key, "message": w.message, "fix": w.fix}
                                 for w in warnings]}
        output_options.dump_json(args, "env", document,
                                 [args.experiment] if args.experiment else [])
    else:
        sys.stdout.write(environment_text(env, warnings))
    return 1 if args.strict and warnings else 0
