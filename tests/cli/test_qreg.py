"""`benchlab qreg`: the example data, R's numbers through the CLI, JSON, plots, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchlab.report.envelope import KEYS as ENVELOPE_KEYS

from ..conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
LATENCY = ROOT / "examples" / "factorial" / "latency.csv"
RESULTS = ROOT / "examples" / "factorial" / "results.csv"
FACTORS = ["--factors", "sched,machine,vmstat,load"]
QREG = FIXTURES / "r" / "quantreg"
REFERENCE = json.loads((QREG / "reference.json").read_text())["datasets"]
JSON_KEYS = {"benchlab_version", "command", "response", "unit", "n", "levels", "terms",
             "solver", "se", "se_reason", "confidence", "df", "replicates", "seed", "cluster",
             "quantiles", "warnings"}


def _json(run_cli, *args):
    code, out, err = run_cli("qreg", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _true_coefficients(tau: float) -> dict[str, float]:
    """The saturated-model coefficients of latency.csv's simulation (make_data.py), runs aside.

    Cell quantile: 900 + 150 m + 300 * 4^[m>0] * 2^[s>0] * 1.5^[v>0] * -log(1 - tau); the
    coefficient of a term is the mean over the 16 cells of its sign times the cell quantile.
    """
    signs = np.array(np.meshgrid(*[[-1, 1]] * 4, indexing="ij")).reshape(4, -1)
    s, m, v, _ = signs
    q = 900 + 150 * m + 300 * np.where(m > 0, 4, 1) * np.where(s > 0, 2, 1) \
        * np.where(v > 0, 1.5, 1) * -np.log1p(-tau)
    return {"(Intercept)": q.mean(), "sched": (s * q).mean(), "machine": (m * q).mean(),
            "vmstat": (v * q).mean(), "sched:machine": (s * m * q).mean(),
            "load": (signs[3] * q).mean()}


def test_example_default_is_the_run_bootstrap_on_the_saturated_model(run_cli):
    doc = _json(run_cli, LATENCY, "--response", "latency", *FACTORS, "--taus", "0.5,0.9",
                "--seed", "3", "-R", "400")
    assert set(doc) == JSON_KEYS | set(ENVELOPE_KEYS)
    assert doc["command"] == "qreg" and doc["n"] == 16000 and len(doc["terms"]) == 16
    assert doc["solver"].startswith("order statistics")
    assert doc["se"] == "cluster" and doc["cluster"] == "run" and doc["replicates"] == 400
    assert "not independent" in doc["se_reason"] and doc["seed"] == 3
    assert doc["df"] == 16 * 5 - 16  # runs less cells: the runs carry the information
    assert doc["levels"]["machine"] == ["core2", "p4"]
    covered = checked = 0
    for row in doc["quantiles"]:
        truth = _true_coefficients(row["tau"])
        coefficients = {c["term"]: c for c in row["coefficients"]}
        assert set(coefficients) == set(doc["terms"])
        for term, value in truth.items():
            c = coefficients[term]
            half = (c["high"] - c["low"]) / 2
            assert c["low"] < c["estimate"] < c["high"]
            assert abs(c["estimate"] - value) < 2 * half, (row["tau"], term)
            covered += c["low"] <= value <= c["high"]
            checked += 1
        assert coefficients["machine"]["pvalue"] < 1e-6
    assert covered >= checked - 2  # 95% intervals: one or two misses in 12 are chance


def test_text_output_names_solver_coding_and_inference(run_cli):
    code, out, err = run_cli("qreg", LATENCY, "--response", "latency", *FACTORS,
                             "--interactions", "1", "--taus", "0.5,0.99", "--seed", "1",
                             "-R", "20")  # 20 replicates: 400 Frisch-Newton fits took 14 s
    assert code == 0, err
    assert "n = 16000, 5 coefficients" in out
    assert "coding: sched BFS = -1, CFS = +1" in out
    assert "solver: Frisch-Newton interior point" in out
    assert ("by the run bootstrap within cells (20 replicates, SE corrected for few runs, "
            "t on 64 df)") in out
    assert "tau = 0.5" in out and "tau = 0.99" in out
    assert "seed 1" in out


def test_same_seed_same_intervals_and_seed_reported_without_one(run_cli):
    args = (LATENCY, "--response", "latency", "--factors", "sched,machine", "--taus", "0.9")
    first = _json(run_cli, *args, "--seed", "5")
    assert first["replicates"] == 200  # the default B
    assert _json(run_cli, *args, "--seed", "5") == first
    drawn = _json(run_cli, *args)
    assert isinstance(drawn["seed"], int)


def test_default_without_runs_follows_quantreg(run_cli):
    # results.csv has a run column with one observation per run: no clusters, n < 1001.
    doc = _json(run_cli, RESULTS, "--response", "latency", *FACTORS, "--interactions", "1",
                "--taus", "0.5")
    assert doc["se"] == "rank" and doc["cluster"] is None and doc["seed"] is None
    assert "below 1001" in doc["se_reason"]
    estimate = doc["quantiles"][0]["coefficients"][2]
    assert estimate["low"] <= estimate["estimate"] <= estimate["high"]
    assert estimate["pvalue"] is None


def test_thin_tails_warn(run_cli):
    doc = _json(run_cli, RESULTS, "--response", "latency", *FACTORS, "--taus", "0.5,0.99",
                "--se", "nid")
    assert any("few observations beyond tau = 0.5, 0.99" in w for w in doc["warnings"])


def test_few_runs_per_cell_warn(run_cli, tmp_path):
    lines = LATENCY.read_text().splitlines()
    kept = [ln for ln in lines if ln.startswith(("#", "run,")) or ln.split(",")[6] in "12"]
    data = tmp_path / "two-runs.csv"
    data.write_text("\n".join(kept) + "\n")
    doc = _json(run_cli, data, "--response", "latency", *FACTORS, "--taus", "0.5", "--seed", "1")
    assert doc["se"] == "cluster"
    assert any("only 2 runs" in w for w in doc["warnings"])


@pytest.mark.parametrize("se", ["nid", "ker", "iid"])
def test_cli_standard_errors_equal_r(run_cli, se):
    ref = REFERENCE["latency_2k3_r25"]
    doc = _json(run_cli, QREG / "latency_2k3_r25.csv", "--response", "y", "--factors", "a,b,c",
                "--level-order", "a=lo,hi", "--level-order", "b=lo,hi", "--level-order",
                "c=lo,hi", "--taus", "0.5,0.9", "--se", se)
    for row in doc["quantiles"]:  # both fits are unique (25 per cell)
        fit = next(f for f in ref["fits"] if f["tau"] == row["tau"])
        assert fit["unique"]
        assert [c["term"] for c in row["coefficients"]] == ref["columns"]
        np.testing.assert_allclose([c["estimate"] for c in row["coefficients"]],
                                   fit["br"]["coefficients"], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose([c["se"] for c in row["coefficients"]],
                                   fit["se"][se]["std_error"], rtol=1e-9)
        np.testing.assert_allclose([c["pvalue"] for c in row["coefficients"]],
                                   fit["se"][se]["p_value"], rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize(("se", "key"), [("rank", "rank_iid"), ("rank-nid", "rank_nid")])
def test_cli_rank_intervals_equal_r(run_cli, se, key):
    ref = REFERENCE["covariate_n500"]
    doc = _json(run_cli, QREG / "covariate_n500.csv", "--response", "y", "--factors", "a,b",
                "--level-order", "a=lo,hi", "--level-order", "b=lo,hi", "--interactions", "1",
                "--covariates", "x", "--taus", "0.3,0.7", "--se", se)
    assert doc["se"] == se and doc["df"] is None
    for row in doc["quantiles"]:  # R's rank path is unique at these quantiles
        want = next(f for f in ref["fits"] if f["tau"] == row["tau"])["se"][key]
        assert not want["warnings"]
        np.testing.assert_allclose([c["low"] for c in row["coefficients"]], want["lower"],
                                   rtol=1e-6)
        np.testing.assert_allclose([c["high"] for c in row["coefficients"]], want["upper"],
                                   rtol=1e-6)


def test_rank_nid_where_tau_plus_h_leaves_the_unit_interval(run_cli):
    code, out, err = run_cli("qreg", RESULTS, "--response", "time", *FACTORS, "--interactions",
                             "1", "--taus", "0.5,0.99", "--se", "rank-nid")
    assert code == 0, err
    assert "rank-test inversion with local densities (quantreg's iid = FALSE)" in out
    assert "warning: rank-nid at tau = 0.99: tau +- h" in out
    intercept = out[out.index("tau = 0.99"):].splitlines()[2].split()
    assert intercept[0] == "(Intercept)" and intercept[2:4] == ["n/a", "n/a"]


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_is_written(run_cli, tmp_path, suffix):
    plot = tmp_path / f"coefficients{suffix}"
    code, _, err = run_cli("qreg", LATENCY, "--response", "latency", "--factors",
                           "sched,machine", "--taus", "0.5,0.9", "--plot", plot, "--seed", "1")
    assert code == 0, err
    head = plot.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in head or b"<?xml" in head


@pytest.mark.parametrize("taus, message", [
    ("0.5,abc", "'abc' is not a quantile"),
    ("0.5,1.2", "tau = 1.2 is outside (0, 1)"),
    ("0", "tau = 0 is outside (0, 1)"),
    ("0.9:0.1:0.1", "'0.9:0.1:0.1' is not a quantile or a FROM:TO:STEP range"),
])
def test_bad_taus(run_cli, taus, message):
    code, out, err = run_cli("qreg", RESULTS, "--response", "time", *FACTORS, "--taus", taus)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_empty_cell_is_named(run_cli, tmp_path):
    lines = RESULTS.read_text().splitlines()
    kept = [ln for ln in lines if ",BFS,core2,off,compile," not in ln]
    data = tmp_path / "hole.csv"
    data.write_text("\n".join(kept) + "\n")
    code, _, err = run_cli("qreg", data, "--response", "time", *FACTORS, "--taus", "0.5")
    assert code == 2
    assert "sched=BFS, machine=core2, vmstat=off, load=compile has no observations" in err
    code, _, err = run_cli("qreg", data, "--response", "time", *FACTORS, "--taus", "0.5",
                           "--interactions", "1", "--se", "nid")
    assert code == 0, err


def test_non_numeric_response_names_file_and_line(run_cli, tmp_path):
    lines = RESULTS.read_text().splitlines()
    header = next(i for i, ln in enumerate(lines) if ln.startswith("run,"))
    lines[header + 3] = lines[header + 3].rsplit(",", 1)[0] + ",fast"
    data = tmp_path / "bad.csv"
    data.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("qreg", data, "--response", "latency", *FACTORS)
    assert code == 2
    assert f"bad.csv:{header + 4}" in err and "'fast'" in err


@pytest.mark.parametrize("args, message", [
    (["--factors", "sched,latency"], "cannot also be a factor"),
    (["--factors", "sched,nosuch"], "nosuch"),
    (["--factors", "sched", "--se", "cluster", "--cluster", "none"], "--se cluster needs"),
    (["--factors", "sched", "--covariates", "sched"], "cannot be both a covariate"),
    (["--factors", "sched", "--covariates", "vmstat2"], "vmstat2"),
    (["--factors", "sched", "-R", "1", "--se", "boot"], "at least 2 replicates"),
    (["--factors", "sched", "--plot", "out.bmp"], "bmp"),
])
def test_bad_options(run_cli, args, message):
    code, out, err = run_cli("qreg", RESULTS, "--response", "latency", *args)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_single_level_factor_is_refused(run_cli, tmp_path):
    lines = RESULTS.read_text().splitlines()
    kept = [ln for ln in lines if ",CFS," not in ln and not ln.startswith("# factor sched")]
    data = tmp_path / "one-level.csv"
    data.write_text("\n".join(kept) + "\n")
    code, _, err = run_cli("qreg", data, "--response", "latency", "--factors", "sched,machine")
    assert code == 2 and "sched" in err and "level" in err


def test_covariate_enters_the_model(run_cli):
    doc = _json(run_cli, QREG / "covariate_n500.csv", "--response", "y", "--factors", "a,b",
                "--level-order", "a=lo,hi", "--level-order", "b=lo,hi", "--interactions", "1",
                "--covariates", "x", "--taus", "0.5", "--se", "nid")
    fit = next(f for f in REFERENCE["covariate_n500"]["fits"] if f["tau"] == 0.5)
    row = doc["quantiles"][0]
    assert doc["terms"] == REFERENCE["covariate_n500"]["columns"]
    assert row["objective"] == pytest.approx(fit["br"]["objective"], rel=1e-9)


def test_store_clusters_are_builds_nested_in_their_case(run_cli):
    store = ROOT / "examples" / "experiments" / "loop.db"
    doc = _json(run_cli, store, "--response", "value", "--factors", "n", "--taus", "0.5",
                "--seed", "1")
    assert doc["se"] == "cluster" and doc["cluster"] == "build"
    # 2 alternatives x 3 builds per cell of n: build "1" of one alternative is not the other's
    assert not any("only" in w for w in doc["warnings"])
    doc = _json(run_cli, store, "--response", "value", "--factors", "alternative,n",
                "--taus", "0.5", "--seed", "1")
    assert any("only 3 builds" in w for w in doc["warnings"])
    doc = _json(run_cli, store, "--response", "value", "--factors", "alternative,n",
                "--taus", "0.5", "--seed", "1", "--cluster", "execution")
    assert doc["cluster"] == "execution"
    assert not any("only" in w for w in doc["warnings"])  # 3 builds x 3 executions per cell
