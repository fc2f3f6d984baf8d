"""tests/fuzz's helpers (corpus, harness) import each other by name: put them on sys.path."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
