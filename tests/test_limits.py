"""Absurd sizes are refused before any work, in one line naming the limit and how to raise
it; long analyses show a progress bar on a terminal only."""

from __future__ import annotations

import io

import numpy as np
import pytest

from benchlab import limits, progress
from benchlab.errors import UsageError


def one_line_refusal(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("benchlab: ") and "Traceback" not in err
    for word in words:
        assert word in err


@pytest.fixture
def two_files(tmp_path):
    rng = np.random.default_rng(3)
    paths = []
    for name in ("a.txt", "b.txt"):
        path = tmp_path / name
        path.write_text("\n".join(f"{v:.4f}" for v in rng.lognormal(size=40)) + "\n")
        paths.append(str(path))
    return paths


@pytest.fixture
def latency(tmp_path):
    path = tmp_path / "lat.csv"
    rng = np.random.default_rng(4)
    rows = ["a,b,run,y"] + [f"{a},{b},{r},{rng.lognormal():.5f}" for a in (-1, 1)
                            for b in (-1, 1) for r in range(4) for _ in range(10)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_huge_bootstrap_is_refused_before_allocating(run_cli, two_files):
    one_line_refusal(*run_cli("compare", *two_files, "--bootstrap", "1000000000000"),
                     "1,000,000,000,000", "10,000,000", "BENCHLAB_MAX_REPLICATES")


def test_bootstrap_work_is_bounded_by_b_times_n(run_cli, two_files, monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_RESAMPLED", "10000")
    one_line_refusal(*run_cli("compare", *two_files, "--bootstrap", "1000"),
                     "1,000 × 80 values", "BENCHLAB_MAX_RESAMPLED")


def test_the_environment_raises_a_limit(run_cli, two_files, monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_REPLICATES", "50")
    one_line_refusal(*run_cli("compare", *two_files, "--bootstrap", "100"), "limit of 50")
    monkeypatch.setenv("BENCHLAB_MAX_REPLICATES", "1_000")
    code, out, _ = run_cli("compare", *two_files, "--bootstrap", "100", "--seed", "1")
    assert code == 0 and "bootstrap" in out


def test_a_bad_limit_value_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_TAUS", "lots")
    with pytest.raises(UsageError, match="BENCHLAB_MAX_TAUS must be a positive integer"):
        limits.limit(limits.MAX_TAUS)


def test_bootstrap_memory_is_checked_in_the_library(monkeypatch):
    from benchlab.stats.bootstrap import bootstrap_ratio

    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "1")
    with pytest.raises(UsageError, match="100,000 bootstrap replicates would take 4 MB"):
        bootstrap_ratio(np.ones(10) + np.arange(10), np.arange(10) + 2.0, replicates=100_000)


@pytest.mark.parametrize(("args", "words"), [
    (["--taus", "0.001:0.999:0.000001"], ["998,001", "BENCHLAB_MAX_TAUS"]),
    (["--taus", "0.1:0.9:1e-320"], ["BENCHLAB_MAX_TAUS"]),
    (["-R", "1000000000"], ["-R 1000000000", "BENCHLAB_MAX_REPLICATES"]),
    (["-R", "5000000", "--se", "cluster"], ["MB of memory", "BENCHLAB_MAX_MEMORY_MB"]),
])
def test_qreg_refuses_absurd_grids_and_replicates(run_cli, latency, args, words, monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "100")  # 5,000,000 × 10 τ × 4 doubles: 1.5 GB
    one_line_refusal(*run_cli("qreg", latency, "--response", "y", "--factors", "a,b", *args),
                     *words)


def test_kruskal_with_thousands_of_groups_is_refused_at_once(run_cli, tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("g,y\n" + "".join(f"g{i % 3000},{1 + (i * 7919) % 1000 / 1000}\n"
                                      for i in range(9000)))
    one_line_refusal(*run_cli("test", str(path), "--by", "g", "--value", "y"),
                     "4,498,500", "BENCHLAB_MAX_PAIRS")


def test_anova_with_a_huge_factor_is_refused_before_the_design_matrix(run_cli, tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("g,y\n" + "".join(f"g{i % 3000},{1 + (i * 7919) % 1000 / 1000}\n"
                                      for i in range(9000)))
    one_line_refusal(*run_cli("anova", str(path), "--response", "y", "--factors", "g"),
                     "3,000 levels) is 3,000", "BENCHLAB_MAX_COEFFICIENTS")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_for_long_work(monkeypatch):
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(progress, "EXPECTED", 0.0)
    monkeypatch.setattr(progress, "REDRAW", 0.0)
    screen = FakeTerminal()
    with progress.showing(True, screen), progress.task("bootstrap", 10) as advance:
        for _ in range(10):
            advance(1)
    assert "bootstrap" in screen.getvalue()


@pytest.mark.parametrize(("enabled", "stream"), [(False, FakeTerminal()), (True, io.StringIO())])
def test_no_progress_in_json_or_when_piped(monkeypatch, enabled, stream):
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(progress, "EXPECTED", 0.0)
    with progress.showing(enabled, stream), progress.task("bootstrap", 10) as advance:
        advance(10)
        assert advance is progress.nothing
    assert stream.getvalue() == ""


def test_quick_work_shows_no_bar(monkeypatch):
    screen = FakeTerminal()
    with progress.showing(True, screen), progress.task("bootstrap", 10) as advance:
        advance(10)  # done well before SHOW_AFTER: nothing drawn
    assert screen.getvalue() == ""


def test_bootstrap_reports_every_replicate_without_changing_the_result(monkeypatch):
    from benchlab.stats import bootstrap

    steps = []

    class Recorder:
        def __call__(self, k: int = 1) -> None:
            steps.append(k)

    x, y = np.arange(1.0, 301.0), np.arange(2.0, 302.0)
    plain = bootstrap.bootstrap_ratio(x, y, replicates=2000, seed=5)
    monkeypatch.setattr(progress, "_stream", FakeTerminal())
    original = progress._Task.advance
    monkeypatch.setattr(progress._Task, "advance",
                        lambda self, k=1: (Recorder()(k), original(self, k)))
    counted = bootstrap.bootstrap_ratio(x, y, replicates=2000, seed=5)
    assert sum(steps) == 4000  # both samples' replicates
    assert (counted.low, counted.high, counted.bca_low) == (plain.low, plain.high, plain.bca_low)


def test_qreg_with_a_huge_factor_is_refused_before_the_fit(run_cli, tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("g,y\n" + "".join(f"g{i % 3000},{1 + (i * 7919) % 1000 / 1000}\n"
                                      for i in range(9000)))
    one_line_refusal(*run_cli("qreg", str(path), "--response", "y", "--factors", "g"),
                     "3,000 levels) is 3,000", "BENCHLAB_MAX_COEFFICIENTS")
