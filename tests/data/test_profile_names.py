"""Function names of a real callgrind out file (one kept in examples/experiments/profiles.db,
written by Valgrind 3.19) read as callgrind_annotate shows them, its doubled directories
included (`././profiles.c`, `./stdio-common/./stdio-common/_itoa.c`: Valgrind joins the
compilation directory to DWARF 5's directory 0, which is that directory again), so a name
profile-diff prints is one callgrind_annotate lists (docs/profile-diff.md)."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import zlib
from collections import Counter
from pathlib import Path

import pytest

from benchlab.data.profiles import read_profile

STORE = Path(__file__).resolve().parents[2] / "examples" / "experiments" / "profiles.db"
_LISTED = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)  (\S.*?)(?: \[.*\])?$", re.MULTILINE)


@pytest.mark.skipif(shutil.which("callgrind_annotate") is None,
                    reason="callgrind_annotate (Valgrind) is not installed")
def test_names_are_callgrind_annotates(tmp_path):
    with sqlite3.connect(f"file:{STORE}?mode=ro", uri=True) as conn:
        encoding, blob = conn.execute("SELECT encoding, data FROM profiles ORDER BY trial, "
                                      "part LIMIT 1").fetchone()
    assert encoding == "zlib"
    out = tmp_path / "callgrind.out"
    out.write_bytes(zlib.decompress(blob))
    ours = read_profile(str(out)).exclusive
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no",
                           "--threshold=100", str(out)], capture_output=True, text=True,
                          check=True).stdout
    theirs = {name: int(n.replace(",", "")) for n, name in _LISTED.findall(text)
              if name != "PROGRAM TOTALS"}
    for name in ("././profiles.c:scale", "./stdio-common/./stdio-common/_itoa.c:_itoa_word"):
        assert ours[name][0] == theirs[name] > 0, name
    # every function of ours is one callgrind_annotate lists; it lists more, as it splits a
    # function's code inlined from another file (fi=/fe=) off under that file's name, which
    # profile-diff keeps in the function (its fl= file): per function name the sums agree
    assert {n for n, c in ours.items() if c[0]} <= set(theirs)
    by_function: tuple[Counter, Counter] = (Counter(), Counter())
    for table, costs in ((by_function[0], {n: c[0] for n, c in ours.items()}),
                         (by_function[1], theirs)):
        for name, cost in costs.items():
            table[name.rsplit(":", 1)[1]] += cost
    assert +by_function[0] == +by_function[1]
    assert len(theirs) > len({n for n, c in ours.items() if c[0]})
