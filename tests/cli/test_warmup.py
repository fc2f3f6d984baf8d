"""`benchlab warmup`: the docs example's classes, JSON keys, --order, a JMH file's forks,
the figure, and bad input as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "warmup.csv"
ARGS = ["--by", "benchmark", "--levels", "fork", "--value", "time", "--unit", "ms"]


def test_example_classes_in_json(run_cli):
    _, out, _ = run_cli("warmup", EXAMPLE, *ARGS, "--json", expect=0)
    doc = json.loads(out)
    got = [(e["benchmark"], e["levels"]["fork"], e["class"], e["steady_start"])
           for e in doc["executions"]]
    assert got == [("parse", "1", "warm-up", 60), ("parse", "2", "warm-up", 75),
                   ("parse", "3", "warm-up", 90), ("render", "1", "flat", 0),
                   ("render", "2", "slowdown", 120), ("render", "3", "no steady state", None)]
    assert [(b["benchmark"], b["class"]) for b in doc["benchmarks"]] == [
        ("parse", "consistent"), ("render", "no steady state")]
    assert doc["command"] == "warmup" and doc["penalty_factor"] == 15.0
    assert doc["executions"][0]["change_points"] == [60]
    assert doc["executions"][5]["outliers"] == []


def test_text_and_order_column(run_cli, tmp_path):
    _, text, _ = run_cli("warmup", EXAMPLE, *ARGS, expect=0)
    assert "parse: consistent" in text and "render: no steady state" in text
    lines = EXAMPLE.read_text().splitlines()
    shuffled = tmp_path / "shuffled.csv"
    order = np.random.default_rng(1).permutation(len(lines) - 1)
    shuffled.write_text("\n".join([lines[0], *(lines[1 + i] for i in order)]) + "\n")
    _, out, _ = run_cli("warmup", shuffled, *ARGS, "--order", "iteration", "--json", expect=0)
    _, same, _ = run_cli("warmup", EXAMPLE, *ARGS, "--json", expect=0)
    def key(e):
        return e["benchmark"], e["levels"]["fork"]

    assert (sorted(json.loads(out)["executions"], key=key)
            == sorted(json.loads(same)["executions"], key=key))


def test_jmh_forks_are_the_executions(run_cli, tmp_path):
    rng = np.random.default_rng(2)
    forks = []
    for warm in (10, 15):
        scores = 100.0 * (1 + 0.01 * rng.standard_normal(60))
        scores[:warm] *= 0.5  # throughput: lower while warming up
        forks.append([round(float(s), 4) for s in scores])
    doc = [{"benchmark": "org.bench.Parse.run", "mode": "thrpt", "forks": 2,
            "primaryMetric": {"score": 95.0, "scoreUnit": "ops/s", "rawData": forks}}]
    path = tmp_path / "jmh.json"
    path.write_text(json.dumps(doc))
    _, out, _ = run_cli("warmup", path, "--json", expect=0)
    got = json.loads(out)
    assert got["level_columns"] == ["fork"] and got["higher_is_better"] is True
    assert [(e["class"], e["steady_start"]) for e in got["executions"]] == [
        ("warm-up", 10), ("warm-up", 15)]


def test_plot(run_cli, tmp_path):
    plot = tmp_path / "warmup.png"
    run_cli("warmup", EXAMPLE, *ARGS, "--plot", plot, expect=0)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input(run_cli, tmp_path):
    code, _, err = run_cli("warmup", EXAMPLE, "--by", "benchmark", "--levels", "forks",
                           "--value", "time", expect=2)
    assert "no level column 'forks'" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("warmup", EXAMPLE, "--by", "benchmark", "--value", "time", expect=2)
    assert "--levels" in err
    code, _, err = run_cli("warmup", EXAMPLE, *ARGS, "--order", "when", expect=2)
    assert "no column 'when' for --order" in err
    short = tmp_path / "short.csv"
    short.write_text("\n".join(EXAMPLE.read_text().splitlines()[:321]) + "\n")
    code, _, err = run_cli("warmup", short, *ARGS, expect=2)
    assert "'parse' fork 2: 20 iterations; an execution needs at least 30" in err
    assert "short.csv" in err and "Traceback" not in err
    code, _, err = run_cli("warmup", EXAMPLE, *ARGS, "--steady-fraction", "2", expect=2)
    assert "between 0 and 1" in err


def test_summary_cuts_each_execution_at_its_steady_state(run_cli):
    base = ["summary", EXAMPLE, *ARGS, "--json"]
    _, out, _ = run_cli(*base, "--warmup", "auto", expect=0)
    doc = json.loads(out)
    assert [(g["name"], g["n"]) for g in doc["groups"]] == [("parse", 900 - 225),
                                                            ("render", 900 - 120)]
    assert doc["notes"][0].startswith("parse: --warmup auto cut 225 of 900 iterations")
    assert "1 without a steady state kept whole" in doc["notes"][1]
    # parse's steady mean is 2.0 ms: the warm-up (2.8 ms) no longer pulls it up
    assert abs(doc["groups"][0]["mean"] - 2.0) < 0.01
    _, out, _ = run_cli(*base, "--warmup", "auto", "--no-steady-state", "drop", expect=0)
    dropped = json.loads(out)
    assert dropped["groups"][1]["n"] == 780 - 300
    assert "left out" in dropped["notes"][1]
    code, _, err = run_cli("summary", EXAMPLE, "--by", "benchmark", "--value", "time",
                           "--levels", "none", "--warmup", "auto", expect=2)
    assert "--warmup auto needs" in err


def test_real_jmh_forks(run_cli):
    """tests/fixtures/jmh_warmup (JMH 1.37, 5 forks x 200 iterations, no warm-up
    iterations): streams' forks warm up (JIT), crc's are mostly flat."""
    path = ROOT / "tests" / "fixtures" / "jmh_warmup" / "jmh-result.json"
    _, out, _ = run_cli("warmup", path, "--json", expect=0)
    doc = json.loads(out)
    classes = {}
    for e in doc["executions"]:
        classes.setdefault(e["benchmark"].rsplit(".", 1)[1], []).append(e["class"])
    assert classes["streams"].count("warm-up") >= 4
    assert classes["crc"].count("flat") >= 3 and "no steady state" not in classes["crc"]
    starts = [e["steady_start"] for e in doc["executions"]
              if e["benchmark"].endswith("streams") and e["steady_start"] is not None]
    assert all(s >= 30 for s in starts)  # the interpreted and C1 iterations are cut
