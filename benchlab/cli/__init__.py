"""benchlab.cli."""
