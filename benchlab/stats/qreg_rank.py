"""Rank-test inversion confidence intervals for quantile regression coefficients.

The interval of quantreg's `summary.rq(se = "rank")` (rq.fit.br with ci = TRUE;
Koenker 1994, "Confidence intervals for regression quantiles"; Koenker & d'Orey
1994, AS 229; Koenker 2005 §3.5). For coefficient j and a trial value b, fit the
restricted model y - b·x_j ~ X_{-j} at τ; its regression rank scores â(b) (the
dual solution, in [0, 1]) give the τ-scores λ = â + τ - 1 and the statistic

    T_n(b) = x_j'λ(b) / sqrt(q_n τ(1 - τ)),

    q_n = 1 / [(X'X)^{-1}]_jj                (iid = True)
    q_n = Σ (x_j - X_{-j} γ_f)²              (iid = False; γ_f: least squares of
          x_j on X_{-j} with weights f_i = max(ε, 2h / (x_i'(β̂(τ+h) - β̂(τ-h)) - ε)),
          h the Hall–Sheather bandwidth, ε = DBL_EPSILON^(2/3), as rq.fit.br).

The interval is {b : |T_n(b)| < t_{1-α/2, n-p}} (quantreg's tcrit = TRUE).
T_n(b) is a step function of b (non-increasing; it is -V'(b) / sqrt(q_n τ(1-τ))
for V(b) the restricted problem's optimal check loss, a convex piecewise-linear
function minimised at b = β̂_j). Walking from β̂_j outwards, a step starts
wherever a residual of the restricted fit reaches zero; let (b_k, T_k) be the
start of each step and its statistic, from (β̂_j, 0). The bound interpolates
between the last accepted step k-1 and the first rejected step k, as
rq.fit.br's `interp = TRUE`:

    bound = b_{k-1} ± |b_k - b_{k-1}| (c - |T_{k-1}|) / |T_k - T_{k-1}|.

Written by hand because no Python library has it. The walk is a parametric
linear program in b (quantreg does it with pivots of its Barrodale–Roberts
simplex in Fortran). Here, at each step start the observations with zero
residuals fix a local problem: the direction of the restricted fit and the
step's statistic solve a small LP in those observations (by enumerating its p
vertices when exactly p residuals are zero, by scipy's HiGHS otherwise); the
full fit and the fits at τ ± h are solved by HiGHS.

Where the restricted fit is unique this is quantreg's path, and the bounds
agree with R to rounding. Where it is not (tied vertices or a τ-score at a
bound: balanced ±1 designs, tied y values, non-unique fits), several paths are
optimal and T_n(b) is the same on all of them, but the step starts inside a run
of equal T_n differ, and with them b_{k-1} and the interpolated bound. quantreg
takes the path its pivoting order gives; here ties go to the lowest-numbered
observation. Then b_k, T_k and T_{k-1} are still R's and both bounds lie between
b_k and the interpolation from where T_n took the value T_{k-1}
(tests/stats/test_qreg_rank.py). Interpolating from there instead (merging
equal steps) would make the bound independent of tie-breaking, but in balanced
factorial designs, where T_n moves in a few large jumps, it covers far less
than 95% (68–82% in a 2^3 × 25 simulation, against about 90–95% for quantreg's
rule and this one), so quantreg's rule is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchlab.stats.distributions import critical_t
from benchlab.stats.qreg_inference import bandwidth

_EPS = np.finfo(float).eps ** (2 / 3)  # rq.fit.br's tol and eps
_REL = 1e-9  # relative tolerance for a zero residual or an equal statistic


def rank_inversion_ci(X: np.ndarray, y: np.ndarray, tau: float, confidence: float = 0.95,
                      iid: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Rank-test inversion CI (low, high) of every coefficient of the τ-th regression quantile.

    `X` is the (n, p) model matrix (with its intercept column, if any), `y` the
    n responses. Equal to quantreg's `summary(rq(y ~ 0 + X, tau), se = "rank",
    alpha = 1 - confidence, iid = iid)` where the fits are unique. Bounds are
    ±inf when the rank test never rejects on that side. Raises ValueError on
    bad input, a singular design, or (iid = False) τ ± h outside [0, 1].
    """
    X, y = _validated(X, y, tau, confidence)
    n, p = X.shape
    beta, zero = _fit(X, y, tau)
    qn = _qn_iid(X) if iid else _qn_nid(X, y, tau)
    cutoff = critical_t(confidence, n - p)
    low = np.empty(p)
    high = np.empty(p)
    for j in range(p):
        high[j] = _walk(X, y, tau, j, +1, beta, zero, qn[j], cutoff).bound(+1, cutoff)
        low[j] = _walk(X, y, tau, j, -1, beta, zero, qn[j], cutoff).bound(-1, cutoff)
    return low, high


def _validated(X: np.ndarray, y: np.ndarray, tau: float,
               confidence: float) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be (n, p) and y (n,); got {X.shape} and {y.shape}")
    n, p = X.shape
    if p < 1 or n <= p:
        raise ValueError(f"need more observations than coefficients; got n={n}, p={p}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("X and y must be finite")
    if not 0.0 < tau < 1.0:
        raise ValueError(f"tau must be in (0, 1); got {tau}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}")
    if np.linalg.matrix_rank(X) < p:
        raise ValueError("singular design matrix: the columns of X are linearly dependent")
    return X, y


def _fit(X: np.ndarray, y: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """A vertex solution of the τ-th regression quantile and its zero-residual rows.

    HiGHS dual simplex on min τ1'u + (1-τ)1'v s.t. Xβ + u - v = y; β is then
    re-solved from the rows it interpolates, so those residuals are exactly zero.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    n, p = X.shape
    eye = sparse.identity(n, format="csr")
    a_eq = sparse.hstack([sparse.csr_matrix(X), eye, -eye], format="csr")
    cost = np.concatenate([np.zeros(p), np.full(n, tau), np.full(n, 1.0 - tau)])
    bounds = [(None, None)] * p + [(0.0, None)] * (2 * n)
    res = linprog(cost, A_eq=a_eq, b_eq=y, bounds=bounds, method="highs-ds")
    if res.status != 0:
        raise RuntimeError(f"HiGHS could not fit the regression quantile: {res.message}")
    beta = res.x[:p]
    resid = y - X @ beta
    zero = np.flatnonzero(np.abs(resid) <= _REL * (1.0 + np.abs(y) + np.abs(X) @ np.abs(beta)))
    if zero.size < p or np.linalg.matrix_rank(X[zero]) < p:
        raise RuntimeError("HiGHS returned a fit that is not a vertex")
    beta = np.linalg.lstsq(X[zero], y[zero], rcond=None)[0]
    return beta, zero


def _qn_iid(X: np.ndarray) -> np.ndarray:
    """q_n,j = 1 / [(X'X)^{-1}]_jj (rq.fit.br, iid = TRUE)."""
    return 1.0 / np.diag(np.linalg.inv(X.T @ X))


def _qn_nid(X: np.ndarray, y: np.ndarray, tau: float) -> np.ndarray:
    """q_n,j from the weighted projection of x_j on X_{-j} (rq.fit.br, iid = FALSE)."""
    n, p = X.shape
    h = bandwidth(tau, n, hall_sheather=True)
    if tau - h < 0.0 or tau + h > 1.0:
        raise ValueError(f"tau ± h = {tau - h:.4g}, {tau + h:.4g} leaves [0, 1] "
                         f"(Hall–Sheather h for n={n}); use iid=True or more data")
    dyhat = X @ (_fit(X, y, tau + h)[0] - _fit(X, y, tau - h)[0])
    f = np.maximum(_EPS, 2.0 * h / (dyhat - _EPS))
    sw = np.sqrt(f)
    qn = np.empty(p)
    for j in range(p):
        rest = np.delete(X, j, axis=1)
        if rest.shape[1] == 0:
            resid = X[:, j]
        else:
            coef = np.linalg.lstsq(rest * sw[:, None], X[:, j] * sw, rcond=None)[0]
            resid = X[:, j] - rest @ coef
        qn[j] = resid @ resid
    return qn


def _rho(w: np.ndarray | float, tau: float) -> np.ndarray | float:
    return w * (tau - (np.asarray(w) < 0))


def _local(zs: np.ndarray, xs: np.ndarray, c: np.ndarray, d: int,
           tau: float) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """Direction of the restricted fit leaving a step end, and its directional derivative.

    Minimises Σ_S ρ_τ(w_i) - c'γ over γ, with w = -d·x_j - Zγ on the rows S whose
    residuals are zero (c = Σ_{i∉S} ψ_i z_i from the other rows' signs). Returns
    (γ, w, optimum, tied); by LP duality, optimum = -d Σ_S x_ij λ_i. `tied` is
    True when the optimal direction is not unique (several optimal vertices, or
    more than p zero residuals): the restricted fit's path is then not unique.
    """
    m, q = zs.shape
    if q == 0:
        w = -d * xs
        return np.zeros(0), w, float(np.sum(_rho(w, tau))), False
    if m == q + 1:  # nondegenerate: the optimum is one of the m vertices
        found = []
        for leave in range(m):
            rows = np.arange(m) != leave
            sub = zs[rows]
            if np.linalg.cond(sub) > 1e12:
                continue
            gamma = np.linalg.solve(sub, -d * xs[rows])
            w = -d * xs - zs @ gamma
            w[rows] = 0.0
            found.append((float(_rho(w[leave], tau) - c @ gamma), leave, gamma, w))
        if found:
            found.sort(key=lambda v: (v[0], v[1]))
            value, leave, gamma, w = found[0]
            size = 1.0 + max(abs(v[0]) for v in found) + np.abs(c) @ np.abs(gamma)
            tied = bool(len(found) > 1 and found[1][0] - value <= _REL * size)
            return gamma, w, value, tied or _degenerate(zs, c, w, leave, tau)
    return (*_local_lp(zs, xs, c, d, tau), True)


def _degenerate(zs: np.ndarray, c: np.ndarray, w: np.ndarray, leave: int, tau: float) -> bool:
    """True when a row kept at zero residual has its τ-score at a bound (τ - 1 or τ).

    Then the dual is degenerate and the restricted fit beyond this point is not
    unique: solvers may follow different paths (with the same statistic).
    """
    if abs(w[leave]) <= _REL * (1.0 + np.abs(w).max()):
        return True
    keep = np.arange(len(w)) != leave
    lam_leave = tau if w[leave] > 0 else tau - 1.0
    lam = np.linalg.solve(zs[keep].T, -c - lam_leave * zs[leave])
    slack = np.minimum(lam - (tau - 1.0), tau - lam)
    return bool(slack.min() <= _REL * (1.0 + np.abs(c).sum()))


def _local_lp(zs: np.ndarray, xs: np.ndarray, c: np.ndarray, d: int,
              tau: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The local problem of `_local` by HiGHS (more than p zero residuals)."""
    from scipy.optimize import linprog

    m, q = zs.shape
    eye = np.eye(m)
    a_eq = np.hstack([zs, eye, -eye])
    cost = np.concatenate([-c, np.full(m, tau), np.full(m, 1.0 - tau)])
    bounds = [(None, None)] * q + [(0.0, None)] * (2 * m)
    res = linprog(cost, A_eq=a_eq, b_eq=-d * xs, bounds=bounds, method="highs-ds")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on a rank-inversion step: {res.message}")
    gamma = res.x[:q]
    w = res.x[q:q + m] - res.x[q + m:]
    return gamma, w, float(res.fun)


@dataclass(frozen=True)
class _Walk:
    """One side of one coefficient's interval: the steps the bound interpolates between.

    `accepted` = (b_{k-1}, T_{k-1}), the start and statistic of the last step the
    test accepts; `rejected` = (b_k, T_k) of the first it rejects, None if it never
    rejects (unbounded side). `accepted_from`: where T_n took the value T_{k-1}
    (b_{k-1} or an earlier step start). `ambiguous`: the restricted fit's path was
    not unique somewhere from there to b_k, so b_{k-1} depends on tie-breaking.
    """

    accepted: tuple[float, float]
    rejected: tuple[float, float] | None
    accepted_from: float
    ambiguous: bool

    def bound(self, d: int, cutoff: float) -> float:
        """rq.fit.br's interpolated bound (interp = TRUE); ±inf when unbounded."""
        if self.rejected is None:
            return d * np.inf
        (b0, t0), (b1, t1) = self.accepted, self.rejected
        return b0 + d * abs(b1 - b0) * (cutoff - abs(t0)) / abs(t1 - t0)


def _walk(X: np.ndarray, y: np.ndarray, tau: float, j: int, d: int, beta: np.ndarray,
          zero: np.ndarray, qn: float, cutoff: float) -> _Walk:
    """Walk b from β̂_j upwards (d = +1) or downwards (d = -1) until |T_n(b)| >= cutoff.

    A step starts wherever a residual of the restricted fit reaches zero, as in
    rq.fit.br, also where the statistic does not change.
    """
    xj = X[:, j]
    Z = np.delete(X, j, axis=1)
    n = len(y)
    scale = np.sqrt(qn * tau * (1.0 - tau))
    b = float(beta[j])
    g = np.delete(beta, j)
    on = np.zeros(n, dtype=bool)  # rows with zero residual at the current b
    on[zero] = True
    steps = [(b, 0.0)]  # (start of a step, its statistic)
    since = [b]  # per step: where its statistic's value began
    ambiguous = [False]  # per step: path not unique since `since`
    for _ in range(10 * n + 100):
        r = y - b * xj - Z @ g
        r[on] = 0.0
        off = ~on
        psi = np.where(r[off] > 0, tau, tau - 1.0)
        c = Z[off].T @ psi
        gamma, w_on, opt, tied = _local(Z[on], xj[on], c, d, tau)
        t_stat = float((xj[off] @ psi - d * opt) / scale)
        same = abs(t_stat - steps[-1][1]) <= _REL * (1.0 + abs(t_stat))
        steps.append((b, t_stat))
        since.append(since[-1] if same else b)
        ambiguous.append(bool(ambiguous[-1] or tied) if same else tied)
        if abs(t_stat) >= cutoff:
            return _Walk(steps[-2], steps[-1], since[-2], ambiguous[-2])
        # The next residual to reach zero along b = b + d·ε, β = g + ε·γ.
        w = -d * xj - Z @ gamma
        idx = np.flatnonzero(off & (r * w < 0))
        if idx.size == 0:
            return _Walk(steps[-1], None, since[-1], ambiguous[-1])
        eps_i = -r[idx] / w[idx]
        eps = float(eps_i.min())
        hit = idx[eps_i <= eps + _REL * (abs(eps) + abs(b))]
        on_idx = np.flatnonzero(on)
        wscale = 1.0 + np.abs(xj[on_idx]) + np.abs(Z[on_idx]) @ np.abs(gamma)
        stay = on_idx[np.abs(w_on) <= _REL * wscale]
        b = b + d * eps
        g = g + eps * gamma
        on[:] = False
        on[stay] = True
        on[hit] = True
        rows = np.flatnonzero(on)
        if Z.shape[1] and np.linalg.matrix_rank(Z[rows]) == Z.shape[1]:
            g = np.linalg.lstsq(Z[rows], y[rows] - b * xj[rows], rcond=None)[0]
    raise RuntimeError("rank inversion did not finish: too many steps")
