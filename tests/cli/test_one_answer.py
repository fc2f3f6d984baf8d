"""One answer per question (issue 19): every format of `compare` and the `report` page
hold the same numbers.

For a store (its design-aware default: execution means paired by round), a suite
with levels and a plain pair, the numbers are parsed out of each output — text,
Markdown, CSV, JSON and the HTML page of `benchlab report` — and compared with
compare's JSON: the ratio, the bounds of the interval the verdict used, its
level, the p-value where the format shows one, and the verdict. A printed number
matches when it is the JSON's value rounded to the digits it shows; a change may
be printed as a signed percentage or as a factor (×). The report's exact
`data-low`/`data-high` must equal compare's bounds for every comparison.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "examples" / "experiments" / "loop.db"
PAIR = [ROOT / "examples" / "kamp" / "current.txt", ROOT / "examples" / "kamp" / "buf_work.txt"]

NUMBER = r"[-+−]?\d+(?:\.\d+)?"
CHANGE = rf"{NUMBER}(?:%|×)"
# a change with its CI: "-42% (-63% .. -19%)" or "2.28× faster (1.94× .. 2.63×)"
CHANGE_CI = re.compile(rf"(?P<est>{CHANGE})(?: [a-z]+)? \((?P<a>{CHANGE}) \.\. (?P<b>{CHANGE})\)")


@pytest.fixture(scope="module")
def suite_csv(tmp_path_factory) -> Path:
    """Four benchmarks × two systems × 4 builds × 3 runs × 5 iterations: no change, -10%,
    +3% and a factor of 2.2 (a verdict beyond ±50% prints as a factor)."""
    rng = np.random.default_rng(7)
    lines = ["system,bench,build,run,value"]
    for bench, mean, effect in (("a", 10.0, 1.0), ("b", 20.0, 0.9), ("c", 5.0, 1.03),
                                ("d", 8.0, 0.45)):
        for system in ("old", "new"):
            scale = mean * (effect if system == "new" else 1.0)
            for build in range(4):
                b = rng.normal(0, 0.02)
                for run in range(3):
                    r = rng.normal(0, 0.01)
                    for v in scale * np.exp(b + r + rng.normal(0, 0.03, 5)):
                        lines.append(f"{system},{bench},{build},{run},{v:.5f}")
    path = tmp_path_factory.mktemp("one-answer") / "suite.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _args(case: str, suite_csv: Path) -> list:
    if case == "store":
        return [STORE, "--seed", "1"]
    if case == "suite":
        return [suite_csv, "--by", "system", "--benchmark", "bench", "--levels", "build,run",
                "--seed", "1"]
    return list(PAIR)


# -- matching a printed number with the exact one ------------------------------------------
def _half_ulp(text: str) -> float:
    """Half a unit of the last digit `text` shows (what rounding may have moved)."""
    digits = text.split(".")[1] if "." in text else ""
    return 0.5 * 10.0 ** -len(digits) * (1 + 1e-9) + 1e-12


def _plain(token: str) -> str:
    return token.replace("−", "-").replace("+", "").strip()


def shows_change(token: str, ratio: float) -> bool:
    """`token` ("-12.3%", "+4%", "2.28×", "0.4388") is `ratio` at the digits it shows: as a
    change in percent, a factor (either way round: "2× faster" is the ratio 0.5) or the
    ratio itself."""
    t = _plain(token)
    if t.endswith("%"):
        return abs(100.0 * (ratio - 1.0) - float(t[:-1])) <= _half_ulp(t[:-1])
    if t.endswith("×"):
        f = float(t[:-1])
        return (abs(ratio - f) <= _half_ulp(t[:-1])
                or (ratio > 0 and abs(1.0 / ratio - f) <= _half_ulp(t[:-1])))
    return abs(ratio - float(t)) <= _half_ulp(t)


def shows_interval(a: str, b: str, low: float, high: float) -> bool:
    """The two printed bounds are the interval's, in either order (a factor CI of a
    decrease runs the other way)."""
    return ((shows_change(a, low) and shows_change(b, high))
            or (shows_change(a, high) and shows_change(b, low)))


def shows_level(token: str, level: float) -> bool:
    t = _plain(token).rstrip("%").replace(" CI", "")
    return abs(100.0 * level - float(t)) <= _half_ulp(t)


def shows_p(token: str, p: float) -> bool:
    """"0.0037", "<0.001", "<0.0001" (a p below the printed precision)."""
    t = _plain(html.unescape(token))
    if t.startswith("<"):
        return 0.0 <= p < float(t[1:])
    return abs(p - float(t)) <= _half_ulp(t)


def outcome(word: str) -> str:
    """The verdict a printed word stands for."""
    w = word.lower()
    if "inconclusive" in w or w.endswith("?"):
        return "inconclusive"
    if "equivalent" in w or "no change" in w or w.endswith(("~", "≈")):
        return "equivalent"
    return "change"


def _check(where: str, bench: str, found: dict, want: dict) -> None:
    """One row of a format against the JSON's numbers."""
    label = f"{where}, {bench}: {found} vs {want}"
    assert shows_change(found["est"], want["estimate"]), label
    assert shows_interval(found["a"], found["b"], want["low"], want["high"]), label
    if "level" in found:
        assert shows_level(found["level"], want["level"]), label
    if "p" in found:
        assert shows_p(found["p"], want["p"]), label
    if "verdict" in found:
        assert outcome(found["verdict"]) == want["outcome"], label


# -- the reference: compare's JSON ---------------------------------------------------------
def expected(doc: dict) -> dict[str, dict]:
    """benchmark (or "pair") → the verdict's ratio, interval, level, p and outcome."""
    if "decisions" in doc:
        rows = {d["benchmark"]: {"estimate": d["estimate"], "low": d["low"],
                                 "high": d["high"], "level": d["level"],
                                 "p": d["adjusted_pvalue"], "outcome": d["outcome"]}
                for d in doc["decisions"]}
        for g in doc["geometric_means"]:
            rows["geomean"] = {"estimate": g["estimate"], "low": g["low"], "high": g["high"],
                               "level": doc["confidence"], "outcome": None}
        return rows
    c = doc["comparisons"][0]
    return {"pair": {"estimate": c["ratio"]["estimate"], "low": c["ratio"]["low"],
                     "high": c["ratio"]["high"], "level": doc["confidence"],
                     "p": c["difference"]["pvalue"], "outcome": c["verdict"]["outcome"],
                     "text": c["verdict"]["text"]}}


# -- parsers, one per format ---------------------------------------------------------------
def suite_text(out: str, benches: list[str]) -> dict[str, dict]:
    """The suite table's rows: change (CI), CI level, Holm p, verdict."""
    rows = {}
    for line in out.splitlines():
        name = line.split("  ")[0].strip()
        if name not in benches:
            continue
        m = CHANGE_CI.search(line)
        rest = re.split(r"\s{2,}", line[m.end():].strip())
        row = {"est": m["est"], "a": m["a"], "b": m["b"], "level": rest[0]}
        if name != "geomean":
            row |= {"p": rest[1], "verdict": rest[2]}
        rows[name] = row
    return rows


def suite_markdown(out: str, benches: list[str]) -> dict[str, dict]:
    rows = {}
    for line in out.splitlines():
        cells = [html.unescape(c.strip()) for c in line.strip().strip("|").split("|")]
        name = cells[0].strip("*")
        if name not in benches:
            continue
        m = CHANGE_CI.search(cells[3])
        row = {"est": m["est"], "a": m["a"], "b": m["b"], "level": cells[4]}
        if name != "geomean":
            row |= {"p": cells[5], "verdict": cells[6]}
        rows[name] = row
    return rows


def _csv_rows(out: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(out)))


def _exact(found: dict[str, float], want: dict, label: str) -> None:
    for key, value in found.items():
        assert value == pytest.approx(want[key], rel=1e-12, abs=0), (label, key)


def html_rows(page: str, table: str) -> list[dict[str, str]]:
    """Each row of the page's tables of class `table`: the printed cells and the exact
    bounds of the verdict's CI."""
    rows = []
    for part in page.split(f'<table class="{table}"')[1:]:
        body = part.split("</table>", 1)[0]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)[1:]:
            def text(cls: str, tr=tr) -> str | None:
                m = re.search(rf'<td class="{cls}"[^>]*>(.*?)</td>', tr, re.S)
                return None if m is None else html.unescape(re.sub(r"<[^>]+>", "", m.group(1)))
            ci = re.search(r'<td class="num ci"([^>]*)>', tr).group(1)
            bench = re.search(r'class="name benchmark" data-sort="([^"]*)"', tr)
            ratio = text("num ratio")
            rows.append({
                "bench": html.unescape(bench.group(1)) if bench else None,
                "ratio": ratio, "ci": text("num ci"), "level": text("num level"),
                "method": text("method"),
                "outcome": re.search(r'data-outcome="([^"]*)"', tr).group(1),
                "low": float(re.search(r'data-low="([^"]*)"', ci).group(1)),
                "high": float(re.search(r'data-high="([^"]*)"', ci).group(1)),
                "p": re.findall(r'<td class="num"[^>]*>([^<]*)</td>', tr)})
    return rows


def _run(run_cli, *args) -> str:
    code, out, err = run_cli(*args)
    assert code == 0, err
    return out


@pytest.mark.parametrize("case", ["store", "suite", "pair"])
def test_every_format_and_the_page_hold_the_same_numbers(case, run_cli, suite_csv, tmp_path):
    args = _args(case, suite_csv)
    doc = json.loads(_run(run_cli, "compare", *args, "--format", "json"))
    want = expected(doc)
    outs = {fmt: _run(run_cli, "compare", *args, "--format", fmt)
            for fmt in ("text", "markdown", "csv")}
    target = tmp_path / "report.html"
    _run(run_cli, "report", *args, "--no-figures", "-o", target)
    page = target.read_text(encoding="utf-8")
    benches = list(want)

    if case == "pair":
        w = want["pair"]
        m = re.search(rf"ratio of means\s+(?P<est>{NUMBER})\s+(?P<level>\d+(?:\.\d+)?)% CI "
                      rf"(?P<a>{NUMBER}) \.\. (?P<b>{NUMBER})", outs["text"])
        p = re.search(rf"difference .* p = ({NUMBER})", outs["text"]).group(1)
        _check("text", "pair", {**m.groupdict(), "p": p}, w)
        assert f"=> {w['text']}" in outs["text"]  # the verdict sentence, every number in it
        row = next(line for line in outs["markdown"].splitlines()
                   if line.startswith("| buf_work | current |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        a, b = cells[3].split(" .. ")
        _check("markdown", "pair", {"est": cells[2], "a": a, "b": b, "p": cells[4],
                                    "verdict": cells[5]}, w)
        assert "95% CI" in outs["markdown"]
        found = {r["statistic"]: r for r in _csv_rows(outs["csv"])
                 if r["table"] == "comparisons"}
        ratio = found["ratio of means"]
        _exact({"estimate": float(ratio["estimate"]), "low": float(ratio["low"]),
                "high": float(ratio["high"]), "level": float(ratio["confidence"]),
                "p": float(found["difference of means"]["pvalue"])}, w, "csv")
        assert ratio["verdict"] == w["outcome"]
        shown = html_rows(page, "sortable headline") + html_rows(page, "comparisons")
        assert len(shown) == 2
        for r in shown:
            a, b = r["ci"].split(" .. ")
            _check("html", "pair", {"est": r["ratio"], "a": a, "b": b, "level": r["level"],
                                    "verdict": r["outcome"]}, w)
            _exact({"low": r["low"], "high": r["high"]}, w, "html")
            assert r["method"] == doc["comparisons"][0]["ratio"]["method"]
        return

    for name, rows in (("text", suite_text(outs["text"], benches)),
                       ("markdown", suite_markdown(outs["markdown"], benches))):
        assert sorted(rows) == sorted(benches), name
        for bench, row in rows.items():
            _check(name, bench, row, want[bench])
    decisions = {r["benchmark"]: r for r in _csv_rows(outs["csv"]) if r["table"] == "decisions"}
    holm = {r["benchmark"]: r for r in _csv_rows(outs["csv"]) if r["table"] == "holm"}
    assert sorted(decisions) == sorted(b for b in benches if b != "geomean")
    for bench, r in decisions.items():
        _exact({"estimate": float(r["estimate"]), "low": float(r["low"]),
                "high": float(r["high"]), "level": float(r["confidence"]),
                "p": float(holm[bench]["estimate"])}, want[bench], f"csv {bench}")
        assert r["verdict"] == want[bench]["outcome"]
    headline = html_rows(page, "sortable headline")
    per_bench = html_rows(page, "comparisons")
    assert len(headline) == len(per_bench) == len(decisions)
    for k, r in enumerate(headline):
        w = want[r["bench"]]
        a, b = r["ci"].split(" .. ")
        _check("html", r["bench"], {"est": r["ratio"], "a": a, "b": b, "level": r["level"],
                                    "p": r["p"][0], "verdict": r["outcome"]}, w)
        # report's exact bounds are compare's, for every comparison
        _exact({"low": r["low"], "high": r["high"]}, w, f"html {r['bench']}")
        assert r["method"].endswith("; Holm step-down")
        # each benchmark's own table shows the same interval, level and method
        same = per_bench[k]
        assert (same["ci"], same["level"], same["method"], same["outcome"]) == (
            r["ci"], r["level"], r["method"], r["outcome"])
    g = want["geomean"]
    shown = re.search(r'<table class="geomean">.*?<td class="num"[^>]*>([^<]*)</td>'
                      r'<td class="num"[^>]*>([^<]*)</td><td class="num"[^>]*>([^<]*)</td>',
                      page, re.S)
    a, b = shown.group(3).split(" .. ")
    assert shows_change(shown.group(2), g["estimate"]) and shows_interval(a, b, g["low"],
                                                                         g["high"])


def test_the_store_gets_the_design_aware_analysis_on_the_page(run_cli, tmp_path):
    """The report of a store names its design (execution means paired by round, Fieller
    with the covariance) and every verdict's method and level, as compare does; the
    numbers of issue 19's example (n=40000: 0.37 .. 0.81, Holm p 0.0037)."""
    target = tmp_path / "report.html"
    _run(run_cli, "report", STORE, "--seed", "1", "--no-figures", "-o", target)
    page = target.read_text(encoding="utf-8")
    assert "execution means paired by interleaving round" in html.unescape(page)
    rows = {r["bench"]: r for r in html_rows(page, "sortable headline")}
    n40 = rows["n=40000"]
    assert n40["ci"] == "0.3678 .. 0.8086" and n40["level"] == "95%"
    assert shows_p(n40["p"][0], 0.0037) and n40["outcome"] == "change"
    assert n40["method"] == "Fieller (paired, with covariance); Holm step-down"
    assert rows["n=20000"]["level"] == "97.5%"


@pytest.mark.parametrize("extra", [
    ["--df", "pooled"], ["--threshold", "2%"], ["-c", "90"], ["--no-adjust"],
    ["--statistic", "median", "--bootstrap", "200"],
])
def test_report_takes_compares_options_with_the_same_meaning(extra, run_cli, suite_csv,
                                                             tmp_path):
    """Each analysis option moves report's intervals exactly as it moves compare's."""
    args = [suite_csv, "--by", "system", "--benchmark", "bench", "--seed", "3", *extra]
    doc = json.loads(_run(run_cli, "compare", *args, "--format", "json"))
    target = tmp_path / "report.html"
    _run(run_cli, "report", *args, "--no-figures", "-o", target)
    rows = html_rows(target.read_text(encoding="utf-8"), "sortable headline")
    decided = {d["benchmark"]: d for d in doc["decisions"]}
    assert len(rows) == len(decided)
    for r in rows:
        d = decided[r["bench"]]
        assert (r["low"], r["high"]) == pytest.approx((d["low"], d["high"]), rel=1e-12)
        assert shows_level(r["level"], d["level"]) and r["outcome"] == d["outcome"]
        if "--statistic" in extra:
            assert r["method"].startswith("bootstrap percentile, ratio of medians")
        assert math.isfinite(r["low"])


def test_paired_pair_by_and_names_reach_the_report(run_cli, tmp_path):
    """--paired and --name: the report's pair is compare's paired comparison, renamed."""
    args = [*PAIR, "--paired", "--name", "current=old", "--name", "buf_work=new"]
    doc = json.loads(_run(run_cli, "compare", *args, "--format", "json"))
    target = tmp_path / "report.html"
    _run(run_cli, "report", *args, "--no-figures", "-o", target)
    page = target.read_text(encoding="utf-8")
    (row,) = html_rows(page, "sortable headline")
    ratio = doc["comparisons"][0]["ratio"]
    assert ratio["method"] == "Fieller (paired, with covariance)"
    assert (row["low"], row["high"]) == pytest.approx((ratio["low"], ratio["high"]),
                                                      rel=1e-12)
    assert row["method"] == ratio["method"] and "old vs new" in page


def test_a_multi_metric_page_has_compares_analysis_of_every_metric(run_cli, tmp_path):
    """go test -benchmem files: compare shows every metric, and so does the page — a
    section per metric in compare's order, each headline with compare's intervals."""
    args = [ROOT / "docs/examples/old.txt", ROOT / "docs/examples/new.txt", "--seed", "2"]
    doc = json.loads(_run(run_cli, "compare", *args, "--format", "json"))
    target = tmp_path / "report.html"
    _run(run_cli, "report", *args, "--no-figures", "-o", target)
    page = target.read_text(encoding="utf-8")
    sections = page.split('<section class="metric"')[1:]
    assert [m["metric"] for m in doc["metrics"]] == [
        html.unescape(re.search(r"<h2>metric (.*?) <a", s).group(1)) for s in sections]
    for metric, section in zip(doc["metrics"], sections, strict=True):
        decided = {d["benchmark"]: d for d in metric["decisions"]}
        rows = html_rows(section.split('<section class="bench"')[0], "sortable headline")
        assert sorted(r["bench"] for r in rows) == sorted(decided)
        for r in rows:
            d = decided[r["bench"]]
            assert (r["low"], r["high"]) == pytest.approx((d["low"], d["high"]), rel=1e-12)
