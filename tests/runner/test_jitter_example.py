"""examples/experiments/jitter.toml, Nogueira et al.'s design on this machine, in a tiny
version: 2 replicates of a shell's echo. It runs, records its switches, leaves the IRQs and
no noise process behind, and `anova` and `test --posthoc` analyse its store."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from benchlab.runner import system_settings as ss

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "experiments"
FACTORS = ["services", "affinity", "irq", "aslr"]


def _irq_writable() -> bool:
    files = list(ss.irq_files().values())
    return bool(files) and len(ss.probe([ss.Write(p, "", "") for p in files])[0]) > 0


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux with 2 usable CPUs (the example pins to CPU 1)")
def test_a_tiny_jitter_experiment_runs_and_is_analysed(tmp_path, run_cli):
    text = (EXAMPLES / "jitter.toml").read_text()
    assert "executions = 50" in text and '"matmul.py", "60"' in text
    # 2 replicates, and a shell printing its pid as the "time" instead of Python's start-up:
    # the factors, switches and analyses are the example's, in a second or two of trials
    text = text.replace("executions = 50", "executions = 2").replace(
        'command = ["python3", "matmul.py", "60"]', 'command = ["sh", "-c", "echo time_ms: $$"]')
    assert "matmul.py" not in text
    factors = FACTORS
    if not _irq_writable():  # a container without /proc/irq writes: the other three factors
        start = text.index("[factors.irq]")
        text = text[:start] + text[text.index("[factors.aslr]"):]
        factors = [f for f in FACTORS if f != "irq"]
    (tmp_path / "jitter.toml").write_text(text)
    irqs = {p: ss.read(p) for p in ss.irq_files().values()}
    db = tmp_path / "jitter.db"
    run_cli("run", tmp_path / "jitter.toml", "-o", db, "--quiet", expect=0)
    assert {p: ss.read(p) for p in irqs} == irqs  # every IRQ back where it was
    assert not (tmp_path / "jitter-noise.pid").exists()  # the noise process's teardown ran
    conn = sqlite3.connect(db)
    switched = dict(conn.execute("SELECT factor, COUNT(*) FROM switches GROUP BY factor"))
    errors = conn.execute("SELECT COUNT(*) FROM switches WHERE error IS NOT NULL").fetchone()
    conn.close()
    assert set(switched) == {"services", *(["irq"] if "irq" in factors else [])}
    assert errors == (0,)
    code, out, _ = run_cli("anova", db, "--response", "value", "--factors", ",".join(factors),
                           "--json", expect=0)
    doc = json.loads(out)
    terms = {t["term"]: t["variation"] for t in doc["anova"]}
    assert set(factors) <= set(terms) and doc["n"] == 2 * 2 ** len(factors)
    assert sum(terms.values()) + doc["residual"]["variation"] == pytest.approx(1.0)
    code, out, _ = run_cli("test", db, "--protocol", "kruskal", "--posthoc", "dunn", expect=0)
    assert out.startswith("Kruskal-Wallis") and "Dunn" in out
