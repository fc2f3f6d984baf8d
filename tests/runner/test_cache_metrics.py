"""Cache misses as metrics (runner/metric_sources.py, runner/counter.py): `i1-misses`,
`d1-misses`, `ll-misses` switch on the counter's cache simulation and are the sums of its
events; without a counter they are refused at their line. One real cachegrind run of a
small C program checks the sums against the out file's own summary line."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
import zlib

import pytest

from benchlab.data.profiles import read_profile
from benchlab.errors import InputError
from benchlab.runner import counter, metric_sources
from benchlab.runner.config import parse_experiment

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
