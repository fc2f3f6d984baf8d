"""Student t and normal quantiles and tail probabilities without importing scipy.stats.

scipy.special's `stdtr`/`stdtrit` are the same routines scipy.stats.t uses, at a
third of the import cost, which keeps a default `benchlab compare` fast.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_NORMAL = NormalDist()


def normal_quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


def normal_cdf(x: float) -> float:
    """Φ(x) through erfc, accurate in the lower tail (NormalDist.cdf's 1 + erf is not:
    Φ(−8) came out 6.11e-16 instead of 6.22e-16)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom (df may be inf)."""
    if math.isinf(df):
        return normal_quantile(p)
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of a t statistic."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    if math.isinf(df):
        return 2.0 * normal_cdf(-abs(t))
    from scipy.special import stdtr

    return float(min(1.0, 2.0 * stdtr(df, -abs(t))))


def critical_t(confidence: float, df: float) -> float:
    """t_{1-α/2, df} for a two-sided interval at `confidence`."""
    return t_quantile(0.5 + confidence / 2.0, df)
