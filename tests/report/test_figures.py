"""Figures of every analysis (report/figures/): real results drawn to PNG and SVG, checked
as files (PNG magic, SVG parsed as XML: axes, texts), names drawn literally, the same bytes
each time, a 50-benchmark forest plot (its time: benchmarks/forest_plot.py), and no
matplotlib on `compare`'s path."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from benchlab.report.figures import has_figure, make_figure, svg_text, write_figure
from benchlab.result import RenderContext
from benchlab.stats.anova import anova
from benchlab.stats.compare import compare_hierarchical, compare_samples
from benchlab.stats.hierarchy import plan_experiment, summarize
from benchlab.stats.protocols import kruskal_test, speedup_suite, speedup_test
from benchlab.stats.qreg import quantile_regression
from benchlab.stats.suite import compare_suite
from benchlab.units import make_unit

ROOT = Path(__file__).resolve().parents[2]
NASTY = "$x$ <b>"  # mathtext and markup: must draw as these very characters
SVG = "{http://www.w3.org/2000/svg}"


def _rng() -> np.random.Generator:
    return np.random.default_rng(11)


def _two_samples():
    rng = _rng()
    return [(NASTY, rng.normal(0.0100, 0.0004, 30)), ("new", rng.normal(0.0095, 0.0004, 30)),
            ("big", rng.lognormal(np.log(0.0104), 0.05, 5000))]


def _levels():
    rng = _rng()
    build = np.repeat(np.arange(6), 12)
    run = np.tile(np.repeat(np.arange(3), 4), 6)
    def system(shift: float) -> np.ndarray:
        return (shift + rng.normal(0, 0.3, 6)[build] + rng.normal(0, 0.1, 18)[build * 3 + run]
                + rng.normal(0, 0.05, 72))
    return build, run, system


def _suite(benchmarks: int):
    rng = _rng()
    data = {}
    for b in range(benchmarks):
        m = float(rng.lognormal(-5, 1))
        name = NASTY if b == 0 else f"BenchmarkParse/size={2 ** (b % 20)}/case_{b}"
        data[name] = [("old", rng.normal(m, 0.03 * m, 10), []),
                      ("new", rng.normal(m * rng.normal(1, 0.03), 0.03 * m, 10), [])]
    return compare_suite(data, [], baseline="old", threshold=0.02, replicates=500, seed=3)


def _factorial():
    rng = _rng()
    codes = np.array([[i % 2, (i // 2) % 2] for i in range(64)])
    y = 10 + codes[:, 0] + rng.normal(0, 1, 64) + codes[:, 1] * rng.exponential(2, 64)
    return codes, y


def _compare():
    samples = _two_samples()
    result = compare_samples(samples, unit=make_unit("s"), threshold=0.02)
    return result, RenderContext(options={"samples": samples})


def _hierarchical():
    build, run, system = _levels()
    data = [(NASTY, system(10.0), [build, run]), ("new", system(9.5), [build, run])]
    return compare_hierarchical(data, ["build", "run"], unit=make_unit("ms")), RenderContext()


def _summary():
    build, run, system = _levels()
    result = summarize(system(10.0), [build, run], ["build", "run"], name=NASTY)
    return result, RenderContext(options={"unit": make_unit("ms")})


def _plan():
    summary, _ = _summary()
    return plan_experiment(summary, [60.0, 5.0, 0.1], budget=3600.0), RenderContext()


def _anova():
    codes, y = _factorial()
    return anova(y, codes, [NASTY, "b"], [["x", "y"], ["p", "q"]], response_name=NASTY), \
        RenderContext()


def _qreg():
    codes, y = _factorial()
    result = quantile_regression(y, codes, [2, 2], [NASTY, "b"], [["x", "y"], ["p", "q"]],
                                 taus=(0.1, 0.5, 0.9), se="iid", response=NASTY, unit="ms")
    return result, RenderContext()


def _kruskal():
    rng = _rng()
    samples = [(NASTY, rng.normal(10, 1, 25)), ("b", rng.normal(11, 1, 25)),
               ("c", rng.normal(10, 1, 25))]
    return kruskal_test(samples), RenderContext(options={"samples": samples})


def _speedup():
    rng = _rng()
    base, cand = rng.normal(11, 1, 40), rng.normal(10, 1, 40)
    result = speedup_test(base, cand, names=(NASTY, "new"))
    return result, RenderContext(options={"samples": [(NASTY, base), ("new", cand)]})


def _speedup_suite():
    rng = _rng()
    data = [(NASTY if i == 0 else f"bench{i}", rng.normal(10, 1, 40),
             rng.normal(9.6 + 0.05 * i, 1, 40)) for i in range(8)]
    return speedup_suite(data, names=("old", "new")), RenderContext()


# builder, axes drawn (legends are not axes)
CASES = {
    "compare": (_compare, 2),
    "hierarchical": (_hierarchical, 2),
    "suite": (lambda: (_suite(6), RenderContext()), 1),
    "summary": (_summary, 2),
    "plan": (_plan, 1),
    "anova": (_anova, 3),
    "qreg": (_qreg, 4),
    "kruskal": (_kruskal, 1),
    "speedup": (_speedup, 2),
    "speedup-suite": (_speedup_suite, 1),
}


def _svg_texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def _svg_axes(root: ET.Element) -> int:
    return sum(1 for g in root.iter(f"{SVG}g") if g.get("id", "").startswith("axes_"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_figure_written_as_png_and_svg(case, tmp_path):
    build, axes = CASES[case]
    result, context = build()
    assert has_figure(result)
    png, svg = tmp_path / "f.png", tmp_path / "f.svg"
    write_figure(result, str(png), context)
    write_figure(result, str(svg), context)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 5000
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG}svg"
    assert _svg_axes(root) == axes
    texts = _svg_texts(root)
    assert len(texts) > 10  # ticks, labels, titles: text, not paths (svg.fonttype none)
    if case not in ("plan", "speedup-suite"):
        assert any(NASTY in t for t in texts), texts  # drawn literally, not as mathtext
    assert not list(tmp_path.glob("*.tmp*"))  # written through a temporary file, renamed


def test_pdf_is_written(tmp_path):
    result, context = _compare()
    out = tmp_path / "f.pdf"
    write_figure(result, str(out), context)
    assert out.read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("case", ["compare", "qreg", "plan"])
def test_same_result_same_bytes(case, tmp_path):
    """No date, no random ids: a figure in a repository does not change when redrawn."""
    result, context = CASES[case][0]()
    for ext in ("svg", "pdf", "png"):
        a, b = tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"
        write_figure(result, str(a), context)
        write_figure(result, str(b), context)
        assert a.read_bytes() == b.read_bytes(), ext


def test_compare_without_raw_values_draws_the_means():
    result, _ = _compare()
    root = ET.fromstring(svg_text(result))
    texts = _svg_texts(root)
    assert any("means with their 95% CI" in t for t in texts)
    assert not any("distributions" in t for t in texts)


def test_compare_figure_shows_the_threshold_and_verdicts():
    result, context = _compare()
    texts = _svg_texts(ET.fromstring(svg_text(result, context)))
    assert "threshold ±2%" in texts
    assert f"new / {NASTY}" in texts
    verdicts = {c.verdict.outcome for c in result.comparisons}
    assert "change" in verdicts  # the data are made to show one


def test_hierarchical_compare_draws_the_top_level_means():
    result, context = _hierarchical()
    texts = _svg_texts(ET.fromstring(svg_text(result, context)))
    assert any("top-level unit means" in t for t in texts)
    assert "mean of each build (ms)" in texts


def test_time_axis_is_scaled_to_a_readable_unit():
    result, context = _compare()  # values near 0.01 s
    texts = _svg_texts(ET.fromstring(svg_text(result, context)))
    assert "measurement (ms)" in texts


def test_fifty_benchmark_forest_plot_lists_every_benchmark(tmp_path):
    """(How long it takes is benchmarks/forest_plot.py's question.)"""
    result = _suite(50)
    write_figure(result, str(tmp_path / "suite.svg"))
    write_figure(result, str(tmp_path / "suite.png"))
    assert (tmp_path / "suite.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    texts = _svg_texts(ET.parse(tmp_path / "suite.svg").getroot())
    names = [b for b, _ in result.benchmarks]
    assert len(names) == 50
    assert all(name in texts for name in names)
    assert "geometric mean" in texts
    fig = make_figure(result)
    try:
        # tall enough that 50 labels do not overlap: at least 0.2 inch per row
        assert fig.get_size_inches()[1] >= 0.2 * 50
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_suite_with_two_candidates_has_one_legend_entry_per_candidate():
    rng = _rng()
    data = {f"b{i}": [("old", rng.normal(10, 0.3, 10), []), ("new", rng.normal(9.7, 0.3, 10), []),
                      ("newer", rng.normal(10.4, 0.3, 10), [])] for i in range(5)}
    result = compare_suite(data, [], baseline="old", replicates=200, seed=1)
    texts = _svg_texts(ET.fromstring(svg_text(result)))
    assert "geometric mean new" in texts and "geometric mean newer" in texts
    assert texts.count("new") == 1 and texts.count("newer") == 1  # legend entries


def test_qreg_figure_has_the_reference_and_units():
    result, context = _qreg()
    assert result.ols is not None
    texts = _svg_texts(ET.fromstring(svg_text(result, context)))
    assert texts.count("τ") == len(result.names)
    assert "effect (ms)" in texts
    assert "mean (OLS) effect" in texts and "mean (OLS) 95% CI" in texts


def test_plan_figure_marks_the_budget():
    result, context = _plan()
    texts = _svg_texts(ET.fromstring(svg_text(result, context)))
    assert "budget 1 h" in texts
    assert any(t.startswith("optimal:") for t in texts)
    assert any(t.startswith("single-level:") for t in texts)


def test_plan_for_a_target_marks_the_target():
    summary, _ = _summary()
    plan = plan_experiment(summary, [60.0, 5.0, 0.1], target=0.01)
    texts = _svg_texts(ET.fromstring(svg_text(plan)))
    assert "target ±1%" in texts


def test_long_names_are_shortened_in_the_middle():
    from benchlab.report.figures.style import LABEL_CHARS, label

    name = "Benchmark" + "x" * 100 + "/tail_that_differs"
    short = label(name)
    assert len(short) == LABEL_CHARS
    assert short.startswith("Benchmark") and short.endswith("differs") and "…" in short


def test_old_plot_entry_points_draw_the_new_figures(tmp_path):
    from benchlab.report.anova import residual_plots
    from benchlab.report.qreg import write_qreg_plot

    anova_result, _ = _anova()
    residual_plots(anova_result, str(tmp_path / "a.svg"))
    assert _svg_axes(ET.parse(tmp_path / "a.svg").getroot()) == 3
    qreg_result, _ = _qreg()
    write_qreg_plot(qreg_result, str(tmp_path / "q.svg"))
    assert "mean (OLS) effect" in _svg_texts(ET.parse(tmp_path / "q.svg").getroot())


def test_unknown_extension_is_a_usage_error(tmp_path):
    from benchlab.errors import UsageError

    result, context = _compare()
    with pytest.raises(UsageError, match=r"\.png, \.svg or \.pdf"):
        write_figure(result, str(tmp_path / "f.gif"), context)
    assert not list(tmp_path.iterdir())


def test_compare_does_not_import_matplotlib(tmp_path):
    """A plain `benchlab compare` renders through the registry, which registers the figure
    modules: they must not load matplotlib (nor pandas) until a figure is drawn."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(str(1.0 + 0.01 * i) for i in range(20)) + "\n")
    b.write_text("\n".join(str(1.1 + 0.01 * i) for i in range(20)) + "\n")
    code = ("import sys, contextlib, io\nfrom benchlab.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    rc = main(['compare', {str(a)!r}, {str(b)!r}])\n"
            "assert 'ratio' in out.getvalue() or 'slower' in out.getvalue(), out.getvalue()\n"
            "sys.exit(3 if 'matplotlib' in sys.modules else 4 if 'pandas' in sys.modules "
            "else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=False,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_forest_plot_draws_the_interval_each_verdict_was_read_from():
    """Holm: the intervals drawn are the decisions' (wider than the 95% CIs), and the axis
    says so; with --statistic median they are the ratios of medians."""
    from benchlab.report.figures.compare import _suite_intervals

    rng = _rng()
    data = {f"b{i}": [("old", rng.normal(10, 0.3, 12), []), ("new", rng.normal(9.8, 0.3, 12), [])]
            for i in range(4)}
    for statistic, of in (("mean", "means"), ("median", "medians")):
        result = compare_suite(data, [], baseline="old", replicates=400, seed=1,
                               statistic=statistic)
        drawn = _suite_intervals(result)
        for d in result.decisions:
            assert drawn[(d.benchmark, d.candidate)] == (d.estimate, d.low, d.high)
        texts = _svg_texts(ET.fromstring(svg_text(result)))
        assert f"ratio of {of} (candidate / baseline) with the CI its verdict was read from " \
               "(Holm's levels)" in texts
