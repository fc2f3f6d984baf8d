"""compare --statistic mean|median and the warning when the mean misleads (issue 12, item 6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchlab.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def skewed_pair(tmp_path: Path) -> tuple[str, str]:
    """The issue's case: a lognormal tail on 100 ms, the new body 1 ms lower (seed 123)."""
    rng = np.random.default_rng(123)
    old = 100 + np.exp(rng.normal(1, 1.3, 30))
    new = 99 + np.exp(rng.normal(1, 1.3, 30))
    paths = []
    for name, x in (("old", old), ("new", new)):
        p = tmp_path / f"{name}.txt"
        np.savetxt(p, x, fmt="%.3f")
        paths.append(str(p))
    return paths[0], paths[1]


def run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["compare", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_mean_says_no_difference_and_the_warning_names_the_option(tmp_path, capsys):
    old, new = skewed_pair(tmp_path)
    code, doc = run_json(capsys, old, new, "--unit", "ms", "--tests")
    c = doc["comparisons"][0]
    assert c["verdict"]["outcome"] == "inconclusive" and doc["statistic"] == "mean"
    mw = next(t for t in c["tests"] if t["name"] == "Mann-Whitney U")
    assert mw["pvalue"] == pytest.approx(0.012, abs=5e-4)  # scipy's, as in the issue
    warned = [w["message"] for w in doc["warnings"] if w["kind"] == "statistic"]
    assert len(warned) == 1
    assert f"Mann-Whitney p = {mw['pvalue']:.4f}" in warned[0]
    assert "--statistic median" in warned[0]
    assert c["headline"]["statistic"] == "mean" and c["headline"]["low"] == c["ratio"]["low"]


def test_median_headline_finds_the_change(tmp_path, capsys):
    old, new = skewed_pair(tmp_path)
    code, doc = run_json(capsys, old, new, "--unit", "ms", "--statistic", "median",
                         "--seed", "1", "--fail-on", "change")
    assert code == 1
    c = doc["comparisons"][0]
    head = c["headline"]
    assert doc["statistic"] == "median" and c["verdict"]["outcome"] == "change"
    assert head["statistic"] == "median" and head["method"] == "bootstrap percentile"
    assert head["replicates"] == 10_000 and head["high"] < 1.0
    assert [b["statistic"] for b in c["bootstrap"]] == ["median"]
    assert c["bootstrap"][0]["percentile"] == {"low": head["low"], "high": head["high"]}
    x_old, x_new = np.loadtxt(old), np.loadtxt(new)
    assert head["estimate"] == pytest.approx(np.median(x_new) / np.median(x_old))
    assert not [w for w in doc["warnings"] if w["kind"] == "statistic"]
    # the same seed and B through --bootstrap give the same interval
    _, again = run_json(capsys, old, new, "--statistic", "median", "--seed", "1")
    assert again["comparisons"][0]["headline"] == head


def test_median_headline_independent_of_the_percentile_rule(tmp_path, capsys):
    """The interval is the 2.5% and 97.5% order statistics of B ratios of medians:
    a plain loop of np.median over resamples lands within Monte Carlo error."""
    old, new = skewed_pair(tmp_path)
    _, doc = run_json(capsys, old, new, "--statistic", "median", "--seed", "4",
                      "--bootstrap", "4000")
    head = doc["comparisons"][0]["headline"]
    a, b = np.loadtxt(old), np.loadtxt(new)
    rng = np.random.default_rng(99)
    ratios = [np.median(rng.choice(b, b.size)) / np.median(rng.choice(a, a.size))
              for _ in range(4000)]
    lo, hi = np.quantile(ratios, [0.025, 0.975])
    assert head["low"] == pytest.approx(lo, abs=0.006)
    assert head["high"] == pytest.approx(hi, abs=0.006)


def test_median_headline_with_levels_uses_the_hierarchical_bootstrap(capsys):
    code, doc = run_json(capsys, "examples/fft/two_systems.csv", "--by", "system", "--levels",
                         "build,run", "--statistic", "median", "--seed", "1")
    c = doc["comparisons"][0]
    assert c["headline"]["method"] == "hierarchical bootstrap percentile"
    assert doc["resample"] == "RRR"
    from benchlab.stats.compare import compare_hierarchical  # noqa: F401 (same code path)
    _, boot = run_json(capsys, "examples/fft/two_systems.csv", "--by", "system", "--levels",
                       "build,run", "--bootstrap", "--seed", "1")
    median = next(b for b in boot["comparisons"][0]["bootstrap"] if b["statistic"] == "median")
    assert median["percentile"] == {"low": c["headline"]["low"], "high": c["headline"]["high"]}


def test_few_values_warn_what_the_median_can_show(capsys):
    code, doc = run_json(capsys, "examples/kamp/current.txt", "examples/kamp/buf_work.txt",
                         "--statistic", "median", "--seed", "1")
    assert code == 0
    (w,) = [w["message"] for w in doc["warnings"] if w["kind"] == "statistic"]
    assert "fewer than 5 values per sample" in w and "cannot show that there is none" in w


def test_median_suite_benchmark_equals_the_benchmark_alone(tmp_path, capsys):
    """A suite's median headline of a benchmark is the two-sample one (same seed and B),
    with and without --bootstrap (which draws the ratio of means first)."""
    rng = np.random.default_rng(9)
    values = {(b, s): 100 + np.exp(rng.normal(1, 1.3, n))
              for b, n in (("p", 12), ("q", 9)) for s in ("old", "new")}
    suite = tmp_path / "suite.csv"
    suite.write_text("benchmark,system,value\n" + "".join(
        f"{b},{s},{v:.17g}\n" for (b, s), x in values.items() for v in x))
    for extra in ((), ("--bootstrap", "500")):
        code, doc = run_json(capsys, str(suite), "--by", "system", "--benchmark", "benchmark",
                             "--statistic", "median", "--seed", "4", *extra)
        assert code in (0, 1) and doc["statistic"] == "median"
        for bench in doc["benchmarks"]:
            paths = []
            for s in ("old", "new"):
                path = tmp_path / f"{bench['benchmark']}-{s}.txt"
                np.savetxt(path, values[(bench["benchmark"], s)], fmt="%.17g")
                paths.append(str(path))
            code, alone = run_json(capsys, *paths, "--statistic", "median", "--seed", "4",
                                   *extra)
            one, two = bench["comparisons"][0]["headline"], alone["comparisons"][0]["headline"]
            assert (one["estimate"], one["low"], one["high"]) == (
                two["estimate"], two["low"], two["high"])


def test_markdown_shows_the_median_change(tmp_path, capsys):
    old, new = skewed_pair(tmp_path)
    assert main(["compare", old, new, "--statistic", "median", "--seed", "1", "--format",
                 "markdown"]) == 0
    out = capsys.readouterr().out
    assert "ratio of medians with a bootstrap percentile CI" in out
    assert "| -2.4% |" in out


def test_the_check_imports_no_scipy_stats(tmp_path):
    old, new = skewed_pair(tmp_path)
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['compare', {old!r}, {new!r}])\n"
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "False"
