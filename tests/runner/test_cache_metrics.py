"""Cache misses as metrics (runner/metric_sources.py, runner/counter.py): `i1-misses`,
`d1-misses`, `ll-misses` switch on the counter's cache simulation and are the sums of its
events; without a counter they are refused at their line. One real cachegrind run of a
small C program checks the sums against the out file's own summary line, and one real
experiment the simulated caches the store records against cg_annotate's header."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import textwrap
import zlib

import pytest

from benchlab.data.profiles import read_profile
from benchlab.errors import InputError
from benchlab.runner import counter, metric_sources
from benchlab.runner.config import parse_experiment
from benchlab.runner.session import run_experiment

STRIDED_C = r"""
#include <stdlib.h>
int main(void) {
    long n = 1 << 16;
    int *a = calloc(n, sizeof(int));
    volatile long s = 0;
    for (long j = 0; j < 16; j++)
        for (long i = j; i < n; i += 16) s += a[i];
    return (int)(s & 0);
}
"""


def test_cache_metrics_are_counted_misses_with_the_cache_simulation():
    e = parse_experiment(textwrap.dedent("""
        metrics = ["instructions", "d1-misses", "ll-misses"]
        counter = "cachegrind"
        [alternatives.a]
        command = ["true"]
    """), "exp.toml")
    assert e.measure.units == ("instructions", "misses", "misses")
    assert {metric_sources.source_of(m, e.counter) for m in e.measure.metrics} == \
        {"cachegrind"}
    assert metric_sources.perf_events(e.measure.metrics, e.counter) == ()
    assert "--cache-sim=yes" in counter.options("cachegrind", e.measure.metrics)
    assert "--cache-sim=no" in counter.options("cachegrind", ("instructions",))
    assert "--cache-sim=yes" in counter.options("callgrind", ("d1-misses",))
    assert "--cache-sim=yes" not in counter.options("callgrind", ("instructions",))


def test_a_cache_metric_without_a_counter_is_refused_at_its_line():
    with pytest.raises(InputError) as caught:
        parse_experiment('seed = 1\nmetrics = ["wall", "d1-misses"]\n'
                         '[alternatives.a]\ncommand = ["true"]\n', "exp.toml")
    assert str(caught.value) == ("exp.toml:2: metric 'd1-misses' is counted by Valgrind's "
                                 "cache simulation: add counter = \"cachegrind\" (quick "
                                 "mode: --counter cachegrind)")


def test_counted_sums_the_events_and_names_a_missing_one():
    files = [{"Ir": 10, "I1mr": 1, "D1mr": 2, "D1mw": 3, "ILmr": 4, "DLmr": 5, "DLmw": 6},
             {"Ir": 100, "I1mr": 10, "D1mr": 20, "D1mw": 30, "ILmr": 40, "DLmr": 50,
              "DLmw": 60}]
    assert counter.counted(("instructions", "i1-misses", "d1-misses", "ll-misses"), files) \
        == {"instructions": 110.0, "i1-misses": 11.0, "d1-misses": 55.0, "ll-misses": 165.0}
    with pytest.raises(ValueError, match="no D1mr total in an out file"):
        counter.counted(("d1-misses",), [{"Ir": 5}])


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None,
                    reason="valgrind or cc not installed (.ci/run installs valgrind)")
def test_a_counted_execution_yields_the_out_files_misses(tmp_path):
    (tmp_path / "strided.c").write_text(STRIDED_C)
    exe = tmp_path / "strided"
    subprocess.run(["cc", "-O1", "-o", str(exe), str(tmp_path / "strided.c")], check=True)
    metrics = ("instructions", "i1-misses", "d1-misses", "ll-misses")
    outcome = counter.run_counted("cachegrind", [str(exe)], cwd=str(tmp_path), env={},
                                  timeout=60.0, cpus=None, metrics=metrics,
                                  keep_profiles=True)
    assert outcome.ok, outcome.error
    # the out file itself (kept), read by profile-diff's parser: its summary is the reference
    (blob,) = outcome.profiles
    (tmp_path / "kept.out").write_bytes(zlib.decompress(blob))
    profile = read_profile(str(tmp_path / "kept.out"))
    totals = dict(zip(profile.events, profile.totals, strict=True))
    assert outcome.counts["instructions"] == totals["Ir"]
    assert outcome.counts["d1-misses"] == totals["D1mr"] + totals["D1mw"]
    assert outcome.counts["ll-misses"] == totals["ILmr"] + totals["DLmr"] + totals["DLmw"]
    assert outcome.counts["i1-misses"] == totals["I1mr"]
    # a 256 kB array read with a stride of 16 ints (64 B): about one D1 miss per read
    assert outcome.counts["d1-misses"] > 0.5 * (1 << 16)
    # the caches it simulated, as the out file's header says them
    assert set(outcome.caches) == {"I1", "D1", "LL"}
    assert all(re.fullmatch(r"\d+ B, \d+ B, \d+-way associative", v)
               for v in outcome.caches.values())


REAL = pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("cc") is None,
                          reason="valgrind or cc not installed (.ci/run installs valgrind)")


@REAL
def test_the_store_records_the_simulated_caches_and_the_analyses_say_them(tmp_path,
                                                                          run_cli):
    """The caches Valgrind simulated are recorded once in the store (as cg_annotate reads
    them from an out file of the same program), and summary/compare note them beside a
    cache metric (text and JSON); a store made before they were recorded says so."""
    (tmp_path / "strided.c").write_text(STRIDED_C.replace("1 << 16", "1 << 10"))
    subprocess.run(["cc", "-O1", "-o", str(tmp_path / "strided"), str(tmp_path / "strided.c")],
                   check=True)
    (tmp_path / "exp.toml").write_text(textwrap.dedent("""
        seed = 2
        executions = 2
        metrics = ["instructions", "d1-misses"]
        counter = "cachegrind"
        [alternatives.a]
        command = ["./strided"]
        [alternatives.b]
        command = ["./strided"]
    """))
    db = tmp_path / "r.db"
    assert run_experiment(str(tmp_path / "exp.toml"), str(db)).status == "finished"
    with sqlite3.connect(db) as conn:
        (raw,), = conn.execute("SELECT value FROM benchlab_meta WHERE key = "
                               "'simulated_caches'").fetchall()
    (recorded,) = json.loads(raw)  # one configuration: one machine
    out = tmp_path / "cg.out"
    subprocess.run(["valgrind", "-q", "--tool=cachegrind", "--cache-sim=yes",
                    f"--cachegrind-out-file={out}", str(tmp_path / "strided")], check=True)
    header = subprocess.run(["cg_annotate", str(out)], capture_output=True, text=True,
                            check=True).stdout if shutil.which("cg_annotate") else \
        out.read_text().replace("desc: ", "")
    reference = {m[1]: " ".join(m[2].split()) for m in
                 re.finditer(r"^(I1|D1|LL) cache:\s+(.+)$", header, re.MULTILINE)}
    assert recorded == reference and len(reference) == 3
    size, line, ways = (int(x) for x in re.findall(r"\d+", recorded["D1"]))
    _, text, _ = run_cli("summary", db, "--metric", "d1-misses", expect=0)
    assert "note: simulated caches (cachegrind): I1 " in text
    assert f"D1 {size // 1024} KiB, {line} B lines, {ways}-way" in text
    _, doc, _ = run_cli("compare", db, "--metric", "d1-misses", "--json", expect=0)
    doc = json.loads(doc)
    assert doc["simulated_caches"] == {str(db): [
        {k: {"size": int(v.split()[0]), "line_size": int(v.split()[2]),
             "ways": int(v.split()[4].split("-")[0]), "description": v}
         for k, v in recorded.items()}]}
    assert any("simulated caches (cachegrind)" in n for n in doc["design"]["notes"])
    _, doc, _ = run_cli("summary", db, "--metric", "instructions", "--json", expect=0)
    assert "simulated_caches" not in json.loads(doc)  # not a cache metric
    with sqlite3.connect(db) as conn:  # as a store made before the key
        conn.execute("DELETE FROM benchlab_meta WHERE key = 'simulated_caches'")
    _, text, _ = run_cli("compare", db, "--metric", "d1-misses", "--no-plot", expect=0)
    assert "note: simulated caches: not recorded (the store was made before" in text
    _, doc, _ = run_cli("summary", db, "--metric", "d1-misses", "--json", expect=0)
    assert json.loads(doc)["simulated_caches"] == {str(db): None}
