"""Factorial designs and run orders (docs/architecture.md: design layer)."""
