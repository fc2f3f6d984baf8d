"""Factorial analysis of the mean (STATS.md §8): effects, allocation of variation, diagnostics.

Two-level designs with the same number of replicates in every cell use Jain's
sign-table analysis (ch. 17–18): q_j = Σ_i sign_ij ȳ_i / 2^k, SS_j = N q_j^2,
s_q = s_e / sqrt(N), CI q_j ± t s_q with the error's degrees of freedom.
Other designs (more levels, unequal or missing replicates) fit an OLS model
with statsmodels: two-level factors coded -1/+1 (first level low, so the
coefficient is the same q), more levels with sum-to-zero contrasts (R's
contr.sum), and an ANOVA table from nested least-squares fits (type I
sequential as R's anova(), type II respecting marginality as car::Anova, or
type III); F tests use the full model's error mean square. The residual
diagnostics (Shapiro–Wilk, Levene/Brown–Forsythe across cells or
Breusch–Pagan, Cook's distance) say when the mean-based analysis cannot be
trusted and point to quantile regression (de Oliveira et al. 2013).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from benchlab.errors import ParameterError, UsageError
from benchlab.notation import fmt_p
from benchlab.result import Result
from benchlab.stats.coding import Term, cell_index, sign_table, yates_cells, yates_terms

EFFECT_NOTE = ("q: half the change of the mean from the low (-1) to the high (+1) level "
               "(Jain's q; the Yates effect is 2q)")


@dataclass(frozen=True)
class Effect:
    """One model coefficient with its CI and two-sided p-value (None without error df).

    ratio/ratio_low/ratio_high: with --log, exp(2q) and its CI, the high/low ratio of the
    geometric means for two-level terms.
    """

    term: str
    estimate: float
    se: float | None
    low: float | None
    high: float | None
    pvalue: float | None
    ratio: float | None = None
    ratio_low: float | None = None
    ratio_high: float | None = None


@dataclass(frozen=True)
class AnovaRow:
    """One source of variation: df, sum of squares, F and p, and its share of SST."""

    term: str
    df: int
    ss: float
    ms: float
    f: float | None
    pvalue: float | None
    variation: float


@dataclass(frozen=True)
class Check:
    """One diagnostic test of the residuals."""

    method: str
    statistic: float | None
    pvalue: float | None
    ok: bool | None


@dataclass(frozen=True)
class Diagnostics:
    """Normality, constant variance, the most influential row, and plain advice."""

    normality: Check
    constant_variance: Check
    cooks_max: float | None
    cooks_row: int | None
    cooks_line: int | None
    advice: tuple[str, ...]


@dataclass(frozen=True)
class AnovaResult(Result):
    """The whole factorial analysis of one response."""

    method: str
    response: str
    transform: str | None
    factors: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    n: int
    cells: int
    replicates: int | None
    interactions: int
    ss_type: str
    confidence: float
    effects: tuple[Effect, ...]
    table: tuple[AnovaRow, ...]
    residual: AnovaRow
    total_ss: float
    r_squared: float
    s_e: float | None
    diagnostics: Diagnostics
    warnings: tuple[str, ...]
    fitted: np.ndarray = field(repr=False, compare=False)
    residuals: np.ndarray = field(repr=False, compare=False)
    # What one row is (data/units.py): "measurement", or the level whose unit means were
    # analysed ("build", "execution"), and the sentence saying so; None: no levels known.
    unit_level: str | None = None
    unit_note: str | None = None


def least_squares(y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OLS of a full-rank model: coefficients, residuals and the coefficients' standard
    errors sqrt(diag((X'X)^-1) * SSE / (n - p)) (nan without residual df).

    Written with numpy (QR) rather than statsmodels: this is all the analysis needs of it.
    """
    q, r = np.linalg.qr(x)
    beta = np.linalg.solve(r, q.T @ y)
    resid = y - x @ beta
    df = x.shape[0] - x.shape[1]
    if df <= 0:
        return beta, resid, np.full(beta.shape, np.nan)
    r_inv = np.linalg.inv(r)
    se = np.sqrt(np.einsum("ij,ij->i", r_inv, r_inv) * float(resid @ resid) / df)
    return beta, resid, se


def breusch_pagan(residuals: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """Koenker's studentized Breusch-Pagan test of constant variance: LM = n R² of the
    regression of the squared residuals on the model matrix (with its intercept column),
    chi-squared with p - 1 df (Koenker 1981; as R lmtest::bptest, statsmodels'
    het_breuschpagan)."""
    from scipy import stats

    e2 = residuals ** 2
    _, fit_resid, _ = least_squares(e2, x)
    total = float(np.sum((e2 - e2.mean()) ** 2))
    r2 = 1.0 - float(fit_resid @ fit_resid) / total if total > 0 else 0.0
    lm = e2.size * r2
    return lm, float(stats.chi2.sf(lm, x.shape[1] - 1))


def _t(confidence: float, df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + confidence / 2, df))


def _inference(estimate: np.ndarray, se: np.ndarray | None, df: int,
               confidence: float) -> list[tuple[float | None, ...]]:
    """(se, low, high, p) per coefficient; Nones when there is no error estimate."""
    from scipy import stats

    if se is None or df <= 0:
        return [(None, None, None, None)] * len(estimate)
    t = _t(confidence, df)
    out = []
    for q, s in zip(estimate, se, strict=True):
        p = float(2 * stats.t.sf(abs(q) / s, df)) if s > 0 else (0.0 if q != 0 else 1.0)
        out.append((float(s), float(q - t * s), float(q + t * s), p))
    return out


def _f_p(ss: float, df: int, mse: float | None, df_e: int) -> tuple[float | None, float | None]:
    from scipy import stats

    if mse is None or df_e <= 0 or df <= 0 or mse <= 0:
        return None, None
    f = ss / df / mse
    return float(f), float(stats.f.sf(f, df, df_e))


def _factor_columns(codes: np.ndarray, counts: Sequence[int]) -> list[np.ndarray]:
    """Per factor, its coded columns: ±1 for two levels, sum-to-zero contrasts for more."""
    cols = []
    for f, c in enumerate(counts):
        x = codes[:, f]
        if c == 2:
            cols.append((2.0 * x - 1.0)[:, None])
        else:
            m = np.zeros((x.size, c - 1))
            for lev in range(c - 1):
                m[:, lev] = (x == lev).astype(float)
            m[x == c - 1, :] = -1.0
            cols.append(m)
    return cols


def _term_block(term: Term, fcols: list[np.ndarray], n: int) -> np.ndarray:
    """Columns of an interaction: products of its factors' columns, first factor fastest."""
    block = np.ones((n, 1))
    for f in term:
        block = (fcols[f][:, None, :] * block[:, :, None]).reshape(n, -1)
    return block


def _term_names(term: Term, names: Sequence[str],
                levels: Sequence[Sequence[str]]) -> list[str]:
    """Coefficient names: "A:B" for two-level factors, "A[a1]" per contrast level otherwise."""
    if not term:
        return ["(Intercept)"]
    parts: list[list[str]] = []
    for f in term:
        if len(levels[f]) == 2:
            parts.append([names[f]])
        else:
            parts.append([f"{names[f]}[{lev}]" for lev in levels[f][:-1]])
    combos = itertools.product(*reversed(parts))  # first factor fastest
    return [":".join(reversed(c)) for c in combos]


def _order_terms(k: int, max_order: int) -> list[Term]:
    """R's term order: intercept, main effects, then two-way, ... each by factor order."""
    terms = [t for t in yates_terms(k, max_order)]
    return sorted(terms, key=lambda t: (len(t), t))


def _rss(y: np.ndarray, x: np.ndarray) -> float:
    if x.shape[1] == 0:
        return float(y @ y)
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    r = y - x @ beta
    return float(r @ r)


def _diagnostics(y: np.ndarray, x: np.ndarray, fitted: np.ndarray, residuals: np.ndarray,
                 cells: np.ndarray, df_e: int, lines: np.ndarray | None,
                 alpha: float = 0.05) -> Diagnostics:
    from scipy import stats

    n = y.size
    advice: list[str] = []
    tolerance = 1e-12 * max(1.0, float(np.abs(y).max()))
    if df_e > 0 and float(np.abs(residuals).max()) <= tolerance:
        # every cell's runs identical (counts): the effects are exact, nothing to check
        none = Check("none (the residuals are all zero)", None, None, None)
        return Diagnostics(none, none, None, None, None, (
            "the residuals are all zero (the runs of every cell are identical): the "
            "effects are exact and their CIs have zero width; the model's checks do not "
            "apply",))
    if df_e > 0 and n >= 3 and np.ptp(residuals) > tolerance:
        import warnings

        with warnings.catch_warnings():  # above 5000 values: said in `method` instead
            warnings.simplefilter("ignore", UserWarning)
            sw = stats.shapiro(residuals)
        method = "Shapiro-Wilk" + (" (p approximate above 5000 values)" if n > 5000 else "")
        normality = Check(method, float(sw.statistic), float(sw.pvalue), bool(sw.pvalue >= alpha))
    else:
        normality = Check("Shapiro-Wilk", None, None, None)
    counts = np.bincount(cells)
    counts = counts[counts > 0]
    groups = [y[cells == c] for c in np.unique(cells)]
    spread = [np.abs(g - np.median(g)) for g in groups]
    if (df_e > 0 and counts.min() >= 3 and counts.size >= 2
            and any(np.ptp(s) > 0 for s in spread)):
        # 3 or more runs per cell: with 2 the median-centred deviations are equal
        lv = stats.levene(*groups, center="median")
        variance = Check("Levene (Brown-Forsythe, median-centred) across cells",
                         float(lv.statistic), float(lv.pvalue), bool(lv.pvalue >= alpha))
    elif df_e > 0 and x.shape[1] > 1:
        lm, lm_p = breusch_pagan(residuals, x)
        variance = Check("Breusch-Pagan (Koenker, studentized)", float(lm), float(lm_p),
                         bool(lm_p >= alpha))
    else:
        variance = Check("none (no error degrees of freedom)", None, None, None)
    cooks_max = cooks_row = cooks_line = None
    if df_e > 0:
        q, _ = np.linalg.qr(x)
        h = np.einsum("ij,ij->i", q, q)
        s2 = float(residuals @ residuals) / df_e
        p = x.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            d = residuals ** 2 * h / (p * s2 * (1 - h) ** 2)
        d[h > 1 - 1e-10] = np.nan
        if np.isfinite(d).any():
            cooks_row = int(np.nanargmax(d))
            cooks_max = float(d[cooks_row])
            cooks_line = int(lines[cooks_row]) if lines is not None else None
    if df_e <= 0:
        advice.append("no error degrees of freedom (one run per cell and every interaction in "
                      "the model): effects and shares of variation only, no CIs or p-values; "
                      "replicate the runs or leave out high-order interactions "
                      "(--interactions)")
    if normality.ok is False:
        advice.append(f"the residuals are not normal (Shapiro-Wilk {fmt_p(normality.pvalue)}): "
                      "the CIs and p-values of the mean effects are unreliable, and effects "
                      "on the tail can differ from effects on the mean; look at the quantiles "
                      "with `benchlab qreg`")
    if variance.ok is False:
        advice.append(f"the variance is not constant ({variance.method.split(' (')[0]} p = "
                      f"{variance.pvalue:.3g}): the mean-based conclusions are unreliable; if "
                      "the spread grows with the mean try --log, otherwise use `benchlab qreg`")
    if cooks_max is not None and cooks_max > 1:
        where = f"line {cooks_line}" if cooks_line is not None else f"row {cooks_row + 1}"
        advice.append(f"{where} is highly influential (Cook's distance {cooks_max:.3g} > 1): "
                      "check that measurement")
    if normality.ok and variance.ok is not False and not advice:
        advice.append("the residuals look normal with constant variance: the analysis of the "
                      "mean holds")
    return Diagnostics(normality, variance, cooks_max, cooks_row, cooks_line, tuple(advice))


def _ratios(effects: list[Effect], two_level_terms: set[str]) -> list[Effect]:
    out = []
    for e in effects:
        if e.term in two_level_terms:
            def g(v: float | None) -> float | None:
                return None if v is None else math.exp(2 * v)
            e = Effect(e.term, e.estimate, e.se, e.low, e.high, e.pvalue, g(e.estimate),
                       g(e.low), g(e.high))
        out.append(e)
    return out


def _check_model_size(terms: list[Term], counts: Sequence[int], n: int,
                      factors: Sequence[str]) -> None:
    """Refuse, before the design matrix exists, a model too large to fit in seconds.

    Each term has the product of its factors' (levels − 1) columns; the fit costs
    about n·p² and type II/III sums of squares refit it once per term, so a
    10,000-level factor (p ≈ 10,000) would take gigabytes and many minutes.
    """
    from benchlab import limits

    p = sum(math.prod(counts[f] - 1 for f in t) for t in terms)
    widest = max(range(len(counts)), key=lambda f: counts[f])
    limits.check(p, limits.MAX_COEFFICIENTS,
                 f"the number of the model's coefficients (factor {factors[widest]!r} has "
                 f"{counts[widest]:,} levels)", "merge levels, use fewer factors or lower "
                 "{param} ", "interactions")
    limits.check_memory(8 * n * p, f"the design matrix ({n:,} rows × {p:,} columns)",
                        "use fewer rows or factors ")


def anova(response: np.ndarray, codes: np.ndarray, factors: Sequence[str],
          levels: Sequence[Sequence[str]], *, response_name: str = "y",
          interactions: int | None = None, log: bool = False, confidence: float = 0.95,
          ss_type: int = 2, lines: np.ndarray | None = None,
          source: str = "", runs: np.ndarray | None = None) -> AnovaResult:
    """Analyse a factorial experiment: response (n,), codes (n, k) level indices per factor.

    interactions: the highest interaction order in the model (default: all, k).
    log: analyse ln(response) (multiplicative effects); ss_type: 1, 2 or 3 for the
    OLS path (a balanced two-level design has orthogonal terms, where all agree).
    runs: the run (execution) of each row, if known; several rows of one run are not
    independent replicates, and the result warns about it.
    """
    from benchlab.stats.coding import check_design

    y = np.asarray(response, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    check_design(codes, factors, levels, full_model=False, where=source or None)
    k = len(factors)
    counts = [len(lv) for lv in levels]
    order = k if interactions is None else int(interactions)
    if not 1 <= order <= k:
        raise ParameterError(f"{{param}} must be between 1 and {k} (the number of factors)",
                             "interactions")
    if ss_type not in (1, 2, 3):
        raise UsageError(f"sums of squares of type 1, 2 or 3, not {ss_type}")
    if log:
        bad = np.flatnonzero(y <= 0)
        if bad.size:
            where = f"{source}:{int(lines[bad[0]])}" if lines is not None else source or None
            raise ParameterError(f"{{param}} needs positive values; {response_name} is "
                                 f"{y[bad[0]]:g}", "log", where)
        y = np.log(y)
    n = y.size
    n_cells = int(np.prod(counts))
    cells = cell_index(codes, counts)
    per_cell = np.bincount(cells, minlength=n_cells)
    empty = np.flatnonzero(per_cell == 0)

    def cell_name(c: int) -> str:
        row = yates_cells(counts)[c]
        return ", ".join(f"{f}={levels[j][row[j]]}" for j, f in enumerate(factors))

    if empty.size and order == k:
        raise ParameterError(f"cell {cell_name(int(empty[0]))} has no observations; the model "
                             "with every interaction needs each cell (or lower {param})",
                             "interactions", source or None)
    warnings: list[str] = []
    if runs is not None and len(runs) == n:
        _, per_run = np.unique(np.asarray(runs).astype(str), return_counts=True)
        if per_run.max() > 1:
            warnings.append(f"up to {per_run.max()} rows share a run: measurements of one run "
                            "are not independent replicates, so the CIs and p-values are too "
                            "optimistic; analyse one value per run (e.g. its mean), or use "
                            "`benchlab qreg` with its cluster bootstrap")
    balanced = not empty.size and per_cell.min() == per_cell.max()
    terms = _order_terms(k, order)
    _check_model_size(terms, counts, n, factors)
    two_level = all(c == 2 for c in counts)
    if two_level and balanced:
        method = "sign table (balanced 2^k design, Jain ch. 18)"
        ss_name = "orthogonal"
        r = int(per_cell[0])
        s_matrix, yterms = sign_table(k, order)
        means = np.bincount(cells, weights=y, minlength=n_cells) / r
        q = s_matrix.T @ means / n_cells
        by_term = dict(zip(yterms, q, strict=True))
        estimate = np.array([by_term[t] for t in terms])
        x = s_matrix[cells][:, [yterms.index(t) for t in terms]]
        fitted = x @ estimate
        resid = y - fitted
        p = len(terms)
        df_e = n - p
        sse = float(resid @ resid)
        sst = float(np.sum((y - y.mean()) ** 2))
        mse = sse / df_e if df_e > 0 else None
        se = np.full(p, math.sqrt(mse / n)) if mse is not None else None
        names = [_term_names(t, factors, levels)[0] for t in terms]
        inf = _inference(estimate, se, df_e, confidence)
        effects = [Effect(nm, float(e), *i) for nm, e, i in zip(names, estimate, inf,
                                                                 strict=True)]
        rows = []
        for nm, e in zip(names[1:], estimate[1:], strict=True):
            ss = n * float(e) ** 2
            f, pv = _f_p(ss, 1, mse, df_e)
            rows.append(AnovaRow(nm, 1, ss, ss, f, pv, ss / sst if sst > 0 else math.nan))
        replicates: int | None = r
    else:
        method = f"OLS, type {'I' * ss_type if ss_type < 3 else 'III'} sums " \
                 "of squares"
        ss_name = {1: "I", 2: "II", 3: "III"}[ss_type]
        if not balanced:
            if empty.size:
                warnings.append(f"{empty.size} empty cell{'s' if empty.size > 1 else ''} (first "
                                f"{cell_name(int(empty[0]))}): the interactions above order "
                                f"{order} are assumed absent")
            else:
                warnings.append(f"unbalanced design: {per_cell.min()} to {per_cell.max()} runs "
                                "per cell; the sums of squares depend on their type "
                                f"(type {ss_name} here) and do not add up to the total")
        fcols = _factor_columns(codes, counts)
        blocks = [_term_block(t, fcols, n) for t in terms]
        x = np.hstack(blocks)
        if np.linalg.matrix_rank(x) < x.shape[1]:
            where = f"; first empty cell: {cell_name(int(empty[0]))}" if empty.size else ""
            raise ParameterError(f"the design cannot separate every term of the model (too few "
                                 f"cells observed{where}); lower {{param}}", "interactions",
                                 source or None)
        estimate, resid, se = least_squares(y, x)
        df_e = n - x.shape[1]
        fitted = y - resid
        sse = float(resid @ resid)
        sst = float(np.sum((y - y.mean()) ** 2))
        mse = sse / df_e if df_e > 0 else None
        names = [nm for t in terms for nm in _term_names(t, factors, levels)]
        se = se if df_e > 0 else None
        effects = [Effect(nm, float(e), *i) for nm, e, i in
                   zip(names, estimate, _inference(estimate, se, df_e, confidence),
                       strict=True)]
        spans = np.cumsum([0] + [b.shape[1] for b in blocks])
        rows = []
        for j, t in enumerate(terms):
            if not t:
                continue
            cols = list(range(spans[j], spans[j + 1]))
            if ss_type == 1:
                ss = _rss(y, x[:, :spans[j]]) - _rss(y, x[:, :spans[j + 1]])
            elif ss_type == 2:
                keep = [c for i, u in enumerate(terms) if not set(t) <= set(u)
                        for c in range(spans[i], spans[i + 1])]
                ss = _rss(y, x[:, keep]) - _rss(y, x[:, sorted(keep + cols)])
            else:
                rest = [c for c in range(x.shape[1]) if c not in cols]
                ss = _rss(y, x[:, rest]) - sse
            ss = max(ss, 0.0)
            f, pv = _f_p(ss, len(cols), mse, df_e)
            label = ":".join(factors[i] for i in t)
            rows.append(AnovaRow(label, len(cols), ss, ss / len(cols), f, pv,
                                 ss / sst if sst > 0 else math.nan))
        replicates = int(per_cell[0]) if balanced else None
    if log:
        effects = _ratios(effects, {":".join(factors[i] for i in t) for t in terms
                                    if t and all(counts[i] == 2 for i in t)})
    residual = AnovaRow("Residuals", df_e, sse, mse if mse is not None else math.nan, None, None,
                        sse / sst if sst > 0 else math.nan)
    diagnostics = _diagnostics(y, x, fitted, resid, cells, df_e, lines)
    return AnovaResult(method, response_name, "log" if log else None, tuple(factors),
                       tuple(tuple(lv) for lv in levels), n, n_cells, replicates, order,
                       ss_name, confidence, tuple(effects), tuple(rows), residual, sst,
                       1 - sse / sst if sst > 0 else math.nan,
                       math.sqrt(mse) if mse is not None else None, diagnostics,
                       tuple(warnings), fitted, resid)


def normal_qq(residuals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theoretical normal quantiles (Blom/Filliben as scipy.probplot) and sorted residuals."""
    from scipy import stats

    (theoretical, ordered), _ = stats.probplot(residuals, dist="norm")
    return np.asarray(theoretical), np.asarray(ordered)
