"""Exact rescaling so magnitudes from 1e-300 to 1e300 give the answers of magnitude 1.

Variances square the data: values near 1e200 overflow to inf and values near
1e-200 underflow to 0 (Fieller's g = t² v_b / b² divides by zero). Multiplying
by a power of two changes only the exponent of each float, so the computation
on the scaled data is the computation on the original data, exactly, and
results in data units are scaled back the same way.
"""

from __future__ import annotations

import math

import numpy as np


def power_of_two_scale(*arrays: np.ndarray) -> float:
    """2**k that brings the largest |value| of `arrays` to [0.5, 1); 1.0 for all zeros."""
    peak = max((float(np.max(np.abs(a))) for a in arrays if np.size(a)), default=0.0)
    if peak == 0.0 or not math.isfinite(peak):
        return 1.0
    _, exponent = math.frexp(peak)
    # 2**1000 at most: a subnormal peak (exponent -1073) is brought near 1e-19, close
    # enough that its squares stay normal numbers, and 2**-exponent would overflow
    return math.ldexp(1.0, min(max(-exponent, -1000), 1000))
