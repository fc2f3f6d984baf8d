"""FreeBSD ministat's statistics, computed exactly as ministat computes them (STATS.md §2).

Pure Python on plain floats (C doubles), no numpy: `benchlab compare --ministat`
must start fast. The computation order follows current FreeBSD
usr.bin/ministat/ministat.c so that its ``%g`` output is reproduced to the last
digit:

- the mean is the running sum of the values *in input order*, divided by n;
- the variance is a second pass over the *sorted* values,
  ``sum((x - mean) * (x - mean)) / (n - 1.0)``;
- the median is the true median (mean of the two middle values for even n);
- the comparison uses ministat's embedded Student's t table (``STUDENT_T``)
  with its quirks, and the 2016 formula for the percent half-width.

This module only computes; `benchlab.report.ministat` renders.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: The confidence levels ministat knows (its ``-c`` values), in table-column order.
CONFIDENCE_LEVELS: tuple[float, ...] = (80.0, 90.0, 95.0, 98.0, 99.0, 99.5)
#: ministat's default ``-c`` (95%) as a column index.
DEFAULT_CONFIDENCE_INDEX = 2
#: Largest df with its own row in the table; larger df use row 0.
MAX_TABLE_DF = 100
#: ministat reads at most this many data sets.
MAX_DATASETS = 7
#: ministat refuses a data set with fewer points.
MIN_POINTS = 3
#: Plot and table symbol of each data set, by position (set 1 is "x").
SYMBOLS = " x+*%#@O"
#: Computation flavors: current FreeBSD ministat (the default and the target),
#: and the 2015 port that Debian packages ("ministat 20150715"), kept so the
#: tests can check benchlab against that real binary (tests/fixtures/ministat).
CURRENT = "current"
LEGACY_2015 = "2015"
FLAVORS = (CURRENT, LEGACY_2015)

#: ministat's t table, values as printed in ministat.c. Row 0 is the normal
#: distribution (used for every df > 100); row k is df = k. The columns follow
#: CONFIDENCE_LEVELS. Quirk kept on purpose: the "99.5" column holds the
#: one-sided 0.999 quantiles (two-sided 99.8%), not the 0.9975 ones.
STUDENT_T: tuple[tuple[float, ...], ...] = (
    (1.282, 1.645, 1.960, 2.326, 2.576, 3.090),  # inf
    (3.078, 6.314, 12.706, 31.821, 63.657, 318.313),  # 1
    (1.886, 2.920, 4.303, 6.965, 9.925, 22.327),  # 2
    (1.638, 2.353, 3.182, 4.541, 5.841, 10.215),  # 3
    (1.533, 2.132, 2.776, 3.747, 4.604, 7.173),  # 4
    (1.476, 2.015, 2.571, 3.365, 4.032, 5.893),  # 5
    (1.440, 1.943, 2.447, 3.143, 3.707, 5.208),  # 6
    (1.415, 1.895, 2.365, 2.998, 3.499, 4.782),  # 7
    (1.397, 1.860, 2.306, 2.896, 3.355, 4.499),  # 8
    (1.383, 1.833, 2.262, 2.821, 3.250, 4.296),  # 9
    (1.372, 1.812, 2.228, 2.764, 3.169, 4.143),  # 10
    (1.363, 1.796, 2.201, 2.718, 3.106, 4.024),  # 11
    (1.356, 1.782, 2.179, 2.681, 3.055, 3.929),  # 12
    (1.350, 1.771, 2.160, 2.650, 3.012, 3.852),  # 13
    (1.345, 1.761, 2.145, 2.624, 2.977, 3.787),  # 14
    (1.341, 1.753, 2.131, 2.602, 2.947, 3.733),  # 15
    (1.337, 1.746, 2.120, 2.583, 2.921, 3.686),  # 16
    (1.333, 1.740, 2.110, 2.567, 2.898, 3.646),  # 17
    (1.330, 1.734, 2.101, 2.552, 2.878, 3.610),  # 18
    (1.328, 1.729, 2.093, 2.539, 2.861, 3.579),  # 19
    (1.325, 1.725, 2.086, 2.528, 2.845, 3.552),  # 20
    (1.323, 1.721, 2.080, 2.518, 2.831, 3.527),  # 21
    (1.321, 1.717, 2.074, 2.508, 2.819, 3.505),  # 22
    (1.319, 1.714, 2.069, 2.500, 2.807, 3.485),  # 23
    (1.318, 1.711, 2.064, 2.492, 2.797, 3.467),  # 24
    (1.316, 1.708, 2.060, 2.485, 2.787, 3.450),  # 25
    (1.315, 1.706, 2.056, 2.479, 2.779, 3.435),  # 26
    (1.314, 1.703, 2.052, 2.473, 2.771, 3.421),  # 27
    (1.313, 1.701, 2.048, 2.467, 2.763, 3.408),  # 28
    (1.311, 1.699, 2.045, 2.462, 2.756, 3.396),  # 29
    (1.310, 1.697, 2.042, 2.457, 2.750, 3.385),  # 30
    (1.309, 1.696, 2.040, 2.453, 2.744, 3.375),  # 31
    (1.309, 1.694, 2.037, 2.449, 2.738, 3.365),  # 32
    (1.308, 1.692, 2.035, 2.445, 2.733, 3.356),  # 33
    (1.307, 1.691, 2.032, 2.441, 2.728, 3.348),  # 34
    (1.306, 1.690, 2.030, 2.438, 2.724, 3.340),  # 35
    (1.306, 1.688, 2.028, 2.434, 2.719, 3.333),  # 36
    (1.305, 1.687, 2.026, 2.431, 2.715, 3.326),  # 37
    (1.304, 1.686, 2.024, 2.429, 2.712, 3.319),  # 38
    (1.304, 1.685, 2.023, 2.426, 2.708, 3.313),  # 39
    (1.303, 1.684, 2.021, 2.423, 2.704, 3.307),  # 40
    (1.303, 1.683, 2.020, 2.421, 2.701, 3.301),  # 41
    (1.302, 1.682, 2.018, 2.418, 2.698, 3.296),  # 42
    (1.302, 1.681, 2.017, 2.416, 2.695, 3.291),  # 43
    (1.301, 1.680, 2.015, 2.414, 2.692, 3.286),  # 44
    (1.301, 1.679, 2.014, 2.412, 2.690, 3.281),  # 45
    (1.300, 1.679, 2.013, 2.410, 2.687, 3.277),  # 46
    (1.300, 1.678, 2.012, 2.408, 2.685, 3.273),  # 47
    (1.299, 1.677, 2.011, 2.407, 2.682, 3.269),  # 48
    (1.299, 1.677, 2.010, 2.405, 2.680, 3.265),  # 49
    (1.299, 1.676, 2.009, 2.403, 2.678, 3.261),  # 50
    (1.298, 1.675, 2.008, 2.402, 2.676, 3.258),  # 51
    (1.298, 1.675, 2.007, 2.400, 2.674, 3.255),  # 52
    (1.298, 1.674, 2.006, 2.399, 2.672, 3.251),  # 53
    (1.297, 1.674, 2.005, 2.397, 2.670, 3.248),  # 54
    (1.297, 1.673, 2.004, 2.396, 2.668, 3.245),  # 55
    (1.297, 1.673, 2.003, 2.395, 2.667, 3.242),  # 56
    (1.297, 1.672, 2.002, 2.394, 2.665, 3.239),  # 57
    (1.296, 1.672, 2.002, 2.392, 2.663, 3.237),  # 58
    (1.296, 1.671, 2.001, 2.391, 2.662, 3.234),  # 59
    (1.296, 1.671, 2.000, 2.390, 2.660, 3.232),  # 60
    (1.296, 1.670, 2.000, 2.389, 2.659, 3.229),  # 61
    (1.295, 1.670, 1.999, 2.388, 2.657, 3.227),  # 62
    (1.295, 1.669, 1.998, 2.387, 2.656, 3.225),  # 63
    (1.295, 1.669, 1.998, 2.386, 2.655, 3.223),  # 64
    (1.295, 1.669, 1.997, 2.385, 2.654, 3.220),  # 65
    (1.295, 1.668, 1.997, 2.384, 2.652, 3.218),  # 66
    (1.294, 1.668, 1.996, 2.383, 2.651, 3.216),  # 67
    (1.294, 1.668, 1.995, 2.382, 2.650, 3.214),  # 68
    (1.294, 1.667, 1.995, 2.382, 2.649, 3.213),  # 69
    (1.294, 1.667, 1.994, 2.381, 2.648, 3.211),  # 70
    (1.294, 1.667, 1.994, 2.380, 2.647, 3.209),  # 71
    (1.293, 1.666, 1.993, 2.379, 2.646, 3.207),  # 72
    (1.293, 1.666, 1.993, 2.379, 2.645, 3.206),  # 73
    (1.293, 1.666, 1.993, 2.378, 2.644, 3.204),  # 74
    (1.293, 1.665, 1.992, 2.377, 2.643, 3.202),  # 75
    (1.293, 1.665, 1.992, 2.376, 2.642, 3.201),  # 76
    (1.293, 1.665, 1.991, 2.376, 2.641, 3.199),  # 77
    (1.292, 1.665, 1.991, 2.375, 2.640, 3.198),  # 78
    (1.292, 1.664, 1.990, 2.374, 2.640, 3.197),  # 79
    (1.292, 1.664, 1.990, 2.374, 2.639, 3.195),  # 80
    (1.292, 1.664, 1.990, 2.373, 2.638, 3.194),  # 81
    (1.292, 1.664, 1.989, 2.373, 2.637, 3.193),  # 82
    (1.292, 1.663, 1.989, 2.372, 2.636, 3.191),  # 83
    (1.292, 1.663, 1.989, 2.372, 2.636, 3.190),  # 84
    (1.292, 1.663, 1.988, 2.371, 2.635, 3.189),  # 85
    (1.291, 1.663, 1.988, 2.370, 2.634, 3.188),  # 86
    (1.291, 1.663, 1.988, 2.370, 2.634, 3.187),  # 87
    (1.291, 1.662, 1.987, 2.369, 2.633, 3.185),  # 88
    (1.291, 1.662, 1.987, 2.369, 2.632, 3.184),  # 89
    (1.291, 1.662, 1.987, 2.368, 2.632, 3.183),  # 90
    (1.291, 1.662, 1.986, 2.368, 2.631, 3.182),  # 91
    (1.291, 1.662, 1.986, 2.368, 2.630, 3.181),  # 92
    (1.291, 1.661, 1.986, 2.367, 2.630, 3.180),  # 93
    (1.291, 1.661, 1.986, 2.367, 2.629, 3.179),  # 94
    (1.291, 1.661, 1.985, 2.366, 2.629, 3.178),  # 95
    (1.290, 1.661, 1.985, 2.366, 2.628, 3.177),  # 96
    (1.290, 1.661, 1.985, 2.365, 2.627, 3.176),  # 97
    (1.290, 1.661, 1.984, 2.365, 2.627, 3.175),  # 98
    (1.290, 1.660, 1.984, 2.365, 2.626, 3.175),  # 99
    (1.290, 1.660, 1.984, 2.364, 2.626, 3.174),  # 100
)


@dataclass(frozen=True)
class MinistatSample:
    """One data set as ministat sees it: its points sorted and its vitals.

    `mean` is the running sum in input order divided by n, `variance` the
    second-pass sum of squared deviations over the sorted points divided by
    n - 1, `median` the true median (for flavor "2015" see `describe`).
    """

    name: str
    points: tuple[float, ...]
    n: int
    min: float
    max: float
    median: float
    mean: float
    variance: float
    stddev: float


@dataclass(frozen=True)
class MinistatComparison:
    """ministat's comparison of one data set (candidate) with the first (baseline).

    Student's t with pooled variance and t from ministat's table.
    `half_width` is the half-width of the CI of `difference`;
    `percent` and `percent_half_width` express both relative to the baseline
    mean, the latter by the 2016 formula (the uncertainty of the ratio, not
    `half_width` scaled as the "2015" flavor has it). `significant` is
    ministat's test: |difference| > half_width.
    """

    candidate: str
    baseline: str
    confidence: float
    df: int
    t: float
    pooled_stddev: float
    difference: float
    half_width: float
    percent: float
    percent_half_width: float
    significant: bool
    method: str = "Student's t, pooled variance, ministat's t table"


def confidence_index(level: float) -> int:
    """The table column of a confidence `level` in percent; ValueError if ministat has none."""
    for index, pct in enumerate(CONFIDENCE_LEVELS):
        if level == pct:
            return index
    raise ValueError(f"no support for confidence level {level:g}")


def student_t(df: int, confidence_idx: int = DEFAULT_CONFIDENCE_INDEX) -> float:
    """ministat's t for `df` degrees of freedom: the table row, or the normal row above 100."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    return STUDENT_T[0 if df > MAX_TABLE_DF else df][confidence_idx]


def _check_flavor(flavor: str) -> None:
    if flavor not in FLAVORS:
        raise ValueError(f"unknown ministat flavor {flavor!r} (known: {', '.join(FLAVORS)})")


def _sqrt(x: float) -> float:
    """C's sqrt: NaN for a negative argument instead of an exception."""
    return math.sqrt(x) if not x < 0 else math.nan


def _div(a: float, b: float) -> float:
    """a / b with IEEE-754 results for b == 0, as C computes it."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def describe(name: str, values: Iterable[float], *, flavor: str = CURRENT) -> MinistatSample:
    """ministat's vitals of one data set (values in input order).

    `flavor` "2015" computes as the 2015 port packaged by Debian does: the
    median is the upper middle value for even n and the variance comes from
    running sums, ``(syy - sy * sy / n) / (n - 1.0)`` (NaN when rounding makes
    it negative). The tests use it to check every output against that binary.
    """
    _check_flavor(flavor)
    raw = [float(v) for v in values]
    n = len(raw)
    if n < MIN_POINTS:
        raise ValueError(f"data set {name} has {n} points; ministat needs at least {MIN_POINTS}")
    if not all(math.isfinite(v) for v in raw):
        raise ValueError(f"data set {name} contains NaN or infinity")
    # Explicit loops, not sum(): ministat adds in this order, and Python >= 3.12's
    # sum() of floats uses compensated summation, which can differ in the last bit.
    total = 0.0
    for value in raw:
        total += value
    mean = total / n
    points = tuple(sorted(raw))
    half = n // 2
    squares = 0.0
    if flavor == LEGACY_2015:
        for value in raw:
            squares += value * value
        variance = (squares - total * total / n) / (n - 1.0)
        median = points[half]
    else:
        for point in points:
            squares += (point - mean) * (point - mean)
        variance = squares / (n - 1.0)
        median = (points[half] + points[half - 1]) / 2 if n % 2 == 0 else points[half]
    return MinistatSample(name, points, n, points[0], points[-1], median, mean,
                          variance, _sqrt(variance))


def relative(candidate: MinistatSample, baseline: MinistatSample,
            confidence_idx: int = DEFAULT_CONFIDENCE_INDEX, *,
            flavor: str = CURRENT) -> MinistatComparison:
    """ministat's Relative(): `candidate` against `baseline` (the first data set).

    `flavor` "2015" gives the percent half-width as the 2015 port prints it:
    the difference's half-width divided by the baseline mean.
    """
    _check_flavor(flavor)
    nd, nr = candidate.n, baseline.n
    vd, vr = candidate.variance, baseline.variance
    md, mr = candidate.mean, baseline.mean
    df = nd + nr - 2
    t = student_t(df, confidence_idx)
    spool = _sqrt(((nd - 1) * vd + (nr - 1) * vr) / df)
    s = spool * math.sqrt(1.0 / nd + 1.0 / nr)
    d = md - mr
    e = t * s
    # re = t * sqrt(((nd-1) vd + (nr-1) vr md^2 / mr^2) * (nd+nr) / (nd nr (nd+nr-2)))
    re = (nd - 1) * vd + _div((nr - 1) * vr * (md * md), mr * mr)
    re *= (nd + nr) / ((nd * nr) * (nd + nr - 2.0))
    re = t * _sqrt(re)
    if flavor == LEGACY_2015:
        re = e
    return MinistatComparison(
        candidate=candidate.name,
        baseline=baseline.name,
        confidence=CONFIDENCE_LEVELS[confidence_idx],
        df=df,
        t=t,
        pooled_stddev=spool,
        difference=d,
        half_width=e,
        percent=_div(d * 100, mr),
        percent_half_width=_div(re * 100, mr),
        significant=abs(d) > e,
    )
