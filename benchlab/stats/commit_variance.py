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
    sigma2_c^ = max(0, S_B^2 - sigma2_w^ * h)

(the pooled method: what a head of one unit, or a baseline without within-commit
df, gets; with both a head that may be noisier is handled as below, "A head
noisier than its baseline").

The head is one commit: its own runs show sigma2_w only, never its own c_h, so
the variance of its mean is

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

**A head noisier than its baseline.** The pooled sigma2_w^ assumes the head's runs
vary as much as the baseline's. A change can add run-to-run variance (a new
allocation path, GC pressure, a lock), and then sigma2_w^ / n_h is too small. With
n_h >= 2 head units and baseline within-commit df_b = sum(n_i - 1) > 0, the head's
own variance s_h^2 (df_h = n_h - 1) is compared with the baseline's pooled one
s_b^2 (the head left out) by the one-sided F test

    F = s_h^2 / s_b^2,  df (df_h, df_b),  p = P(F_{df_h, df_b} >= F),

and then (`separate`):

- sigma2_c^ = max(0, S_B^2 - s_b^2 h) from the baseline alone: unbiased before
  truncation whatever the head's noise (the pooled sigma2_w^ is not when the head
  is noisier), and its truncation no longer depends on the head;
- the head's within part is the order-restricted estimate of the two variances
  under sigma2_head >= sigma2_w (a change may add run-to-run noise; the baseline's
  commits share one): the isotonic regression of (s_b^2, s_h^2) with weights
  their df. With nu s^2 / sigma^2 ~ chi^2_nu each log-likelihood is -(nu/2)(log
  sigma^2 + s^2 / sigma^2), a family whose MLE under an order is that weighted
  isotonic regression (Robertson, Wright & Dykstra 1988, Order Restricted
  Statistical Inference, ch. 1); on two values it is one pool-adjacent-violators
  step: s_h^2 when s_h^2 > s_b^2, else s_p^2 = (df_b s_b^2 + df_h s_h^2) / (df_b +
  df_h);
- V_h = sigma2_c^ + (s_h^2 or s_p^2) / n_h, and the pivot's variance P is a sum
  over three independent mean squares, S_B^2, s_b^2 and s_h^2 (s_p^2 written out),
  each with its summed coefficient, for Satterthwaite's df; e.g. untruncated with
  the head's own: P = (1 + rho^2/k) S_B^2 - h s_b^2 + s_h^2 / n_h.

When the head is as noisy as its baseline this costs a little: s_h^2 is taken
whenever it comes out the larger, so the CI is a little conservative.

Why this one (validation/history_head_variance.py, third table: the candidates
in closed form, 20,000 histories per cell, coverage of the 95% CI, no change):
using s_h^2 only when the F test rejects at 1% (a preliminary test) leaves a 2x
or 4x noisier head of 3 runs at 81-91% coverage, since an F test on 2 df rarely
rejects; at 5% 85-93%, at 25% 92-95%; preliminary tests of variance are known to
distort the test that follows them (Moser & Stevens 1992, The American
Statistician 46:19-21; Zimmerman 2004, Br. J. Math. Stat. Psychol. 57:173-181).
Always using s_h^2 (Welch's choice, which those papers recommend) is closest to
95% with noisier heads but anti-conservative for a 2-run head as noisy as its
baseline (93.1%) and, then, 1.3-3x as wide as the pooled CI without commit noise
(t on n_h - 1 df). max(s_b^2, s_h^2) and the order-restricted choice cover >= 93.5%
with heads of 3 runs or more at 1x, 2x and 4x head noise and are never below the
pooled method when the head is as noisy as its baseline; the order-restricted one
is the nearer to 95% there. Its cost at 1x: CIs 2-29% wider than the pooled ones
(most without commit noise), coverage 0.4-1.5 points higher. The F test's p is
reported (and a note written when p < NOISIER_P): a head that became noisier is
itself a finding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

MAX_PSEUDO = 1000  # df beyond ~1000 changes t_{0.975} by < 0.001
NOISIER_P = 0.01  # the F test's p below which a head is said to vary more than its baseline


@dataclass(frozen=True)
class HeadNoise:
    """The head's own within-commit variance against the baseline's (module docstring):
    F = s_h^2 / s_b^2 on (df_head, df_baseline) df, its one-sided p, and whether the
    head's own variance is the one its mean uses (`own`, when s_h^2 > s_b^2)."""

    head_within: float
    df_head: int
    baseline_within: float
    df_baseline: int
    f: float
    p: float
    own: bool

    @property
    def sd_ratio(self) -> float:
        """sqrt(F): how many times the head's run SD is the baseline's."""
        return math.sqrt(self.f)

    @property
    def noisier(self) -> bool:
        """The F test rejects equal variances at NOISIER_P, toward a noisier head."""
        return self.p < NOISIER_P


@dataclass(frozen=True)
class HeadVariance:
    """The variance of a head commit's mean estimated from a baseline (module docstring).

    between: S_B^2, the variance of the baseline's commit means (k of them);
    within: sigma2_w^, the within-commit variance of the units that sigma2_c^ uses
    (df_within): the baseline's alone when `separate`, else pooled with the head's;
    commit: sigma2_c^ (0 when truncated; `truncated` says so); mean_inverse_n: h;
    head_n: n_h; variance: V_h; head_mean, baseline_mean: the two means; noise: the F
    test of the head's spread (None with one head unit or no within-commit df in the
    baseline); separate: the head's spread enters only its own within part (the
    method of the F test; False: the pooled method, or no test possible)."""

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
    noise: HeadNoise | None = None
    separate: bool = False

    @property
    def baseline_variance(self) -> float:
        """v_b = S_B^2 / k, the variance of the baseline's mean."""
        return self.between / self.k

    @property
    def own(self) -> bool:
        """Whether the head's mean uses the head's own within-commit variance."""
        return self.separate and self.noise.own

    @property
    def head_within(self) -> tuple[float, int]:
        """The within-commit variance the head's mean uses and its df: s_h^2 (own), the
        pooled s_p^2 of baseline and head, or sigma2_w^ (the pooled method)."""
        if not self.separate:
            return self.within, self.df_within
        nz = self.noise
        if nz.own:
            return nz.head_within, nz.df_head
        df = nz.df_baseline + nz.df_head
        return (nz.df_baseline * nz.baseline_within + nz.df_head * nz.head_within) / df, df

    def _mean_squares(self, b_coef: float) -> list[tuple[float, int]]:
        """The pivot's variance P as (coefficient x mean square, df) over independent mean
        squares (module docstring): S_B^2, and s_b^2 and s_h^2 (separate) or sigma2_w^."""
        sb_coef = b_coef if self.truncated else 1.0 + b_coef
        if not self.separate:
            w_coef = 1.0 / self.head_n - (0.0 if self.truncated else self.mean_inverse_n)
            return [(sb_coef * self.between, self.k - 1), (w_coef * self.within, self.df_within)]
        nz = self.noise
        base_coef = 0.0 if self.truncated else -self.mean_inverse_n
        if nz.own:
            head_coef = 1.0 / self.head_n
        else:  # s_p^2 / n_h = (df_b s_b^2 + df_h s_h^2) / (df_p n_h)
            df = nz.df_baseline + nz.df_head
            base_coef += nz.df_baseline / (df * self.head_n)
            head_coef = nz.df_head / (df * self.head_n)
        return [(sb_coef * self.between, self.k - 1),
                (base_coef * nz.baseline_within, nz.df_baseline),
                (head_coef * nz.head_within, nz.df_head)]

    def pivot_df(self, ratio: float) -> float:
        """Satterthwaite's df of the pivot a - rho b at rho = `ratio` (module docstring)."""
        parts = self._mean_squares(ratio * ratio / self.k)
        total = sum(p for p, _ in parts)
        den = sum(p * p / d for p, d in parts if d > 0 and p != 0.0)
        if not total > 0.0 or not den > 0.0:
            return float(self.k - 1)
        return total * total / den


def head_noise(ss_base: float, df_base: int, head: np.ndarray) -> HeadNoise | None:
    """The F test of the head's units' variance against the baseline's pooled one (sum of
    squares `ss_base` on `df_base` df), one-sided toward a noisier head (module
    docstring); None without 2 head units or baseline within-commit df, or when the
    baseline's variance is 0 (F undefined)."""
    if head.size < 2 or df_base < 1 or not ss_base > 0.0:
        return None
    from scipy.stats import f as f_dist

    s2_head = float(np.var(head, ddof=1))
    s2_base = ss_base / df_base
    ratio = s2_head / s2_base
    p = float(f_dist.sf(ratio, head.size - 1, df_base))
    return HeadNoise(s2_head, int(head.size - 1), s2_base, int(df_base), ratio, p,
                     s2_head > s2_base)


def head_variance(base_units: np.ndarray, base_commit: np.ndarray,
                  head_units: np.ndarray, *, head_spread: bool = True) -> HeadVariance:
    """V_h and its parts from the baseline's units (values `base_units`, each with its
    commit's label in `base_commit`) and the head's units; at least 2 baseline commits
    and 1 head unit. Without any within-commit degrees of freedom (every commit one
    unit, the head too) V_h is S_B^2: sigma2_c and sigma2_w cannot be told apart, and
    their sum is what one more commit's mean varies by. `head_spread=False` is the
    pooled method (before the F test; kept for comparisons; the F test is still
    reported)."""
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
    df_base = int(np.sum(n_i - 1))
    noise = head_noise(ss_base, df_base, h_x)
    separate = noise is not None and head_spread
    if noise is not None and not head_spread:
        noise = replace(noise, own=False)
    if separate:
        df_w, within = df_base, noise.baseline_within
    else:
        df_w = df_base + h_x.size - 1
        within = (ss_base + ss_head) / df_w if df_w > 0 else 0.0
    between = float(np.var(means, ddof=1))
    h = float(np.mean(1.0 / n_i))
    commit = between - within * h
    truncated = commit <= 0.0 and df_w > 0
    hv = HeadVariance(k, between, within, df_w, max(commit, 0.0), truncated, h,
                      int(h_x.size), 0.0, float(h_x.mean()), float(means.mean()), noise,
                      separate)
    return replace(hv, variance=max(commit, 0.0) + hv.head_within[0] / h_x.size)


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
