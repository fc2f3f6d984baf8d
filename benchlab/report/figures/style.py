"""The one style of benchlab's figures: readable in print and in grey, no network fonts."""

from __future__ import annotations

# Colours that stay distinct in grey (Okabe-Ito order by luminance contrast).
BASELINE = "#0072B2"
CANDIDATE = "#D55E00"
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
BAND = "#999999"


def use() -> None:
    """Select the non-interactive backend and benchlab's rc settings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight",
        "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
        "axes.spines.top": False, "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        "svg.fonttype": "none", "svg.hashsalt": "benchlab",
    })
