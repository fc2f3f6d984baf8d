"""A generated git history for `benchlab bisect`: a C program whose loop count changes at one
known commit, other commits changing unrelated files, some commits failing to build.

    make_repo(path, commits=64, culprit=40, loops=2_000_000, factor=1.05,
              broken=(12,), noise=0.0)

Commit 0 adds prog.c (a loop of LOOPS iterations over a volatile, from loops.h, or with
`sleep` a sleep of LOOPS microseconds),
extra.c and notes.txt; commit k > 0 appends a line to notes.txt, except the culprit,
which multiplies LOOPS by `factor`, and the commits in `broken`, whose extra.c does
not compile (the next commit repairs it). With `noise` > 0 the program adds a random
number of iterations (or microseconds), the sum of four uniform draws from /dev/urandom, with mean 0
and standard deviation `noise` x LOOPS (so the executions' spread is at least that).
Written with git fast-import (a 1,000-commit history in well under a second). The
build command is BUILD (BUILD_STATIC for counted instructions); the command to time is
COMMAND. Used by tests/cli/test_bisect.py, validation/bisect_accuracy.py and
validation/bisect_real.py.
"""

from __future__ import annotations

import math
import os
import subprocess

BUILD = "cc -O1 -o prog prog.c extra.c"
# linked statically: under Valgrind a static program starts in about 0.05 s of CPU time,
# a dynamic one in about 0.25 s (the loader and libc's symbols read), for counted bisects
BUILD_STATIC = "cc -O1 -static -o prog prog.c extra.c"
COMMAND = "./prog"

PROGRAM = """#include <stdio.h>
#include <time.h>
#include "loops.h"
long extra(void);
int main(void) {
  unsigned long n = LOOPS;
  if (NOISE_PER_DRAW > 0) {
    unsigned int u[4] = {0, 0, 0, 0};
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) { if (fread(u, sizeof u, 1, f) != 1) u[0] = 0; fclose(f); }
    double s = 0;
    for (int k = 0; k < 4; k++) s += (u[k] / 4294967296.0 - 0.5);
    n = (unsigned long)((double)n + s * NOISE_PER_DRAW);
  }
  if (SLEEP) {  /* n microseconds asleep: steadier than a loop on a busy machine */
    struct timespec t = {(time_t)(n / 1000000UL), (long)(n % 1000000UL) * 1000L};
    nanosleep(&t, 0);
  } else {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++) x += i;
  }
  return (int)(extra() * 0);
}
"""
EXTRA_OK = "long extra(void) { return 1; }\n"
EXTRA_BROKEN = "long extra(void) { return 1 }  /* a missing semicolon */\n"


def extra_code(k: int) -> str:
    """extra.c of commit k with `unrelated`: a loop of k iterations (a few instructions per
    commit, a change far below any threshold, as unrelated code changes are)."""
    return ("long extra(void) { volatile long s = 0; "
            f"for (int i = 0; i < {k}; i++) s += i; return s; }}\n")


def _loops_h(loops: int, noise: float, sleep: bool) -> str:
    # the sum of 4 uniforms on (-0.5, 0.5) has SD sqrt(4/12) = 0.577: scaled to noise x LOOPS
    per_draw = noise * loops / math.sqrt(4.0 / 12.0)
    return (f"#define LOOPS {loops}UL\n#define NOISE_PER_DRAW {per_draw:.1f}\n"
            f"#define SLEEP {int(sleep)}\n")


def _blob(text: str) -> bytes:
    data = text.encode()
    return b"data %d\n%s\n" % (len(data), data)


def make_repo(path: str, commits: int = 64, culprit: int | None = 40,
              loops: int = 2_000_000, factor: float = 1.05, broken: tuple[int, ...] = (),
              noise: float = 0.0, sleep: bool = False, unrelated: bool = False) -> list[str]:
    """Create the repository at `path` (a new folder); its commits' SHAs, oldest first.
    `culprit` None: an A/A history (LOOPS never changes). `sleep`: the program sleeps
    LOOPS microseconds instead of looping. `unrelated`: the other commits change code
    (extra.c's loop of k iterations, `extra_code`), not only notes.txt."""
    os.makedirs(path)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.org"}
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True, env=env)
    stream = bytearray()
    notes = ""
    current = loops
    for k in range(commits):
        files: dict[str, str] = {}
        if k == 0:
            subject = "the program"
            files = {"prog.c": PROGRAM, "extra.c": EXTRA_OK,
                     "loops.h": _loops_h(loops, noise, sleep), "notes.txt": ""}
        elif k == culprit:
            current = int(round(loops * factor))
            subject = f"loop count x{factor:g}"
            files = {"loops.h": _loops_h(current, noise, sleep)}
        else:
            notes += f"note {k}\n"
            subject = f"note {k}"
            files = {"notes.txt": notes}
            if unrelated:
                subject = f"extra {k}"
                files["extra.c"] = extra_code(k)
        if k in broken:
            subject += " (does not build)"
            files["extra.c"] = EXTRA_BROKEN
        elif k - 1 in broken and k > 0 and "extra.c" not in files:
            files["extra.c"] = extra_code(k) if unrelated else EXTRA_OK
        when = 1_700_000_000 + 60 * k
        stream += b"commit refs/heads/main\nmark :%d\n" % (k + 1)
        stream += b"author bench <b@example.org> %d +0000\n" % when
        stream += b"committer bench <b@example.org> %d +0000\n" % when
        stream += _blob(subject)
        if k > 0:
            stream += b"from :%d\n" % k
        for name, text in files.items():
            stream += b"M 100644 inline %s\n" % name.encode() + _blob(text)
        stream += b"\n"
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input=bytes(stream),
                   check=True, env=env)
    subprocess.run(["git", "-C", path, "reset", "-q", "--hard", "main"], check=True, env=env)
    out = subprocess.run(["git", "-C", path, "rev-list", "--reverse", "main"], check=True,
                         capture_output=True, text=True).stdout.split()
    return out
