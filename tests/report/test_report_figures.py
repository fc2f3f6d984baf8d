"""summary, plan and test draw their figure with --plot (one group or several)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from benchlab.cli.main import main

pytest.importorskip("matplotlib", reason="figures need the plot extra")

FFT = "examples/fft/two_systems.csv"
SVG = "{http://www.w3.org/2000/svg}"


def _axes(path) -> int:
    root = ET.parse(path).getroot()
    return sum(1 for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("axes_"))


@pytest.mark.parametrize("argv, axes", [
    (["summary", FFT, "--by", "system", "--levels", "build,run"], 2),  # means, shares
    (["summary", FFT, "--levels", "build,run"], 2),  # one group: its own figure
    (["plan", FFT, "--by", "system", "--levels", "build,run", "--cost", "build=20m",
      "--cost", "run=6s", "--budget", "6h", "--unit", "ms"], 1),
    (["test", "examples/factorial/jitter.csv", "--value", "time", "--by", "treatment"], None),
])
def test_plot_writes_a_figure(argv, axes, tmp_path, capsys):
    out = tmp_path / "f.svg"
    assert main([*argv, "--plot", str(out)]) == 0
    capsys.readouterr()
    assert out.stat().st_size > 1000
    found = _axes(out)
    assert found >= 1 and (axes is None or found == axes)


def test_several_speedup_candidates_share_one_axis(tmp_path, capsys):
    files = []
    for name, scale in (("a", 1.0), ("b", 0.9), ("c", 1.2)):
        path = tmp_path / f"{name}.txt"
        path.write_text("\n".join(str(scale * (10 + 0.1 * (i % 7))) for i in range(35)))
        files.append(str(path))
    out = tmp_path / "t.svg"
    assert main(["test", *files, "--protocol", "speedup-mean", "--plot", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert _axes(out) == 1 and "b vs a" in text and "c vs a" in text
