"""The default settings of the warm-up classification (stats/warmup.py), apart from it so
that the command line can show them without importing numpy (`benchlab --help` stays
light)."""

PENALTY_FACTOR = 15.0  # Barrett et al.: penalty 15·log n
STEADY_FRACTION = 1.0 / 6.0  # the last 500 of 3,000 iterations
THRESHOLD = 0.02
MIN_ITERATIONS = 30
