"""Import every figure module so its `@renders("figure", ...)` functions are registered.

`report/renderers.py` imports this module; a new figure module adds its line here.
matplotlib is not imported by any of them until a figure is drawn.
"""

import benchlab.report.figures.compare  # noqa: F401
import benchlab.report.figures.hierarchy  # noqa: F401
import benchlab.report.figures.history  # noqa: F401
import benchlab.report.figures.models  # noqa: F401
import benchlab.report.figures.power  # noqa: F401
import benchlab.report.figures.protocols  # noqa: F401
import benchlab.report.figures.reports  # noqa: F401
import benchlab.report.figures.warmup  # noqa: F401
