"""Import every format module so its renderers are registered (benchlab.result.render).

One line per module, in alphabetical order: a new format module adds its line here.
"""

import benchlab.report.compare_formats  # noqa: F401
import benchlab.report.csv_format  # noqa: F401
import benchlab.report.design_formats  # noqa: F401
import benchlab.report.figures.registered  # noqa: F401
import benchlab.report.history_formats  # noqa: F401
import benchlab.report.html_format  # noqa: F401
import benchlab.report.json_format  # noqa: F401
import benchlab.report.markdown_rows  # noqa: F401
import benchlab.report.metrics_formats  # noqa: F401
import benchlab.report.model_formats  # noqa: F401
import benchlab.report.power_formats  # noqa: F401
import benchlab.report.summary_formats  # noqa: F401
import benchlab.report.test_formats  # noqa: F401
