"""What the benchmarks that set source trees side by side share (run_startup.py,
runner_cpu.py, runner_overhead.py): the CPU time of the reaped children, a tree's
environment with its bytecode cached, and a row of per-tree medians."""

from __future__ import annotations

import os
import resource
import statistics


def children_cpu() -> float:
    """User + system CPU seconds of every reaped child (and its reaped descendants) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def tree_env(tree: str, pycache: str) -> dict[str, str]:
    """The environment that runs benchlab from `tree`, bytecode cached under `pycache` as an
    installed package has it (PYTHONDONTWRITEBYTECODE, set in some containers, would make
    every start compile benchlab's modules again)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def median_row(label: str, per_tree: list[list[float]], width: int = 28) -> str:
    """`label` and, per tree, the median of its values (seconds) in ms."""
    return f"  {label:<{width}}" + "".join(f"{statistics.median(v) * 1e3:>9.0f} ms"
                                          for v in per_tree)
