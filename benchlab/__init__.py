"""benchlab: a laboratory for rigorous computer performance experiments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "compare", "summary", "plan", "Dataset", "ComparisonReport",
           "factorial_design", "anova", "qreg", "speedup_test", "speedup_suite", "kruskal_test",
           "run_experiment", "read_store", "read", "compare_groups", "compare_suite"]

if TYPE_CHECKING:  # pragma: no cover
    from benchlab.api import (
        ComparisonReport,
        anova,
        compare,
        compare_groups,
        compare_suite,
        factorial_design,
        kruskal_test,
        plan,
        qreg,
        read,
        read_store,
        run_experiment,
        speedup_suite,
        speedup_test,
        summary,
    )
    from benchlab.data.dataset import Dataset


def __getattr__(name: str) -> Any:
    """Import the API lazily so `import benchlab` stays cheap for the CLI."""
    if name in ("compare", "summary", "plan", "ComparisonReport", "factorial_design", "anova",
                "qreg",
                "speedup_test", "speedup_suite", "kruskal_test", "run_experiment",
                "read_store", "read", "compare_groups", "compare_suite"):
        from benchlab import api

        return getattr(api, name)
    if name == "Dataset":
        from benchlab.data.dataset import Dataset

        return Dataset
    raise AttributeError(f"module 'benchlab' has no attribute {name!r}")
