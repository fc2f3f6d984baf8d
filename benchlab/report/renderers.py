"""Import every format module so its renderers are registered (benchlab.result.render)."""

from benchlab.report import compare_formats, csv_format, json_format, summary_formats  # noqa: F401
from benchlab.report import html_format  # noqa: F401
