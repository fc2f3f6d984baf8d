"""Analyses that follow a store's design (issue 12, item 4): compare's default on a store,
rounds as blocks, anova/test on unit means, and `run`'s ending."""

from __future__ import annotations

import json
import math
import sqlite3
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
LOOP = ROOT / "examples" / "experiments" / "loop.db"
R_REFERENCE = ROOT / "tests" / "fixtures" / "r" / "unit_means" / "unit_means.json"


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


# Two alternatives: values that vary with the process id (every execution its own) and an offset.
DRIFT = """
    seed = 3
    executions = {executions}
    iterations = 3
    order = "{order}"
    [measure]
    regex = 'v: (?P<v>[0-9.]+)'
    unit = "ms"
    [alternatives.old]
    command = ["sh", "-c", "for i in 1 2 3; do echo v: $((100 + $$ % 9)); done"]
    [alternatives.new]
    command = ["sh", "-c", "for i in 1 2 3; do echo v: $((90 + $$ % 9)); done"]
"""


def _fieller_paired(a: np.ndarray, b: np.ndarray, confidence: float = 0.95):
    """Fieller's interval for mean(a)/mean(b) of paired data (STATS.md §3), written out."""
    from scipy import stats

    n = a.size
    ma, mb = a.mean(), b.mean()
    va, vb = a.var(ddof=1) / n, b.var(ddof=1) / n
    vab = np.cov(a, b, ddof=1)[0, 1] / n
    t = stats.t.ppf(0.5 + confidence / 2, n - 1)
    rho = ma / mb
    g = t * t * vb / mb ** 2
    root = (t / mb) * math.sqrt(va - 2 * rho * vab + rho ** 2 * vb - g * (va - vab ** 2 / vb))
    centre = rho - g * vab / vb
    return rho, (centre - root) / (1 - g), (centre + root) / (1 - g)


def _round_means(db: Path, alternative: str, n: str) -> dict[int, float]:
    """Execution means by round, straight from the store's tables (independent of benchlab)."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT t.round, AVG(m.value) FROM measurements m JOIN trials t ON t.seq = m.trial "
        "WHERE m.warmup = 0 AND t.warmup = 0 AND t.status = 'ok' AND t.alternative = ? "
        "AND json_extract(t.factors, '$.n') = ? GROUP BY t.seq ORDER BY t.round",
        (alternative, n)).fetchall()
    conn.close()
    return {int(r): float(v) for r, v in rows}


# -- compare STORE --------------------------------------------------------------------------

def test_compare_store_default_is_by_alternative_per_combination_blocked(run_cli):
    code, out, err = run_cli("compare", LOOP)
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith("note: store analysed by alternative, one comparison per "
                            "combination of n; execution means paired by interleaving round "
                            "(9 rounds")
    assert "n=20000" in out and "n=40000" in out
    assert "vs full n=20000" not in out  # not every case against the first
    code, out, err = run_cli("compare", LOOP, "--json", expect=0)
    doc = json.loads(out)
    design = doc["design"]
    assert design["by"] == "alternative" and design["blocks"] == "round"
    assert design["unit"] == "execution" and design["pairs"] == 9 and design["levels"] == []
    bench = {b["benchmark"]: b for b in doc["benchmarks"]}
    assert set(bench) == {"n=20000", "n=40000"}
    for name, b in bench.items():
        c = b["comparisons"][0]
        assert c["baseline"] == "full" and c["candidate"] == "half"  # the file's baseline
        # the diagnostics and the table see what the analysis uses: 9 round means each
        assert [s["n"] for s in b["samples"]] == [9, 9]
        full = _round_means(LOOP, "full", name[2:])
        half = _round_means(LOOP, "half", name[2:])
        assert sorted(full) == sorted(half) and len(full) == 9
        rounds = sorted(full)
        rho, low, high = _fieller_paired(np.array([half[r] for r in rounds]),
                                         np.array([full[r] for r in rounds]))
        ratio = c["ratio"]
        assert ratio["estimate"] == pytest.approx(rho, rel=1e-9)
        assert ratio["low"] == pytest.approx(low, rel=1e-9)
        assert ratio["high"] == pytest.approx(high, rel=1e-9)


def test_flags_override_the_store_default(run_cli):
    code, out, err = run_cli("compare", LOOP, "--by", "alternative", "--benchmark", "n",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert "design" not in doc
    method = doc["benchmarks"][0]["comparisons"][0]["ratio"]["method"]
    assert "build means" in method  # the hierarchy the store records, not the rounds
    code, out, err = run_cli("compare", LOOP, "--by", "case")
    assert code == 0 and "half n=40000 vs full n=20000" in out and "note:" not in out


def _simulate(rng, rounds: int, ratio: float, sd_round: float, sd_exec: float, sd_iter: float,
              iterations: int = 5):
    """A store-like dataset: per round one execution of each alternative (in that round's
    conditions, a shared round effect), several iterations each; long form arrays."""
    effect = rng.normal(0.0, sd_round, rounds)
    out = []
    for k, mean in enumerate((100.0, 100.0 * ratio)):
        execution = mean + effect + rng.normal(0.0, sd_exec, rounds)
        values = execution[:, None] + rng.normal(0.0, sd_iter, (rounds, iterations))
        trial = (np.arange(rounds) * 2 + k)[:, None].repeat(iterations, axis=1)
        block = np.arange(rounds)[:, None].repeat(iterations, axis=1)
        out.append((values.ravel(), trial.ravel(), block.ravel()))
    return out


def test_blocked_ci_covers_the_true_ratio_and_is_narrower():
    """Monte Carlo (seeded, small): with a round effect, the rounds-as-blocks CI covers the
    true ratio about 95% of the time and is narrower than the CI ignoring the blocks."""
    from benchlab.stats.blocks import block_means, pair_blocks
    from benchlab.stats.compare import compare_samples

    rng = np.random.default_rng(20240512)
    true, sims = 0.95, 300
    covered = 0
    widths_blocked, widths_plain = [], []
    for _ in range(sims):
        data = _simulate(rng, rounds=10, ratio=true, sd_round=6.0, sd_exec=1.5, sd_iter=3.0)
        found = [(name, *block_means(v, u, b)) for name, (v, u, b) in zip("ab", data,
                                                                            strict=True)]
        paired = pair_blocks(found)
        assert paired.blocks.size == 10 and not paired.dropped
        blocked = compare_samples(list(zip("ab", paired.means, strict=True)), paired=True,
                                  diagnostics=False).comparisons[0].ratio
        plain = compare_samples(list(zip("ab", paired.means, strict=True)),
                                diagnostics=False).comparisons[0].ratio
        covered += blocked.low <= true <= blocked.high
        widths_blocked.append(blocked.high - blocked.low)
        widths_plain.append(plain.high - plain.low)
    coverage = covered / sims
    se = math.sqrt(0.95 * 0.05 / sims)
    assert abs(coverage - 0.95) < 3.5 * se, coverage
    assert np.median(widths_blocked) < 0.6 * np.median(widths_plain)


def test_block_means_are_means_of_unit_means():
    from benchlab.stats.blocks import block_means, pair_blocks

    values = np.array([1.0, 3.0, 10.0, 20.0, 30.0, 5.0])
    units = np.array([7, 7, 8, 9, 9, 9])  # unit 9 has three measurements
    blocks = np.array([2, 2, 2, 1, 1, 1])
    ids, means = block_means(values, units, blocks)
    assert ids.tolist() == [1, 2]
    assert means.tolist() == [pytest.approx(55 / 3), pytest.approx((2.0 + 10.0) / 2)]
    paired = pair_blocks([("a", ids, means), ("b", np.array([2, 3]), np.array([4.0, 6.0]))])
    assert paired.blocks.tolist() == [2] and paired.dropped == (1, 3)
    assert [m.tolist() for m in paired.means] == [[6.0], [4.0]]


def test_small_stores_interleaved_sequential_and_no_factors(tmp_path, run_cli):
    db = tmp_path / "i.db"
    exp = write(tmp_path, DRIFT.format(executions=4, order="interleaved-random"))
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    code, out, err = run_cli("compare", db)
    assert code == 0, err
    assert out.startswith("note: store analysed by alternative; execution means paired by "
                          "interleaving round (4 rounds")
    assert "new vs old" in out and "Fieller (paired, with covariance)" in out
    seq = tmp_path / "s.db"
    exp = write(tmp_path, DRIFT.format(executions=4, order="sequential"), "seq.toml")
    assert run_cli("run", exp, "-o", seq, "--quiet")[0] == 0
    code, out, err = run_cli("compare", seq, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["design"]["blocks"] is None
    assert doc["design"]["levels"] == ["execution"]
    assert "not interleaved" in doc["design"]["note"]


def test_store_with_one_alternative_says_what_to_do(tmp_path, run_cli):
    exp = write(tmp_path, """
        seed = 1
        executions = 2
        [factors]
        n = [1, 2]
        [alternatives.only]
        command = ["sh", "-c", "echo {n}"]
    """)
    db = tmp_path / "one.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    code, out, err = run_cli("compare", db)
    assert code == 2 and "one alternative" in err and "--by n" in err
    assert err.count("\n") == 1


def test_real_builds_are_paired_by_build(tmp_path, run_cli):
    exp = write(tmp_path, """
        seed = 2
        builds = 3
        executions = 2
        iterations = 2
        [measure]
        regex = 'v: (?P<v>[0-9.]+)'
        [alternatives.a]
        build = ["true"]
        command = ["sh", "-c", "echo v: 10; echo v: 11"]
        [alternatives.b]
        build = ["true"]
        command = ["sh", "-c", "echo v: 12; echo v: 13"]
    """)
    db = tmp_path / "b.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    doc = json.loads(run_cli("compare", db, "--json", expect=0)[1])
    assert doc["design"]["blocks"] == "build" and doc["design"]["pairs"] == 3
    assert doc["comparisons"][0]["ratio"]["estimate"] == pytest.approx(12.5 / 10.5)


# -- anova and test on unit means -------------------------------------------------------

def _r_rows(level: str) -> dict:
    return {r["term"]: r for r in json.loads(R_REFERENCE.read_text())[level]["rows"]}


@pytest.mark.parametrize("level, replicates", [("build", 3), ("execution", 9),
                                              ("measurement", 45)])
def test_anova_of_a_store_matches_r_on_unit_means(run_cli, level, replicates):
    args = ["anova", LOOP, "--response", "value", "--factors", "alternative,n", "--json"]
    if level != "build":
        args += ["--unit-level", level]
    code, out, err = run_cli(*args)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["unit_level"] == level and doc["replicates"] == replicates
    reference = _r_rows(level)
    for row in doc["anova"]:
        r = reference[row["term"]]
        assert row["ss"] == pytest.approx(r["ss"], rel=1e-8)
        assert row["f"] == pytest.approx(r["f"], rel=1e-8)
        assert row["pvalue"] == pytest.approx(r["pvalue"], rel=1e-6)
    assert doc["residual"]["df"] == reference["Residuals"]["df"]
    if level == "measurement":
        assert any("too narrow" in w and "36 executions in 12 builds" in w
                   for w in doc["warnings"])
    else:
        assert f"the {4 * replicates} {level} means" in doc["unit_note"]


def test_anova_text_says_which_units(run_cli):
    code, out, err = run_cli("anova", LOOP, "--response", "value", "--factors", "alternative,n")
    assert code == 0, err
    assert "3 replicates, 12 runs" in out and "45 replicates" not in out
    assert "note: analysed the 12 build means (3 per cell), not the 180 measurements" in out


def test_anova_levels_on_a_table(tmp_path, run_cli):
    rows = ["sched,machine,run,value"]
    rng = np.random.default_rng(4)
    for s in ("a", "b"):
        for m in ("x", "y"):
            for run in range(3):
                base = rng.normal(10, 1)
                rows += [f"{s},{m},{run},{base + rng.normal(0, 0.1):.4f}" for _ in range(4)]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("anova", path, "--response", "value", "--factors", "sched,machine",
                             "--levels", "run", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["unit_level"] == "run" and doc["replicates"] == 3
    code, out, err = run_cli("anova", path, "--response", "value", "--factors", "sched,machine",
                             "--json", expect=0)
    doc = json.loads(out)
    assert doc["unit_level"] is None and doc["replicates"] == 12  # no levels known
    code, out, err = run_cli("anova", path, "--response", "value", "--factors", "sched,machine",
                             "--unit-level", "build")
    assert code == 2 and "needs levels" in err


def test_test_on_a_store_uses_build_means(run_cli):
    code, out, err = run_cli("test", LOOP, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["unit_level"] == "build"
    assert "tested the build means (3 per sample), not the 180 measurements" in doc["notes"][0]
    code, out, err = run_cli("test", LOOP, expect=0)
    assert "one-way ANOVA: F(3, 8)" in out and "full n=20000  3" in out
    code, out, err = run_cli("test", LOOP, "--unit-level", "measurement", "--json", expect=0)
    doc = json.loads(out)
    assert doc["unit_level"] == "measurement" and "too narrow" in doc["warnings"][0]
    code, out, err = run_cli("test", LOOP, "--by", "alternative", "--benchmark", "n", "--json")
    doc = json.loads(out)
    assert code == 0 and "(6 per sample)" in doc["notes"][0]  # 2 combinations x 3 builds


def test_unit_means_by_hand():
    from benchlab.data.units import unit_means

    columns = {"cell": np.array(["a"] * 6 + ["b"] * 2), "build": np.array(list("11122211")),
               "execution": np.array(list("11211111")),
               "value": np.array([1.0, 3.0, 8.0, 4.0, 6.0, 8.0, 10.0, 20.0])}
    builds = unit_means(columns, "value", ["cell"], ["build", "execution"], "build")
    # cell a build 1: executions (1+3)/2 = 2 and 8 -> 5; build 2: 6; cell b build 1: 15
    assert builds.values.tolist() == [5.0, 6.0, 15.0]
    assert builds.columns["cell"].tolist() == ["a", "a", "b"]
    execs = unit_means(columns, "value", ["cell"], ["build", "execution"], "execution")
    assert execs.values.tolist() == [2.0, 8.0, 6.0, 15.0]


# -- run's ending ------------------------------------------------------------------------

def test_run_prints_the_analysis_and_the_command_that_reproduces_it(tmp_path, run_cli):
    exp = write(tmp_path, DRIFT.format(executions=3, order="interleaved-random"))
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, "--quiet")
    assert code == 0, err
    hint = next(line for line in out.splitlines() if line.startswith("analyze with: "))
    command = hint[len("analyze with: "):].split("   (")[0].split()
    assert command[:2] == ["benchlab", "compare"] and command[-2:] == ["--seed", "3"]
    analysis = out[out.index("note: store analysed"):]
    code, again, err = run_cli(*command[1:])
    assert code == 0 and again == analysis  # the exact same analysis
    doc = json.loads(run_cli("run", exp, "-o", tmp_path / "j.db", "--json", expect=0)[1])
    assert doc["analysis_command"][:2] == ["benchlab", "compare"]


def test_dry_run_seed_gives_the_real_run_order(tmp_path, run_cli):
    exp = write(tmp_path, DRIFT.format(executions=3, order="interleaved-random")
                .replace("seed = 3\n", ""))
    code, out, err = run_cli("run", exp, "--dry-run", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["seed_drawn"] is True
    code, text, _ = run_cli("run", exp, "--dry-run", expect=0)
    assert "(drawn; this order again: benchlab run " in text
    db = tmp_path / "r.db"
    assert run_cli("run", exp, "-o", db, "--quiet", "--seed", str(doc["seed"]))[0] == 0
    conn = sqlite3.connect(db)
    stored = conn.execute("SELECT alternative, round, execution FROM trials ORDER BY seq"
                          ).fetchall()
    conn.close()
    planned = [(t["alternative"], t["round"], t["execution"]) for t in doc["trials"]]
    assert stored == planned
    code, out, err = run_cli("run", exp, "--dry-run", "--seed", "9", "--json", expect=0)
    assert json.loads(out)["seed_drawn"] is False


def test_interrupted_run_says_how_to_resume(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    exp = write(tmp_path, """
        seed = 1
        executions = 3
        [alternatives.slow]
        command = ["sh", "-c", "echo $$ > pid; sleep 30"]
    """)
    db = tmp_path / "r.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # Ctrl-C's default action restored in the child: a shell starts background jobs (a test
    # run with `&`) with SIGINT ignored, and Python then never raises KeyboardInterrupt
    proc = subprocess.Popen([sys.executable, "-m", "benchlab", "run", exp, "-o", str(db),
                             "--quiet"], env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    pidfile = tmp_path / "pid"
    deadline = time.monotonic() + 120  # polled: loaded machines
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert f"go on with: benchlab run {exp} -o {db} --resume" in err
    assert [line for line in err.splitlines() if "warning" not in line] == [
        f"benchlab: interrupted; the finished trials are in {db}; go on with: "
        f"benchlab run {exp} -o {db} --resume"]
