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

**A head noisier than its baseline.** The pooled sigma2_w^ assumes the head's runs
vary as much as the baseline's. A change can add run-to-run variance (a new
allocation path, GC pressure, a lock), and then sigma2_w^ / n_h is too small. With
n_h >= 2 head units and baseline within-commit df_b = sum(n_i - 1) > 0, the head's
own variance s_h^2 is compared with the baseline's pooled one s_b^2 (the head left
out) by the one-sided F test

    F = s_h^2 / s_b^2,  df (n_h - 1, df_b),  p = P(F_{n_h-1, df_b} >= F),

and the head's within part is the order-restricted estimate of the two variances
under sigma2_head >= sigma2_w (a change may add run-to-run noise, the baseline's
commits share one): the isotonic regression of (s_b^2, s_h^2) with weights their
df. With nu s^2 / sigma^2 ~ chi^2_nu each log-likelihood is -(nu/2)(log sigma^2 +
s^2 / sigma^2), a family whose MLE under an order is that weighted isotonic
regression (Robertson, Wright & Dykstra 1988, Order Restricted Statistical
Inference, ch. 1); on two values it is one pool-adjacent-violators step. So
when s_h^2 > s_b^2 the head keeps its own s_h^2 (df n_h - 1) and sigma2_w^ is the
baseline's s_b^2 (df df_b): V_h = sigma2_c^ + s_h^2 / n_h, with sigma2_c^ =
max(0, S_B^2 - s_b^2 h), and the pivot's Satterthwaite df has three mean squares

    untruncated: P = (1 + rho^2/k) S_B^2 - h s_b^2 + s_h^2 / n_h,
    truncated:   P = s_h^2 / n_h + (rho^2/k) S_B^2;

otherwise the two are pooled, as above (the head's own spread is then not larger,
and the pooled estimate is the one with the more df). For a change that adds no
variance this is max(sigma2_w^, s_h^2) in effect: at worst a little conservative.

Why not the alternatives (validation/history_head_variance.py, "head noisier"
cells, 2,000 histories each; coverage of the 95% CI, no change): using s_h^2
only when the F test rejects at 1% (a preliminary test) leaves a 2x or 4x noisier
head of 3 runs at 81-90% coverage, since an F test on 2 df rarely rejects; the
same at 5% and 25% does little better (85-93%); preliminary tests of variance
are known to distort the test that follows them (Moser & Stevens 1992, The
American Statistician 46:19-21; Zimmerman 2004, Br. J. Math. Stat. Psychol.
57:173-181). Always using s_h^2 (Welch's choice, which those papers recommend)
covers 93-97% everywhere but, when the head is as noisy as its baseline, widens
the CI of a 3-run head by about 60% without commit noise and that of a 2-run head
threefold (t on 1 df), a loss of power in the common case. The order-restricted
choice covers >= 93% with heads of 3 runs or more at 1x, 2x and 4x head noise and
costs 5-12% of CI width when the head is as noisy as its baseline. The F test's p
is reported (and a note written when p < NOISIER_P), since a head that became
noisier is itself a finding.
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
    (pooled with the head's, or the baseline's alone when the head keeps its own;
    df_within); commit: sigma2_c^ (0 when truncated; `truncated` says so);
    mean_inverse_n: h; head_n: n_h; variance: V_h; head_mean, baseline_mean: the two
    means; noise: the F test of the head's spread (None with one head unit or no
    within-commit df in the baseline)."""

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

    @property
    def baseline_variance(self) -> float:
        """v_b = S_B^2 / k, the variance of the baseline's mean."""
        return self.between / self.k

    @property
    def own(self) -> bool:
        """Whether the head's mean uses the head's own within-commit variance."""
        return self.noise is not None and self.noise.own

    @property
    def head_within(self) -> tuple[float, int]:
        """The within-commit variance the head's mean uses and its df."""
        if self.own:
            return self.noise.head_within, self.noise.df_head
        return self.within, self.df_within

    def pivot_df(self, ratio: float) -> float:
        """Satterthwaite's df of the pivot a - rho b at rho = `ratio` (module docstring)."""
        b_coef = ratio * ratio / self.k
        w_head, df_head = self.head_within
        if self.truncated:
            parts = [(w_head / self.head_n, df_head), (b_coef * self.between, self.k - 1)]
        elif self.own:
            parts = [((1.0 + b_coef) * self.between, self.k - 1),
                     (-self.mean_inverse_n * self.within, self.df_within),
                     (w_head / self.head_n, df_head)]
        else:
            parts = [((1.0 + b_coef) * self.between, self.k - 1),
                     ((1.0 / self.head_n - self.mean_inverse_n) * self.within,
                      self.df_within)]
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
    their sum is what one more commit's mean varies by. `head_spread=False` always
    pools the head's spread with the baseline's (the method before the F test: kept
    for comparisons; the F test is still reported)."""
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
    if noise is not None and not head_spread:
        noise = replace(noise, own=False)
    if noise is not None and noise.own:
        df_w, within = df_base, noise.baseline_within
        w_head = noise.head_within
    else:
        df_w = df_base + h_x.size - 1
        within = (ss_base + ss_head) / df_w if df_w > 0 else 0.0
        w_head = within
    between = float(np.var(means, ddof=1))
    h = float(np.mean(1.0 / n_i))
    commit = between - within * h
    truncated = commit <= 0.0 and df_w > 0
    variance = max(commit, 0.0) + w_head / h_x.size
    return HeadVariance(k, between, within, df_w, max(commit, 0.0), truncated, h,
                        int(h_x.size), variance, float(h_x.mean()), float(means.mean()),
                        noise)


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
