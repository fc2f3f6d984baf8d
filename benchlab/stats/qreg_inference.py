"""Asymptotic standard errors of quantile-regression coefficients: iid, nid, ker (STATS.md §9).

The formulas follow R quantreg's `summary.rq` (Koenker 2005, §3.4) so that
results can be checked against it: `iid` estimates the sparsity 1/f(F⁻¹(τ))
from the ordered residuals with the Hall–Sheather bandwidth; `nid` is the
Hendricks–Koenker sandwich with the local density from fits at τ ± h; `ker`
is Powell's kernel sandwich. Written by hand because no Python library
computes them exactly (statsmodels scales its bandwidth by the sd of y).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchlab.stats.qreg_design import FactorialModel

_EPS = np.finfo(float).eps ** 0.5  # quantreg's eps in summary.rq


def bandwidth(tau: float, n: int, hall_sheather: bool = True, alpha: float = 0.05) -> float:
    """Hall–Sheather (default) or Bofinger bandwidth (STATS.md §9, quantreg's bandwidth.rq)."""
    from scipy.special import ndtri

    x0 = float(ndtri(tau))
    f0 = float(np.exp(-0.5 * x0 * x0) / np.sqrt(2 * np.pi))
    if hall_sheather:
        z = float(ndtri(1 - alpha / 2))
        return n ** (-1 / 3) * z ** (2 / 3) * (1.5 * f0**2 / (2 * x0**2 + 1)) ** (1 / 3)
    return n ** -0.2 * (4.5 * f0**4 / (2 * x0**2 + 1) ** 2) ** 0.2


def _usable_bandwidth(tau: float, n: int) -> float:
    h = bandwidth(tau, n)
    while tau - h < 0 or tau + h > 1:
        h /= 2
    return h


def _inverse(matrix: np.ndarray) -> np.ndarray | None:
    try:
        inv = np.linalg.inv(matrix)
    except np.linalg.LinAlgError:
        return None
    return inv if np.all(np.isfinite(inv)) else None


def se_iid(model: FactorialModel, coef: np.ndarray, tau: float) -> np.ndarray:
    """sqrt(diag(s² τ(1-τ) (X'X)⁻¹)), s the sparsity from ordered residuals (quantreg's iid)."""
    from benchlab.stats.qreg_fn import fit

    n, p = model.n, model.p
    resid = model.y - model.predict(coef)
    pz = int(np.sum(np.abs(resid) < _EPS))
    h = max(p + 1, int(np.ceil(n * bandwidth(tau, n))))
    ranks = np.arange(pz + 1, min(h + pz + 1, n) + 1)  # 1-based, as quantreg's ir
    nearest = np.argpartition(np.abs(resid), ranks[-1] - 1)[: ranks[-1]]
    nearest = nearest[np.argsort(np.abs(resid[nearest]), kind="stable")]
    ordered = np.sort(resid[nearest[ranks - 1]])
    xt = ranks / (n - p)
    line = fit(np.column_stack([np.ones(len(xt)), xt]), ordered, 0.5)
    sparsity = float(line.coef[1])
    xxinv = _inverse(model.gram())
    if xxinv is None:
        return np.full(p, np.nan)
    return np.sqrt(np.clip(np.diag(xxinv), 0, None) * sparsity**2 * tau * (1 - tau))


def _sandwich(model: FactorialModel, density: np.ndarray, tau: float) -> np.ndarray:
    """τ(1-τ) (X'FX)⁻¹ X'X (X'FX)⁻¹, its diagonal's square root."""
    fxx = _inverse(model.gram(density))
    if fxx is None:
        return np.full(model.p, np.nan)
    cov = tau * (1 - tau) * fxx @ model.gram() @ fxx
    return np.sqrt(np.clip(np.diag(cov), 0, None))


def se_nid(model: FactorialModel, tau: float,
           fit_at: Callable[[float], np.ndarray]) -> tuple[np.ndarray, int]:
    """Hendricks–Koenker sandwich; also the number of non-positive local densities."""
    h = _usable_bandwidth(tau, model.n)
    dyhat = model.predict(fit_at(tau + h) - fit_at(tau - h))
    with np.errstate(divide="ignore"):
        density = np.maximum(0.0, 2 * h / (dyhat - _EPS))
    return _sandwich(model, density, tau), int(np.sum(dyhat <= 0))


def se_ker(model: FactorialModel, coef: np.ndarray, tau: float) -> np.ndarray:
    """Powell's kernel sandwich with quantreg's bandwidth rule."""
    from scipy.special import ndtri

    h = _usable_bandwidth(tau, model.n)
    resid = model.y - model.predict(coef)
    q75, q25 = np.quantile(resid, [0.75, 0.25])  # R's type 7
    spread = min(float(np.std(resid, ddof=1)), float(q75 - q25) / 1.34)
    width = float(ndtri(tau + h) - ndtri(tau - h)) * spread
    density = np.exp(-0.5 * (resid / width) ** 2) / np.sqrt(2 * np.pi) / width
    return _sandwich(model, density, tau)
