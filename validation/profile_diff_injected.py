"""profile-diff names an injected regression's function first (issue 23 part 5).

What it does
    Writes a deterministic C program of ten functions (f0..f4 called by main, each
    calling one of f5..f9; each a loop of its own length and body, `noinline`,
    built with `cc -O1 -g`) and measures each function's instructions per loop
    iteration once, from a callgrind profile of the unchanged build. Then, in each
    of 20 seeded cases (numpy default_rng(seed)):

    - a regression: extra iterations of one function's loop, the function drawn at
      random, the extra work drawn uniformly between 1% and 5% of the program's
      instructions;
    - a decoy: another function, drawn at random, changed by up to a third of the
      regression's work (more or fewer iterations: sometimes an improvement), so the
      ranking must tell a larger change from a smaller one rather than find the
      only one;

    and runs a real experiment through `benchlab run`'s runner: alternatives `base`
    and `regressed` each built in its build step with `-DEXTRA<k>=...`,
    `metrics = ["instructions"]`, `counter = "callgrind"`, 3 counted executions of
    each (the store keeps their profiles). `benchlab profile-diff STORE --json`
    (the median profile of each alternative) must rank the regressed function
    first by its exclusive change. The script also says where the inclusive
    ranking puts it ("5 =0": four functions above it, none tied): a function's
    change is also in the inclusive count of each caller up to main and the C
    library's start-up functions (4 of them), which hold the decoy's change too,
    so they rank above it when the decoy adds work and below when it removes
    some, and a caller of the regressed function ties with it. And how close the
    measured extra instructions are to the injected estimate (iterations times
    the instructions per iteration measured on the unchanged build).

Checks (the script exits 1 when one fails)
    - the injected function is ranked first (exclusive) in every case.

Run
    nice -n 10 python3 validation/profile_diff_injected.py   # 20 cases: 11 min at load 12
    python3 validation/profile_diff_injected.py --cases 5 --seed 100  # other seeds
(last output: validation/profile_diff_injected.out.txt)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.cli.main import main as benchlab  # noqa: E402
from benchlab.data.profiles import read_profile  # noqa: E402
from benchlab.runner.session import run_experiment  # noqa: E402

FUNCTIONS = 10
LENGTHS = (40000, 25000, 60000, 15000, 30000, 20000, 50000, 10000, 35000, 45000)
BODIES = (  # one loop body per function: s and i are longs
    "s = (s * 31 + i) % 1000003;",
    "s ^= (i << 3) + (s >> 5);",
    "s = s * 7 + (i & 15);",
    "s += (i * i) % 13;",
    "s = (s + i) * 3 % 65521;",
    "s -= (s >> 2) - i;",
    "s = (s ^ i) + 11;",
    "s += i % 5 == 0 ? i : 1;",
    "s = (s * 5 + (i >> 1)) % 99991;",
    "s += (s & 7) * i;",
)


def program() -> str:
    """The C source: f0..f4 each call f<k+5>; EXTRA<k> adds iterations to f<k>'s loop."""
    lines = ["#include <stdio.h>", ""]
    for k in range(FUNCTIONS):
        lines += [f"#ifndef EXTRA{k}", f"#define EXTRA{k} 0", "#endif"]
    for k in reversed(range(FUNCTIONS)):
        call = f" + f{k + 5}(n / 2)" if k < 5 else ""
        lines += [f"__attribute__((noinline)) static long f{k}(long n) {{",
                  "    long s = 1;",
                  f"    for (long i = 0; i < n + EXTRA{k}; i++) {BODIES[k]}",
                  f"    return s{call};", "}"]
    calls = " + ".join(f"f{k}({LENGTHS[k]})" for k in range(5))
    lines += ["int main(void) {", f"    printf(\"%ld\\n\", {calls});", "    return 0;", "}"]
    return "\n".join(lines) + "\n"


def iterations(k: int) -> int:
    """How many times f<k>'s loop runs in the unchanged program (f5..f9 get n / 2 of their
    caller's length)."""
    return LENGTHS[k] if k < 5 else LENGTHS[k - 5] // 2


def per_iteration(folder: Path) -> tuple[np.ndarray, int]:
    """Each function's exclusive instructions per loop iteration, and the program's total,
    from one callgrind profile of the unchanged build."""
    exe = folder / "unchanged"
    subprocess.run(["cc", "-O1", "-g", "-o", str(exe), str(folder / "prog.c")], check=True)
    out = folder / "callgrind.unchanged"
    subprocess.run(["valgrind", "-q", "--tool=callgrind", f"--callgrind-out-file={out}",
                    str(exe)], check=True, capture_output=True)
    profile = read_profile(str(out))
    by_name = {name.rpartition(":")[2]: costs[0] for name, costs in profile.exclusive.items()}
    return (np.array([by_name[f"f{k}"] / iterations(k) for k in range(FUNCTIONS)]),
            profile.totals[0])


def experiment(folder: Path, extra: dict[int, int]) -> Path:
    flags = "".join(f'"-DEXTRA{k}={v}", ' for k, v in sorted(extra.items()))
    text = "\n".join([
        "executions = 3", 'metrics = ["instructions"]', 'counter = "callgrind"', "",
        "[alternatives.base]",
        'build = ["cc", "-O1", "-g", "-o", "prog-base", "prog.c"]',
        'command = ["./prog-base"]', "",
        "[alternatives.regressed]",
        f'build = ["cc", "-O1", "-g", {flags}"-o", "prog-regressed", "prog.c"]',
        'command = ["./prog-regressed"]', ""])
    path = folder / "exp.toml"
    path.write_text(text)
    return path


def profile_diff(db: str, *options: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = benchlab(["profile-diff", db, "--json", "--top", "0", *options])
    if code != 0:
        raise SystemExit(f"profile-diff {db} exited {code}")
    return json.loads(out.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1, help="the first case's seed")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("needs valgrind and cc (apt-get install valgrind gcc)")
        return 2
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="profile-diff-injected-"))
    try:
        with open("/proc/loadavg") as handle:
            load = handle.read().split()[0]
        (work / "prog.c").write_text(program())
        cost, total = per_iteration(work)
        print(f"profile-diff of an injected regression; load {load}")
        print(f"program: {FUNCTIONS} functions, {total:,} instructions; instructions per "
              f"iteration: {', '.join(f'f{k} {c:.2f}' for k, c in enumerate(cost))}")
        print(f"\n{'seed':>4}  {'regressed':>9}  {'share':>6}  {'decoy':>5}  {'decoy share':>11}"
              f"  {'rank':>4}  {'incl. rank':>10}  {'measured/injected':>17}  first")
        first, measured = 0, []
        for seed in range(args.seed, args.seed + args.cases):
            rng = np.random.default_rng(seed)
            k, decoy = (int(v) for v in rng.choice(FUNCTIONS, size=2, replace=False))
            share = float(rng.uniform(0.01, 0.05))
            decoy_share = float(rng.uniform(-1, 1)) * share / 3
            extra = {k: round(share * total / cost[k])}
            extra[decoy] = max(round(decoy_share * total / cost[decoy]), 1 - iterations(decoy))
            folder = work / f"case{seed}"
            folder.mkdir()
            shutil.copy(work / "prog.c", folder / "prog.c")
            db = str(folder / "r.db")
            result = run_experiment(str(experiment(folder, extra)), db, seed=seed)
            if result.counts.get("failed"):
                raise SystemExit(f"case {seed}: {result.failures[:1]}")
            doc = profile_diff(db)
            names = [f["name"] for f in doc["functions"]]
            rank = names.index(f"f{k}") + 1 if f"f{k}" in names else None
            inclusive = {f["name"]: abs(f["inclusive_change"]) for f in
                         profile_diff(db, "--rank", "inclusive")["functions"]}
            mine = inclusive.get(f"f{k}", 0)
            above = sum(v > mine for v in inclusive.values())
            tied = sum(v == mine for v in inclusive.values()) - 1
            incl_rank = f"{above + 1} ={tied}"
            change = next(f["change"] for f in doc["functions"] if f["name"] == f"f{k}")
            ratio = change / (extra[k] * cost[k])
            measured.append(ratio)
            first += rank == 1
            print(f"{seed:>4}  {'f' + str(k):>9}  {100 * share:5.2f}%  {'f' + str(decoy):>5}  "
                  f"{100 * decoy_share:+10.2f}%  {rank!s:>4}  {incl_rank!s:>10}  "
                  f"{ratio:17.4f}  {names[0]}")
        print(f"\nthe regressed function ranked first (exclusive change): {first}/{args.cases}")
        print(f"measured extra instructions / injected estimate: {min(measured):.4f} .. "
              f"{max(measured):.4f}")
        print(f"{time.monotonic() - started:.0f} s")
        if first != args.cases:
            print("FAILED: the regressed function was not first in every case")
            return 1
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
