"""benchlab's version, in the base layer so every layer can name it without importing the
package's `__init__` (which sits above them all: it offers the API)."""

from __future__ import annotations

__version__ = "0.1.0"
