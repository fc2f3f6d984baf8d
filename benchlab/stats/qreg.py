"""Quantile regression of a factorial experiment over a grid of quantiles (STATS.md §9).

The model is chosen from the factors and the interaction order; the solver
from the model: a saturated factorial model is solved exactly by per-cell
order statistics (`qreg_design`), any other by the Frisch–Newton LP solver
with a certified vertex (`qreg_fn`). Inference is quantreg's iid/nid/ker
(`qreg_inference`), rank-test inversion (`qreg_rank`), or a bootstrap within
cells over observations or whole runs (`qreg_bootstrap`). When the data have
runs holding several observations each, the default is the run (cluster)
bootstrap, because observations of one run are not independent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchlab.errors import ParameterError
from benchlab.result import Result
from benchlab.stats.qreg_design import FactorialModel, build_model, cell_quantiles

SE_METHODS = ("iid", "nid", "ker", "rank", "rank-nid", "boot", "cluster")
RANK_METHODS = ("rank", "rank-nid")
DEFAULT_TAUS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99)
SATURATED_SOLVER = "order statistics (saturated factorial model: exact, O(n))"
LP_SOLVER = "Frisch-Newton interior point with a certified vertex (exact LP)"


@dataclass(frozen=True)
class QregResult(Result):
    """Coefficients per τ (rows) and term (columns) with CIs, p-values and how they were made."""

    response: str
    names: list[str]
    taus: np.ndarray
    coef: np.ndarray
    low: np.ndarray
    high: np.ndarray
    se: np.ndarray
    pvalue: np.ndarray
    objective: np.ndarray
    n: int
    solver: str
    se_method: str
    se_reason: str
    confidence: float
    replicates: int | None = None
    seed: int | None = None
    cluster: str | None = None
    unit: str | None = None
    df: int | None = None
    levels: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # The mean (OLS) fit of the same model with its CI: the reference a figure draws beside
    # the quantile effects (`ols_reference`); None when not computed.
    ols: np.ndarray | None = None
    ols_low: np.ndarray | None = None
    ols_high: np.ndarray | None = None


def _cluster_sizes(cluster: np.ndarray | None, cell: np.ndarray) -> int:
    """The largest number of observations sharing a run within a cell (1 when none)."""
    if cluster is None:
        return 1
    key = cell.astype(np.int64) * (int(cluster.max()) + 1) + cluster  # one integer per pair
    return int(np.unique(key, return_counts=True)[1].max())


def _runs_per_cell(model: FactorialModel, cluster: np.ndarray) -> np.ndarray:
    """How many distinct runs each cell holds (0 for a cell without data)."""
    width = int(cluster.max()) + 1  # one int64 key per (cell, run): a 1-D unique is fast
    keys = np.unique(model.cell.astype(np.int64) * width + cluster)
    return np.bincount(keys // width, minlength=model.cell_matrix.shape[0])


def _few_runs_warnings(runs: np.ndarray, name: str) -> list[str]:
    """The run bootstrap sees run-to-run variation only through the runs of each cell."""
    fewest = int(runs[runs > 0].min())
    if fewest == 1:
        return [f"a cell has a single {name}: its {name}-to-{name} variation cannot be "
                f"estimated, so the {name} bootstrap intervals are left undefined (repeat "
                f"{name}s, or choose --se for independent observations)"]
    if fewest >= 5:
        return []
    return [f"a cell has only {fewest} {name}s: the {name} bootstrap sees little "
            f"{name}-to-{name} variation there; the intervals are corrected for it but rest "
            f"on few {name}s (5 or more {name}s per cell are advised)"]


def cluster_correction(runs: np.ndarray) -> tuple[float, int]:
    """SE inflation and t degrees of freedom of the run bootstrap.

    The small-cluster correction of cluster-robust inference (Cameron & Miller
    2015, "A practitioner's guide to cluster-robust inference", G/(G-1) and
    t on G-1 df), applied per cell because runs are resampled within cells.

    Resampling R runs within a cell gives a variance (R-1)/R of the true one
    (the plug-in variance of R cluster values), so the SE is scaled by
    sqrt(R/(R-1)) with R the fewest runs in a cell (conservative when cells
    differ), and the t quantile uses the runs' degrees of freedom, the number
    of runs less the number of cells, not the observations'.
    """
    held = runs[runs > 0]
    fewest = int(held.min())
    inflation = float(np.sqrt(fewest / (fewest - 1))) if fewest > 1 else float("nan")
    return inflation, int(held.sum() - held.size)


def choose_se(requested: str | None, n: int, cluster_name: str | None,
              largest_cluster: int) -> tuple[str, str]:
    """The inference method and the reason for it (quantreg's defaults, plus runs)."""
    if requested is not None:
        return requested, "requested"
    if cluster_name is not None and largest_cluster > 1:
        return "cluster", (f"observations of one {cluster_name} are not independent: the "
                           f"bootstrap resamples whole {cluster_name}s within each cell")
    if n < 1001:
        return "rank", "quantreg's default below 1001 observations"
    return "nid", "quantreg's default from 1001 observations"


def fit_coefficients(model: FactorialModel, taus: np.ndarray) -> np.ndarray:
    """(taus, p) coefficients: order statistics when saturated, else the exact LP."""
    if model.saturated:
        q = cell_quantiles(model.y, model.cell, model.cell_matrix.shape[0], taus)
        return np.linalg.solve(model.cell_matrix, q).T
    from benchlab.stats.qreg_fn import fit

    return np.array([fit(model.x, model.y, float(tau)).coef for tau in taus])


def _sparsity_warnings(model: FactorialModel, taus: np.ndarray) -> list[str]:
    """quantreg's FAQ rule of thumb: about 20 observations per parameter beyond each quantile."""
    out = []
    if model.saturated:
        smallest = int(np.bincount(model.cell).min())
        thin = [t for t in taus if smallest * min(t, 1 - t) < 20]
        per = "in the smallest cell"
        count = smallest
    else:
        thin = [t for t in taus if model.n * min(t, 1 - t) < 20 * model.p]
        per = f"for {model.p} coefficients"
        count = model.n
    if thin:
        out.append(f"few observations beyond tau = {', '.join(f'{t:g}' for t in thin)} "
                   f"({count} {per}; about 20 per parameter above and below are needed): "
                   "those estimates and intervals are unreliable")
    return out


def quantile_regression(y: np.ndarray, codes: np.ndarray, level_counts: Sequence[int],
                        factor_names: Sequence[str], level_names: Sequence[Sequence[str]], *,
                        taus: Sequence[float] = DEFAULT_TAUS, interactions: int | None = None,
                        se: str | None = None, cluster: np.ndarray | None = None,
                        cluster_name: str | None = None, replicates: int = 200,
                        seed: int | None = None, confidence: float = 0.95,
                        covariates: np.ndarray | None = None,
                        covariate_names: Sequence[str] = (),
                        response: str = "y", unit: str | None = None) -> QregResult:
    """Fit Q_y(τ | factors) at every τ with CIs; see the module docstring for the methods."""
    from benchlab.stats.coding import yates_terms
    from benchlab.stats.distributions import critical_t

    taus_arr = np.asarray(sorted(set(float(t) for t in taus)))
    if taus_arr.size == 0 or np.any(taus_arr <= 0) or np.any(taus_arr >= 1):
        raise ValueError("every tau must lie strictly between 0 and 1")
    if se is not None and se not in SE_METHODS:
        raise ValueError(f"unknown se method {se!r}")
    from benchlab.stats.coding import check_design

    k = len(level_counts)
    check_design(codes[:, :k] if np.ndim(codes) == 2 else codes, factor_names, level_names,
                 full_model=interactions is None or interactions >= k)
    terms = yates_terms(k, interactions)
    model = build_model(y, codes, level_counts, terms, factor_names, level_names,
                        covariates, covariate_names)
    if model.n <= model.p:
        raise ValueError(f"{model.n} observations for {model.p} coefficients")
    cluster_codes = None
    if cluster is not None:
        _, cluster_codes = np.unique(np.asarray(cluster).astype(str), return_inverse=True)
        cluster_codes = cluster_codes.ravel()
    se_method, reason = choose_se(se, model.n, cluster_name,
                                  _cluster_sizes(cluster_codes, model.cell))
    if se_method == "cluster" and cluster_codes is None:
        raise ParameterError("the cluster bootstrap needs a run column ({param})", "cluster")
    coef = fit_coefficients(model, taus_arr)
    warnings = _sparsity_warnings(model, taus_arr)
    objective = np.array([_loss(model, coef[t], tau) for t, tau in enumerate(taus_arr)])
    rdf = model.n - model.p
    se_arr = np.full(coef.shape, np.nan)
    low, high = np.full(coef.shape, np.nan), np.full(coef.shape, np.nan)
    used_seed = None
    if se_method in ("boot", "cluster"):
        used_seed = int(np.random.default_rng().integers(2**31)) if seed is None else seed
        rng = np.random.default_rng(used_seed)
        groups = cluster_codes if se_method == "cluster" else None
        from benchlab.stats import qreg_bootstrap as qb

        if groups is not None:
            runs = _runs_per_cell(model, groups)
            warnings.extend(_few_runs_warnings(runs, cluster_name or "run"))
        if model.saturated:
            reps = qb.saturated_replicates(model, taus_arr, replicates, rng, groups)
        else:
            reps = qb.refit_replicates(model, taus_arr, replicates, rng, groups, start=coef)
        se_arr = reps.std(axis=0, ddof=1)
        if groups is not None:
            inflation, rdf = cluster_correction(runs)
            se_arr = se_arr * inflation
            rdf = max(rdf, 1)  # every cell a single run: the SEs are undefined (warned above)
    elif se_method in RANK_METHODS:
        from benchlab.stats.qreg_rank import rank_inversion_ci

        x = model.matrix()
        outside = []
        for t, tau in enumerate(taus_arr):
            try:
                low[t], high[t] = rank_inversion_ci(x, model.y, float(tau), confidence,
                                                    iid=se_method == "rank")
            except ValueError as exc:
                if "leaves [0, 1]" not in str(exc):
                    raise
                outside.append(f"{tau:g}")
        if outside:
            warnings.append(f"rank-nid at tau = {', '.join(outside)}: tau +- h (the "
                            "Hall-Sheather bandwidth) leaves (0, 1), so the local densities "
                            "cannot be estimated; those intervals are left undefined (use "
                            "--se rank there)")
    else:
        from benchlab.stats import qreg_inference as qi

        refits: dict[float, np.ndarray] = {}

        def fit_at(tau: float) -> np.ndarray:
            if tau not in refits:
                refits[tau] = fit_coefficients(model, np.array([tau]))[0]
            return refits[tau]

        nonpositive = 0
        for t, tau in enumerate(taus_arr):
            if se_method == "iid":
                se_arr[t] = qi.se_iid(model, coef[t], float(tau))
            elif se_method == "ker":
                se_arr[t] = qi.se_ker(model, coef[t], float(tau))
            else:
                se_arr[t], bad = qi.se_nid(model, float(tau), fit_at)
                nonpositive += bad
        if nonpositive:
            warnings.append(f"{nonpositive} non-positive local densities (fits at tau +- h "
                            "cross); the nid intervals there are unreliable")
    if se_method not in RANK_METHODS:
        from scipy.special import stdtr

        half = critical_t(confidence, rdf) * se_arr
        low, high = coef - half, coef + half
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.abs(coef / se_arr)
        pvalue = 2 * stdtr(rdf, -stat)
    else:
        pvalue = np.full(coef.shape, np.nan)
    single_runs = se_method == "cluster" and bool(np.all(np.isnan(se_arr)))
    if np.any(~np.isfinite(se_arr)) and se_method not in RANK_METHODS and not single_runs:
        warnings.append("some standard errors could not be estimated (a singular density "
                        "matrix); their intervals are left undefined")
    ols, ols_low, ols_high = ols_reference(model, confidence,
                                           cluster_codes if se_method == "cluster" else None)
    return QregResult(response=response, names=model.names, taus=taus_arr, coef=coef, low=low,
                      high=high, se=se_arr, pvalue=pvalue, objective=objective, n=model.n,
                      solver=_solver_name(model),
                      se_method=se_method, se_reason=reason, confidence=confidence,
                      replicates=replicates if se_method in ("boot", "cluster") else None,
                      seed=used_seed, cluster=cluster_name if se_method == "cluster" else None,
                      unit=unit, warnings=warnings, df=None if se_method in RANK_METHODS else rdf,
                      levels={str(f): [str(v) for v in names]
                              for f, names in zip(factor_names, level_names, strict=True)},
                      ols=ols, ols_low=ols_low, ols_high=ols_high)


def ols_reference(model: FactorialModel, confidence: float,
                  cluster: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The least-squares (mean) coefficients of the model with their t CIs.

    The quantile effects are read against it (de Oliveira et al. 2013, Fig. 7):
    where the mean effect lies outside a quantile's interval, the mean alone
    would misdescribe that part of the distribution. Errors are iid, or, given
    the run of each row (`cluster`), cluster-robust (CR1 with G - 1 df), since
    measurements of one run are not independent. A coefficient the data cannot
    separate (singular X'X) gets NaN bounds.
    """
    from benchlab.stats.distributions import critical_t

    n, p = model.n, model.p
    bread = np.linalg.pinv(model.gram())
    if model.x is None:
        # A saturated model: every row's x is its cell's row, so X'y, the residuals and
        # the per-run scores come from per-cell sums; nothing n x p is built.
        cells = model.cell_matrix.shape[0]
        xty = model.cell_matrix.T @ np.bincount(model.cell, weights=model.y, minlength=cells)
        beta = bread @ xty
        resid = model.y - (model.cell_matrix @ beta)[model.cell]
    else:
        beta, *_ = np.linalg.lstsq(model.x, model.y, rcond=None)
        resid = model.y - model.x @ beta
    if cluster is not None:
        groups = int(cluster.max()) + 1
        if model.x is None:  # sum of resid per (run, cell), then through the cell rows
            per = np.bincount(cluster.astype(np.int64) * cells + model.cell, weights=resid,
                              minlength=groups * cells).reshape(groups, cells)
            scores = per @ model.cell_matrix
        else:  # per-run score sums, one bincount per column (np.add.at is slow)
            scores = np.column_stack([np.bincount(cluster, weights=model.x[:, j] * resid,
                                                  minlength=groups) for j in range(p)])
        cov = bread @ (scores.T @ scores) @ bread
        cov *= groups / max(groups - 1, 1) * (n - 1) / max(n - p, 1)
        df = groups - 1
    else:
        df = n - p
        cov = bread * (float(resid @ resid) / df if df > 0 else np.nan)
    with np.errstate(invalid="ignore"):
        se = np.sqrt(np.diag(cov))
    half = critical_t(confidence, df) * se if df > 0 else np.full(p, np.nan)
    return beta, beta - half, beta + half


def _solver_name(model: FactorialModel) -> str:
    if model.saturated:
        return SATURATED_SOLVER
    from benchlab.stats.qreg_fn import PREPROCESS_MIN_N

    return LP_SOLVER + (" after Portnoy-Koenker preprocessing" if model.n >= PREPROCESS_MIN_N
                        else "")


def _loss(model: FactorialModel, coef: np.ndarray, tau: float) -> float:
    from benchlab.stats.qreg_fn import check_loss

    return check_loss(model.y - model.predict(coef), tau)
