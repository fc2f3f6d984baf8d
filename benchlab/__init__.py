"""benchlab: a laboratory for rigorous computer performance experiments."""

from __future__ import annotations

import typing as _typing

from benchlab.version import __version__

__all__ = ["__version__", "compare", "compare_groups", "compare_suite", "summary", "plan",
           "ComparisonReport", "factorial_design", "anova", "qreg", "speedup_test",
           "speedup_suite", "kruskal_test", "run_experiment", "read_store", "read", "Dataset"]
_API = frozenset(__all__) - {"__version__", "Dataset"}  # what benchlab.api gives

if _typing.TYPE_CHECKING:  # pragma: no cover
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


def __getattr__(name: str) -> _typing.Any:
    """Import the API lazily so `import benchlab` stays cheap for the CLI."""
    if name in _API:
        from benchlab import api

        return getattr(api, name)
    if name == "Dataset":
        from benchlab.data.dataset import Dataset

        return Dataset
    raise AttributeError(f"module 'benchlab' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (what `from benchlab import *` gives), not the module's helpers."""
    return sorted(__all__)
