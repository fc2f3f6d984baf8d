"""Student t and normal quantiles and tail probabilities without importing scipy.

Student's t is computed here, in a few dozen lines, because importing scipy.special
for it cost more CPU than the rest of a short quick-mode run (`benchlab run -- CMD`
printing a summary; docs/run.md#overhead-and-timer). The tail probability is the
regularized incomplete beta function, P(T > t) = I_x(df/2, 1/2) / 2 with
x = df / (df + t²) (Abramowitz & Stegun 26.7.1 with 26.5.27), evaluated by its
continued fraction with the modified Lentz method (Numerical Recipes, 3rd ed.,
§6.4); the quantile is found by Newton's method on that tail, kept inside a bracket
(bisection where a step leaves it), from the Cornish-Fisher start of A&S 26.7.5.
Both agree with scipy.special's stdtr and stdtrit (scipy.stats.t's routines) to
about 1e-12 relative over df from 0.5 to 1e7 (tests/stats/test_distributions.py).
"""

from __future__ import annotations

import functools
import math

# Above this many degrees of freedom Student's t comes from scipy.special: the continued
# fraction needs about √df terms there, and lgamma's digits run out towards 10⁷.
LARGE_DF = 20000.0


@functools.cache
def _normal():
    """The standard normal (statistics.NormalDist), made on first use: statistics imports
    fractions and decimal, about 3 ms of a summary's start that needs no normal quantile."""
    from statistics import NormalDist

    return NormalDist()


def normal_quantile(p: float) -> float:
    return _normal().inv_cdf(p)


def normal_cdf(x: float) -> float:
    """Φ(x) through erfc, accurate in the lower tail (NormalDist.cdf's 1 + erf is not:
    Φ(−8) came out 6.11e-16 instead of 6.22e-16)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df degrees of freedom (df may be inf); nan where
    p or df is outside its domain, ±inf at p = 0 and 1."""
    if math.isnan(p) or math.isnan(df) or not 0.0 <= p <= 1.0 or df <= 0:
        return math.nan
    if p == 0.5:
        return 0.0
    if p in (0.0, 1.0):
        return math.inf if p == 1.0 else -math.inf
    if math.isinf(df):
        return normal_quantile(p)
    if df > LARGE_DF:
        from scipy.special import stdtrit

        return float(stdtrit(df, p))
    if p < 0.5:
        return -_upper_quantile(p, df)
    return _upper_quantile(1.0 - p, df)


def _upper_quantile(q: float, df: float) -> float:
    """The t > 0 with P(T > t) = q (0 < q < 0.5)."""
    if df == 1.0:  # Cauchy: closed form, tan(π (1/2 - q)) without its loss near π/2
        return 1.0 / math.tan(math.pi * q)
    if df == 2.0:
        return (1.0 - 2.0 * q) / math.sqrt(2.0 * q * (1.0 - q))
    z = normal_quantile(1.0 - q)  # A&S 26.7.5, the first terms
    t = z + (z ** 3 + z) / (4.0 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96.0 * df * df)
    low, high = 0.0, math.inf
    for _ in range(100):
        tail = t_upper(t, df)
        if tail > q:
            low = t
        else:
            high = t
        # Newton on log P(T > t): the step is (log tail - log q) * tail / pdf(t)
        step = (math.log(tail) - math.log(q)) * tail / _t_pdf(t, df)
        if abs(step) <= 1e-12 * t:  # the tail itself is good to about 1e-13
            return t + step
        new = t + step
        if not low < new < high:  # out of the bracket: bisect (or double without a top)
            new = (low + high) / 2.0 if math.isfinite(high) else 2.0 * max(t, 1.0)
        t = new
    return t


def _t_pdf(t: float, df: float) -> float:
    """Student's t density (A&S 26.7.1)."""
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


def t_upper(t: float, df: float) -> float:
    """P(T > t) for t ≥ 0 (df finite): I_x(df/2, 1/2) / 2 with x = df / (df + t²)."""
    t2 = t * t
    if t2 == 0.0:
        return 0.5
    ratio = t2 / df  # log x = -log1p(ratio): log(x) itself loses digits where x is near 1
    return 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2),
                                  -math.log1p(ratio), math.log(ratio) - math.log1p(ratio))


def _incomplete_beta(a: float, b: float, x: float, y: float, log_x: float,
                     log_y: float) -> float:
    """The regularized incomplete beta I_x(a, b), with y = 1 - x and the logarithms of both
    given apart (no cancellation near 0 or 1), by the continued fraction on the side where it
    converges fast (Numerical Recipes §6.4)."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_front = _log_gamma_ratio(a, b) - math.lgamma(b) + a * log_x + b * log_y
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x, y) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, y, x) / b


def _log_gamma_ratio(a: float, b: float) -> float:
    """log Γ(a + b) / Γ(a). For b = 1/2 and a ≥ 200 by the asymptotic series
    Γ(a + 1/2) / Γ(a) = √a (1 - 1/(8a) + 1/(128a²) + 5/(1024a³) - 21/(32768a⁴) + ...)
    (Graham, Knuth & Patashnik, Concrete Mathematics, exercise 9.60): the difference of two
    lgamma values near 10⁷ keeps only about 8 digits where df is in the millions."""
    if b == 0.5 and a >= 200.0:
        return 0.5 * math.log(a) + math.log1p(-1 / (8 * a) + 1 / (128 * a * a)
                                             + 5 / (1024 * a ** 3) - 21 / (32768 * a ** 4))
    return math.lgamma(a + b) - math.lgamma(a)


def _beta_fraction(a: float, b: float, x: float, y: float) -> float:
    """The continued fraction of the incomplete beta, modified Lentz (NR §6.4, betacf)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= 1e-16:
            break
    return h


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of a t statistic."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    if math.isinf(df):
        return 2.0 * normal_cdf(-abs(t))
    if math.isnan(df) or df <= 0:
        return math.nan
    if df > LARGE_DF:
        from scipy.special import stdtr

        return float(min(1.0, 2.0 * stdtr(df, -abs(t))))
    return min(1.0, 2.0 * t_upper(abs(t), df))


def critical_t(confidence: float, df: float) -> float:
    """t_{1-α/2, df} for a two-sided interval at `confidence`."""
    return t_quantile(0.5 + confidence / 2.0, df)
