"""Factorial designs and run orders (DESIGN.md: design layer)."""
