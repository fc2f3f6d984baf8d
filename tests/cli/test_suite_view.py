"""`compare --filter / --sort / --compact` on a suite (issue 22): the filter chooses the
family before the analysis (Holm over the benchmarks kept), in every format; the sort
orders every format; the compact view is one line per benchmark."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest

from benchlab.stats.suite import SuiteResult
from benchlab.stats.suite_order import sort_suite

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy"
SUITE = ("compare", str(FIX / "suite.csv"), "--by", "system", "--benchmark", "benchmark",
         "--seed", "1", "--no-diagnostics")
NAMES = ["fft", "lu", "sor", "mc"]  # the fixture's benchmarks, in file order


def holm(pvalues: list[float]) -> list[float]:
    """Holm's adjusted p-values (Holm 1979), written out: sorted ascending, the k-th of m is
    max over j <= k of min(1, (m - j + 1) p_(j))."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


@pytest.fixture(scope="module")
def documents():
    """The suite's JSON document whole, filtered to lu|mc, and sorted each way."""
    from contextlib import redirect_stdout

    from benchlab.cli.main import main

    def run(*extra: str) -> dict:
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            code = main([*SUITE, "--json", *extra])
        assert code == 0
        return json.loads(buffer.getvalue())

    return {"all": run(), "filtered": run("--filter", "^(lu|mc)$"),
            **{f"sort {by}": run("--sort", by) for by in ("change", "name", "p")}}


def test_filter_chooses_the_family_holm_adjusts_over(documents):
    whole, kept = documents["all"], documents["filtered"]
    assert [b["benchmark"] for b in kept["benchmarks"]] == ["lu", "mc"]
    raw = {h["benchmark"]: h["pvalue"] for h in whole["holm"]}
    assert {h["benchmark"]: h["pvalue"] for h in kept["holm"]} == pytest.approx(
        {"lu": raw["lu"], "mc": raw["mc"]}, rel=1e-9, abs=0)  # each benchmark's own test unchanged
    expected = holm([raw["lu"], raw["mc"]])  # adjusted over the 2 kept, not the 4
    assert [h["adjusted_pvalue"] for h in kept["holm"]] == pytest.approx(expected, rel=1e-9,
                                                                          abs=0)
    assert expected != pytest.approx(
        [h["adjusted_pvalue"] for h in whole["holm"] if h["benchmark"] in ("lu", "mc")],
        rel=1e-6, abs=0)
    assert kept["geometric_means"][0]["benchmarks"] == 2
    assert any("kept 2 of 4 benchmarks" in n for n in kept["notes"])


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv", "html"])
def test_filter_applies_in_every_format(run_cli, fmt):
    _, out, _ = run_cli(*SUITE, "--filter", "^(lu|mc)$", "--format", fmt, expect=0)
    if fmt == "csv":
        named = {row["benchmark"] for row in csv.DictReader(io.StringIO(out))}
        assert named == {"lu", "mc", "(geometric mean)"}
    else:
        cell = ">{}<" if fmt == "html" else r"\b{}\b"
        for gone in ("fft", "sor"):
            assert not re.search(cell.format(gone), out), gone
        for name in ("lu", "mc"):
            assert re.search(cell.format(name), out), name


def test_filter_errors_are_one_line_exit_2(run_cli):
    code, out, err = run_cli(*SUITE, "--filter", "fo(o", expect=2)
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--filter: not a regular expression: 'fo(o'" in err and "position" in err
    code, out, err = run_cli(*SUITE, "--filter", "^zz", expect=2)
    assert out == "" and err == ("benchlab: --filter '^zz' matches none of the 4 benchmarks "
                                 "(fft, lu, mc, sor)\n")
    code, _, err = run_cli("compare", "docs/examples/parse-old.txt",
                           "docs/examples/parse-new.txt", "--filter", "x", expect=2)
    assert "--filter applies to suites" in err


def test_sort_orders_every_benchmark_list(documents):
    def order(doc):
        return [b["benchmark"] for b in doc["benchmarks"]]

    assert order(documents["all"]) == NAMES
    assert order(documents["sort name"]) == sorted(NAMES)
    by_p = documents["sort p"]
    adjusted = {h["benchmark"]: h["adjusted_pvalue"] for h in by_p["holm"]}
    assert [adjusted[n] for n in order(by_p)] == sorted(adjusted.values())
    assert [h["benchmark"] for h in by_p["holm"]] == order(by_p)
    assert [d["benchmark"] for d in by_p["decisions"]] == order(by_p)
    # times: a rise is the regression, so the largest ratio comes first
    by_change = documents["sort change"]
    ratios = [b["comparisons"][0]["ratio"]["estimate"] for b in by_change["benchmarks"]]
    assert ratios == sorted(ratios, reverse=True)
    # sorting changes no number
    assert sorted(documents["all"]["holm"], key=lambda h: h["benchmark"]) == sorted(
        by_p["holm"], key=lambda h: h["benchmark"])


def test_compact_text_is_one_line_per_benchmark(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    _, out, _ = run_cli(*SUITE, "--compact", "--sort", "name", expect=0)
    lines = out.splitlines()
    assert lines[0].split() == ["benchmark", "old", "new", "change"]
    assert lines[1].split() == ["fft", "100.0", "±", "0.7%", "91.5", "±", "1%", "-8.6%", "✓"]
    assert [line.split()[0] for line in lines[1:6]] == ["fft", "lu", "mc", "sor", "geomean"]
    assert lines[3].split()[-1] == "?"  # mc: +1.0%, its CI reaches 0
    assert lines[5].split()[-2:] == ["-4.5%", "✓"]
    assert "decided family-wise (Holm) at 95% over 4 benchmarks" in " ".join(lines[6:9])


def test_compact_markdown(run_cli):
    _, out, _ = run_cli(*SUITE, "--compact", "--format", "markdown", "--filter", "fft",
                        expect=0)
    assert "| fft | 100.0 ± 0.7% | 91.5 ± 1% | -8.6% | ✓ |" in out
    assert "| *geomean* |" in out and "over 1 benchmark;" in out


def test_compact_and_sort_refuse_what_they_cannot_shape(run_cli):
    _, out, err = run_cli(*SUITE, "--compact", "--format", "json", expect=2)
    assert out == "" and "--compact lays out the text and Markdown tables" in err
    for flag in (("--compact",), ("--sort", "p")):
        _, _, err = run_cli("compare", "docs/examples/parse-old.txt",
                            "docs/examples/parse-new.txt", *flag, expect=2)
        assert f"{flag[0]} applies to suites" in err
    _, _, err = run_cli(*SUITE, "--sort", "size", expect=2)
    assert "invalid choice: 'size'" in err


def test_sort_suite_keeps_every_number():
    from benchlab.stats.spec import AnalysisSpec
    from benchlab.stats.suite import compare_suite

    data = {name: [("old", [10.0 + k, 10.2 + k, 9.9 + k, 10.1 + k], []),
                   ("new", [10.0 + k * shift, 10.3 + k * shift, 9.8 + k * shift,
                            10.2 + k * shift], [])]
            for k, (name, shift) in enumerate((("b", 1.5), ("a", 0.5), ("c", 1.0)))}
    result = compare_suite(data, [], AnalysisSpec(seed=3, bootstrap=200), baseline="old")
    assert isinstance(result, SuiteResult)
    by_name = sort_suite(result, "name")
    assert [b for b, _ in by_name.benchmarks] == ["a", "b", "c"]
    assert dict(by_name.benchmarks) == dict(result.benchmarks)
    assert set(by_name.holm) == set(result.holm)
    assert by_name.geometric_means == result.geometric_means
    with pytest.raises(ValueError, match="by must be one of"):
        sort_suite(result, "size")
    assert all(math.isfinite(h[3]) for h in by_name.holm)
