"""benchlab.report."""
