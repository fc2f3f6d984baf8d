"""Change points of a series by E-Divisive means (Matteson & James 2014), vectorized.

E-Divisive is the method MongoDB's and Apache Otava's (hunter's) continuous
benchmarking use. It is written here by hand because no maintained
implementation fits a library: apache-otava 0.8 pins numpy==2.2.0 and
signal-processing-algorithms 2.1 installs numpy 1.x, and a library's users
cannot accept either pin. The statistic (alpha = 1), for X = z[a:t] (n values)
and Y = z[t:b] (m values) of a segment z[a:b], Matteson & James (2014), eqs.
(4)-(5):

    E(X, Y) = 2/(nm) sum|x_i - y_j| - C(n,2)^-1 sum_{i<k}|x_i - x_k|
              - C(m,2)^-1 sum_{j<k}|y_j - y_k|
    Q(X, Y) = nm/(n+m) E(X, Y)

maximised over the split t with Y running to the segment's end (the paper's
§2.2 also maximises over Y's end; MongoDB's signal-processing-algorithms and
Otava fix it at the segment's end, as here: the search is then O(n^2) once per
series instead of O(n^2) per segment and permutation). With r_u = sum_{i<u}
|z_u - z_i| (the row sums of the distance matrix's lower triangle) and s_u its
full row sums, the pairs inside X are cumsum(r)[t], those inside Y are
sum_{u>=t} (s_u - r_u), and the cross pairs the segment's total less both, so
Q comes for every t from one pass over the distance matrix.

The divisive search splits the segment with the largest Q and stops at the
first split found not significant. Significance (`test`):

- "ttest" (the default, Apache Otava's approximate significance; Fleming et al.
  2023, "Hunter: using change point detection to hunt for performance
  regressions", ICPE): Welch's t-test of the values before the split against
  those after it, within the segment, at level `significance` (default 0.001,
  Otava's: the split is the best of many, so the nominal p is optimistic).
- "permutation" (Matteson & James §2.3): the values of the segment permuted
  `permutations` times, Q maximised again; p = (1 + #{Q_perm >= Q}) / (R + 1).
  Exact, but O(n^2) per permutation: seconds for a 1,000-commit series.

The change points found are candidates: benchlab.history then judges each by a
ratio CI of the segments around it (docs/history.md), which is what keeps the
false alarms down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# A block of permuted distance matrices is at most this many numbers (memory).
_BLOCK = 4_000_000
TESTS = ("ttest", "permutation")


@dataclass(frozen=True)
class ChangePoints:
    """Where the series changes: `indices` (sorted; a change at i means z[i] is the first
    value of the new segment), with each one's Q statistic and p-value."""

    indices: tuple[int, ...]
    statistics: tuple[float, ...]
    pvalues: tuple[float, ...]
    n: int


def _distances(z: np.ndarray) -> np.ndarray:
    return np.abs(z[..., :, None] - z[..., None, :])


def q_curve(d: np.ndarray, min_size: int) -> np.ndarray:
    """Q(z[:t], z[t:]) for t = min_size .. n - min_size of each distance matrix in `d`
    (shape (..., n, n)); see the module docstring for the sums."""
    n = d.shape[-1]
    rows = d.sum(axis=-1)
    lower = np.tril(d).sum(axis=-1)  # r_u: the pairs (u, i < u)
    zero = np.zeros(d.shape[:-2] + (1,))
    within_x = np.concatenate([zero, np.cumsum(lower, axis=-1)], axis=-1)  # pairs in z[:t]
    upper = rows - lower  # pairs (u, j > u)
    within_y = np.concatenate([np.cumsum(upper[..., ::-1], axis=-1)[..., ::-1], zero],
                              axis=-1)  # pairs in z[t:]
    total = within_x[..., -1:]
    t = np.arange(min_size, n - min_size + 1)
    wx, wy = within_x[..., t], within_y[..., t]
    cross = total - wx - wy
    nx, ny = t.astype(float), (n - t).astype(float)
    e = (2.0 * cross / (nx * ny) - wx / (nx * (nx - 1) / 2.0)
         - wy / (ny * (ny - 1) / 2.0))
    return nx * ny / (nx + ny) * e


def _best_split(d: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The largest Q of each distance matrix in `d` and the split t that gives it."""
    q = q_curve(d, min_size)
    at = np.argmax(q, axis=-1)
    return np.take_along_axis(q, at[..., None], axis=-1)[..., 0], at + min_size


def _permutation_p(z: np.ndarray, observed: float, min_size: int, permutations: int,
                   rng: np.random.Generator) -> float:
    """Permutation p-value of the segment's largest Q (Matteson & James §2.3)."""
    n = z.size
    block = max(1, _BLOCK // (n * n))
    exceed = done = 0
    while done < permutations:
        r = min(block, permutations - done)
        perm = rng.permuted(np.broadcast_to(z, (r, n)), axis=1)
        q, _ = _best_split(_distances(perm), min_size)
        exceed += int(np.count_nonzero(q >= observed * (1.0 - 1e-12)))
        done += r
    return (1.0 + exceed) / (permutations + 1.0)


def welch_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p-value of Welch's t-test of mean(x) = mean(y) (Welch 1947; df by
    Welch-Satterthwaite). Equal means with no spread: 1; different ones: 0."""
    from scipy.special import stdtr

    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    diff = abs(float(x.mean() - y.mean()))
    se2 = vx + vy
    if not se2 > 0.0:
        return 1.0 if diff == 0.0 else 0.0
    df = se2 ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
    return float(2.0 * stdtr(df, -diff / math.sqrt(se2)))


def e_divisive(values, *, min_size: int = 3, significance: float | None = None,
               test: str = "ttest", permutations: int = 199, seed=0) -> ChangePoints:
    """Change points of `values` by E-Divisive means (alpha = 1), see the module docstring.

    min_size: fewest values a segment may have (a change needs at least this many
    commits on each side). test: "ttest" (Otava's) or "permutation"; significance: its
    level (default 0.001 for the t-test, 0.05 for permutations); the search stops at the
    first candidate it does not reject. seed: the permutations' seed (an int, None, or a
    numpy Generator).
    """
    z = np.asarray(values, dtype=float)
    if z.ndim != 1:
        raise ValueError("values must be one-dimensional")
    if not np.all(np.isfinite(z)):
        raise ValueError("values must be finite")
    if min_size < 2:
        raise ValueError("min_size must be at least 2")
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}")
    if significance is None:
        significance = 0.001 if test == "ttest" else 0.05
    if not 0.0 < significance < 1.0:
        raise ValueError("significance must be between 0 and 1")
    if permutations < 1:
        raise ValueError("permutations must be at least 1")
    rng = np.random.default_rng(seed) if test == "permutation" else None
    scale = float(np.max(np.abs(z))) if z.size else 0.0
    zs = z / scale if scale > 0 else z  # Q is scale-equivariant: the split is the same
    d = _distances(zs) if z.size >= 2 * min_size else None
    bounds = [0, z.size]
    found: list[tuple[int, float, float]] = []
    cache: dict[tuple[int, int], tuple[float, int]] = {}
    while True:
        best: tuple[float, int, int, int] | None = None
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            if b - a < 2 * min_size:
                continue
            if (a, b) not in cache:
                q, t = _best_split(d[a:b, a:b], min_size)
                cache[(a, b)] = (float(q), int(t))
            q, t = cache[(a, b)]
            if best is None or q > best[0]:
                best = (q, a + t, a, b)
        if best is None or not best[0] > 0.0:
            break
        q, at, a, b = best
        if test == "ttest":
            p = welch_p(zs[a:at], zs[at:b])
        else:
            p = _permutation_p(zs[a:b], q, min_size, permutations, rng)
        if p > significance:
            break
        found.append((at, q * scale, p))
        bounds = sorted([*bounds, at])
    found.sort()
    return ChangePoints(tuple(i for i, _, _ in found), tuple(q for _, q, _ in found),
                        tuple(p for _, _, p in found), int(z.size))


def segments(n: int, indices: tuple[int, ...]) -> list[tuple[int, int]]:
    """The [start, end) segments that change points at `indices` cut 0..n into."""
    edges = [0, *indices, n]
    return [(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]


def minimum_length(min_size: int) -> int:
    """The shortest series in which E-Divisive can place one change point."""
    return 2 * min_size
