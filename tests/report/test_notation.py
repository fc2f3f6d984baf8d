"""One notation for one number everywhere (issue 19, item 3): benchlab/notation.py.

A change is a signed percentage within ±50% and a factor with its word beyond, in
the text, Markdown, JSON sentences and HTML of every command; one rounding rule;
the unit header follows --unit; plurals, the seed, CI levels and p-values as
people read them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from benchlab.notation import (
    change_parts,
    decimals,
    fixed,
    fmt_change,
    fmt_level,
    fmt_p,
    fmt_pvalue,
    plural,
    significant,
)
from benchlab.report.numbers import fmt_interval, fmt_row
from benchlab.units import make_unit

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
S, NS, US, NONE, RATE = (make_unit("s"), make_unit("ns"), make_unit("us"), make_unit(None),
                         make_unit("ops/s"))
PERCENT = re.compile(r"(?<![\w.])[+-](\d+(?:\.\d+)?)%")  # a change: always signed
WORDED = re.compile(r"\d% (faster|slower|higher|lower|better|worse)")  # the old "42.2% faster"


def _write(path: Path, values) -> str:
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n")
    return str(path)


# -- the change notation -------------------------------------------------------------
@pytest.mark.parametrize(("ratio", "factor"), [
    (1.5, False), (1.5000001, True), (0.5, False), (0.4999999, True), (1.0, False),
    (26.137, True), (0.0291, True)])
def test_percent_within_fifty_percent_factor_beyond(ratio, factor):
    parts = change_parts(ratio, None, None, S)
    assert parts.factor is factor
    if factor:
        assert "%" not in str(parts) and parts.estimate.endswith(
            "× slower" if ratio > 1 else "× faster")
    else:
        assert "×" not in str(parts) and parts.estimate.endswith("%")
        assert parts.estimate[0] in "+-" or parts.estimate == "0.0%"


@pytest.mark.parametrize(("unit", "up", "down"), [
    (S, "slower", "faster"), (NONE, "higher", "lower"), (RATE, "better", "worse"),
    (make_unit("B/op", False), "worse", "better")])
def test_the_factor_says_the_units_word(unit, up, down):
    assert change_parts(2.28, 2.1, 2.45, unit).estimate == f"2.28× {up}"
    assert change_parts(1 / 2.28, 1 / 2.45, 1 / 2.1, unit).estimate == f"2.28× {down}"


def test_a_decrease_beyond_fifty_percent_is_the_factor_of_its_inverse():
    # text once said -97.1% where the HTML said 34.3× faster: one string now
    parts = change_parts(0.0291, 0.0270, 0.0312, S)
    assert str(parts) == "34.4× faster (32.1× .. 37.0×)"



@pytest.mark.parametrize(("ratio", "low", "high", "text"), [
    (1.13, 0.67, 2.37, "1.1× slower (0.7× .. 2.4×)"),  # once "+13% (-33% .. +137%)"
    (0.9, 0.4, 1.3, "1.1× faster (0.8× .. 2.5×)"),
    (1.4, 1.3, 1.55, "1.40× slower (1.30× .. 1.55×)"),
    (1.1, 1.05, 1.15, "+10% (+5% .. +15%)"),
    (0.6, 0.51, 0.7, "-40% (-49% .. -30%)")])
def test_an_estimate_and_its_bounds_share_one_notation(ratio, low, high, text):
    """Any of the three beyond ±50%: all three factors; else all three percentages."""
    assert fmt_change(ratio, low, high, S) == text


@pytest.mark.parametrize(("ratio", "low", "high", "text"), [
    (1.93, -3.17, 7.06, "ratio 1.9 (-3.2 .. 7.1)"),  # once "1.9× higher (-3.2× .. 7.1×)"
    (0.3, -0.1, 0.9, "ratio 0.30 (-0.10 .. 0.90)"),  # once "3.33× faster (1.11× .. ∞×)"
    (0.3, 0.0, 0.9, "ratio 0.30 (0.00 .. 0.90)"),
    (-0.2, -1.0, 0.5, "ratio -0.20 (-1.00 .. 0.50)")])
def test_a_ci_reaching_zero_is_a_plain_ratio(ratio, low, high, text):
    """No factor of a move is true once the ratio's CI reaches 0: a plain ratio."""
    parts = change_parts(ratio, low, high, NONE)
    assert str(parts) == text and parts.ratio and not parts.factor
    assert parts.phrase == parts.estimate and "×" not in text


@pytest.mark.parametrize(("size", "text"), [
    (0.123, "±12.3%"), (0.5, "±50.0%"), (0.00001, "±0.001%"),
    (0.6, "1.60× slower or 2.50× faster"),
    (6.815, "7.82× slower (no fall of the mean is that large)")])
def test_the_detectable_change_follows_the_fifty_percent_rule(size, text):
    from benchlab.notation import fmt_detectable

    assert fmt_detectable(size, S) == text


def test_digits_of_estimate_and_bounds_come_from_the_ci():
    assert fmt_change(0.969, 0.960, 0.978, S) == "-3.1% (-4.0% .. -2.2%)"
    assert fmt_change(1.1, 1.05, 1.15, S) == "+10% (+5% .. +15%)"
    assert fmt_change(1.1, None, None, S) == "+10.0% (unbounded)"
    # a bound that does not reach 0 shows its sign rather than "0.0%"
    assert change_parts(0.997, 0.994, 1.0005, S).interval == "-0.6% .. +0.05%"


def test_a_zero_width_ci_is_exact_with_the_digits_of_the_change():
    """Counts with no spread (1,000,000 vs 1,000,100 instructions every time): the change
    itself, not "0.0%" beside bounds of "+0.01%"; the words bisect's table uses."""
    parts = change_parts(1.0001, 1.0001, 1.0001, S)
    assert (parts.estimate, parts.interval, parts.exact) == ("+0.01%", "exact", True)
    assert str(parts) == "+0.01% (exact)"
    assert fmt_change(1.048, 1.048, 1.048, S) == "+4.8% (exact)"
    assert fmt_change(0.9999, 0.9999, 0.9999, S) == "-0.01% (exact)"
    assert fmt_change(1.0, 1.0, 1.0, S) == "0% (exact)"
    assert fmt_change(2.28, 2.28, 2.28, S) == "2.28× slower (exact)"
    assert fmt_change(1 / 2.28, 1 / 2.28, 1 / 2.28, S) == "2.28× faster (exact)"


@pytest.mark.parametrize(("ratio", "low", "high", "text"), [
    (1.0001, 1.000099, 1.000101, "+0.0100% (+0.0099% .. +0.0101%)"),
    (0.99995, 0.99994, 0.99996, "-0.005% (-0.006% .. -0.004%)"),
    (1.00003, 0.99996, 1.0001, "+0.003% (-0.004% .. +0.010%)"),
    (1.9, 1.8999, 1.9001, "1.90000× slower (1.89990× .. 1.90010×)")])
def test_a_narrow_ci_gives_estimate_and_bounds_the_decimals_that_tell_them_apart(
        ratio, low, high, text):
    assert fmt_change(ratio, low, high, S) == text
    parts = change_parts(ratio, low, high, S)
    decimals_of = [len(t.split(".")[1].rstrip("%× slower")) if "." in t else 0
                   for t in (parts.estimate.split()[0], parts.low, parts.high)]
    assert len(set(decimals_of)) == 1 and parts.low != parts.high and not parts.exact


@pytest.mark.parametrize(("ratio", "low", "high", "text"), [
    (2.28, 2.1, 2.45, "2.28× slower (2.10× .. 2.45×)"),
    (0.0291, 0.0270, 0.0312, "34.4× faster (32.1× .. 37.0×)"),
    (6.52, 3.3, 13.1, "6.5× slower (3.3× .. 13.1×)")])
def test_a_large_change_is_still_factors_with_the_digits_of_its_ci(ratio, low, high, text):
    assert fmt_change(ratio, low, high, S) == text


def test_exact_counts_read_the_same_in_every_format(run_cli, tmp_path):
    """Five runs of 1,000,000 against five of 1,000,100 instructions: text, Markdown, CSV's
    verdict, HTML and the report all say "+0.01% ... exact"; JSON keeps the unrounded
    ratio."""
    a = _write(tmp_path / "a.txt", [1_000_000] * 5)
    b = _write(tmp_path / "b.txt", [1_000_100] * 5)
    code, out, _ = run_cli("compare", a, b, "--json")
    assert code == 0
    ratio = json.loads(out)["comparisons"][0]["ratio"]
    assert ratio["estimate"] == pytest.approx(1.0001, rel=1e-12)
    assert ratio["low"] == ratio["high"] == pytest.approx(1.0001, rel=1e-12)
    texts = {}
    for fmt in ("text", "markdown", "html"):
        code, texts[fmt], _ = run_cli("compare", a, b, "--format", fmt)
        assert code == 0
    page = tmp_path / "page.html"
    code, _, _ = run_cli("report", a, b, "-o", page, "--no-figures")
    assert code == 0
    texts["report"] = page.read_text()
    for fmt, text in texts.items():
        assert "+0.01% (exact: the data have no spread" in text, fmt
        assert "0.0%" not in text.replace("CV", "").split("b vs a")[-1], fmt
    assert "| +0.01% | exact |" in texts["markdown"]


# -- the rounding rule ---------------------------------------------------------------
def test_one_rounding_rule_half_away_from_zero_through_unit_scaling():
    assert f"{840.5:.0f}" == "840" and f"{840.5000000000001:.0f}" == "841"  # Python's way
    assert fixed(840.5, 0) == fixed(840.5000000000001, 0) == "841"
    assert fixed(840.4999999999999, 0) == "841"  # float noise of a scaled mean: still a half
    assert fixed(-840.5, 0) == "-841" and fixed(0.125, 2) == "0.13"
    assert NS.format(840.5, 3) == S.format(8.405e-7, 3) == "841 ns"
    assert significant(840.5, 3) == "841" and significant(1.2e7, 6) == "1.2e+07"
    assert fmt_row((840.5,), NS, 7.0, 840.5) == fmt_row((8.405e-7,), S, 7e-9, 8.405e-7)


def test_a_wide_ci_never_rounds_into_the_integer_part():
    # pyperf's 204 µs mean with a wide CI: "204 µs", not "200 µs"
    assert fmt_interval(204.3, 164.0, 244.6, US)[0] == "204 µs"
    assert decimals(86150.0, 3700.0) == 0 and fixed(86150.0, decimals(86150.0, 3700.0)) == "86150"


def test_the_samples_table_reads_the_same_in_ns_and_in_s(run_cli, tmp_path):
    """840.5 ns and its halves print one way whether the data are in ns or in s."""
    ns = [840.5, 850.5, 830.5, 860.5, 820.5]
    other = [900.5, 910.5, 890.5, 920.5, 880.5]
    tables = []
    for unit, scale in (("ns", 1.0), ("s", 1e-9)):
        a = _write(tmp_path / f"a_{unit}.txt", [v * scale for v in ns])
        b = _write(tmp_path / f"b_{unit}.txt", [v * scale for v in other])
        code, out, _ = run_cli("compare", a, b, "--unit", unit, "--no-plot")
        assert code == 0
        tables.append([line.split()[1:] for line in out.splitlines()[1:3]])
    assert tables[0] == tables[1]
    assert tables[0][0][:2] == ["5", "841"] and "821" in tables[0][0]  # mean, min: halves up


# -- levels, p-values, plurals ---------------------------------------------------------
def test_levels_p_values_and_plurals():
    assert fmt_level(1 - 0.05 / 3) == "98.33%" and fmt_level(0.95) == "95%"
    assert fmt_level(0.999) == "99.9%" and fmt_level(1 - 0.05 / 1000) == "99.995%"
    assert fmt_pvalue(0.00003) == "<0.0001" and fmt_pvalue(0.0232) == "0.0232"
    assert fmt_p(0.00003) == "p < 0.0001" and fmt_p(0.5) == "p = 0.5000"
    assert plural(1, "comparison") == "1 comparison" and plural(2, "comparison") == (
        "2 comparisons")


# -- the same string in every format -----------------------------------------------------
def _three(tmp_path: Path) -> list[str]:
    """old; mid 10% faster (a percentage); fast 34× faster (a factor)."""
    rng = np.random.default_rng(3)
    old = 100 + rng.normal(0, 1, 30)
    return [_write(tmp_path / "old.txt", old),
            _write(tmp_path / "mid.txt", 90 + rng.normal(0, 1, 30)),
            _write(tmp_path / "fast.txt", 2.9 + rng.normal(0, 0.03, 30))]


def _no_big_percent(text: str) -> None:
    """No change beyond ±50% is written as a percentage (no "-97.1%", no "+2513.7%"), and
    no percentage carries a word (the sign says the direction)."""
    big = [text[max(m.start() - 60, 0):m.end() + 10] for m in PERCENT.finditer(text)
           if float(m.group(1)) > 50]
    assert big == [] and WORDED.search(text) is None


def test_compare_writes_each_change_one_way_in_every_format(run_cli, tmp_path):
    files = _three(tmp_path)
    code, out, _ = run_cli("compare", *files, "--unit", "ms", "--json")
    assert code == 0
    doc = json.loads(out)
    expected = {}
    for c in doc["comparisons"]:
        r = c["ratio"]
        parts = change_parts(r["estimate"], r["low"], r["high"], make_unit("ms"))
        expected[c["candidate"]] = parts
        assert parts.estimate in c["verdict"]["text"]
    assert expected["fast"].factor and expected["fast"].estimate.endswith("× faster")
    assert not expected["mid"].factor and expected["mid"].estimate.startswith("-")
    outputs = {}
    for fmt in ("text", "markdown", "html"):
        code, outputs[fmt], _ = run_cli("compare", *files, "--unit", "ms", "--format", fmt)
        assert code == 0
    page = tmp_path / "page.html"
    code, _, _ = run_cli("report", *files, "--unit", "ms", "-o", page, "--no-figures")
    assert code == 0
    outputs["report"] = page.read_text()
    for fmt, text in outputs.items():
        for parts in expected.values():
            assert parts.estimate in text, (fmt, parts.estimate)
            assert parts.interval in text or fmt in ("html", "report"), fmt
        _no_big_percent(text)
    assert "2 comparisons ·" in outputs["report"]


def test_suite_columns_never_mix_notations(run_cli, tmp_path):
    """A suite with a 26× slowdown and a 10% speed-up: text, Markdown and the report's
    headline give each change the same string, and Holm's p below 0.0001 is "<0.0001"."""
    rng = np.random.default_rng(5)
    lines = ["benchmark,system,value"]
    for bench, factor in (("big", 26.137), ("small", 0.9), ("same", 1.0)):
        for system, scale in (("old", 1.0), ("new", factor)):
            lines += [f"{bench},{system},{100 * scale * (1 + rng.normal(0, 0.01)):.6f}"
                      for _ in range(20)]
    path = tmp_path / "suite.csv"
    path.write_text("\n".join(lines) + "\n")
    args = (path, "--by", "system", "--benchmark", "benchmark", "--seed", "1", "--unit", "s")
    code, out, _ = run_cli("compare", *args, "--json")
    assert code == 0
    doc = json.loads(out)
    changes = {d["benchmark"]: change_parts(d["estimate"], d["low"], d["high"], S)
               for d in doc["decisions"]}
    assert changes["big"].estimate.startswith("26.") and changes["big"].estimate.endswith(
        "× slower")
    assert changes["small"].estimate.startswith("-10")
    levels = {fmt_level(d["level"]) for d in doc["decisions"]}
    assert "98.33%" in levels  # Holm's first step over 3 benchmarks
    texts = {}
    for fmt in ("text", "markdown"):
        code, texts[fmt], _ = run_cli("compare", *args, "--format", fmt)
        assert code == 0
    page = tmp_path / "suite.html"
    code, _, _ = run_cli("report", *args, "-o", page, "--no-figures")
    assert code == 0
    texts["report"] = page.read_text()
    for fmt, text in texts.items():
        for bench in ("big", "small"):
            assert str(changes[bench]) in text or changes[bench].estimate in text, (fmt, bench)
        _no_big_percent(text)
        assert "2513" not in text and "0.0000" not in text
    assert "<0.0001" in texts["text"] and "&lt;0.0001" in texts["report"]
    assert "98.3333" not in texts["report"] and "98.33%" in texts["report"]
    assert "3 comparisons ·" in texts["report"]
    assert "seed: 1" in texts["report"]


def test_report_says_when_nothing_was_drawn(run_cli, tmp_path):
    files = _three(tmp_path)[:2]
    page = tmp_path / "one.html"
    code, _, _ = run_cli("report", *files, "-o", page, "--no-figures")
    assert code == 0
    text = page.read_text()
    assert "1 comparison ·" in text and "1 comparisons" not in text
    assert "seed: none (analysis is deterministic)" in text


# -- headers and words ---------------------------------------------------------------
def test_the_metric_header_follows_unit(run_cli):
    go = str(FORMATS / "gotest.txt")
    code, out, _ = run_cli("compare", go, "--unit", "s")
    assert code == 0 and out.startswith("s/op:\n") and "ns/op" not in out
    code, out, _ = run_cli("compare", go, "--unit", "s", "--format", "markdown")
    assert code == 0 and "## s/op" in out and "## ns/op" not in out
    code, out, _ = run_cli("compare", go, "--unit", "s", "--format", "html")
    assert code == 0 and "<h3>s/op</h3>" in out
    assert out.count("<!DOCTYPE html>") == 1 and out.count("<html") == 1  # one document
    code, out, _ = run_cli("compare", go)
    assert code == 0 and "ns/op:" in out  # without --unit the metric keeps its name


def test_test_uses_compares_words(run_cli, tmp_path):
    base = _write(tmp_path / "base.txt", [1, 2, 3, 4, 5, 6, 7, 8])
    cand = _write(tmp_path / "cand.txt", [0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2])
    code, out, _ = run_cli("test", base, cand)
    assert code == 0
    assert "cand is lower than base" in out and "faster" not in out
    code, out, _ = run_cli("compare", base, cand)
    assert code == 0 and "cand is 2.5× lower than base" in out
    code, out, _ = run_cli("test", base, cand, "--unit", "s")
    assert code == 0 and "cand is faster than base" in out


# -- the Python API ------------------------------------------------------------------
def test_repr_html_is_a_styled_fragment_and_dir_lists_the_api():
    import benchlab

    r = benchlab.compare([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 4.0, 5.0, 6.0])
    html = r._repr_html_()
    assert not any(tag in html for tag in ("<!DOCTYPE", "<html", "<head", "<body"))
    assert html.startswith("<style>") and '<section class="benchlab compare">' in html
    names = dir(benchlab)
    assert {"compare", "read", "summary", "compare_suite", "Dataset"} <= set(names)
    assert "Any" not in names and "TYPE_CHECKING" not in names
    assert set(benchlab.__all__) == set(names)
    assert all(getattr(benchlab, n) is not None for n in benchlab.__all__)


# -- the same rules in summary, in warnings and in the verdict (issue 19, audit (d)) -------
def test_a_ci_reaching_zero_reads_as_a_ratio_in_every_format(run_cli, tmp_path):
    """Fieller's CI of nb/na reaches below 0: no format prints a negative factor."""
    a = _write(tmp_path / "na.txt", [10, 11, 12, 10, 11])
    b = _write(tmp_path / "nb.txt", [1, 100, 1, 1, 1])
    code, text, _ = run_cli("compare", a, b, "--no-plot")
    assert code == 0
    assert "ratio 1.9 (95% CI -3.2 .. 7.1; it reaches 0, so the size of the change is " \
        "undetermined)" in text and "×" not in text.split("=>")[1].split(";")[0]
    assert "detects a change of 7.81× higher" in text and "681" not in text
    code, md, _ = run_cli("compare", a, b, "--format", "markdown")
    assert code == 0 and "| ratio 1.9 | -3.2 .. 7.1 |" in md
    code, html, _ = run_cli("compare", a, b, "--format", "html")
    assert code == 0 and "ratio 1.9" in html and "-3.2×" not in html
    code, doc, _ = run_cli("compare", a, b, "--json")
    ratio = json.loads(doc)["comparisons"][0]["ratio"]
    assert code == 0 and ratio["low"] == pytest.approx(-3.17, abs=0.01)  # raw numbers kept
    code, csv, _ = run_cli("compare", a, b, "--format", "csv")
    assert code == 0 and "-3.2×" not in csv


def test_summary_rounds_as_compare_does_in_every_format(run_cli, tmp_path):
    rng = np.random.default_rng(600)
    values = rng.normal(100, 5, 600)
    a, b = _write(tmp_path / "a600", values), _write(tmp_path / "b600", values * 1.01)
    code, text, _ = run_cli("summary", a)
    assert code == 0
    code, cmp, _ = run_cli("compare", a, b, "--no-plot")
    assert code == 0
    mean = cmp.splitlines()[1].split()[2]  # compare's table: the sample's mean
    assert f"mean {mean}  95% CI " in text and len(mean.split(".")[1]) == 2
    low = text.split("95% CI ")[1].split(" ..")[0]
    assert len(low.split(".")[1]) == 2  # the bounds share the mean's last digit
    for fmt in ("markdown", "html"):
        code, out, _ = run_cli("summary", a, "--format", fmt)
        assert code == 0 and mean in out and low in out
        assert not re.search(r"\d\.\d{4,}", out.split("<style>")[0] if fmt == "html" else out)
    code, doc, _ = run_cli("summary", a, "--json")
    assert code == 0 and json.loads(doc)["groups"][0]["mean"] == pytest.approx(
        float(mean), abs=0.006)


def test_a_warning_names_its_value_in_the_unit():
    from benchlab.stats.diagnostics import warmup

    x = np.r_[0.0067784, 1.2e-3 + np.random.default_rng(1).normal(0, 1e-5, 30)]
    (found,) = warmup(x, "w", S)
    assert "the first measurement (6.778 ms)" in found.message and "median 1.2" in found.message
    (bare,) = warmup(x, "w")
    assert "(0.006778)" in bare.message and "0.0067784" not in bare.message
