"""The bisect's progress line says an interval without a bound as the closing table does."""

from __future__ import annotations

import math

from benchlab.runner.bisect import _interval


def test_unbounded_ends_are_said_not_printed_as_minus_infinity():
    assert _interval(0.95, 1.25) == "[0.9500, 1.2500]"
    assert _interval(None, None) == "(unbounded)"  # was "[-inf, -inf]"
    assert _interval(0.8, None) == "[0.8000, unbounded]"
    assert _interval(None, 1.3) == "[unbounded, 1.3000]"
    assert _interval(-math.inf, math.inf) == "(unbounded)"
