"""The `qreg --plot` figure, kept at its old import path for `cli/qreg.py`.

The figure itself is `report/figures/models.py`'s `qreg_figure` (coefficients
against τ with their intervals, the zero line, the OLS effect with its CI as
a reference band, units on the axes); PNG, SVG or PDF by the file's extension.
"""

from __future__ import annotations

from benchlab.report.figures import check_path
from benchlab.stats.qreg import QregResult


def check_plot_path(path: str) -> None:
    """Refuse an extension the figure writer does not know (before any work is done)."""
    check_path(path)


def write_qreg_plot(result: QregResult, path: str) -> None:
    """Draw the result's figure to `path` (atomically)."""
    from benchlab.report.figures import write_figure

    write_figure(result, path)
