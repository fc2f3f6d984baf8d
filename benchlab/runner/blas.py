"""The runner's own numpy (and scipy) on one BLAS thread, the commands' environment untouched.

numpy's and scipy's OpenBLAS each start a worker thread per extra core when
they are loaded. A runner that holds idle threads pays about 20 µs more per
spawned command (on `true`, 687 against 666 µs, interleaved fresh processes on
this project's 2-core machine: benchmarks/runner_overhead.py measures the
runner), and the runner needs no parallel linear algebra. So `benchlab run`
loads numpy with OPENBLAS_NUM_THREADS (and the OpenMP and MKL equivalents) set
to 1 and restores the variables at once (no command starts meanwhile: the
variables never reach one). It loads numpy where it is first needed: before the
first execution only for a run that needs it while running (a stopping rule, a
steady state, a cluster: session.numpy_while_running), else for the analysis
printed after the executions, so that a plain run's first execution does not
wait for numpy's import (about 100 ms). scipy.special (the t quantiles of the
stopping rule) is loaded the same way, only when a stopping rule first needs
it: importing it costs about 0.2-0.5 s of start-up, more than 200 executions of
`true`.
"""

from __future__ import annotations

import os
import sys

_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def load_single_threaded(scipy: bool = False, modules: tuple[str, ...] = ()) -> None:
    """Import numpy (and scipy.special with `scipy`, and `modules`) with one BLAS thread; a
    no-op for what is loaded already."""
    wanted = ("numpy", *(("scipy.special",) if scipy else ()), *modules)
    if all(name in sys.modules for name in wanted):
        return
    import importlib

    saved = {name: os.environ.get(name) for name in _VARIABLES}
    try:
        for name in _VARIABLES:
            os.environ[name] = "1"
        for name in wanted:  # scipy.special: the stopping rule's t quantiles
            importlib.import_module(name)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
