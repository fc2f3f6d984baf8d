"""The variance of one head commit's mean, with the commit-to-commit spread a baseline shows.

A history's commits differ by more than their runs say: each build has its own
layout, link order and cache behaviour (Kalibera & Jones 2013, the random
effects model of STATS.md §5). With commit i's top-level unit means y_ij
(its runs, or its measurements), j = 1..n_i, the model is

    y_ij = mu + c_i + e_ij,   var(c_i) = sigma2_c (between commits),
                              var(e_ij) = sigma2_w (within a commit).

A baseline of k commits estimates both by the method of moments (STATS.md §5,
T_n^2 = S_n^2 - S_{n-1}^2 / r_{n-1}, unbalanced form):

    S_B^2     = variance of the k commit means (ddof 1), df k - 1,
                E[S_B^2] = sigma2_c + sigma2_w * h,  h = mean(1 / n_i);
    sigma2_w^ = pooled within-commit variance of the units, the baseline's commits
                and the head's together: sum of squares about each commit's mean
                over sum(n_i - 1) + (n_h - 1) degrees of freedom df_w;
    sigma2_c^ = max(0, S_B^2 - sigma2_w^ * h).

The head is one commit: its own runs show sigma2_w only, never its own c_h, so
the variance of its mean is (the brief of issue 14, item 1)

    V_h = sigma2_c^ + sigma2_w^ / n_h
        = S_B^2 + (1/n_h - h) * sigma2_w^      when sigma2_c^ > 0,
        = sigma2_w^ / n_h                       when it is truncated at 0.

With as many runs in the head as in each baseline commit the second term of
the first line vanishes: V_h is then S_B^2 itself, the variance of one more
commit's mean (a prediction). The pivot of Fieller's interval for the ratio
head / baseline, a - rho b, has variance P = V_h + rho^2 S_B^2 / k; its degrees
of freedom are Satterthwaite's (1946) over the mean squares P is a combination
of (S_B^2 enters V_h and v_b both, so they are one component):

    untruncated: P = (1 + rho^2/k) S_B^2 + (1/n_h - h) sigma2_w^,
    truncated:   P = sigma2_w^/n_h + (rho^2/k) S_B^2,
    df = P^2 / sum_i (coefficient_i * MS_i)^2 / df_i.

`compare` takes samples, not variances; `pseudo_units` gives the head as m
values with mean ybar_h and variance m * V_h, m chosen (`pseudo_size`) so that
compare's Welch-Satterthwaite df of the pivot (STATS.md §3, the baseline's k
commit means on the other side) is the largest it can be without exceeding df
above: its Fieller interval, Holm p-values and the geometric mean's bootstrap
then use V_h. The values are standardized normal scores at Hazen's plotting
positions (i - 1/2)/m: a device for the arithmetic, never shown as data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_PSEUDO = 1000  # df beyond ~1000 changes t_{0.975} by < 0.001


@dataclass(frozen=True)
class HeadVariance:
    """The variance of a head commit's mean estimated from a baseline (module docstring).

    between: S_B^2, the variance of the baseline's commit means (k of them);
    within: sigma2_w^, the pooled within-commit variance of the units (df_within);
    commit: sigma2_c^ (0 when truncated; `truncated` says so); mean_inverse_n: h;
    head_n: n_h; variance: V_h; head_mean, baseline_mean: the two means."""

    k: int
    between: float
    within: float
    df_within: int
    commit: float
    truncated: bool
    mean_inverse_n: float
    head_n: int
    variance: float
    head_mean: float
    baseline_mean: float

    @property
    def baseline_variance(self) -> float:
        """v_b = S_B^2 / k, the variance of the baseline's mean."""
        return self.between / self.k

    def pivot_df(self, ratio: float) -> float:
        """Satterthwaite's df of the pivot a - rho b at rho = `ratio` (module docstring)."""
        b_coef = ratio * ratio / self.k
        if self.truncated:
            parts = [(self.within / self.head_n, self.df_within),
                     (b_coef * self.between, self.k - 1)]
        else:
            parts = [((1.0 + b_coef) * self.between, self.k - 1),
                     ((1.0 / self.head_n - self.mean_inverse_n) * self.within,
                      self.df_within)]
        total = sum(p for p, _ in parts)
        den = sum(p * p / d for p, d in parts if d > 0 and p != 0.0)
        if not total > 0.0 or not den > 0.0:
            return float(self.k - 1)
        return total * total / den


def head_variance(base_units: np.ndarray, base_commit: np.ndarray,
                  head_units: np.ndarray) -> HeadVariance:
    """V_h and its parts from the baseline's units (values `base_units`, each with its
    commit's label in `base_commit`) and the head's units; at least 2 baseline commits
    and 1 head unit. Without any within-commit degrees of freedom (every commit one
    unit, the head too) V_h is S_B^2: sigma2_c and sigma2_w cannot be told apart, and
    their sum is what one more commit's mean varies by."""
    y = np.asarray(base_units, dtype=float)
    h_x = np.asarray(head_units, dtype=float)
    _, code = np.unique(np.asarray(base_commit), return_inverse=True)
    code = code.ravel()
    n_i = np.bincount(code)
    k = n_i.size
    if k < 2:
        raise ValueError("base_units must come from at least 2 commits")
    if h_x.size < 1:
        raise ValueError("head_units must have at least 1 value")
    means = np.bincount(code, weights=y) / n_i
    ss_base = float(np.sum((y - means[code]) ** 2))
    ss_head = float(np.sum((h_x - h_x.mean()) ** 2))
    df_w = int(np.sum(n_i - 1) + h_x.size - 1)
    within = (ss_base + ss_head) / df_w if df_w > 0 else 0.0
    between = float(np.var(means, ddof=1))
    h = float(np.mean(1.0 / n_i))
    commit = between - within * h
    truncated = commit <= 0.0 and df_w > 0
    variance = within / h_x.size if truncated else max(commit, 0.0) + within / h_x.size
    return HeadVariance(k, between, within, df_w, max(commit, 0.0), truncated, h,
                        int(h_x.size), variance, float(h_x.mean()), float(means.mean()))


def welch_df(u: float, m: int, k: int) -> float:
    """compare's Welch-Satterthwaite df of the pivot (STATS.md §3) written with the share
    u of the head's variance in it, for m head values and k baseline values."""
    return 1.0 / (u * u / (m - 1) + (1.0 - u) ** 2 / (k - 1))


def pseudo_size(hv: HeadVariance, ratio: float) -> int:
    """The number m of head values whose Welch df (welch_df) is the largest not above
    hv.pivot_df(ratio): m - 1 = u^2 / (1/df - (1 - u)^2 / (k - 1)), rounded down, at
    least 2 and at most MAX_PSEUDO."""
    v_b = ratio * ratio * hv.baseline_variance
    total = hv.variance + v_b
    if not total > 0.0:
        return 2
    u = hv.variance / total
    room = 1.0 / hv.pivot_df(ratio) - (1.0 - u) ** 2 / (hv.k - 1)
    if room <= u * u / (MAX_PSEUDO - 1):
        return MAX_PSEUDO
    return int(min(MAX_PSEUDO, max(2, math.floor(u * u / room + 1e-9) + 1)))


def pseudo_units(mean: float, variance: float, m: int) -> np.ndarray:
    """m values with mean `mean` and sample variance (ddof 1) m * `variance`, so that
    var/m = `variance`: standardized normal scores of (i - 1/2)/m."""
    from scipy.special import ndtri

    z = ndtri((np.arange(m) + 0.5) / m)
    z = z - z.mean()
    z = z / np.std(z, ddof=1)
    return mean + math.sqrt(m * variance) * z
