"""Exact linear quantile regression: a Frisch–Newton interior-point solver with a vertex crossover.

Koenker & Bassett's estimator minimizes Σ ρ_τ(y_i - x_i'β), a linear program
(STATS.md §9). We solve its bounded dual, min y'a s.t. X'a = τ X'1,
0 ≤ a ≤ 1, by the primal–dual interior-point method with Mehrotra's
predictor–corrector (Koenker & Portnoy 1997, the `fn` method of R's quantreg),
then move to the optimal vertex: the p observations the interior solution
interpolates are found, β is solved from them exactly, and the vertex is
certified optimal by its dual (every a_i in [0, 1]; with ties, when more
than p points lie on the fit, by a small feasibility LP for their duals,
solved by HiGHS). So coefficients are
those of the simplex (R's `br`) wherever the solution is unique, and the
check loss is minimal to rounding. Written by hand because scipy's `linprog`
works on the n-variable primal with dense bookkeeping and is 10–100× slower
here, and statsmodels' QuantReg is approximate (IRLS).
For large n, Portnoy & Koenker's (1997) preprocessing (quantreg's `pfn`)
solves a subsample (or starts from a given fit, as the bootstrap does), sums
the observations surely below and surely above the fit into one pseudo-row
each, solves the reduced LP and checks every summed observation's side; the
result is optimal for the full problem when no side is wrong, else the wrong
ones are put back (up to 3 times) or the subsample is doubled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_BETA = 0.99995  # fraction of the way to the boundary an interior step may go (as quantreg)
_MAX_ITER = 100


@dataclass(frozen=True)
class LPFit:
    """Coefficients, the check-loss objective, iterations and whether a vertex was certified."""

    coef: np.ndarray
    objective: float
    iterations: int
    vertex: bool


def check_loss(residuals: np.ndarray, tau: float) -> float:
    """Σ ρ_τ(r) with ρ_τ(r) = r (τ - 1[r < 0])."""
    r = np.asarray(residuals, dtype=np.float64)
    return float(np.sum(np.where(r < 0, (tau - 1.0) * r, tau * r)))


def _step(v: np.ndarray, dv: np.ndarray) -> float:
    """The largest step t ≤ 1e20 with v + t dv ≥ 0."""
    ratio = np.divide(-v, dv, out=np.full(v.shape, 1e20), where=dv < 0)
    return float(ratio.min())


def _normal_factor(x: np.ndarray, q: np.ndarray):
    """A solver for (X' Q X) d = rhs: Cholesky, or least squares when X'QX is singular."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    xq = x * np.sqrt(q)[:, None]
    gram = xq.T @ xq
    try:
        factor = cho_factor(gram, check_finite=False)
    except LinAlgError:
        return lambda rhs: np.linalg.lstsq(gram, rhs, rcond=None)[0]
    return lambda rhs: cho_solve(factor, rhs, check_finite=False)


def interior_point(x: np.ndarray, y: np.ndarray, tau: float,
                   tol: float = 1e-8) -> tuple[np.ndarray, np.ndarray, int]:
    """The dual interior-point iteration; returns (β, dual a, iterations).

    The LP is min y'a s.t. X'a = τ X'1, 0 ≤ a ≤ 1 (slack s = 1 - a); its dual
    variables are β and z - w = y - Xβ split into positive and negative parts.
    At the optimum a_i = 1 below the fit and 0 above it (quantreg's rqfnb, with
    the signs of its c and β flipped).
    """
    n, p = x.shape
    a = np.full(n, tau)
    s = 1.0 - a
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    r = y - x @ beta
    z = np.maximum(r, 0.0)
    w = z - r
    # Start strictly inside: quantreg starts at the bare parts of r, but exact zeros slow the
    # iteration down badly at extreme τ (57 rather than 18 iterations at τ = 0.99 in tests).
    scale = max(float(np.mean(np.abs(r))), 1e-300)
    z += 1e-1 * scale
    w += 1e-1 * scale
    it = 0
    for it in range(1, _MAX_ITER + 1):  # noqa: B007 - the count is returned
        gap = float(z @ a + w @ s)
        if gap <= tol * (float(tau * z.sum() + (1.0 - tau) * w.sum()) + 1e-300):
            break
        q = 1.0 / (z / a + w / s)
        rz = z - w
        solve = _normal_factor(x, q)  # one factorization serves predictor and corrector
        # Predictor (affine) step.
        dbeta = solve(x.T @ (q * rz))
        da = q * (x @ dbeta - rz)
        ds = -da
        dz = -z * (1.0 + da / a)
        dw = -w * (1.0 + ds / s)
        fp = min(_BETA * min(_step(a, da), _step(s, ds)), 1.0)
        fd = min(_BETA * min(_step(z, dz), _step(w, dw)), 1.0)
        if min(fp, fd) < 1.0:
            # Corrector with Mehrotra's centring μ = σ μ_now / 2n, σ = (g / μ_now)^3.
            mu = gap
            g = float((z + fd * dz) @ (a + fp * da) + (w + fd * dw) @ (s + fp * ds))
            mu = mu * (g / mu) ** 3 / (2.0 * n)
            dadz = da * dz
            dsdw = ds * dw
            extra = mu * (1.0 / a - 1.0 / s) - dadz / a + dsdw / s
            dbeta = solve(x.T @ (q * (rz - extra)))
            da = q * (x @ dbeta - rz + extra)
            ds = -da
            dz = (mu - z * a - dadz - z * da) / a
            dw = (mu - w * s - dsdw - w * ds) / s
            fp = min(_BETA * min(_step(a, da), _step(s, ds)), 1.0)
            fd = min(_BETA * min(_step(z, dz), _step(w, dw)), 1.0)
        a = a + fp * da
        s = s + fp * ds
        beta = beta + fd * dbeta
        z = z + fd * dz
        w = w + fd * dw
    return beta, a, it


def _independent_rows(x: np.ndarray, candidates: np.ndarray, p: int) -> np.ndarray | None:
    """The first p rows of `candidates`, in order, that are linearly independent."""
    chosen: list[int] = []
    q = np.zeros((0, x.shape[1]))
    for i in candidates:
        row = x[i]
        v = row - q.T @ (q @ row)
        norm = float(np.linalg.norm(v))
        if norm > 1e-9 * max(float(np.linalg.norm(row)), 1e-300):
            q = np.vstack([q, v / norm])
            chosen.append(int(i))
            if len(chosen) == p:
                return np.sort(np.array(chosen))
    return None


def _vertex(x: np.ndarray, y: np.ndarray, tau: float, beta: np.ndarray,
            a: np.ndarray | None, span: float | None = None) -> np.ndarray | None:
    """The optimal vertex near the interior solution, or None if none is certified.

    Candidates for the basis are the observations whose dual a_i is farthest
    from both bounds (they are interpolated); the vertex is optimal when the
    dual of the basis, solved from X'a = (1-τ) X'1 with the others at 0 or 1,
    lies in [0, 1] (Koenker 2005, §6.2).
    """
    n, p = x.shape
    if a is None:  # no duals (a preprocessed fit): the points nearest the fit come first
        order = np.argsort(np.abs(y - x @ beta), kind="stable")
    else:
        order = np.argsort(-np.minimum(a, 1.0 - a), kind="stable")
    basis = _independent_rows(x, order[: min(n, 4 * p + 10)], p)
    if basis is None:  # ties: tied rows share a dual, so the first candidates may repeat a row
        basis = _independent_rows(x, order[: min(n, 50 * p + 1000)], p)
    if basis is None:
        return None
    xb = x[basis]
    try:
        coef = np.linalg.solve(xb, y[basis])
    except np.linalg.LinAlgError:
        return None
    r = y - x @ coef
    if span is None:
        span = max(float(np.max(np.abs(y))), 1.0)
    zero = np.abs(r) <= 1e-10 * span
    zero[basis] = True
    below = ~zero & (r < 0)  # a_i = 1 below the fit, 0 above it
    target = tau * x.sum(axis=0) - x[below].sum(axis=0)
    if int(zero.sum()) > p:  # degenerate vertex (ties): more than p points on the fit
        return coef if _duals_exist(x[zero], target) else None
    try:
        ab = np.linalg.solve(xb.T, target)
    except np.linalg.LinAlgError:
        return None
    if np.all(ab >= -1e-9) and np.all(ab <= 1.0 + 1e-9):
        return coef
    return None


def _duals_exist(x_zero: np.ndarray, target: np.ndarray) -> bool:
    """Whether duals a in [0, 1] with X_Z'a = target exist for the points on the fit: the
    optimality certificate of a degenerate vertex (a small LP, solved by HiGHS)."""
    from scipy.optimize import linprog

    k = x_zero.shape[0]
    if k > 5000:  # a huge tie set: not worth certifying, keep the interior solution
        return False
    scale = max(float(np.max(np.abs(x_zero))), 1.0)
    done = linprog(np.zeros(k), A_eq=x_zero.T / scale, b_eq=target / scale,
                   bounds=(0.0, 1.0), method="highs")
    if done.status != 0:
        return False
    a = done.x
    return bool(np.allclose(x_zero.T @ a, target, rtol=1e-9, atol=1e-9 * scale * k))


PREPROCESS_MIN_N = 10_000  # below this, the full interior point is about as fast (measured)
_MAX_FIXUPS = 3


def fit(x: np.ndarray, y: np.ndarray, tau: float, start: np.ndarray | None = None,
        preprocess: bool | None = None) -> LPFit:
    """Solve min_β Σ ρ_τ(y - Xβ) exactly (interior point, then the certified vertex).

    `preprocess` (default: from PREPROCESS_MIN_N rows) solves a reduced problem
    first; `start`, a fit close to the answer, replaces its subsample fit.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    n, p = x.shape
    if n <= p:
        raise ValueError(f"{n} observations for {p} coefficients")
    if preprocess is None:
        preprocess = n >= PREPROCESS_MIN_N
    if preprocess:
        reduced = _fit_preprocessed(x, y, tau, start)
        if reduced is not None:
            return reduced
    return _fit_full(x, y, tau)


def _fit_preprocessed(x: np.ndarray, y: np.ndarray, tau: float,
                      start: np.ndarray | None) -> LPFit | None:
    """Portnoy–Koenker preprocessing (quantreg's rq.fit.pfn); None when the subsample
    would be the whole data or the sides kept failing (the caller then solves it all)."""
    from scipy.linalg import solve_triangular

    n, p = x.shape
    m = int(round(((p + 1) * n) ** (2.0 / 3.0)))
    rng = np.random.default_rng(0)  # fixed: the same data give the same fit
    iterations = 0
    while m < n:
        if start is None:
            sub = np.sort(rng.choice(n, m, replace=False))
            first = _fit_full(x[sub], y[sub], tau)
            beta0, iterations = first.coef, iterations + first.iterations
            gram = x[sub].T @ x[sub]
        else:
            beta0, gram = np.asarray(start, dtype=np.float64), (x.T @ x) * (m / n)
            start = None  # a start that needs doubling m is not trusted twice
        try:
            chol = np.linalg.cholesky(gram)
        except np.linalg.LinAlgError:
            return None
        # band_i = sqrt(x_i' G^-1 x_i): how far x_i's fitted value moves with the estimate
        band = np.sqrt(np.einsum("ij,ij->j", *(2 * [solve_triangular(chol, x.T, lower=True)])))
        r = y - x @ beta0
        u = r / np.maximum(band, np.finfo(float).eps)
        allowed = 0.8 * m
        lo, hi = max(1.0 / n, tau - allowed / (2 * n)), min(tau + allowed / (2 * n), (n - 1) / n)
        kappa_lo, kappa_hi = np.quantile(u, [lo, hi])
        below, above = u < kappa_lo, u > kappa_hi
        for _ in range(_MAX_FIXUPS):
            keep = ~(below | above)
            rows, values = [x[keep]], [y[keep]]
            for side in (below, above):
                if side.any():
                    rows.append(x[side].sum(axis=0)[None, :])
                    values.append(np.array([y[side].sum()]))
            reduced = _fit_full(np.vstack(rows), np.concatenate(values), tau,
                                span=max(float(np.max(np.abs(y[keep]), initial=0.0)), 1.0))
            iterations += reduced.iterations
            r = y - x @ reduced.coef
            wrong_below, wrong_above = below & (r > 0), above & (r < 0)
            wrong = int(wrong_below.sum() + wrong_above.sum())
            if wrong == 0:
                coef, vertex = reduced.coef, reduced.vertex
                if not vertex:  # the pseudo-rows can hide the basis: look for it in all rows
                    found = _vertex(x, y, tau, coef, None)
                    coef, vertex = (coef, False) if found is None else (found, True)
                return LPFit(coef=coef, objective=check_loss(y - x @ coef, tau),
                             iterations=iterations, vertex=vertex)
            if wrong > 0.1 * allowed:
                break
            below &= ~wrong_below
            above &= ~wrong_above
        m *= 2
    return None


def _fit_full(x: np.ndarray, y: np.ndarray, tau: float, span: float | None = None) -> LPFit:
    """The interior point on every row, then the certified vertex (`span`: the size of y
    that sets the tolerance for a zero residual; pseudo-rows of sums would inflate it)."""
    n, p = x.shape
    beta, a, iterations = interior_point(x, y, tau)
    coef = _vertex(x, y, tau, beta, a, span)
    if coef is None:  # the basis was not yet clear: iterate to a much smaller gap
        beta, a, more = interior_point(x, y, tau, tol=1e-13)
        iterations += more
        coef = _vertex(x, y, tau, beta, a, span)
    if coef is None:  # degenerate faces: the points nearest the fit may still hold a basis
        coef = _vertex(x, y, tau, beta, None, span)
    vertex = coef is not None  # certified optimal: its loss may differ from β's by rounding
    if coef is None:
        coef = beta
    return LPFit(coef=coef, objective=check_loss(y - x @ coef, tau), iterations=iterations,
                 vertex=vertex)
