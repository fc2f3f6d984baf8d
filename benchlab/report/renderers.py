"""Which report/ modules register the renderers of a format and a result type, imported
on first use (benchlab.result.renderer calls `load`).

Start-up: a plain `benchlab compare` must not import the renderers — and with them the
statistics — of every other analysis, nor the figures or the HTML page. So each family
of result types names its modules, and the formats that serve every type (CSV from
rows, Markdown from rows, HTML, figures) load only when asked for. A type whose module
is not listed loads everything. A new format module adds its line to FORMATS or
FAMILIES below.
"""

from __future__ import annotations

import importlib

# Modules every type may need for one format.
FORMATS: dict[str, tuple[str, ...]] = {
    "csv": ("benchlab.report.csv_format",),
    "markdown": ("benchlab.report.markdown_format",),
    "html": ("benchlab.report.html_format",),
    "figure": ("benchlab.report.figures.registered",),
}
# The modules that render the result types defined in a module (every format).
FAMILIES: dict[str, tuple[str, ...]] = {
    "benchlab.stats.compare": ("benchlab.report.compare.formats",
                               "benchlab.report.compare.bmf"),
    "benchlab.stats.suite": ("benchlab.report.compare.formats", "benchlab.report.compare.bmf"),
    "benchlab.stats.metrics": ("benchlab.report.metrics",
                               "benchlab.report.compare.formats"),
    "benchlab.stats.blocks": ("benchlab.report.store_design",
                              "benchlab.report.compare.formats"),
    "benchlab.stats.summary": ("benchlab.report.hierarchy", "benchlab.report.summary"),
    "benchlab.stats.hierarchy": ("benchlab.report.hierarchy",),
    "benchlab.stats.anova": ("benchlab.report.anova",),
    "benchlab.stats.qreg": ("benchlab.report.qreg",),
    "benchlab.stats.warmup": ("benchlab.report.warmup",),
    "benchlab.design.factorial": ("benchlab.report.design",),
    "benchlab.stats.protocols": ("benchlab.report.protocols",),
    "benchlab.stats.power": ("benchlab.report.power",),
    "benchlab.history.check": ("benchlab.report.history",),
    "benchlab.history.compare": ("benchlab.report.history",),
    "benchlab.history.show": ("benchlab.report.history",),
    "benchlab.history.publish": ("benchlab.report.history_site.formats",),
    "benchlab.runner.environment": ("benchlab.report.environment",),
    "benchlab.runner.session": ("benchlab.report.run",),
    "benchlab.runner.system_tune": ("benchlab.report.system",),
    "benchlab.runner.bisect": ("benchlab.report.bisect",),
    "benchlab.data.profile_diff": ("benchlab.report.profile_diff",),
}
EVERYTHING = tuple(sorted({m for mods in (*FORMATS.values(), *FAMILIES.values())
                           for m in mods}))
_loaded: set[tuple[str, type]] = set()


def _import(names) -> None:
    """Import each module; one that is missing (a typo in FORMATS or FAMILIES) raises."""
    for name in names:
        importlib.import_module(name)


def load(fmt: str, kind: type) -> None:
    """Import the modules that register `fmt` renderers for `kind` (once per pair)."""
    if (fmt, kind) in _loaded:
        return
    _import(FORMATS.get(fmt, ()))
    modules = [FAMILIES.get(k.__module__) for k in kind.__mro__ if k is not object]
    known = [m for m in modules if m is not None]
    if not known and kind.__module__ != "benchlab.result":
        _import(EVERYTHING)  # an unlisted type: every renderer, as safe as it is slow
    for names in known:
        _import(names)
    _loaded.add((fmt, kind))
