"""Change points of a series by E-Divisive means (Matteson & James 2014), vectorized.

E-Divisive is the method MongoDB's and Apache Otava's (hunter's) continuous
benchmarking use. It is written here by hand because no maintained
implementation fits a library: apache-otava 0.8 pins numpy==2.2.0 and
signal-processing-algorithms 2.1 installs numpy 1.x, and a library's users
cannot accept either pin. The statistic (alpha = 1), for X = z[s:t] (n
values) and Y = z[t:k] (m values), Matteson & James (2014), eqs. (4)-(5):

    E(X, Y) = 2/(nm) sum|x_i - y_j| - C(n,2)^-1 sum_{i<k}|x_i - x_k|
              - C(m,2)^-1 sum_{j<k}|y_j - y_k|
    Q(X, Y) = nm/(n+m) E(X, Y)

maximised over the split t and the end k of Y (k <= the segment's end), as in
the paper's §2.2. Every pair sum comes from one 2-D prefix sum of the distance
matrix, so one segment of n values costs O(n^2) numpy work for all (t, k) at
once. The divisive search splits the segment with the largest Q, and stops at
the first split a permutation test (§2.3: the values of the segment permuted,
its Q maximised again; p = (1 + #{Q_perm >= Q}) / (R + 1)) does not find
significant at `significance`.

The change points found are candidates: benchlab.history then judges each by a
ratio CI of the segments around it (docs/history.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A block of permuted distance matrices is at most this many numbers (memory).
_BLOCK = 4_000_000


@dataclass(frozen=True)
class ChangePoints:
    """Where the series changes: `indices` (sorted; a change at i means z[i] is the first
    value of the new segment), with each one's Q statistic and permutation p-value."""

    indices: tuple[int, ...]
    statistics: tuple[float, ...]
    pvalues: tuple[float, ...]
    n: int


def _prefix(d: np.ndarray) -> np.ndarray:
    """P[a, b] = sum of d[:a, :b], with a zero first row and column; the last axes."""
    shape = d.shape[:-2] + (d.shape[-2] + 1, d.shape[-1] + 1)
    p = np.zeros(shape)
    p[..., 1:, 1:] = d.cumsum(axis=-2).cumsum(axis=-1)
    return p


def _best_split(d: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The largest Q over (t, k) of each distance matrix in `d` (shape (..., n, n)), and
    the t that gives it. Splits with fewer than `min_size` values on a side are left out."""
    n = d.shape[-1]
    p = _prefix(d)
    t = np.arange(min_size, n - min_size + 1)
    k = np.arange(2 * min_size, n + 1)
    tt, kk = np.meshgrid(t, k, indexing="ij")
    ok = kk - tt >= min_size
    tt, kk = tt[ok], kk[ok]
    ptt = p[..., tt, tt]
    ptk = p[..., tt, kk]
    pkk = p[..., kk, kk]
    nx, ny = tt.astype(float), (kk - tt).astype(float)
    within_x = ptt / 2.0  # pairs inside X = z[:t]
    within_y = (pkk - 2.0 * ptk + ptt) / 2.0  # pairs inside Y = z[t:k]
    cross = ptk - ptt  # pairs between X and Y
    e = (2.0 * cross / (nx * ny) - within_x / (nx * (nx - 1) / 2.0)
         - within_y / (ny * (ny - 1) / 2.0))
    q = nx * ny / (nx + ny) * e
    at = np.argmax(q, axis=-1)
    return np.take_along_axis(q, at[..., None], axis=-1)[..., 0], tt[at]


def _distances(z: np.ndarray) -> np.ndarray:
    return np.abs(z[..., :, None] - z[..., None, :])


def _pvalue(z: np.ndarray, observed: float, min_size: int, permutations: int,
            rng: np.random.Generator) -> float:
    """Permutation p-value of the segment's largest Q (Matteson & James §2.3)."""
    n = z.size
    block = max(1, _BLOCK // (n * n))
    exceed = 0
    done = 0
    while done < permutations:
        r = min(block, permutations - done)
        perm = rng.permuted(np.broadcast_to(z, (r, n)), axis=1)
        q, _ = _best_split(_distances(perm), min_size)
        exceed += int(np.count_nonzero(q >= observed * (1.0 - 1e-12)))
        done += r
    return (1.0 + exceed) / (permutations + 1.0)


def e_divisive(values, *, min_size: int = 3, significance: float = 0.05,
               permutations: int = 199, seed=0) -> ChangePoints:
    """Change points of `values` by E-Divisive means (alpha = 1), see the module docstring.

    min_size: fewest values a segment may have (a change needs at least this many
    commits on each side). significance: the permutation test's level; the search
    stops at the first candidate it does not reject. seed: the permutations' seed (an int,
    None, or a numpy Generator).
    """
    z = np.asarray(values, dtype=float)
    if z.ndim != 1:
        raise ValueError("values must be one-dimensional")
    if not np.all(np.isfinite(z)):
        raise ValueError("values must be finite")
    if min_size < 2:
        raise ValueError("min_size must be at least 2")
    if not 0.0 < significance < 1.0:
        raise ValueError("significance must be between 0 and 1")
    if permutations < 1:
        raise ValueError("permutations must be at least 1")
    rng = np.random.default_rng(seed)
    scale = float(np.max(np.abs(z))) if z.size else 0.0
    zs = z / scale if scale > 0 else z  # Q is scale-equivariant: the split is the same
    bounds = [0, z.size]
    found: list[tuple[int, float, float]] = []
    cache: dict[tuple[int, int], tuple[float, int]] = {}
    while True:
        best: tuple[float, int, int, int] | None = None
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            if b - a < 2 * min_size:
                continue
            if (a, b) not in cache:
                q, t = _best_split(_distances(zs[a:b]), min_size)
                cache[(a, b)] = (float(q), int(t))
            q, t = cache[(a, b)]
            if best is None or q > best[0]:
                best = (q, a + t, a, b)
        if best is None or not best[0] > 0.0:
            break
        q, at, a, b = best
        p = _pvalue(zs[a:b], q, min_size, permutations, rng)
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

