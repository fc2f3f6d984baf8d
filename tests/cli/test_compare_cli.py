"""`benchlab compare` end to end: outputs, JSON keys, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

KAMP = [str(ROOT / "examples/kamp/current.txt"), str(ROOT / "examples/kamp/buf_work.txt")]
CSV = str(ROOT / "examples/kamp/buildworld.csv")


def numbers(tmp_path, name, values):
    path = tmp_path / name
    path.write_text("\n".join(str(v) for v in values) + "\n")
    return str(path)


def test_readme_example(run_cli):
    code, out, err = run_cli("compare", *KAMP, "--unit", "s")
    assert code == 0 and err == ""
    assert "ratio of means" in out and "Fieller (welch df)" in out
    assert "no difference proven between buf_work and current" in out
    assert "current" in out and "├" in out  # the table and the plot


def test_no_plot(run_cli):
    _, out, _ = run_cli("compare", *KAMP, "--no-plot", expect=0)
    assert "├" not in out


def test_json_document_keys(run_cli):
    code, out, _ = run_cli("compare", *KAMP, "--json", "--unit", "s")
    doc = json.loads(out)
    assert code == 0
    assert {"confidence", "samples", "comparisons", "seed", "unit", "threshold"} <= set(doc)
    assert set(doc["samples"][0]) >= {"name", "n", "mean", "median", "stddev", "min", "max"}
    comp = doc["comparisons"][0]
    assert {"baseline", "candidate", "ratio", "difference", "verdict"} <= set(comp)
    assert set(comp["ratio"]) >= {"estimate", "low", "high", "method", "df"}
    assert set(comp["difference"]) >= {"estimate", "low", "high", "pvalue", "method"}
    assert comp["verdict"]["outcome"] in ("change", "equivalent", "inconclusive")
    assert comp["verdict"]["text"].startswith("no difference proven")
    assert comp["baseline"] == "current" and comp["candidate"] == "buf_work"
    assert doc["samples"][0]["mean"] == pytest.approx(1478.2533333333333)


def test_unbounded_ratio_is_null_in_json(tmp_path, run_cli):
    a = numbers(tmp_path, "a.txt", [0.1, 5.0, 0.2])  # baseline mean not distinguishable from 0
    b = numbers(tmp_path, "b.txt", [1.0, 1.1, 0.9])
    code, out, _ = run_cli("compare", a, b, "--json", expect=0)
    ratio = json.loads(out)["comparisons"][0]["ratio"]
    assert ratio["low"] is None and ratio["high"] is None and ratio["bounded"] is False
    _, text, _ = run_cli("compare", a, b, expect=0)
    assert "unbounded" in text


def test_markdown(run_cli):
    code, out, _ = run_cli("compare", *KAMP, "--format", "markdown", "--unit", "s")
    assert code == 0
    assert out.startswith("### benchlab compare")
    assert "| buf_work | current |" in out


def test_fail_on(tmp_path, run_cli):
    old = numbers(tmp_path, "old.txt", [10.0, 10.1, 9.9, 10.05, 9.95])
    slow = numbers(tmp_path, "slow.txt", [11.0, 11.1, 10.9, 11.05, 10.95])
    fast = numbers(tmp_path, "fast.txt", [9.0, 9.1, 8.9, 9.05, 8.95])
    assert run_cli("compare", old, slow, "--unit", "s", "--fail-on", "regression")[0] == 1
    assert run_cli("compare", old, fast, "--unit", "s", "--fail-on", "regression")[0] == 0
    assert run_cli("compare", old, fast, "--unit", "s", "--fail-on", "change")[0] == 1
    # Beyond the threshold only: a 10% change does not trip a 20% threshold.
    assert run_cli("compare", old, slow, "--threshold", "20%", "--fail-on", "change")[0] == 0
    # Throughput: higher is better, so the higher sample is not a regression.
    assert run_cli("compare", old, slow, "--unit", "MB/s", "--fail-on", "regression")[0] == 0
    assert run_cli("compare", slow, old, "--higher-is-better", "--fail-on", "regression")[0] == 1


def test_verdict_words(tmp_path, run_cli):
    old = numbers(tmp_path, "old.txt", [10.0, 10.1, 9.9, 10.05, 9.95])
    new = numbers(tmp_path, "new.txt", [9.0, 9.1, 8.9, 9.05, 8.95])
    same = numbers(tmp_path, "same.txt", [10.01, 10.09, 9.92, 10.04, 9.96])
    _, out, _ = run_cli("compare", old, new, "--unit", "s", expect=0)
    assert "new is faster than old: -10.0% (95% CI" in out
    _, out, _ = run_cli("compare", old, new, "--unit", "ops/s", expect=0)
    assert "new is worse than old: -10.0%" in out
    _, out, _ = run_cli("compare", old, new, expect=0)
    assert "new is lower than old: -10.0%" in out
    _, out, _ = run_cli("compare", old, same, "--threshold", "2%", expect=0)
    assert "equivalent within ±2%: change 0.0% (95% CI" in out


def test_csv_paired_and_tests_and_bootstrap(run_cli):
    code, out, _ = run_cli("compare", CSV, "--by", "kernel", "--value", "real", "--unit", "s",
                           "--pair-by", "boot_run", "--tests", "--bootstrap", "1000",
                           "--seed", "3", "--json")
    doc = json.loads(out)
    comp = doc["comparisons"][0]
    assert code == 0 and comp["paired"] is True
    assert comp["ratio"]["method"] == "Fieller (paired, with covariance)"
    assert comp["difference"]["method"] == "paired t"
    names = [t["name"] for t in comp["tests"]]
    # Paired: the signed-rank test and normality of the differences, no independent tests.
    assert names == ["Wilcoxon signed-rank", "Shapiro-Wilk (buf_work - current)"]
    assert doc["df_method"] == "paired"
    assert [b["statistic"] for b in comp["bootstrap"]] == ["mean", "median"]
    assert comp["bootstrap"][0]["seed"] == 3 and doc["seed"] == 3


def test_bare_bootstrap_flag_before_files(run_cli):
    code, out, _ = run_cli("compare", "--bootstrap", *KAMP, "--seed", "1", "--json")
    assert code == 0
    assert json.loads(out)["comparisons"][0]["bootstrap"][0]["replicates"] == 10_000


def test_unseeded_bootstrap_reports_the_seed_it_drew(run_cli):
    first = json.loads(run_cli("compare", *KAMP, "--bootstrap", "300", "--json", expect=0)[1])
    seed = first["seed"]
    assert isinstance(seed, int)
    again = json.loads(run_cli("compare", *KAMP, "--bootstrap", "300", "--seed", str(seed),
                               "--json", expect=0)[1])
    assert again["comparisons"][0]["bootstrap"] == first["comparisons"][0]["bootstrap"]


def test_bootstrap_reproducible_through_cli(run_cli):
    one = run_cli("compare", *KAMP, "--bootstrap", "500", "--seed", "9", "--json", expect=0)[1]
    two = run_cli("compare", *KAMP, "--bootstrap", "500", "--seed", "9", "--json", expect=0)[1]
    assert one == two


def test_independent_tests_and_df_choice(run_cli):
    doc = json.loads(run_cli("compare", *KAMP, "--tests", "--df", "pooled", "--json", expect=0)[1])
    comp = doc["comparisons"][0]
    assert [t["name"] for t in comp["tests"]] == [
        "Student t (pooled)", "Mann-Whitney U", "Kolmogorov-Smirnov", "F-test (variances)",
        "Shapiro-Wilk (current)", "Shapiro-Wilk (buf_work)"]
    assert comp["ratio"]["df"] == 4 and doc["df_method"] == "pooled"
    assert run_cli("compare", *KAMP, "--paired", "--df", "pooled")[0] == 2


def test_inconclusive_advice_in_json_and_text(tmp_path, run_cli):
    a = numbers(tmp_path, "a.txt", [10, 11, 9, 10.5])
    b = numbers(tmp_path, "b.txt", [10.2, 10.9, 9.4, 10.6, 10.1, 9.9, 10.8, 9.7, 10.3, 10.4])
    code, out, _ = run_cli("compare", a, b, "--json", "--threshold", "2%", expect=0)
    verdict = json.loads(out)["comparisons"][0]["verdict"]
    advice = verdict["advice"]
    assert verdict["outcome"] == "inconclusive" and advice["power"] == 0.8
    new = advice["new_experiment"]
    assert new["baseline"] == new["candidate"] > 4
    assert (f"detects a change of ±{100 * advice['detectable_change']:.1f}% with 80% power"
            in verdict["text"])
    assert f"a new experiment needs about {new['baseline']} measurements per sample" in (
        verdict["text"])
    assert "more measurements" not in verdict["text"]
    warnings = [w["kind"] for w in json.loads(out)["warnings"]]
    assert warnings.count("advice") == 1


def test_plain_line_with_comment_and_comma_is_not_a_table(tmp_path, run_cli):
    a = tmp_path / "a.txt"
    a.write_text("1476.48 # after reboot, cold cache\n1475.75\n1482.53\n")
    code, out, _ = run_cli("compare", str(a), KAMP[1], "--json")
    assert code == 0 and json.loads(out)["samples"][0]["n"] == 3


def test_baseline_choice_and_three_samples(tmp_path, run_cli):
    a = numbers(tmp_path, "a.txt", [1.0, 1.1, 0.9])
    b = numbers(tmp_path, "b.txt", [2.0, 2.1, 1.9])
    c = numbers(tmp_path, "c.txt", [3.0, 3.1, 2.9])
    doc = json.loads(run_cli("compare", a, b, c, "--baseline", "b", "--json", expect=0)[1])
    assert [(x["baseline"], x["candidate"]) for x in doc["comparisons"]] == [("b", "a"),
                                                                           ("b", "c")]


def test_non_positive_baseline_reports_difference_and_exits_2(tmp_path, run_cli):
    a = numbers(tmp_path, "a.txt", [-1.0, -1.1, -0.9])
    b = numbers(tmp_path, "b.txt", [1.0, 1.1, 0.9])
    code, out, err = run_cli("compare", a, b)
    assert code == 2
    assert "difference" in out and "ratio of means" in out
    assert err.count("\n") == 1 and "needs a positive baseline mean" in err


def test_zero_variance_is_exact(tmp_path, run_cli):
    a = numbers(tmp_path, "a.txt", [2.0, 2.0, 2.0])
    b = numbers(tmp_path, "b.txt", [3.0, 3.0, 3.0])
    doc = json.loads(run_cli("compare", a, b, "--json", expect=0)[1])
    comp = doc["comparisons"][0]
    assert comp["ratio"]["low"] == comp["ratio"]["high"] == 1.5
    assert comp["difference"]["pvalue"] == 0.0 and comp["verdict"]["outcome"] == "change"


@pytest.mark.parametrize("args,message", [
    (["compare", "missing.txt", "x.txt"], "missing.txt: no such file"),
    (["compare", "{bad}", "{good}"], "bad.txt:2: 'oops' is not a number"),
    (["compare", "{one}", "{good}"], "sample 'one' has 1 value; at least 2 are needed"),
    (["compare", "{empty}", "{good}"], "empty.txt: no numbers found"),
    (["compare", "{good}", "{long}", "--paired"], "--paired needs samples of equal length"),
    (["compare", "{good}"], "at least two samples"),
    (["compare", "{good}", "{good2}", "--threshold", "abc"], "not a threshold"),
    (["compare", "{good}", "{good2}", "-c", "150"], "confidence must be between"),
    (["compare", "{dir}", "{good}"], "is a directory"),
    (["compare", "{nan}", "{good}"], "nan.txt:2: value nan is not a finite number"),
    (["compare", "{binary}", "{good}"], "binary content"),
    (["compare", "{good}", "{good2}", "-w", "40"], "belong to --ministat mode"),
])
def test_bad_input_one_line_exit_2(tmp_path, run_cli, args, message):
    files = {
        "bad": numbers(tmp_path, "bad.txt", ["1", "oops", "3"]),
        "good": numbers(tmp_path, "good.txt", [1, 2, 3]),
        "good2": numbers(tmp_path, "good2.txt", [1, 2, 4]),
        "one": numbers(tmp_path, "one.txt", [1]),
        "empty": numbers(tmp_path, "empty.txt", []),
        "long": numbers(tmp_path, "long.txt", [1, 2, 3, 4]),
        "nan": numbers(tmp_path, "nan.txt", [1, "nan", 3]),
        "dir": str(tmp_path),
    }
    (tmp_path / "binary.bin").write_bytes(b"\x00\x01\x02\x03")
    files["binary"] = str(tmp_path / "binary.bin")
    argv = [a.format(**files) for a in args]
    code, out, err = run_cli(*argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("benchlab")
    assert message in err
    assert "Traceback" not in err


def test_stdin_and_module_entry_point(tmp_path):
    good = numbers(tmp_path, "good.txt", [1, 2, 3])
    proc = subprocess.run([sys.executable, "-m", "benchlab", "compare", "-", good, "--json"],
                          input="2\n3\n4\n", capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["samples"][0]["name"] == "stdin"


def test_help_and_no_command(run_cli):
    code, out, _ = run_cli("--help")
    assert code == 0 and "compare" in out
    code, out, _ = run_cli("compare", "--help")
    assert code == 0 and "examples:" in out and "--ministat" in out
    assert run_cli()[0] == 2


# The FreeBSD man-page example as printed in STATS.md §2.
MANPAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "ministat"
      / "man_page_example.txt").read_text()


def test_ministat_mode_through_the_command_line(monkeypatch):
    """The man-page example, byte for byte, via `python -m benchlab compare --ministat`."""
    inputs = ROOT / "tests/fixtures/ministat/inputs"
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "benchlab", "compare", "--ministat", "-s",
                           "-w", "60", "iguana", "chameleon"], capture_output=True, cwd=inputs)
    assert proc.returncode == 0
    assert proc.stdout.decode() == MANPAGE
    bad = subprocess.run([sys.executable, "-m", "benchlab", "compare", "--ministat", "-c", "97",
                          "iguana", "chameleon"], capture_output=True, cwd=inputs)
    assert bad.returncode == 2 and bad.stdout == b""
