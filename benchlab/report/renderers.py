"""Import every format module so its renderers are registered (benchlab.result.render)."""

from benchlab.report import json_format  # noqa: F401
