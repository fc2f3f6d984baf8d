"""What the runner's progress bar costs per trial, redrawn at every trial or at most ten
times a second (runner/progress.RichProgress.REDRAW).

    PYTHONPATH=. python3 benchmarks/progress_redraw.py [TRIALS]
"""

from __future__ import annotations

import io
import sys
import time

from benchlab.runner.plan import Trial
from benchlab.runner.progress import RichProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def per_trial(trials: int, redraw: float) -> float:
    """Milliseconds of begin() + end() per trial."""
    progress = RichProgress(_Terminal())
    progress.REDRAW = redraw
    trial = Trial(1, 1, "execution", "sleep 0.01", (), 1, 1, False)
    progress.start(trials, 0)
    started = time.perf_counter()
    for _ in range(trials):
        progress.begin(trial)
        progress.end(trial, None, 0.01)
    elapsed = time.perf_counter() - started
    progress.close()
    return elapsed / trials * 1000


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"every trial redrawn: {per_trial(trials, 0.0):.3f} ms per trial")
    print(f"at most 10 redraws a second: {per_trial(trials, RichProgress.REDRAW):.3f} ms "
          "per trial")


if __name__ == "__main__":
    main()
