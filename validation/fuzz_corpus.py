"""Run the whole fuzz corpus of tests/fuzz (issues 15, 19 and 20) and print tallies.

    python3 validation/fuzz_corpus.py [--timeout 60] [--only PREFIX] [--show N]

Every case runs in-process (benchlab.cli.main.main) with its files in a fresh
directory; the tallies are cases, tracebacks (an exception escaping main, exit 3
or "Traceback" on stderr), hangs (still running after --timeout seconds), exit
codes, and contract problems (exit 2 without exactly one `benchlab:` line). The
first cases of each problem are listed. tests/fuzz/test_fuzz_corpus.py runs a
deterministic sample of the same corpus in the test suite.

The groups: `file/` (malformed files of every format in every reading command;
`file/odd_*` are issue 20's: JSON integers past 4,300 digits and lone surrogates in
every JSON format, hex floats that overflow, CSV fields over 131,072 characters,
10^6-character tokens, UTF-16/UTF-32, Latin-1, NUL bytes, mixed newlines),
`special/` (FIFOs, sockets, directories, links to /dev/zero and /dev/urandom,
devices, and standard input of every kind), `history/` (history add of every odd
file), `toml/` (experiment mutations; `toml/odd_*` run --dry-run and the run itself
for env placeholders beside a build step), `option/` (option extremes) and `large/`
(valid inputs at large and extreme sizes).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fuzz"))

from corpus import all_cases  # noqa: E402
from harness import run_case  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--only", default="", help="run the cases whose id starts with this")
    parser.add_argument("--show", type=int, default=40, help="problem cases to list")
    args = parser.parse_args()
    cases = [c for c in all_cases() if c.id.startswith(args.only)]
    start = time.perf_counter()
    kinds: collections.Counter[str] = collections.Counter()
    codes: collections.Counter[str] = collections.Counter()
    groups: collections.Counter[str] = collections.Counter()
    problems = []
    slowest = (0.0, "")
    for n, case in enumerate(cases, 1):
        outcome = run_case(case, args.timeout)
        kinds[outcome.kind] += 1
        codes[str(outcome.code)] += 1
        groups[case.id.split("/", 1)[0]] += 1
        slowest = max(slowest, (outcome.seconds, case.id))
        if outcome.problem:
            problems.append(outcome)
        if n % 250 == 0:
            print(f"... {n}/{len(cases)} cases, {len(problems)} problems", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print(f"cases: {len(cases)} ({', '.join(f'{k} {v}' for k, v in sorted(groups.items()))})")
    print(f"tracebacks: {kinds['traceback']}")
    print(f"hangs > {args.timeout:g} s: {kinds['hang']}")
    print(f"wrong exit codes: {kinds['exit']}")
    print(f"exit 2 without exactly one benchlab: line: {kinds['stderr']}")
    print(f"exit codes: {', '.join(f'{k}: {v}' for k, v in sorted(codes.items()))}")
    print(f"time: {elapsed:.1f} s (slowest case {slowest[0]:.1f} s: {slowest[1]})")
    for outcome in problems[: args.show]:
        print(f"  {outcome.case.id}: {outcome.problem}")
    if len(problems) > args.show:
        print(f"  ... and {len(problems) - args.show} more")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
