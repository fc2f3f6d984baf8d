"""The figure of each quantile-regression coefficient against τ with its CI band
(de Oliveira et al. 2013, Figure 7). PNG, SVG or PDF by the file's extension."""

from __future__ import annotations

import math

import numpy as np

from benchlab.errors import UsageError
from benchlab.escape import plot_text
from benchlab.stats.qreg import QregResult

FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str) -> None:
    """Refuse an extension matplotlib should not guess (before any work is done)."""
    if not path.lower().endswith(FORMATS):
        raise UsageError(f"--plot {path}: say .png, .svg or .pdf")


def write_qreg_plot(result: QregResult, path: str) -> None:
    """One panel per coefficient: estimate against τ, CI band, zero line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = len(result.names)
    cols = min(4, p)
    rows = math.ceil(p / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    for j, name in enumerate(result.names):
        ax = axes[j // cols][j % cols]
        low, high = result.low[:, j], result.high[:, j]
        band = np.isfinite(low) & np.isfinite(high)
        if band.any():
            ax.fill_between(result.taus[band], low[band], high[band], color="tab:blue",
                            alpha=0.25, linewidth=0)
        ax.plot(result.taus, result.coef[:, j], "o-", color="tab:blue", markersize=3)
        ax.axhline(0.0, color="black", linewidth=0.6)
        ax.set_title(plot_text(name), fontsize=9)
        ax.set_xlabel("tau", fontsize=8)
        ax.tick_params(labelsize=7)
    for j in range(p, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.suptitle(f"quantile regression of {plot_text(result.response)}: coefficients and "
                 f"{100 * result.confidence:g}% intervals", fontsize=10)
    fig.tight_layout()
    from benchlab.output_file import replacing

    try:
        with replacing(path) as tmp:
            fig.savefig(tmp)
    finally:
        plt.close(fig)
