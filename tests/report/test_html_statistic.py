"""The HTML ratio cell names the statistic its estimate is of (`data-statistic`) from the
statistic strategy (stats/spec.Statistic), not a literal: a comparison of medians says
"median", one of means carries Fieller's bounds instead."""

from __future__ import annotations

import re

import numpy as np

import benchlab
from benchlab.result import render


def _ratio_cell(statistic: str) -> str:
    rng = np.random.default_rng(3)
    old, new = rng.lognormal(0, 0.05, 15), rng.lognormal(0.1, 0.05, 15)
    result = benchlab.compare(old, new, statistic=statistic, seed=1, diagnostics=False)
    html = render(result, "html")
    return re.search(r'<td class="num ratio"[^>]*>', html).group(0)


def test_ratio_cell_names_the_median_and_not_the_mean():
    median = _ratio_cell("median")
    assert 'data-statistic="median"' in median and "data-low" not in median
    mean = _ratio_cell("mean")
    assert "data-statistic" not in mean and "data-low" in mean and "data-high" in mean
